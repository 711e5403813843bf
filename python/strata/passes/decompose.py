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

Two clean-ups then keep the lowered packs from copying more than the transpose
(each extra copy was a full pass over the operand, done before the threads
start: a quarter of a 256^3 matmul on 2 threads). A pack whose tiles divide its
source pads nothing: the ``tensor.pad`` of zero width (which would bufferize to
a fill and a copy) goes. An unpack that keeps every element transposes straight
into its destination instead of into a temporary copied there afterwards:

    %t = linalg.transpose ins(%p) outs(tensor.empty)      %e = tensor.expand_shape %dest
    %c = tensor.collapse_shape %t                    =>   %t = linalg.transpose ins(%p) outs(%e)
    %s = tensor.extract_slice %c[0, 0] [M, N] [1, 1]      %r = tensor.collapse_shape %t
    %r = linalg.copy ins(%s) outs(%dest)
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import tensor, transform
from mlir.dialects.transform import structured

from ..codegen.transform import ScriptError, Tags, any_op, apply_schedule, match_tagged
from .base import Pass, option
from .linalg_ops import linalg
from .patterns import apply_greedily

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


def _static(attr) -> list[int]:
    return list(ir.DenseI64ArrayAttr(attr))


def _drop_empty_pad(op, rewriter) -> bool:
    """tensor.pad of zero width on every side -> its source."""
    if _static(op.attributes["static_low"]) and any(_static(op.attributes["static_low"])):
        return False
    if any(_static(op.attributes["static_high"])) or len(op.operands) != 1:
        return False  # a dynamic (operand) width is not known to be zero
    if op.operands[0].type != op.results[0].type or "nofold" in op.attributes:
        return False
    rewriter.replace_op(op, [op.operands[0]])
    return True


def _single_use_owner(value, name):
    """The op defining ``value`` if it is a ``name`` op and ``value`` has one use."""
    owner = value.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name != name:
        return None
    return owner if len(list(value.uses)) == 1 else None


def _unpack_into_dest(op, rewriter) -> bool:
    """linalg.copy of a whole lowered unpack into ``dest`` -> the unpack's transpose
    writing ``dest`` (expanded to the packed shape) itself."""
    if len(op.operands) != 2 or len(op.results) != 1:
        return False
    source, dest = op.operands
    if not isinstance(dest.type, ir.RankedTensorType):
        return False
    sliced = _single_use_owner(source, "tensor.extract_slice")
    if sliced is None or len(sliced.operation.operands) != 1:
        return False  # dynamic offsets or sizes
    collapsed = _single_use_owner(sliced.operation.operands[0], "tensor.collapse_shape")
    if collapsed is None:
        return False
    full = ir.RankedTensorType(collapsed.operation.operands[0].type)
    whole = ir.RankedTensorType(collapsed.results[0].type).shape
    if (any(_static(sliced.operation.attributes["static_offsets"])) or
            _static(sliced.operation.attributes["static_sizes"]) != whole or
            any(s != 1 for s in _static(sliced.operation.attributes["static_strides"])) or
            list(whole) != list(ir.RankedTensorType(dest.type).shape)):
        return False
    transposed = _single_use_owner(collapsed.operation.operands[0], "linalg.transpose")
    if transposed is None or not full.has_static_shape:
        return False
    reassociation = collapsed.operation.attributes["reassociation"]
    with rewriter.ip, op.location:
        expanded = tensor.ExpandShapeOp(full, dest, reassociation, [],
                                        list(full.shape)).result
        new = linalg.transpose(transposed.operation.operands[0], outs=[expanded],
                               permutation=transposed.operation.attributes["permutation"])
        result = tensor.CollapseShapeOp(op.results[0].type, new,
                                        reassociation).result
    rewriter.replace_op(op, [result])
    return True


@dataclass(frozen=True, eq=False, repr=False)
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
                        return
        if found["linalg.pack"] or found["linalg.unpack"]:
            apply_greedily(module, [("tensor.pad", _drop_empty_pad),
                                    ("linalg.copy", _unpack_into_dest)])
