"""The machine's limits that bench/suite.py measures kernels against.

    python bench/limits.py fma LANES     # one process's f32 FMA rate, GFLOP/s (JSON)
    python bench/limits.py copy          # one process's np.copyto bandwidth, GB/s (JSON)

FMA peak: an MLIR kernel (built here as text, lowered with upstream passes and
run by MLIR's ExecutionEngine) keeps 12 independent ``vector.fma`` chains of
``LANES`` f32 lanes busy for a fixed count: enough chains to cover the FMA
latency of two pipes. Copy bandwidth: ``np.copyto`` between two preallocated
64 MiB buffers, counted as bytes read plus bytes written. bench/suite.py runs
one process per core at once and adds their rates, for the all-cores figure.
"""

from __future__ import annotations

import ctypes
import json
import sys
import time

import numpy as np

CHAINS = 12
STEPS = 20_000_000


def _fma_module(lanes: int) -> str:
    vec = f"vector<{lanes}xf32>"
    accs = ", ".join(f"%a{i} = %init" for i in range(CHAINS))
    types = ", ".join([vec] * CHAINS)
    body = "\n".join(f"      %n{i} = vector.fma %a{i}, %x, %y : {vec}" for i in range(CHAINS))
    yields = ", ".join(f"%n{i}" for i in range(CHAINS))
    total = "\n".join(f"    %s{i} = arith.addf %s{i - 1}, %r#{i} : {vec}"
                      for i in range(1, CHAINS))
    return f"""
func.func @fma(%steps: index) -> f32 attributes {{llvm.emit_c_interface}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant dense<0.0> : {vec}
  %x = arith.constant dense<0.999> : {vec}
  %y = arith.constant dense<0.001> : {vec}
  %r:{CHAINS} = scf.for %i = %c0 to %steps step %c1 iter_args({accs}) -> ({types}) {{
{body}
      scf.yield {yields} : {types}
  }}
  %s0 = arith.addf %r#0, %init : {vec}
{total}
  %sum = vector.reduction <add>, %s{CHAINS - 1} : {vec} into f32
  return %sum : f32
}}
"""


def fma_gflops(lanes: int, steps: int = STEPS) -> float:
    from mlir import ir, passmanager
    from mlir.execution_engine import ExecutionEngine

    with ir.Context():
        module = ir.Module.parse(_fma_module(lanes))
        pm = passmanager.PassManager.parse(
            "builtin.module(convert-scf-to-cf, convert-vector-to-llvm, convert-arith-to-llvm,"
            " convert-cf-to-llvm, convert-func-to-llvm, reconcile-unrealized-casts)")
        pm.run(module.operation)
        engine = ExecutionEngine(module, opt_level=3)
        n = ctypes.c_size_t(steps)
        out = ctypes.c_float()
        args = [ctypes.pointer(n), ctypes.pointer(out)]
        engine.invoke("fma", *args)  # warm-up (and code generation)
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            engine.invoke("fma", *args)
            best = min(best, time.perf_counter() - start)
    return 2.0 * CHAINS * lanes * steps / best / 1e9


def copy_gbps(nbytes: int = 64 << 20) -> float:
    src = np.ones(nbytes // 4, np.float32)
    dst = np.empty_like(src)
    np.copyto(dst, src)
    best = float("inf")
    for _ in range(10):
        start = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - start)
    return 2.0 * nbytes / best / 1e9


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["fma"]:
        print(json.dumps({"gflops": fma_gflops(int(argv[1]))}))
    elif argv[:1] == ["copy"]:
        print(json.dumps({"gbps": copy_gbps()}))
    else:
        sys.exit("usage: limits.py fma LANES | copy")


if __name__ == "__main__":
    main()
