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

and ``structured.lower_pack`` / ``lower_unpack`` on every ``linalg.pack`` /
``linalg.unpack`` (from strata-layout's pack-matmul), which do not bufferize:

    %p = linalg.pack %a padding_value(%z) inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %e
  =>
    %p = linalg.transpose ins(tensor.expand_shape(tensor.pad %a)) permutation = [0, 2, 1, 3]
    (unpack: linalg.transpose, tensor.collapse_shape, tensor.extract_slice, linalg.copy)
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ..codegen.transform import ScriptError, apply_script, script
from .base import Pass

__all__ = ["DecomposePass"]

_SCRIPT = script("""
    %sm = transform.structured.match ops{["linalg.softmax"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %sm : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %d = transform.structured.decompose_interface %op : (!transform.any_op) -> !transform.any_op
    }""")

_PACK = script("""
    %p = transform.structured.match ops{["linalg.pack"]} in %root
        : (!transform.any_op) -> !transform.op<"linalg.pack">
    transform.structured.lower_pack %p : (!transform.op<"linalg.pack">)
        -> (!transform.op<"tensor.pad">, !transform.op<"tensor.expand_shape">,
            !transform.op<"linalg.transpose">)""")

_UNPACK = script("""
    %u = transform.structured.match ops{["linalg.unpack"]} in %root
        : (!transform.any_op) -> !transform.op<"linalg.unpack">
    transform.structured.lower_unpack %u : (!transform.op<"linalg.unpack">)
        -> (!transform.op<"tensor.empty">, !transform.op<"linalg.transpose">,
            !transform.op<"tensor.collapse_shape">, !transform.op<"tensor.extract_slice">)""")


@dataclass(frozen=True)
class DecomposePass(Pass):
    """Decompose linalg.softmax, linalg.pack and linalg.unpack into ops that bufferize."""

    name = "strata-decompose"

    def run(self, module: ir.Operation) -> None:
        found = {"linalg.softmax": [], "linalg.pack": [], "linalg.unpack": []}

        def visit(op):
            if op.name in found:
                found[op.name].append(op)
            return ir.WalkResult.ADVANCE

        module.walk(visit)
        for name, text in (("linalg.softmax", _SCRIPT), ("linalg.pack", _PACK),
                           ("linalg.unpack", _UNPACK)):
            if found[name]:
                try:
                    apply_script(module, text)
                except ScriptError as e:
                    self.fail(found[name][0], f"strata-decompose: {e}")
