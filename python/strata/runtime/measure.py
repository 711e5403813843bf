"""Measure-both fusion: time each fusion candidate fused and unfused, keep the faster.

``strata.compile(..., fusion="measure")`` (or ``@strata.jit(fusion="measure")``)
compiles the function once with strata-fuse's own decisions, then once per
candidate with that one decision flipped, runs each on random inputs of the
call's actual shapes, and keeps the faster choice per candidate. The report
(``program.stats.fusion_report``) records, per candidate, the cost model's
prediction next to the measured times — a check of the cost model.

The choice between generated code and a BLAS call for a matmul (strata-fuse's
``blas=auto``) is a candidate too: its two ways are timed the same way, and the
report gives the cost model's predicted times next to the measured ones.

Candidates are named by a key made from the two ops and their source lines.
Each flip is measured against the cost model's baseline. A flipped decision
can change the ops that later candidates see (e.g. an epilogue whose consumer
is now another op), so the final compile may meet a candidate that was not
measured: it keeps the cost model's decision, and the final remarks in the
report say what was done.
"""

from __future__ import annotations

import re
import time

import numpy as np

from ..dialect.types import numpy_dtype

__all__ = ["choose_fusion", "time_call", "per_call"]

_CANDIDATE = re.compile(r"strata-fuse: \[([0-9a-f]+)\] "
                        r"(fused|not fusing|tiled|BLAS sgemm for|generated code for)")
_PREDICTED = re.compile(r"predicted (BLAS [0-9.e+]+ [mu]s), (generated [0-9.e+]+ [mu]s)")


def _inputs(arg_specs, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for shape, dtype in arg_specs:
        if dtype == "i32":
            out.append(rng.integers(-8, 8, size=shape).astype(np.int32))
        else:
            out.append(rng.standard_normal(shape).astype(numpy_dtype(dtype)))
    return out


def per_call(fn, args, budget: float = 0.3, repeats: int = 5) -> float:
    """Best-of-``repeats`` mean seconds per ``fn(*args)``, after one warm-up call."""
    fn(*args)
    best = float("inf")
    for _ in range(repeats):
        n, start = 0, time.perf_counter()
        while True:
            fn(*args)
            n += 1
            elapsed = time.perf_counter() - start
            if elapsed >= budget / repeats:
                break
        best = min(best, elapsed / n)
    return best


def time_call(compiled, arrays, budget: float = 0.05, repeats: int = 3) -> float:
    """Seconds per call of a compiled function on ``arrays`` (see per_call)."""
    return per_call(lambda *a: compiled.run(list(a)), arrays, budget, repeats)


def choose_fusion(program, fname, arg_specs):
    """``(strata-fuse options, report lines)`` after measuring every candidate both ways."""
    arrays = _inputs(arg_specs)
    base, remarks, _ = program.build(arg_specs, function=fname)
    base_time = time_call(base, arrays)
    candidates = []
    for r in remarks:
        m = _CANDIDATE.search(str(r))
        if m:
            candidates.append((m.group(1), m.group(2) not in ("not fusing", "generated code for"),
                               str(r)))
    chosen, report = [], []
    for number, fused, _text in candidates:
        flip = "off" if fused else "on"
        variant, _, _ = program.build(arg_specs, function=fname,
                                      fuse_options=f"report=true decisions={number}={flip}")
        t = time_call(variant, arrays)
        fused_t, unfused_t = (base_time, t) if fused else (t, base_time)
        keep_fused = fused_t <= unfused_t * 1.02 if fused else fused_t < unfused_t * 0.98
        # Every measured decision is pinned (not only the flips): a flip elsewhere can
        # change what the cost model would say about an unflipped candidate.
        chosen.append(f"{number}={'on' if keep_fused else 'off'}")
        if "BLAS sgemm for" in _text or "generated code for" in _text:
            predicted = _PREDICTED.search(_text)
            report.append(
                f"strata-fuse measure: [{number}] predicted {'BLAS' if fused else 'generated'}"
                f" ({predicted.group(1)}, {predicted.group(2)}); measured BLAS "
                f"{fused_t * 1e6:.1f} us, generated {unfused_t * 1e6:.1f} us -> "
                f"{'BLAS' if keep_fused else 'generated'}"
                f"{'' if keep_fused == fused else ' (cost model overruled)'}")
            continue
        report.append(
            f"strata-fuse measure: [{number}] predicted {'fuse' if fused else 'no fusion'}; "
            f"measured fused {fused_t * 1e6:.1f} us, unfused {unfused_t * 1e6:.1f} us -> "
            f"{'fuse' if keep_fused else 'no fusion'}"
            f"{'' if keep_fused == fused else ' (cost model overruled)'}")
    options = "report=true" + (f" decisions={','.join(chosen)}" if chosen else "")
    return options, report
