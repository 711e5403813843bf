"""Non-temporal vector stores against plain ones on an output larger than the cache.

    python bench/nt_store_bench.py [--mib 64] [--repeat 3]

A kernel ``y = 2x + 1`` over ``--mib`` MiB of f32 (16-lane vector loads and
stores, the output 64-byte aligned and said so with ``memref.assume_alignment``)
is compiled twice, with ``vector.store {nontemporal = false|true}``, and each
variant timed in its own fresh process, ``--repeat`` times interleaved; the best
of each is printed as time and read+write bandwidth. The question it answers:
would the row kernels and elementwise chains gain from non-temporal stores where
their output is provably aligned (a plain store to a line not in cache first
reads it: 3 memory transfers per element instead of 2)?
"""

from __future__ import annotations

import argparse
import ctypes
import math
import subprocess
import sys
import time

import numpy as np

_TEXT = """
func.func @f(%x: memref<?xf32>, %y: memref<?xf32>) attributes {{llvm.emit_c_interface}} {{
  %c0 = arith.constant 0 : index
  %s = arith.constant 16 : index
  %two = arith.constant dense<2.0> : vector<16xf32>
  %one = arith.constant dense<1.0> : vector<16xf32>
  %n = memref.dim %x, %c0 : memref<?xf32>
  memref.assume_alignment %y, 64 : memref<?xf32>
  scf.for %i = %c0 to %n step %s {{
    %v = vector.load %x[%i] : memref<?xf32>, vector<16xf32>
    %r = math.fma %v, %two, %one : vector<16xf32>
    vector.store %r, %y[%i] {{nontemporal = {nt}}} : memref<?xf32>, vector<16xf32>
  }}
  return
}}"""


def _aligned(n):
    buf = np.empty(n + 16, np.float32)
    off = (-buf.ctypes.data % 64) // 4
    return buf[off:off + n]


def worker(nt: bool, mib: int, calls: int) -> float:
    from mlir import ir
    from mlir.runtime import get_ranked_memref_descriptor

    from strata.context import new_context
    from strata.pipelines.runner import run_pipeline
    from strata.runtime.engine import Engine

    with new_context(), ir.Location.unknown():
        m = ir.Module.parse(_TEXT.format(nt=str(nt).lower()))
        run_pipeline(m.operation, "strata-lower-to-llvm", reproducer=False)
        engine = Engine(m)
        n = mib * (1 << 20) // 4
        x, y = _aligned(n), _aligned(n)
        x[:] = 1
        y[:] = 0
        args = [ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(a))) for a in (x, y)]
        best = math.inf
        for _ in range(calls):
            t0 = time.perf_counter()
            engine.engine.invoke("f", *args)
            best = min(best, time.perf_counter() - t0)
        assert (y == 3).all()
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--worker", choices=("plain", "nt"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        print(worker(a.worker == "nt", a.mib, a.calls))
        return
    best = {"plain": math.inf, "nt": math.inf}
    for _ in range(a.repeat):
        for kind in best:
            out = subprocess.run([sys.executable, __file__, "--worker", kind, "--mib", str(a.mib),
                                  "--calls", str(a.calls)], capture_output=True, text=True,
                                 check=True).stdout
            best[kind] = min(best[kind], float(out.strip().splitlines()[-1]))
    for kind, t in best.items():
        gbs = 2 * a.mib * (1 << 20) / t / 1e9
        print(f"{kind:6s} {t * 1e3:8.2f} ms  {gbs:5.1f} GB/s read+write")
    print(f"non-temporal / plain speed: {best['plain'] / best['nt']:.2f}x")


if __name__ == "__main__":
    main()
