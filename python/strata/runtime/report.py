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
they are left out). Without automatic dynamic the third size is ``new shape,
recompiled``: its first call, which compiles (no variant in memory or in the private
cache has that size), not a warm call. Each row counts the variants built during
its measured calls (``CostReport.builds``) and is named by them: a new size that a
variant already serves (a bucket's) is ``no compile``. bench/ uses the same function.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

from .. import settings
from .measure import per_call

__all__ = ["measure_costs", "CostReport"]


@dataclass
class CostReport:
    rows: list  # (cost, seconds, what)
    # cost -> (variants built, of them loaded from the disk cache) during the calls its
    # time was measured on: what each row really measured
    builds: dict = field(default_factory=dict)

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
    """``(args with dim 0 of one array + 1, the same + 2, what changed for each)``, or
    None if no dim fits."""
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray) and a.ndim and a.shape[0] >= 2:
            def grow(k, a=a):
                shape = (a.shape[0] + k,) + a.shape[1:]
                return np.resize(a, shape).astype(a.dtype)
            n = a.shape[0]
            return ([grow(1) if j == i else b for j, b in enumerate(args)],
                    [grow(2) if j == i else b for j, b in enumerate(args)],
                    f"dim 0 of '{names[i]}' changed ({n} -> {n + 1})",
                    f"dim 0 of '{names[i]}' {n + 2}, a size not seen before")
    return None


class _Builds:
    """Counts the variants a jit function builds (and loads from disk) while measured."""

    def __init__(self, fn):
        self.fn = fn
        self.start = (fn.stats.compiles, fn.stats.cache_hits)

    def counts(self) -> tuple[int, int]:
        return (self.fn.stats.compiles - self.start[0], self.fn.stats.cache_hits - self.start[1])


def _one_call(fn, args) -> tuple[float, tuple[int, int]]:
    """Seconds of one call of ``fn``, and the variants built (and loaded from disk) in
    exactly that call."""
    builds = _Builds(fn)
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start, builds.counts()


def _warm(fn, args) -> tuple[float, tuple[int, int]]:
    """Seconds per warm call (see measure.per_call), and the variants built meanwhile
    (in its warm-up call)."""
    builds = _Builds(fn)
    return per_call(fn, args), builds.counts()


def measure_costs(make, args, names) -> CostReport:
    """Measures the four costs of ``make()`` (a fresh jit function each time) on ``args``.

    A row is named by what its measured calls did, counted (``CostReport.builds``): a
    new shape that no variant serves is timed on its first call, which compiles."""
    report = CostReport([])

    def row(cost, measured, what):
        report.rows.append((cost, measured[0], what))
        report.builds[cost] = measured[1]

    with (tempfile.TemporaryDirectory(prefix="strata-report-") as cache,
          settings.overridden({"STRATA_CACHE_DIR": cache})):
        cold = make()
        row("cold compile", _one_call(cold, args),
            "trace, every level, native code (empty cache)")
        row("restart (disk hit)", _one_call(make(), args),
            "first call of a fresh function object, entry on disk")
        row("warm call", _warm(cold, args), "best-of-5 mean per call")
        grown = _grown(args, names)
        if grown is not None:
            _new_shape_rows(cold, grown, row)
        if getattr(cold, "_buckets", None) is not None:
            costs = cold.bucket_costs()
            if costs["padded_calls"]:
                report.rows.append((
                    "bucket pad + slice", costs["pad_slice_seconds"] / costs["padded_calls"],
                    f"per padded call ({costs['padded_rows']} rows padded for "
                    f"{costs['rows']} asked, {costs['padded_calls']} of "
                    f"{costs['calls']} calls)"))
    return report


def _compiled(builds: tuple[int, int]) -> bool:
    """Whether a variant was compiled (built, and not loaded from the disk cache)."""
    return builds[0] > builds[1]


def _new_shape_rows(cold, grown, row) -> None:
    """The rows of a second and a third size of dim 0: the second's first call; the third
    served by the dynamic variant the second made (warm calls), else its first call,
    which compiles again (the in-memory variants and the report's private disk cache
    hold no variant of that size)."""
    bigger, biggest, what, third = grown
    served = "served by a variant already compiled" + (
        " (its bucket's)" if getattr(cold, "_buckets", None) is not None else "")
    first = _one_call(cold, bigger)
    if _compiled(first[1]):
        row("new shape, compiled", first, f"first call with {what}")
    else:
        row("new shape, no compile", first, f"first call with {what}, {served}")
    dynamic = any(None in shape for guard in cold.variants()
                  if isinstance(guard[0], tuple) and len(guard[0]) == 2
                  for shape, _ in guard)
    if dynamic:
        row("new shape, dynamic variant", _warm(cold, biggest),
            "a third size, served by the dynamic variant")
        return
    again = _one_call(cold, biggest)
    if _compiled(again[1]):
        row("new shape, recompiled", again,
            f"first call with {third}: compiled again (automatic dynamic off or not possible)")
    else:
        row("another shape, no compile", again, f"first call with {third}, {served}")
