"""strata.tune: search the choices of each heavy op, measure, keep the winners in the record.

Per matmul that strata-vectorize tiles (convs become matmuls first, so they count;
signatures from passes/tuning.py, found at the ``layout`` level), the search
tries the choices the strategy exposes, in groups: the thread split (``pf``, with
threads > 1: run the op's tiles on threads or on one), the packed micro-kernel's
shape (``mr x nr``), the packed cache tile (``pm x pn x pk``), tiles in place
(``pack0``: cache tile ``cm x cn x ck``, register tile ``rm x rn``) and, with
``blas="auto"``, the other side of strata-fuse's BLAS-or-generated choice
(``blas1``/``blas0``; an op the cost model gives to BLAS is only tried generated).
Each candidate is the whole function compiled with that op's choice (the other
ops at their best so far) and timed by autotune/measure.py (warm-up, rounds, noisy
ones re-taken then rejected); its result is checked against the default build's.
The fastest config of each group that beats the default are then merged into
one more candidate (a micro-kernel with a cache tile and a thread split). A
winner must beat the default by ``margin``, then the two are timed again,
interleaved, and the entry (runtime/tuning_record.py) records both times.
``executor="ray"`` sends the candidate builds and measurements to Ray tasks
(autotune/ray_executor.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .measure import evaluate

__all__ = ["tune", "TuneResult", "candidates", "heavy_ops", "attention_ops", "evaluate"]

_PACKED = [(64, 256, 256), (128, 128, 256), (128, 256, 128), (128, 256, 512),
           (256, 256, 256), (64, 128, 128), (128, 512, 256), (256, 512, 128)]
_IN_PLACE = [(32, 64, 128), (64, 64, 256), (32, 128, 64), (128, 128, 128), (16, 256, 128),
             (64, 256, 64), (64, 128, 256)]


def _parse(signature: str):
    b, m, n, k, dtype = signature.split("x")
    return int(b), int(m), int(n), int(k), dtype


def _micro_shapes(lanes: int) -> list[tuple[int, int]]:
    """Packed micro-kernel shapes (rows, columns) worth trying for ``lanes``-lane f32
    vectors: accumulators + B vectors + a broadcast within the vector registers (32
    with AVX-512's 16 lanes, 16 with AVX2's 8)."""
    if lanes >= 16:
        shapes = [(12, 2), (6, 4), (4, 4), (16, 1), (8, 3), (14, 2), (4, 2)]
    else:
        shapes = [(4, 2), (8, 1), (4, 3), (3, 3), (2, 4)]
    return [(mr, vectors * lanes) for mr, vectors in shapes]


def _all_configs(lanes: int | None = None, threads: int = 1) -> list[dict]:
    """Every config tried, the default (``{}``) first, then by group: the thread split
    (threads > 1), the packed micro-kernel shape, the packed cache tile, the in-place
    tiles (register shape and cache tile), with and without packing; heavy_ops keeps,
    per op, the first of each group that gives it the same code."""
    from ..codegen.host import f32_lanes

    lanes = lanes or f32_lanes()
    split = [{"parallel_flops": 1}, {"parallel_flops": 1 << 40}] if threads > 1 else []
    micro = [{"micro_m": mr, "micro_n": nr} for mr, nr in _micro_shapes(lanes)]
    in_place = [{"cache_m": cm, "cache_n": cn, "cache_k": ck} for cm, cn, ck in _IN_PLACE]
    in_place += [{"register_m": 4}, {"register_m": 2},
                 {"register_n": lanes}, {"register_m": 4, "register_n": 4 * lanes}]
    return ([{}] + split + micro +
            [{"pack_m": pm, "pack_n": pn, "pack_k": pk} for pm, pn, pk in _PACKED] +
            in_place + [{"pack": False, **c} for c in in_place])


def _same_code_key(signature: str, plan: tuple):
    """A plan with a packed cache tile no larger than the op needs (a larger one makes
    the same loops): two configs with equal keys make the same code."""
    if plan[0] != "packed":
        return plan
    _, m, n, k, _ = _parse(signature)
    (mr, nr), (rows, columns, depth) = plan[1], plan[2]
    return (plan[0], plan[1], (min(rows, -(-m // mr) * mr), min(columns, -(-n // nr) * nr),
                               min(depth, k)), plan[3])


def candidates(plans: list[tuple], signature: str, configs: list[dict] | None = None
               ) -> list[dict]:
    """The configs worth measuring for one op: of ``configs`` (``_all_configs()``; their
    plans for the op are ``plans``), the first of each distinct code."""
    seen, out = set(), []
    for config, plan in zip(configs or _all_configs(), plans, strict=True):
        key = _same_code_key(signature, plan)
        if key not in seen:
            seen.add(key)
            out.append(config)
    return out


def attention_ops(fn, args, threads: int) -> dict[str, list[dict]]:
    """Per attention strata-attention fuses in ``fn(*args)`` (its 5-size signature), the
    query and key tiles to measure: the default first, then other key tiles, other
    query tiles, and the pairs of both."""
    from ..passes.knobs import (
        NoMatch,
        attention_match,
        attention_signature,
        attention_tiles,
        collect_ops,
    )
    from ..runtime.api import compile as strata_compile
    from ..runtime.tuning_record import forced

    with forced(""):
        module = strata_compile(fn, *args, compile_to="linalg", threads=threads)
    out: dict[str, list[dict]] = {}
    with module.mlir.context:
        for sm in collect_ops(module.mlir.operation, lambda o: o.name == "linalg.softmax"):
            try:
                s = attention_match(sm).shape
            except NoMatch:
                continue
            flops = 2 * s.heads * s.sq * s.sk * (s.d + s.dv)
            dq, dk = attention_tiles(s, threads if flops >= 1 << 25 else 1)
            qs = sorted({min(q, s.sq) for q in (16, 32, 64, 128)} - {dq})
            ks = sorted({min(k, s.sk) for k in (64, 128, 256, 512)} - {dk})
            pairs = [(dq, k) for k in ks] + [(q, dk) for q in qs] + \
                [(q, k) for q in qs for k in ks]
            out[attention_signature(s)] = [{}] + [{"block_q": q, "block_k": k}
                                                   for q, k in pairs]
    return out


def heavy_ops(fn, args, threads: int, blas: str, tuned: str = "") -> dict[str, list[dict]]:
    """Per matmul that strata-vectorize tiles in ``fn(*args)`` (its signature, in program
    order), the configs to measure: the default first, then one per distinct code.
    ``tuned``: the choices made so far (an attention's tiles make its matmuls)."""
    from ..passes.knobs import matmul_plans
    from ..runtime.api import compile as strata_compile
    from ..runtime.tuning_record import forced

    with forced(tuned):
        module = strata_compile(fn, *args, compile_to="layout", threads=threads, blas=blas)
    configs = _all_configs(threads=threads)
    plans = matmul_plans(module.mlir.operation, configs, threads)
    out = {signature: candidates(p, signature, configs) for signature, p in plans.items()}
    if blas == "auto":  # BLAS call or generated code: the other of the cost model's choice
        for signature, marked in _blas_choices(module.mlir.operation).items():
            if marked:
                out[signature] = [{}, {"blas": False}]
            elif signature in out:
                out[signature].insert(1, {"blas": True})
    return out


def _blas_choices(module) -> dict[str, bool]:
    """Per signature of a matmul a BLAS call can run, whether strata-fuse's cost model
    made it one (``strata.blas``)."""
    from ..passes.knobs import BLAS_MARK, blas_sizes, collect_ops, matmul_signature

    out: dict[str, bool] = {}
    with module.context:
        for op in collect_ops(module, lambda o: o.name in ("linalg.matmul",
                                                           "linalg.batch_matmul")):
            sizes = blas_sizes(op)
            if sizes is not None:
                signature = matmul_signature(op, op.name == "linalg.batch_matmul", sizes[1:])
                out[signature] = BLAS_MARK in op.attributes
    return out


@dataclass
class TuneResult:
    """What strata.tune did: one entry per op (as saved in the record) and a table."""

    entries: list[dict] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)   # noisy, wrong or foreign candidates
    record: str | None = None

    def table(self) -> str:
        if not self.entries:
            return ("no op to tune: no matmul (or conv, as matmuls) that strata-vectorize "
                    "tiles; those run as BLAS calls are not tuned")
        lines = [f"{'op':<24} {'default':>11} {'tuned':>11} {'speedup':>8}  "
                 f"{'tried':>5}  config"]
        for e in self.entries:
            config = " ".join(f"{k}={v}" for k, v in sorted(e["config"].items())) or \
                "(default is best)"
            lines.append(f"{e['op']:<24} {e['default_s'] * 1e6:>8.1f} us "
                         f"{e['tuned_s'] * 1e6:>8.1f} us {e['default_s'] / e['tuned_s']:>7.2f}x"
                         f"  {e['candidates']:>5}  {config}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def _close(out, ref) -> bool:
    outs = out if isinstance(out, (tuple, list)) else (out,)
    refs = ref if isinstance(ref, (tuple, list)) else (ref,)
    for o, r in zip(outs, refs, strict=True):
        o, r = np.asarray(o, np.float64), np.asarray(r, np.float64)
        if o.shape != r.shape:
            return False
        scale = max(1.0, float(np.max(np.abs(r))) if r.size else 1.0)
        if not np.allclose(o, r, rtol=2e-2, atol=2e-3 * scale):
            return False
    return True


def _group(config: dict) -> str:
    """The group of knobs a config sets (_all_configs): configs of one group exclude
    each other, those of different groups combine."""
    if "blas" in config:
        return "blas"
    if "block_q" in config:
        return "attention"
    if not config.get("pack", True):
        return "in-place"
    if "parallel_flops" in config:
        return "split"
    if "micro_m" in config:
        return "micro"
    if "pack_m" in config:
        return "packed"
    return "in-place"


def _merge_winners(good: list[tuple[dict, dict]], better_than: float) -> dict | None:
    """The fastest config of each group that beats ``better_than`` seconds, merged
    into one config (in-place tiles merge only with the thread split), or None when
    fewer than two groups have one."""
    winners: dict[str, dict] = {}
    for config, r in sorted(good, key=lambda cr: cr[1]["seconds"]):
        if config and r["seconds"] < better_than and _group(config) != "blas":
            winners.setdefault(_group(config), config)  # a BLAS call has no tiles
    if "in-place" in winners and ("micro" in winners or "packed" in winners):
        first = min(("in-place", "micro", "packed"),
                    key=lambda g: list(winners).index(g) if g in winners else 99)
        for g in ("in-place", "micro", "packed"):
            if g != first:
                winners.pop(g, None)
    if len(winners) < 2:
        return None
    merged: dict = {}
    for config in winners.values():
        merged.update(config)
    return merged


def _acceptable(r: dict, me: dict, reference) -> bool:
    return ("error" not in r and r["target"] == me and not r["noisy"] and
            (reference is None or _close(r["out"], reference)))


def tune(fn, *args, budget: float = 60.0, executor: str = "local", threads: int | None = None,
         blas: str = "auto", margin: float = 0.05, max_spread: float = 0.15,
         rounds: int = 7, round_s: float = 0.02, save: bool = True,
         ray_options: dict | None = None, clock: str | None = None) -> TuneResult:
    """Tunes the heavy ops of ``fn(*args)``; see the module docstring.

    ``budget``: seconds of search (the default of every op is always measured).
    ``executor``: ``"local"`` (this process) or ``"ray"`` (Ray tasks; ray.init() is
    called when Ray is not running). ``save``: write the winners to the record.
    ``clock``: ``"wall"`` or ``"cpu"`` (default: CPU time for ``threads=1``, else wall).
    """
    from ..errors import StrataError
    from ..passes.knobs import format_tuned
    from ..runtime import tuning_record
    from ..runtime.api import default_threads

    if executor not in ("local", "ray"):
        raise StrataError(f"unknown executor '{executor}' (executors: local, ray)",
                          location="<strata.tune>")
    fn = getattr(fn, "fn", fn)  # a strata.jit function: its Python function
    threads = default_threads() if threads is None else threads
    # single-threaded code is timed in CPU time: on a shared machine, the wall clock
    # mostly measures the other processes (autotune/measure.py)
    timing = {"rounds": rounds, "round_s": round_s, "max_spread": max_spread,
              "clock": clock or ("cpu" if threads == 1 else "wall")}
    deadline = time.monotonic() + budget
    me = tuning_record.target_key()
    if executor == "ray":
        from .ray_executor import RayExecutor

        ray_executor = RayExecutor(ray_options)

        def run_all(texts):
            return ray_executor.map(fn, args, texts, threads, blas,
                                    {**timing, "exclusive": True})
    else:
        def run_all(texts):
            return [evaluate(fn, args, t, threads, blas, timing) for t in texts]

    result = TuneResult()
    best: dict[str, dict] = {}
    reference = None
    def ops():  # attentions first: their tiles decide the signatures of the matmuls inside
        yield from attention_ops(fn, args, threads).items()
        yield from heavy_ops(fn, args, threads, blas, format_tuned(best)).items()

    for signature, configs in ops():
        texts = [format_tuned({**best, signature: c}) for c in configs]
        measured: list[tuple[dict, dict]] = []
        if executor == "ray":
            outcomes = run_all(texts if time.monotonic() < deadline else texts[:1])
            measured = list(zip(configs, outcomes, strict=False))
        else:
            for config, text in zip(configs, texts, strict=True):
                if measured and time.monotonic() > deadline:
                    break
                measured.append((config, run_all([text])[0]))
        default = None
        good = []
        for config, r in measured:
            if "error" in r:
                result.rejected.append(f"{signature} {config}: failed ({r['error']})")
                continue
            if r["target"] != me:
                result.rejected.append(f"{signature} {config}: measured on another CPU type "
                                       f"({r['target']['target']})")
                continue
            if reference is None and not config:
                reference = r["out"]
            if reference is not None and not _close(r["out"], reference):
                result.rejected.append(f"{signature} {config}: wrong result")
                continue
            if r["noisy"]:
                result.rejected.append(f"{signature} {config}: noisy (spread "
                                       f"{r['spread']:.0%})")
                continue
            if not config:
                default = r
            good.append((config, r))
        if default is None:
            result.rejected.append(f"{signature}: the default could not be measured; "
                                   "left untuned")
            continue
        merged = _merge_winners(good, default["seconds"] * (1 - margin))
        if merged is not None:  # the winners of several groups, together
            r = run_all([format_tuned({**best, signature: merged})])[0]
            if _acceptable(r, me, reference):
                good.append((merged, r))
            measured.append((merged, r))
        config, winner = min(good, key=lambda cr: cr[1]["seconds"])
        if not config or winner["seconds"] > default["seconds"] * (1 - margin):
            config, winner = {}, default
        default_s, tuned_s = default["seconds"], winner["seconds"]
        if config:  # confirm: default and tuned again, interleaved, best of both
            again = run_all([format_tuned(best), format_tuned({**best, signature: config})] * 2)
            if all("error" not in a and a["target"] == me for a in again):
                default_s = min(default_s, again[0]["seconds"], again[2]["seconds"])
                tuned_s = min(tuned_s, again[1]["seconds"], again[3]["seconds"])
            if tuned_s > default_s * (1 - margin):
                config, tuned_s = {}, default_s
        if config:
            best[signature] = config
        result.entries.append({"op": signature, **me, "threads": threads, "config": config,
                               "default_s": default_s, "tuned_s": tuned_s,
                               "candidates": len(measured), "executor": executor,
                               "nodes": len({r.get("node") for _, r in good}),
                               "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    if save and result.entries:
        tuning_record.add(result.entries)
        result.record = tuning_record.record_path()
    return result
