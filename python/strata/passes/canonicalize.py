"""strata-canonicalize: algebraic simplification, small-constant folding and dead-op removal.

Rules, applied until nothing changes:

    x * 1, 1 * x, x / 1, x + 0, 0 + x, x - 0  ->  x      (when x already has the result type)
    transpose(transpose(x, p), q)             ->  transpose(x, p∘q), or x if that is identity
    reshape(reshape(x))                       ->  reshape(x);  reshape/broadcast_to/cast to
                                                  the operand's own type -> x
    op(constants...) with <= max-fold-elements ->  strata.constant   (elementwise, f32/f16/i32)
    an unused strata op                        ->  erased

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
from .base import Pass, collect_ops, option

__all__ = ["CanonicalizePass"]

_FOLDERS = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum,
    "minimum": np.minimum, "neg": np.negative, "abs": np.abs, "exp": np.exp, "log": np.log,
    "sqrt": np.sqrt, "tanh": np.tanh, "relu": lambda x: np.maximum(x, 0),
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


@dataclass(frozen=True)
class CanonicalizePass(Pass):
    """Simplify strata ops algebraically, fold small constants and drop dead ops."""

    name = "strata-canonicalize"
    max_fold_elements: int = option(64, min=0, help="Fold ops on constants of at most this many elements")
    max_iterations: int = option(10, min=1, help="Sweeps over the module before giving up on a fixpoint")

    def run(self, module: ir.Operation) -> None:
        for _ in range(self.max_iterations):
            if not self._sweep(module):
                return

    def _sweep(self, module: ir.Operation) -> bool:
        ops = collect_ops(module, lambda op: op.name.startswith("strata."))
        changed = False
        for op in reversed(ops):  # users before producers, so dead chains go in one sweep
            if len(list(op.results[0].uses)) == 0:
                op.erase()
                changed = True
                continue
            replacement = self._simplify(op)
            if replacement is not None:
                op.results[0].replace_all_uses_with(replacement)
                op.erase()
                changed = True
        return changed

    def _simplify(self, op: ir.Operation):
        kind = op.name.split(".", 1)[1]
        result = op.results[0]
        if kind in _IDENTITY:
            number, side = _IDENTITY[kind]
            lhs, rhs = op.operands
            if _splat_equals(rhs, number) and lhs.type == result.type:
                return lhs
            if side == "both" and _splat_equals(lhs, number) and rhs.type == result.type:
                return rhs
        if kind in ("reshape", "broadcast_to", "cast") and op.operands[0].type == result.type:
            return op.operands[0]
        if kind == "transpose":
            return self._transpose(op)
        if kind == "reshape":
            inner = _defining(op.operands[0], "reshape")
            if inner is not None:
                with ir.InsertionPoint(op), op.location:
                    new = ir.Operation.create("strata.reshape", results=[result.type],
                                              operands=[inner.operands[0]])
                return new.result
        if kind in _FOLDERS:
            return self._fold(op, kind)
        return None

    def _transpose(self, op):
        perm = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
        if perm == list(range(len(perm))):
            return op.operands[0]
        inner = _defining(op.operands[0], "transpose")
        if inner is None:
            return None
        inner_perm = list(ir.DenseI64ArrayAttr(inner.attributes["permutation"]))
        composed = [inner_perm[p] for p in perm]
        if composed == list(range(len(composed))):
            return inner.operands[0]
        with ir.InsertionPoint(op), op.location:
            new = ir.Operation.create(
                "strata.transpose", results=[op.results[0].type], operands=[inner.operands[0]],
                attributes={"permutation": ir.DenseI64ArrayAttr.get(composed)})
        return new.result

    def _fold(self, op, kind):
        shape, dtype = shape_of(op.results[0].type)
        if dtype not in ("f32", "f16", "i32") or None in shape:
            return None
        if int(np.prod(shape, dtype=np.int64)) > self.max_fold_elements:
            return None
        values = [_const_value(v) for v in op.operands]
        if any(v is None for v in values):
            return None
        with np.errstate(all="ignore"):
            if dtype == "i32" and kind in ("exp", "log", "sqrt", "tanh"):
                return None
            wide = [v.astype(np.float64 if dtype != "i32" else np.int64) for v in values]
            folded = np.broadcast_to(_FOLDERS[kind](*wide), shape).astype(numpy_dtype(dtype))
        with ir.InsertionPoint(op), op.location:
            new = ir.Operation.create("strata.constant", results=[op.results[0].type],
                                      attributes={"value": _dense(folded, dtype, shape)})
        return new.result
