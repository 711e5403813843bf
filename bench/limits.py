"""The machine's limits that bench/suite.py measures kernels against.

    python bench/limits.py fma LANES THREADS   # f32 FMA rate of THREADS threads at once, GFLOP/s
    python bench/limits.py copy THREADS        # copy bandwidth of THREADS threads at once, GB/s

Both print one JSON line. Every figure comes from ``THREADS`` threads of one process
that start together (a barrier) and are timed together, from the release to the last
one's end: a kernel with that many threads is measured the same way. (Adding up the
best rates of separate processes overstates a shared limit such as memory bandwidth:
each process's best run can fall where the others were still starting up.)

FMA peak: an MLIR kernel (built here as text, lowered with upstream passes and run by
MLIR's ExecutionEngine, which calls it without the GIL) keeps 12 independent
``vector.fma`` chains of ``LANES`` f32 lanes busy for a fixed count: enough chains to
cover the FMA latency of two pipes.

Copy bandwidth, counted as bytes read plus bytes written, between two preallocated
64 MiB buffers split into one part per thread, measured two ways: ``np.copyto`` (numpy
releases the GIL while it copies) and a streaming MLIR copy kernel (64-byte vector loads,
non-temporal 64-byte stores, page-aligned buffers: no read of the destination before it
is written). ``gbps`` is the faster of the two, the copy the machine can do; both are
reported.
"""

from __future__ import annotations

import ctypes
import json
import sys
import threading
import time

import numpy as np

CHAINS = 12
STEPS = 20_000_000
COPY_BYTES = 64 << 20
BLOCK = 64  # f32 elements per copy-kernel step (four 64-byte vectors)


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


_COPY_MODULE = f"""
func.func @copy(%src: memref<?xf32>, %dst: memref<?xf32>) attributes {{llvm.emit_c_interface}} {{
  %c0 = arith.constant 0 : index
  %step = arith.constant {BLOCK} : index
  %n = memref.dim %src, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %step {{
    %v = vector.load %src[%i] : memref<?xf32>, vector<{BLOCK}xf32>
    vector.store %v, %dst[%i] {{nontemporal = true, alignment = 64}}
      : memref<?xf32>, vector<{BLOCK}xf32>
  }}
  return
}}
"""

_PIPELINE = ("builtin.module(convert-scf-to-cf, convert-vector-to-llvm, "
             "finalize-memref-to-llvm, convert-arith-to-llvm, convert-cf-to-llvm, "
             "convert-func-to-llvm, reconcile-unrealized-casts)")


def _engine(text: str):
    from mlir import ir, passmanager
    from mlir.execution_engine import ExecutionEngine

    ctx = ir.Context()
    with ctx:
        module = ir.Module.parse(text)
        passmanager.PassManager.parse(_PIPELINE).run(module.operation)
        return ctx, module, ExecutionEngine(module, opt_level=3)


def together(jobs, rounds: int) -> float:
    """Best wall seconds of running every job of ``jobs`` (callables) on its own thread,
    all released at once by a barrier, over ``rounds`` rounds."""
    best = float("inf")
    for _ in range(rounds):
        barrier = threading.Barrier(len(jobs) + 1)

        def run(job, barrier=barrier):
            barrier.wait()
            job()

        threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
        for t in threads:
            t.start()
        barrier.wait()
        start = time.perf_counter()
        for t in threads:
            t.join()
        best = min(best, time.perf_counter() - start)
    return best


def fma_gflops(lanes: int, threads: int = 1, steps: int = STEPS) -> float:
    ctx, module, engine = _engine(_fma_module(lanes))
    with ctx:
        engine.invoke("fma", ctypes.pointer(ctypes.c_size_t(1)), ctypes.pointer(ctypes.c_float()))

        def job():
            out = ctypes.c_float()
            engine.invoke("fma", ctypes.pointer(ctypes.c_size_t(steps)), ctypes.pointer(out))

        seconds = together([job] * threads, rounds=3)
    return 2.0 * CHAINS * lanes * steps * threads / seconds / 1e9


def _page_aligned(n: int) -> np.ndarray:
    raw = np.empty(n + 4096 // 4, np.float32)
    start = (-raw.ctypes.data % 4096) // 4
    out = raw[start:start + n]
    out.fill(1.0)  # fault the pages in before timing
    return out


def _parts(n: int, threads: int) -> list[slice]:
    """``threads`` slices of ``range(n)``, each a multiple of BLOCK elements long."""
    per = -(-n // threads // BLOCK) * BLOCK
    return [slice(i, min(i + per, n)) for i in range(0, n, per)]


def copy_gbps(threads: int = 1, nbytes: int = COPY_BYTES, rounds: int = 10) -> dict:
    from mlir.runtime import get_ranked_memref_descriptor

    n = nbytes // 4
    src, dst = _page_aligned(n), _page_aligned(n)
    parts = _parts(n, threads)
    numpy_jobs = [lambda s=s: np.copyto(dst[s], src[s]) for s in parts]
    ctx, module, engine = _engine(_COPY_MODULE)
    with ctx:
        descs = [(ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(src[s]))),
                  ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(dst[s]))))
                 for s in parts]
        stream_jobs = [lambda d=d: engine.invoke("copy", *d) for d in descs]
        out = {}
        for name, jobs in (("numpy", numpy_jobs), ("stream", stream_jobs)):
            together(jobs, rounds=1)  # warm-up (and code generation)
            out[name] = 2.0 * nbytes / together(jobs, rounds) / 1e9
        if not np.array_equal(src, dst):
            raise RuntimeError("the streaming copy kernel copied wrong values")
    out["gbps"] = max(out["numpy"], out["stream"])
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["fma"] and len(argv) in (2, 3):
        threads = int(argv[2]) if len(argv) == 3 else 1
        print(json.dumps({"gflops": fma_gflops(int(argv[1]), threads)}))
    elif argv[:1] == ["copy"] and len(argv) in (1, 2):
        print(json.dumps(copy_gbps(int(argv[1]) if len(argv) == 2 else 1)))
    else:
        sys.exit("usage: limits.py fma LANES [THREADS] | copy [THREADS]")


if __name__ == "__main__":
    main()
