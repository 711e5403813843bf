"""strata-canonicalize: algebraic simplification, small-constant folding and dead-op removal.

Rules, as ``mlir.rewrite`` patterns applied by upstream's greedy driver until
none matches (at most ``max-iterations`` sweeps):

    x * 1, 1 * x, x / 1, x + 0, 0 + x, x - 0  ->  x      (when x already has the result type)
    transpose(transpose(x, p), q)             ->  transpose(x, p∘q), or x if that is identity
    reshape(reshape(x))                       ->  reshape(x);  reshape/broadcast_to/cast to
                                                  the operand's own type -> x
    op(constants...) with <= max-fold-elements ->  strata.constant   (elementwise, f32/f16/i32)
    matmul over K = 0, an op of no elements    ->  a zero strata.constant (no loop over nothing)
    an unused strata op                        ->  erased
    an unused op without effects (any dialect) ->  erased (the greedy driver's own DCE)

Before/after:

    %c = "strata.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %0 = "strata.mul"(%x, %c) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %0
  =>
    return %x
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir

from ..dialect.types import numpy_dtype, shape_of, tensor_type
from ..dialects import strata
from .base import Pass, option
from .patterns import apply_greedily

__all__ = ["CanonicalizePass"]

_FOLDERS = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum,
    "minimum": np.minimum, "neg": np.negative, "abs": np.abs, "exp": np.exp, "log": np.log,
    "sqrt": np.sqrt, "tanh": np.tanh, "relu": lambda x: np.maximum(x, 0), "sin": np.sin,
    "cos": np.cos, "floor": np.floor, "ceil": np.ceil, "round": np.round, "sign": np.sign,
}
_IDENTITY = {"mul": (1, "both"), "div": (1, "rhs"), "add": (0, "both"), "sub": (0, "rhs")}


def _dense(array: np.ndarray, dtype: str, shape) -> ir.DenseElementsAttr:
    """A dense attribute of exactly ``shape`` (also rank 0, which the array's layout loses)."""
    element = tensor_type(shape, dtype).element_type
    data = np.ascontiguousarray(array.astype(numpy_dtype(dtype)))
    if dtype in ("bf16", "f16"):
        data = data.view(np.uint16)
    return ir.DenseElementsAttr.get(data, signless=True, type=element, shape=list(shape))


def _const_value(value: ir.Value):
    """The numpy value of a strata.constant result (f32/f16/i32), else None."""
    owner = value.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name != "strata.constant":
        return None
    attr = owner.operation.attributes["value"]
    try:
        return np.array(ir.DenseElementsAttr(attr))
    except (ValueError, TypeError):
        return None


def _splat_equals(value: ir.Value, number) -> bool:
    owner = value.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name != "strata.constant":
        return False
    try:
        attr = ir.DenseElementsAttr(owner.operation.attributes["value"])
    except ValueError:
        return False
    if not attr.is_splat:
        return False
    splat = attr.get_splat_value()
    try:
        return float(ir.FloatAttr(splat).value) == number
    except ValueError:
        return int(ir.IntegerAttr(splat).value) == number


def _defining(value: ir.Value, name: str):
    owner = value.owner
    if isinstance(owner, ir.OpView) and owner.operation.name == f"strata.{name}":
        return owner.operation
    return None


def _perm(op) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))


# Patterns: fn(op, rewriter) -> True when it rewrote op (see patterns.py).

def _erase_if_dead(op, rewriter) -> bool:
    if any(list(r.uses) for r in op.results):
        return False
    rewriter.erase_op(op.operation)
    return True


def _identity(number, both: bool):
    """``x op c`` (and ``c op x`` when ``both``) -> ``x`` for a splat ``c == number``."""
    def pattern(op, rewriter) -> bool:
        lhs, rhs = op.operands
        result = op.results[0]
        if _splat_equals(rhs, number) and lhs.type == result.type:
            rewriter.replace_op(op, [lhs])
            return True
        if both and _splat_equals(lhs, number) and rhs.type == result.type:
            rewriter.replace_op(op, [rhs])
            return True
        return False

    return pattern


def _same_type(op, rewriter) -> bool:
    """reshape / broadcast_to / cast to the operand's own type -> the operand."""
    if op.operands[0].type != op.results[0].type:
        return False
    rewriter.replace_op(op, [op.operands[0]])
    return True


def _transpose(op, rewriter) -> bool:
    """transpose(x, identity) -> x;  transpose(transpose(x, p), q) -> transpose(x, p∘q) or x."""
    perm = _perm(op)
    if perm == list(range(len(perm))):
        rewriter.replace_op(op, [op.operands[0]])
        return True
    inner = _defining(op.operands[0], "transpose")
    if inner is None:
        return False
    inner_perm = _perm(inner)
    composed = [inner_perm[p] for p in perm]
    if composed == list(range(len(composed))):
        rewriter.replace_op(op, [inner.operands[0]])
        return True
    with rewriter.ip, op.location:
        new = strata.TransposeOp(inner.operands[0], composed, result=op.results[0].type)
    rewriter.replace_op(op, new)
    return True


def _reshape_of_reshape(op, rewriter) -> bool:
    inner = _defining(op.operands[0], "reshape")
    if inner is None:
        return False
    with rewriter.ip, op.location:
        new = strata.ReshapeOp(inner.operands[0], result=op.results[0].type)
    rewriter.replace_op(op, new)
    return True


def _fold(kind: str, max_elements: int):
    """``kind(constants...)`` -> one strata.constant, for results of <= max_elements."""
    def pattern(op, rewriter) -> bool:
        shape, dtype = shape_of(op.results[0].type)
        if dtype not in ("f32", "f16", "i32") or None in shape:
            return False
        if int(np.prod(shape, dtype=np.int64)) > max_elements:
            return False
        if dtype == "i32" and kind in ("exp", "log", "sqrt", "tanh"):
            return False
        values = [_const_value(v) for v in op.operands]
        if any(v is None for v in values):
            return False
        with np.errstate(all="ignore"):
            wide = [v.astype(np.float64 if dtype != "i32" else np.int64) for v in values]
            folded = np.broadcast_to(_FOLDERS[kind](*wide), shape).astype(numpy_dtype(dtype))
        with rewriter.ip, op.location:
            new = strata.ConstantOp(_dense(folded, dtype, shape))
        rewriter.replace_op(op, new)
        return True

    return pattern


def _zeros_if(test):
    """An op for which ``test(op)`` holds -> a zero constant of its (static) result type."""
    def pattern(op, rewriter) -> bool:
        shape, dtype = shape_of(op.results[0].type)
        if None in shape or dtype == "i1" or not test(op):
            return False
        with rewriter.ip, op.location:
            new = strata.ConstantOp(_dense(np.zeros(shape), dtype, shape))
        rewriter.replace_op(op, new)
        return True

    return pattern


def _empty_k(op) -> bool:
    """A matmul whose K is 0: every element of the product is an empty sum (MLIR's tiling
    asserts on a contraction over no element)."""
    k = shape_of(op.operands[0].type)[0]
    return bool(k) and k[-1] == 0


def _no_elements(op) -> bool:
    return 0 in shape_of(op.results[0].type)[0]


def _op_class(kind: str):
    return strata.op_class(f"strata.{kind}")


@dataclass(frozen=True, eq=False, repr=False)
class CanonicalizePass(Pass):
    """Simplify strata ops algebraically, fold small constants and drop dead ops."""

    name = "strata-canonicalize"
    max_fold_elements: int = option(64, min=0, help="Fold ops on constants of at most this many elements")
    max_iterations: int = option(10, min=1, help="Rounds of the greedy pattern driver before giving up on a fixpoint")

    def patterns(self) -> list:
        """``(op class, pattern, benefit)``: a dead op goes first, then the identities,
        then folding (so ``x * 1`` with a constant ``x`` keeps ``x``)."""
        found = [(cls, _erase_if_dead, 4) for cls in strata.OP_CLASSES]
        for kind, (number, side) in _IDENTITY.items():
            found.append((_op_class(kind), _identity(number, side == "both"), 3))
        for kind in ("reshape", "broadcast_to", "cast"):
            found.append((_op_class(kind), _same_type, 3))
        found.append((strata.TransposeOp, _transpose, 3))
        found.append((strata.ReshapeOp, _reshape_of_reshape, 2))
        for kind in _FOLDERS:
            found.append((_op_class(kind), _fold(kind, self.max_fold_elements), 1))
        found.append((strata.MatmulOp, _zeros_if(_empty_k), 2))
        for cls in strata.OP_CLASSES:
            if cls is not strata.ConstantOp:
                found.append((cls, _zeros_if(_no_elements), 2))
        return found

    def run(self, module: ir.Operation) -> None:
        apply_greedily(module, self.patterns(), max_iterations=self.max_iterations)
