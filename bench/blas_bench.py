"""Generated code or OpenBLAS: strata with blas="never", "always" and "auto" against numpy.

Each (program, system, threads) row runs in a fresh process, so no system's time
depends on what ran before it in the same process (allocator state, OpenBLAS's
thread pool, page cache). Times are best-of-5 means per call after a warm-up call
(``per_call``); compile time (cold, disk cache off) is reported apart. "auto"
also prints what the cost model chose. numpy runs with OpenBLAS's thread count
set to the same ``threads``.

    python bench/blas_bench.py                 # threads 1 and 2, all programs
    python bench/blas_bench.py --threads 2 --programs matmul512 mlp
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import git_revision, machine, per_call, rng  # noqa: E402

PROGRAMS = {
    # name: (flops, shapes)
    "matmul256": (2 * 256 ** 3, [(256, 256), (256, 256)]),
    "matmul512": (2 * 512 ** 3, [(512, 512), (512, 512)]),
    "matmul1024": (2 * 1024 ** 3, [(1024, 1024), (1024, 1024)]),
    # relu(x @ w1 + b1) @ w2: 256 x 1024 -> 4096 -> 1024
    "mlp": (2 * 256 * 1024 * 4096 * 2, [(256, 1024), (1024, 4096), (4096,), (4096, 1024)]),
}
SYSTEMS = ["numpy", "never", "always", "auto"]


def _fns(name):
    import strata

    if name == "mlp":
        return (lambda x, w1, b1, w2: strata.relu(x @ w1 + b1) @ w2,
                lambda x, w1, b1, w2: np.maximum(x @ w1 + b1, 0) @ w2)
    return (lambda a, b: a @ b), (lambda a, b: a @ b)


def one(name: str, system: str, threads: int) -> dict:
    """Measures one row in this process (called in a fresh one by ``main``)."""
    import ctypes

    os.environ["STRATA_CACHE"] = "0"
    import strata
    from strata.runtime.blas import library

    lib = ctypes.CDLL(library())
    lib.scipy_openblas_set_num_threads64_(threads)
    g = rng(0)
    args = [g.standard_normal(s).astype(np.float32) for s in PROGRAMS[name][1]]
    strata_fn, numpy_fn = _fns(name)
    out = {"name": name, "system": system, "threads": threads}
    if system == "numpy":
        out["seconds"] = per_call(numpy_fn, args, budget=1.0)
        return out
    f = strata.jit(strata_fn, threads=threads, blas=system)
    start = time.perf_counter()
    f(*args)
    out["compile"] = time.perf_counter() - start
    out["seconds"] = per_call(f, args, budget=1.0)
    out["choices"] = [line.split("strata-fuse: ", 1)[1].split(" (")[0]
                      for line in f.stats.fusion_report
                      if "BLAS sgemm for" in line or "generated code for" in line]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--programs", nargs="*", default=list(PROGRAMS))
    parser.add_argument("--one", nargs=3, metavar=("PROGRAM", "SYSTEM", "THREADS"),
                        help=argparse.SUPPRESS)
    a = parser.parse_args()
    if a.one:
        print(json.dumps(one(a.one[0], a.one[1], int(a.one[2]))))
        return
    print(f"machine: {machine()}; strata {git_revision()}\n")
    print("| program | threads | numpy | strata never (generated) | strata always (BLAS) | "
          "strata auto | never/numpy | always/numpy | always/never | auto chose | "
          "compile never / always |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for threads in a.threads:
        for name in a.programs:
            rows = {}
            for system in SYSTEMS:
                p = subprocess.run([sys.executable, __file__, "--one", name, system,
                                    str(threads)], capture_output=True, text=True)
                if p.returncode:
                    raise SystemExit(f"{name} {system} threads={threads} failed:\n{p.stderr}")
                rows[system] = json.loads(p.stdout.strip().splitlines()[-1])
            flops = PROGRAMS[name][0]

            def cell(s, rows=rows, flops=flops):
                t = rows[s]["seconds"]
                return f"{t * 1e3:.2f} ms ({flops / t / 1e9:.0f} GF/s)"

            t = {s: rows[s]["seconds"] for s in SYSTEMS}
            chose = ", ".join("BLAS" if "BLAS sgemm" in c else "generated"
                              for c in rows["auto"]["choices"]) or "-"
            print(f"| {name} | {threads} | {cell('numpy')} | {cell('never')} | "
                  f"{cell('always')} | {cell('auto')} | {t['never'] / t['numpy']:.2f} | "
                  f"{t['always'] / t['numpy']:.2f} | {t['always'] / t['never']:.2f} | {chose} | "
                  f"{rows['never']['compile']:.2f} s / {rows['always']['compile']:.2f} s |",
                  flush=True)


if __name__ == "__main__":
    main()
