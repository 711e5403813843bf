"""Bool tensors are stored as i8 0/1 from strata-to-linalg on (numpy's bool layout).

LLVM cannot lay out i1 buffers (the memref-to-LLVM conversion rejects stores of
i1), and numpy stores a bool as one byte holding 0 or 1. So strata-to-linalg
gives every bool tensor i8 storage: function arguments and results, comparisons,
and whatever moves bools around (reshape, transpose, select, concat...). An i1
exists only as a scalar inside a linalg body:

    func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xi1>) -> tensor<4xi1>
      %0 = "strata.compare"(%a, %b) {predicate = "lt"} : (...) -> tensor<4xi1>
  =>
    func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xi8>) -> tensor<4xi8>
      %0 = linalg.generic ... { %c = arith.cmpf olt, %x, %y; %s = arith.extui %c : i1 to i8 }

A consumer reads a stored bool with ``cmpi ne, %s, 0`` (``as_bit``). The
runtime hands numpy bool arrays to these buffers as they are.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from .common import map_elementwise

__all__ = ["BOOL_STORAGE", "is_bool_tensor", "stored_type", "store_arguments", "widen",
           "sync_function_type", "keeps_bool_semantics"]

BOOL_STORAGE = 8  # bits of a stored bool: i8 0/1

# Ops whose i1 result is computed from its inputs by their own rule (so they
# keep their i1 result type while lowered): every other op producing bools only
# moves or selects bool bytes, and is lowered directly on the i8 storage.
_BOOL_PRODUCERS = ("strata.compare", "strata.cast", "strata.constant")


def is_bool_tensor(t: ir.Type) -> bool:
    return isinstance(t, ir.RankedTensorType) and \
        ir.RankedTensorType(t).element_type == ir.IntegerType.get_signless(1)


def stored_type(t: ir.Type) -> ir.Type:
    """The i8 storage type of a bool tensor type (other types unchanged)."""
    if not is_bool_tensor(t):
        return t
    t = ir.RankedTensorType(t)
    return ir.RankedTensorType.get(list(t.shape), ir.IntegerType.get_signless(BOOL_STORAGE),
                                   t.encoding)


def keeps_bool_semantics(op: ir.Operation) -> bool:
    """Whether ``op`` (a strata op with a bool result) can be lowered on i8 storage."""
    return op.name not in _BOOL_PRODUCERS


def store_arguments(fn: ir.Operation) -> None:
    """Gives the bool tensor arguments of ``fn`` (a func.func) their i8 storage type."""
    if fn.regions and fn.regions[0].blocks:
        for arg in fn.regions[0].blocks[0].arguments:
            if is_bool_tensor(arg.type):
                arg.set_type(stored_type(arg.type))


def widen(value: ir.Value) -> ir.Value:
    """An i1 tensor as its i8 0/1 storage (built at the current insertion point)."""
    i8 = ir.IntegerType.get_signless(BOOL_STORAGE)
    return map_elementwise([value], stored_type(value.type), lambda b: arith.extui(i8, b), i8)


def sync_function_type(fn: ir.Operation) -> None:
    """Sets ``fn``'s type from its block arguments and its return's operands."""
    if not fn.regions or not fn.regions[0].blocks:
        return
    block = fn.regions[0].blocks[0]
    ret = list(block.operations)[-1].operation
    if ret.name != "func.return":
        return
    fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
        [a.type for a in block.arguments], [v.type for v in ret.operands]))
