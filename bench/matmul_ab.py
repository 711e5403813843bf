"""A/B of strata's generated matmul on a loaded machine: the fastest single call.

On a shared machine a per-call mean (bench/matmul_bench.py) swings with the load;
the fastest of many single calls is the time of a call that ran undisturbed, and
ranks two builds (say main's venv against a branch's: run this script with each
venv's python, interleaved) far more steadily. It is not a steady-state rate: use
bench/matmul_bench.py (or bench/suite.py) on a quiet machine for the reported figures.

    python bench/matmul_ab.py 256 512 8x512x512x512 --threads 2 --calls 400
    (MxNxK, or BxMxNxK for a batch matmul; one fresh process per shape)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np


def _shapes(text: str):
    parts = [int(p) for p in text.split("x")]
    if len(parts) == 1:
        parts *= 3
    batch = parts[0] if len(parts) == 4 else None
    m, n, k = parts[-3:]
    lead = (batch,) if batch else ()
    return lead + (m, k), lead + (k, n), 2.0 * (batch or 1) * m * n * k


def one(shape: str, system: str, threads: int, calls: int) -> dict:
    os.environ["STRATA_CACHE"] = "0"
    a_shape, b_shape, flops = _shapes(shape)
    g = np.random.default_rng(0)
    a = g.standard_normal(a_shape, dtype=np.float32)
    b = g.standard_normal(b_shape, dtype=np.float32)
    if system == "numpy":
        import ctypes

        from strata.runtime.blas import library

        ctypes.CDLL(library()).scipy_openblas_set_num_threads64_(threads)
        f = np.matmul
    else:
        import strata

        f = strata.jit(lambda x, y: x @ y, threads=threads, blas="never")
    f(a, b)
    best = float("inf")
    for _ in range(calls):
        start = time.perf_counter()
        f(a, b)
        best = min(best, time.perf_counter() - start)
    return {"shape": shape, "system": system, "threads": threads, "seconds": best,
            "gflops": flops / best / 1e9}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("shapes", nargs="*", default=["256", "512"])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--calls", type=int, default=300)
    p.add_argument("--system", choices=["strata", "numpy"], default="strata")
    p.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        print(json.dumps(one(args.shapes[0], args.system, args.threads, args.calls)))
        return
    for shape in args.shapes:
        r = subprocess.run([sys.executable, __file__, "--one", shape, "--system", args.system,
                            "--threads", str(args.threads), "--calls", str(args.calls)],
                           capture_output=True, text=True)
        if r.returncode:
            print(shape, "failed:", r.stderr[-500:])
            continue
        d = json.loads(r.stdout.strip().splitlines()[-1])
        print(f"{shape:>16} t={args.threads} {args.system:6} {d['seconds'] * 1e6:9.1f} us "
              f"{d['gflops']:7.1f} GFLOP/s", flush=True)


if __name__ == "__main__":
    main()
