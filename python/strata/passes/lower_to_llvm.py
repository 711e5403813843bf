"""strata-lower-to-llvm: buffers, loops, vectors, arith and math to the LLVM dialect.

A named pipeline of upstream passes. It starts with strata-prefetch-rows (rows of
buffers of ``prefetch-bytes`` or more that a row loop reads once are prefetched a row
ahead) and strata-nontemporal-stores (write-only outputs of ``nontemporal-bytes`` or
more get non-temporal stores). With
``threads`` > 1 it starts with the threading passes: each ``scf.forall`` (made by
strata-vectorize) is made one-dim (strata-flatten-forall: MLIR's async-parallel-for
splits multi-dim loops with static inner trip counts wrongly) and becomes an
``scf.parallel``, which ``thread-runtime`` runs:

- ``omp`` (the default): an OpenMP parallel region of ``threads`` threads with a
  static schedule (``convert-scf-to-openmp``; ``canonicalize`` then inlines the
  ``memref.alloca_scope`` it wraps each body in, whose single block the later
  ``convert-scf-to-cf`` would break), translated to calls into LLVM's OpenMP runtime
  (libomp). Its workers spin a while after a region before they sleep, so a call
  of several parallel loops wakes no sleeping thread: on the 2-vCPU machines strata
  is measured on, a wake costs ~55 us, more than a 256^3 matmul's share of work.

      scf.forall (%i) in (8) { ... }
    =>
      omp.parallel num_threads(2) { omp.wsloop { omp.loop_nest (%i) : index = (0) to (8) ... } }

- ``async``: ``threads`` tasks of MLIR's async runtime (``async-parallel-for``; the
  calling thread runs one block and waits for the rest), lowered to calls into
  libmlir_async_runtime.so. The runtime uses it where libomp is not installed.

      scf.forall (%i, %j) in (8, 4) { ... }
    =>
      call @mlirAsyncRuntimeCreateGroup ... call @async_execute_fn ... call @parallel_compute_fn
      call @mlirAsyncRuntimeAwaitAllInGroup

Then (every case):

    strata-lower-vectors, strata-strided-copies, func.func(convert-linalg-to-loops),
    convert-vector-to-scf, lower-affine, convert-math-to-funcs, convert-scf-to-cf,
    convert-vector-to-llvm, expand-strided-metadata, finalize-memref-to-llvm,
    convert-math-to-llvm, convert-math-to-libm, arith-expand, convert-arith-to-llvm,
    convert-index-to-llvm, convert-cf-to-llvm, convert-func-to-llvm, convert-ub-to-llvm,
    reconcile-unrealized-casts

    memref.alloc / scf.for / arith.addf   =>   llvm.call @malloc / llvm.br / llvm.fadd

``convert-math-to-funcs`` turns integer powers (``math.ipowi``, which no LLVM intrinsic
implements) into calls of a generated function (repeated squaring; a vector is unrolled
into calls per element).

After it only ``llvm.*`` ops remain, and ``omp.*`` ops on LLVM types with
``thread-runtime=omp`` (checked by strata-check-level{level=llvm}).
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import PassPipeline, option, threads_option
from .flatten_forall import FlattenForallPass
from .lower_vectors import LowerVectorsPass
from .nontemporal_stores import NontemporalStoresPass
from .prefetch_rows import PrefetchRowsPass
from .strided_copies import StridedCopiesPass

__all__ = ["LowerToLLVMPass", "THREAD_RUNTIMES"]

THREAD_RUNTIMES = ("omp", "async")


@dataclass(frozen=True, eq=False, repr=False)
class LowerToLLVMPass(PassPipeline):
    """Lower buffers, loops, vectors, arith and math to the LLVM dialect."""

    name = "strata-lower-to-llvm"
    reassociate_fp_reductions: bool = option(
        True, help="Let LLVM reassociate floating-point vector reductions")
    threads: int = threads_option()
    thread_runtime: str = option("omp", choices=THREAD_RUNTIMES,
                                 help="What runs parallel loops: omp (LLVM's OpenMP runtime) "
                                 "or async (MLIR's async runtime)")
    nontemporal_bytes: int = option(
        16 << 20, min=0, help="Fewest bytes of a write-only output streamed with non-temporal "
        "stores (strata-nontemporal-stores; 0: never)")
    prefetch_bytes: int = option(
        4 << 20, min=0, help="Fewest bytes of a buffer whose rows a row loop streams with "
        "next-row prefetches (strata-prefetch-rows; 0: never)")

    def build(self, p) -> None:
        if self.prefetch_bytes:
            p.add(PrefetchRowsPass(min_bytes=self.prefetch_bytes))
        if self.nontemporal_bytes:
            p.add(NontemporalStoresPass(min_bytes=self.nontemporal_bytes))
        reassoc = " reassociate-fp-reductions" if self.reassociate_fp_reductions else ""
        parallel = ""
        if self.threads > 1:
            p.add(FlattenForallPass())
            if self.thread_runtime == "omp":
                parallel = (f"scf-forall-to-parallel, "
                            f"convert-scf-to-openmp{{num-threads={self.threads}}}, canonicalize, ")
            else:
                parallel = (
                    "scf-forall-to-parallel, "
                    f"async-parallel-for{{async-dispatch=false num-workers={self.threads} "
                    "min-task-size=1}, "
                    "async-to-async-runtime, async-runtime-ref-counting, "
                    "async-runtime-ref-counting-opt, convert-async-to-llvm, ")
        p.add(parallel.rstrip(", "))
        p.add(LowerVectorsPass())
        p.add(StridedCopiesPass())
        omp = "convert-openmp-to-llvm, " if parallel and self.thread_runtime == "omp" else ""
        p.add(
            "func.func(convert-linalg-to-loops), convert-vector-to-scf, lower-affine, "
            "convert-math-to-funcs, convert-scf-to-cf, canonicalize, cse, "
            f"convert-vector-to-llvm{{enable-x86vector{reassoc}}}, "
            "expand-strided-metadata, lower-affine, finalize-memref-to-llvm, "
            "convert-math-to-llvm, convert-math-to-libm, arith-expand, convert-arith-to-llvm, "
            "convert-index-to-llvm, convert-cf-to-llvm, convert-func-to-llvm, convert-ub-to-llvm, "
            f"{omp}reconcile-unrealized-casts, canonicalize, cse"
        )
