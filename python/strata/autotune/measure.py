"""Timing one candidate build: warm-up, repeated rounds, and a noise check.

``evaluate`` builds a candidate (strata.tune's tiles for it) and times it so, in this
process or in a Ray task (autotune/ray_executor.py).

Warm-up: ``warmup`` calls and at least ``warmup_s`` seconds of calls (the first
candidate of a fresh process otherwise pays for the core's clock ramping up and
first-touched memory: measured 1.37x slower than the same code re-timed later in
one process). A round times as many calls as fill ``round_s`` seconds and keeps the mean per
call; ``rounds`` rounds give the best (the minimum: what the code can do when
nothing else runs) and the spread, ``(3rd best - best) / best`` of the rounds'
times: the best three rounds must agree (one round slowed by another process is
allowed, a measurement where most are is not). A measurement whose spread
exceeds ``max_spread`` is noisy (another process took the cores): it is taken
again, up to ``retries`` times, and a candidate that stays noisy is rejected
rather than recorded.

``clock="cpu"`` times with this process's CPU time instead of the wall clock: for
single-threaded code on a shared machine, the time the kernel ran rather than the
time it waited for a core (strata.tune's choice with ``threads=1``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

__all__ = ["Timing", "measure", "evaluate"]


@dataclass(frozen=True)
class Timing:
    seconds: float      # best round's seconds per call
    spread: float       # relative spread of the rounds
    noisy: bool         # still above max_spread after the retries
    tries: int


def _rounds(call, rounds: int, round_s: float, clock) -> list[float]:
    out = []
    for _ in range(rounds):
        n, start = 0, clock()
        while True:
            call()
            n += 1
            elapsed = clock() - start
            if elapsed >= round_s:
                break
        out.append(elapsed / n)
    return sorted(out)


def measure(call, *, warmup: int = 3, rounds: int = 7, round_s: float = 0.02,
            max_spread: float = 0.15, retries: int = 2, clock: str = "wall",
            warmup_s: float = 0.1) -> Timing:
    """Times ``call()`` (see the module's docstring)."""
    if clock not in ("wall", "cpu"):
        raise ValueError(f"clock must be 'wall' or 'cpu', got {clock!r}")
    read = time.process_time if clock == "cpu" else time.perf_counter
    start = time.perf_counter()
    n = 0
    while n < warmup or time.perf_counter() - start < warmup_s:
        call()
        n += 1
    tries = 0
    while True:
        tries += 1
        times = _rounds(call, rounds, round_s, read)
        best = times[0]
        spread = (times[min(2, len(times) - 1)] - best) / best if best > 0 else 0.0
        if spread <= max_spread or tries > retries:
            return Timing(best, spread, spread > max_spread, tries)


def evaluate(fn, args, tuned: str, threads: int, blas: str, timing: dict) -> dict:
    """Builds ``fn`` with the ``tuned`` tiles and times it (a local call or a Ray task):
    ``{"seconds", "spread", "noisy", "out", "target"}``."""
    from ..runtime.api import compile as strata_compile
    from ..runtime.tuning_record import forced, target_key

    timing = dict(timing)
    exclusive = timing.pop("exclusive", False)
    with forced(tuned):  # a Program compiles on its first call: that call is the compile
        program = strata_compile(fn, *args, threads=threads, blas=blas)
        out = program(*args)
    with _measuring_alone(exclusive):
        t = measure(lambda: program(*args), **timing)
    return {"seconds": t.seconds, "spread": t.spread, "noisy": t.noisy, "out": out,
            "target": target_key(), "tuned": tuned}


class _measuring_alone:  # noqa: N801 - a context manager
    """With ``exclusive``, holds a lock file shared by the processes of this machine
    while timing: Ray tasks build side by side but measure one at a time per node."""

    def __init__(self, exclusive: bool):
        self.exclusive, self.file = exclusive, None

    def __enter__(self):
        if self.exclusive:
            import fcntl
            import tempfile

            self.file = open(os.path.join(tempfile.gettempdir(), "strata-tune-measure.lock"),
                             "w")
            fcntl.flock(self.file, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        if self.file is not None:
            self.file.close()  # releases the lock
