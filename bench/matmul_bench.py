"""strata's generated matmul (blas="never") against numpy's matmul, GFLOP/s.

Each (shape, system, threads) runs in a fresh process. numpy runs with
OpenBLAS's thread count set to ``threads`` and without OPENBLAS_CORETYPE /
OPENBLAS_L2_SIZE (which some environments set). Best-of-N per-call times after
a warm-up call; strata's cold compile (disk cache off) is printed beside.
``--clock cpu`` times with the process's CPU time divided by the thread count
instead of wall time: steadier on a loaded machine for one thread (OpenBLAS's
spinning workers inflate it for two).

    python bench/matmul_bench.py                       # every shape, threads 1 and 2
    python bench/matmul_bench.py --shapes 1024 7x4096x4096 --threads 1
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

SHAPES = ["256", "512", "1024", "2048", "1000", "7x4096x4096", "4096x7x4096"]


def _mnk(shape: str):
    parts = [int(p) for p in shape.split("x")]
    return tuple(parts * 3) if len(parts) == 1 else tuple(parts)


def _best(fn, args, budget=1.0, reps=5, clock=time.perf_counter, scale=1):
    fn(*args)
    best = float("inf")
    for _ in range(reps):
        n, start = 0, clock()
        while True:
            fn(*args)
            n += 1
            elapsed = (clock() - start) / scale
            if elapsed > budget / reps:
                break
        best = min(best, elapsed / n)
    return best


def one(shape: str, system: str, threads: int, clock: str = "wall") -> dict:
    import ctypes

    os.environ["STRATA_CACHE"] = "0"
    m, n, k = _mnk(shape)
    g = np.random.default_rng(0)
    a = g.standard_normal((m, k)).astype(np.float32)
    b = g.standard_normal((k, n)).astype(np.float32)
    out = {"shape": shape, "system": system, "threads": threads}
    timing = dict(clock=time.process_time, scale=threads) if clock == "cpu" else {}
    if system == "numpy":
        from strata.runtime.blas import library

        ctypes.CDLL(library()).scipy_openblas_set_num_threads64_(threads)
        seconds = _best(np.matmul, (a, b), **timing)
    else:
        import strata

        f = strata.jit(lambda x, y: x @ y, threads=threads, blas="never")
        start = time.perf_counter()
        r = f(a, b)
        out["compile"] = time.perf_counter() - start
        ref = a.astype(np.float64) @ b.astype(np.float64)
        out["error"] = float(np.abs(r - ref).max() / (np.abs(ref).max() + 1e-30))
        seconds = _best(f, (a, b), **timing)
    out["seconds"] = seconds
    out["gflops"] = 2.0 * m * n * k / seconds / 1e9
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", nargs="*", default=SHAPES)
    p.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    p.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    p.add_argument("--one", nargs=3, metavar=("SHAPE", "SYSTEM", "THREADS"))
    args = p.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], args.one[1], int(args.one[2]), args.clock)))
        return
    for threads in args.threads:
        for shape in args.shapes:
            row = {}
            for system in ("numpy", "strata"):
                env = dict(os.environ)
                if system == "numpy":
                    env.pop("OPENBLAS_CORETYPE", None)
                    env.pop("OPENBLAS_L2_SIZE", None)
                r = subprocess.run([sys.executable, __file__, "--clock", args.clock, "--one",
                                    shape, system, str(threads)],
                                   capture_output=True, text=True, env=env)
                if r.returncode != 0:
                    print(r.stderr[-2000:])
                    row[system] = None
                    continue
                row[system] = json.loads(r.stdout.strip().splitlines()[-1])
            s, npy = row.get("strata"), row.get("numpy")
            if s and npy:
                print(f"{shape:>12} t={threads}  numpy {npy['gflops']:7.1f}  strata "
                      f"{s['gflops']:7.1f} GFLOP/s  ratio {s['gflops'] / npy['gflops']:.2f}  "
                      f"compile {s['compile']:.2f}s  err {s['error']:.1e}", flush=True)


if __name__ == "__main__":
    main()
