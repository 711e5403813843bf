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

(with ``keep-row-softmax``, the static f32 last-dim ones that strata-row-kernels
rewrites later in the level are left alone), and ``structured.lower_pack`` / ``lower_unpack`` on every ``linalg.pack`` /
``linalg.unpack`` (from strata-layout's pack-matmul), which do not bufferize:

    %p = linalg.pack %a padding_value(%z) inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %e
  =>
    %p = linalg.transpose ins(tensor.expand_shape(tensor.pad %a)) permutation = [0, 2, 1, 3]
    (unpack: linalg.transpose, tensor.collapse_shape, tensor.extract_slice, linalg.copy)
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import transform
from mlir.dialects.transform import structured

from ..codegen.transform import ScriptError, Tags, any_op, apply_schedule, match_tagged
from .base import Pass, option

__all__ = ["DecomposePass"]

_TAG = "strata.decompose"

def _op_type(name: str) -> ir.Type:
    return transform.OperationType.get(name)


def _decompose_softmax(root):
    softmaxes = match_tagged(root, _TAG, ops=["linalg.softmax"])
    each = transform.ForeachOp([], [softmaxes])
    with ir.InsertionPoint(each.body):
        structured.DecomposeInterfaceOp(any_op(), each.bodyTargets[0])
        transform.YieldOp([])


def _lower_packs(root):
    packs = structured.MatchOp(_op_type("linalg.pack"), root,
                               ops=ir.ArrayAttr.get([ir.StringAttr.get("linalg.pack")]))
    structured.LowerPackOp(_op_type("tensor.pad"), _op_type("tensor.expand_shape"),
                           _op_type("linalg.transpose"), packs)


def _lower_unpacks(root):
    unpacks = structured.MatchOp(_op_type("linalg.unpack"), root,
                                 ops=ir.ArrayAttr.get([ir.StringAttr.get("linalg.unpack")]))
    structured.LowerUnPackOp(_op_type("tensor.empty"), _op_type("linalg.transpose"),
                             _op_type("tensor.collapse_shape"),
                             _op_type("tensor.extract_slice"), unpacks)


@dataclass(frozen=True)
class DecomposePass(Pass):
    """Decompose linalg.softmax, linalg.pack and linalg.unpack into ops that bufferize."""

    name = "strata-decompose"
    keep_row_softmax: bool = option(False, help="Leave the softmaxes that strata-row-kernels rewrites")

    def run(self, module: ir.Operation) -> None:
        found = {"linalg.softmax": [], "linalg.pack": [], "linalg.unpack": []}
        if self.keep_row_softmax:
            from .row_kernels import softmax_kernel_fits

        def visit(op):
            if op.name in found:
                if not (op.name == "linalg.softmax" and self.keep_row_softmax and
                        softmax_kernel_fits(op)):
                    found[op.name].append(op)
            return ir.WalkResult.ADVANCE

        module.walk(visit)
        with Tags(module) as tags:
            for op in found["linalg.softmax"]:
                tags.add(op, _TAG)
            for name, schedule in (("linalg.softmax", _decompose_softmax),
                                   ("linalg.pack", _lower_packs),
                                   ("linalg.unpack", _lower_unpacks)):
                if found[name]:
                    try:
                        apply_schedule(module, schedule)
                    except ScriptError as e:
                        self.fail(found[name][0], f"strata-decompose: {e}")
