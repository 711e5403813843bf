"""strata-decompose: split aggregate linalg ops into the generics that compute them.

Uses the transform dialect's ``structured.decompose_interface`` on every
``linalg.softmax`` (max-reduce, sub+exp, sum-reduce, div), so that later
levels only see ops that bufferize and lower to loops:

    %0 = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>)
  =>
    %max = linalg.generic {parallel, reduction} ins(%x) outs(fill(-inf)) { arith.maxnumf }
    %exp = linalg.generic {parallel, parallel} ins(%x, %max) outs(%e) { subf, exp }
    %sum = linalg.generic {parallel, reduction} ins(%exp) outs(fill(0)) { addf }
    %0   = linalg.generic {parallel, parallel} ins(%exp, %sum) outs(%e) { divf }
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ..codegen.transform import apply_script, script
from .base import Pass

__all__ = ["DecomposePass"]

_SCRIPT = script("""
    %sm = transform.structured.match ops{["linalg.softmax"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %sm : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %d = transform.structured.decompose_interface %op : (!transform.any_op) -> !transform.any_op
    }""")


@dataclass(frozen=True)
class DecomposePass(Pass):
    """Decompose linalg.softmax into linalg.generic reductions and elementwise ops."""

    name = "strata-decompose"

    def run(self, module: ir.Operation) -> None:
        found = []

        def visit(op):
            if op.name == "linalg.softmax":
                found.append(op)
            return ir.WalkResult.ADVANCE

        module.walk(visit)
        if found:
            try:
                apply_script(module, _SCRIPT)
            except ir.MLIRError as e:
                self.fail(found[0], f"strata-decompose: {e}")
