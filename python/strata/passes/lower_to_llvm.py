"""strata-lower-to-llvm: buffers, loops, vectors, arith and math to the LLVM dialect.

A named pipeline of upstream passes. It starts with strata-nontemporal-stores
(write-only outputs of ``nontemporal-bytes`` or more get non-temporal stores). With ``threads`` > 1 it starts with the
threading passes: each ``scf.forall`` (made by strata-vectorize) is made
one-dim (strata-flatten-forall: MLIR's async-parallel-for splits multi-dim
loops with static inner trip counts wrongly), becomes an ``scf.parallel`` and
then ``threads`` tasks of MLIR's async runtime (``async-parallel-for``; the
calling thread runs one block and waits for the rest), lowered to calls into libmlir_async_runtime.so:

    scf.forall (%i, %j) in (8, 4) { ... }
  =>
    call @mlirAsyncRuntimeCreateGroup ... call @async_execute_fn ... call @parallel_compute_fn
    call @mlirAsyncRuntimeAwaitAllInGroup

Then (every case):

    strata-lower-vectors, strata-strided-copies, func.func(convert-linalg-to-loops),
    convert-vector-to-scf, lower-affine, convert-scf-to-cf,
    convert-vector-to-llvm, expand-strided-metadata, finalize-memref-to-llvm,
    convert-math-to-llvm, convert-math-to-libm, arith-expand, convert-arith-to-llvm,
    convert-index-to-llvm, convert-cf-to-llvm, convert-func-to-llvm, convert-ub-to-llvm,
    reconcile-unrealized-casts

    memref.alloc / scf.for / arith.addf   =>   llvm.call @malloc / llvm.br / llvm.fadd

After it only ``llvm.*`` ops remain (checked by strata-check-level{level=llvm}).
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import PassPipeline, option, threads_option
from .flatten_forall import FlattenForallPass
from .nontemporal_stores import NontemporalStoresPass
from .strided_copies import StridedCopiesPass
from .vectorize import LowerVectorsPass

__all__ = ["LowerToLLVMPass"]


@dataclass(frozen=True)
class LowerToLLVMPass(PassPipeline):
    """Lower buffers, loops, vectors, arith and math to the LLVM dialect."""

    name = "strata-lower-to-llvm"
    reassociate_fp_reductions: bool = option(
        True, help="Let LLVM reassociate floating-point vector reductions")
    threads: int = threads_option()
    nontemporal_bytes: int = option(
        16 << 20, min=0, help="Fewest bytes of a write-only output streamed with non-temporal "
        "stores (strata-nontemporal-stores; 0: never)")

    def build(self, p) -> None:
        if self.nontemporal_bytes:
            p.add(NontemporalStoresPass(min_bytes=self.nontemporal_bytes))
        reassoc = " reassociate-fp-reductions" if self.reassociate_fp_reductions else ""
        parallel = ""
        if self.threads > 1:
            p.add(FlattenForallPass())
            parallel = (
                "scf-forall-to-parallel, "
                f"async-parallel-for{{async-dispatch=false num-workers={self.threads} "
                "min-task-size=1}, "
                "async-to-async-runtime, async-runtime-ref-counting, "
                "async-runtime-ref-counting-opt, convert-async-to-llvm, ")
        p.add(parallel.rstrip(", "))
        p.add(LowerVectorsPass())
        p.add(StridedCopiesPass())
        p.add(
            "func.func(convert-linalg-to-loops), convert-vector-to-scf, lower-affine, "
            "convert-scf-to-cf, canonicalize, cse, "
            f"convert-vector-to-llvm{{enable-x86vector{reassoc}}}, "
            "expand-strided-metadata, lower-affine, finalize-memref-to-llvm, "
            "convert-math-to-llvm, convert-math-to-libm, arith-expand, convert-arith-to-llvm, "
            "convert-index-to-llvm, convert-cf-to-llvm, convert-func-to-llvm, convert-ub-to-llvm, "
            "reconcile-unrealized-casts, canonicalize, cse"
        )
