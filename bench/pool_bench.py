"""Page faults and time per warm call of the row kernels: output pool on, off, and out=.

    python bench/pool_bench.py [--repeat 15] [--rounds 3] [--work softmax,chain] [--threads 2]

Each (mode, work) pair runs in its own fresh process, and the modes are interleaved
round by round (A, B, C, A, B, C, ...), so a load change on a shared machine hits
them alike; each process reports the best of ``--repeat`` calls and the minor page
faults per warm call (``getrusage``). Modes: ``pool`` (results from the output pool,
the default), ``nopool`` (``STRATA_OUTPUT_POOL_BYTES=0``: a fresh ``np.empty`` per
call, what main did), ``out`` (``f(..., out=y)`` into one preallocated array) and
``copy`` (``np.copyto`` into a preallocated array: the bandwidth the fractions use).
The works are bench/rows_bench.py's (4096x4096 f32 rows, the 16M f32 chain).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rows_bench import WORKS, _inputs, _strata_fn  # noqa: E402

MODES = ["copy", "nopool", "pool", "out"]


def _faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def run_one(mode: str, work: str, repeat: int, threads: int) -> dict:
    args = _inputs(work)
    if mode == "copy":
        target = np.empty_like(args[0])

        def fn():
            np.copyto(target, args[0])
    else:
        f = _strata_fn(work, threads)
        if mode == "out":
            target = np.empty_like(f(*args))

            def fn():
                f(*args, out=target)
        else:
            def fn():
                return f(*args)
    keep = fn()
    keep = fn()  # a caller that holds the previous result while it makes the next
    times = []
    f0 = _faults()
    for _ in range(repeat):
        start = time.perf_counter()
        keep = fn()
        times.append(time.perf_counter() - start)
    faults = (_faults() - f0) / repeat
    del keep
    nbytes = 2 * args[0].nbytes
    best = min(times)
    return {"mode": mode, "work": work, "best_ms": best * 1e3,
            "median_ms": float(np.median(times)) * 1e3, "faults": faults,
            "GBps": nbytes / best / 1e9}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", default=",".join(WORKS))
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--one", nargs=2, metavar=("MODE", "WORK"))
    a = ap.parse_args(argv)
    if a.one:
        print(json.dumps(run_one(a.one[0], a.one[1], a.repeat, a.threads)))
        return
    best: dict = {}
    for _ in range(a.rounds):
        for work in a.work.split(","):
            for mode in a.modes.split(","):
                env = dict(os.environ)
                if mode == "nopool":
                    env["STRATA_OUTPUT_POOL_BYTES"] = "0"
                p = subprocess.run([sys.executable, __file__, "--one", mode, work, "--repeat",
                                    str(a.repeat), "--threads", str(a.threads)],
                                   capture_output=True, text=True, env=env)
                if p.returncode:
                    print(f"{mode} {work}: failed\n{p.stderr[-800:]}", file=sys.stderr)
                    continue
                r = json.loads(p.stdout.strip().splitlines()[-1])
                old = best.get((mode, work))
                if old is None or r["best_ms"] < old["best_ms"]:
                    best[(mode, work)] = r
    print(f"threads={a.threads}, best of {a.rounds} fresh processes x {a.repeat} calls")
    print("| work | mode | best ms | median ms | faults/call | GB/s | vs copy |")
    print("|---|---|---|---|---|---|---|")
    for work in a.work.split(","):
        copy = best.get(("copy", work))
        for mode in a.modes.split(","):
            r = best.get((mode, work))
            if r is None:
                continue
            frac = f"{r['GBps'] / copy['GBps']:.0%}" if copy else "-"
            print(f"| {work} | {mode} | {r['best_ms']:.2f} | {r['median_ms']:.2f} | "
                  f"{r['faults']:.0f} | {r['GBps']:.1f} | {frac} |")


if __name__ == "__main__":
    main()
