"""The four costs of a jitted function, measured and shown in one table.

    f = strata.jit(model)
    print(f.report(x, w))

    cost                          time      what was measured
    cold compile                  412 ms    trace, every level, native code (empty cache)
    restart (disk hit)            31.2 ms   first call of a fresh function object, entry on disk
    warm call                     38.5 us   best-of-5 mean per call
    new shape, compiled           405 ms    first call with dim 0 of 'x' changed (5 -> 6)
    new shape, dynamic variant    40.1 us   a third size, served by the dynamic variant
    bucket pad + slice            2.1 us    per padded call (with strata.jit(buckets=...))

Each row is measured on the spot: the cold compile uses a private, empty cache
folder (so it never reads another run's entry) which the restart row then hits;
the new-shape rows change dim 0 of the first array argument of size >= 2 (none:
they are left out). bench/ uses the same function.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass

import numpy as np

from .measure import per_call

__all__ = ["measure_costs", "CostReport"]


@dataclass
class CostReport:
    rows: list  # (cost, seconds, what)

    def __str__(self) -> str:
        lines = [f"{'cost':<30}{'time':>10}   what was measured"]
        for cost, seconds, what in self.rows:
            lines.append(f"{cost:<30}{_time(seconds):>10}   {what}")
        return "\n".join(lines)

    def as_dict(self) -> dict:
        return {cost: seconds for cost, seconds, _ in self.rows}


def _time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} us"


def _grown(args, names):
    """``(args with dim 0 of one array + 1, description)``, or None if no dim fits."""
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray) and a.ndim and a.shape[0] >= 2:
            def grow(k, a=a):
                shape = (a.shape[0] + k,) + a.shape[1:]
                return np.resize(a, shape).astype(a.dtype)
            return ([grow(1) if j == i else b for j, b in enumerate(args)],
                    [grow(2) if j == i else b for j, b in enumerate(args)],
                    f"dim 0 of '{names[i]}' changed ({a.shape[0]} -> {a.shape[0] + 1})")
    return None


def measure_costs(make, args, names) -> CostReport:
    """Measures the four costs of ``make()`` (a fresh jit function each time) on ``args``."""
    rows = []
    saved = os.environ.get("STRATA_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="strata-report-") as cache:
        os.environ["STRATA_CACHE_DIR"] = cache
        try:
            cold = make()
            start = time.perf_counter()
            cold(*args)
            rows.append(("cold compile", time.perf_counter() - start,
                         "trace, every level, native code (empty cache)"))
            again = make()
            start = time.perf_counter()
            again(*args)
            rows.append(("restart (disk hit)", time.perf_counter() - start,
                         "first call of a fresh function object, entry on disk"))
            rows.append(("warm call", per_call(cold, args), "best-of-5 mean per call"))
            grown = _grown(args, names)
            if grown is not None:
                bigger, biggest, what = grown
                start = time.perf_counter()
                cold(*bigger)
                rows.append(("new shape, compiled", time.perf_counter() - start,
                             f"first call with {what}"))
                dynamic = any(None in shape for guard in cold.variants()
                              if isinstance(guard[0], tuple) and len(guard[0]) == 2
                              for shape, _ in guard)
                rows.append((f"new shape, {'dynamic variant' if dynamic else 'recompiled'}",
                             per_call(cold, biggest),
                             "a third size, served by the dynamic variant" if dynamic else
                             "a third size (automatic dynamic off or not possible)"))
            if getattr(cold, "_buckets", None) is not None:
                costs = cold.bucket_costs()
                if costs["padded_calls"]:
                    rows.append(("bucket pad + slice",
                                 costs["pad_slice_seconds"] / costs["padded_calls"],
                                 f"per padded call ({costs['padded_rows']} rows padded for "
                                 f"{costs['rows']} asked, {costs['padded_calls']} of "
                                 f"{costs['calls']} calls)"))
        finally:
            if saved is None:
                os.environ.pop("STRATA_CACHE_DIR", None)
            else:
                os.environ["STRATA_CACHE_DIR"] = saved
    return CostReport(rows)
