"""strata-lower-to-llvm: buffers, loops, vectors, arith and math to the LLVM dialect.

A named pipeline of upstream passes; the place where CPU vectorization and
threading plug in (before ``convert-linalg-to-loops``):

    strata-lower-vectors, func.func(convert-linalg-to-loops), convert-vector-to-scf, lower-affine, convert-scf-to-cf,
    convert-vector-to-llvm, expand-strided-metadata, finalize-memref-to-llvm,
    convert-math-to-llvm, convert-math-to-libm, arith-expand, convert-arith-to-llvm,
    convert-index-to-llvm, convert-cf-to-llvm, convert-func-to-llvm, convert-ub-to-llvm,
    reconcile-unrealized-casts

    memref.alloc / scf.for / arith.addf   =>   llvm.call @malloc / llvm.br / llvm.fadd

After it only ``llvm.*`` ops remain (checked by strata-check-level{level=llvm}).
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import Pass

__all__ = ["LowerToLLVMPass"]


@dataclass(frozen=True)
class LowerToLLVMPass(Pass):
    """Lower buffers, loops, vectors, arith and math to the LLVM dialect."""

    name = "strata-lower-to-llvm"
    reassociate_fp_reductions: bool = True

    def elements(self) -> str:
        reassoc = " reassociate-fp-reductions" if self.reassociate_fp_reductions else ""
        return (
            "strata-lower-vectors, "
            "func.func(convert-linalg-to-loops), convert-vector-to-scf, lower-affine, "
            "convert-scf-to-cf, canonicalize, cse, "
            f"convert-vector-to-llvm{{enable-x86vector{reassoc}}}, "
            "expand-strided-metadata, lower-affine, finalize-memref-to-llvm, "
            "convert-math-to-llvm, convert-math-to-libm, arith-expand, convert-arith-to-llvm, "
            "convert-index-to-llvm, convert-cf-to-llvm, convert-func-to-llvm, convert-ub-to-llvm, "
            "reconcile-unrealized-casts, canonicalize, cse"
        )
