"""Booleans at function boundaries: i1 tensors cross them as i8 0/1 (numpy's bool layout).

LLVM cannot lay out i1 buffers (one-shot bufferization would make ``memref<...xi1>``
out-params whose stores the memref-to-LLVM conversion rejects), and numpy stores a
bool as one byte holding 0 or 1. So, once strata ops are lowered, every i1 tensor
argument or result of a function is retyped to i8; inside the function the values
are converted where they cross:

    func.func @f(%m: tensor<4xi1>) -> tensor<4xi1>      (after strata-to-linalg)
  =>
    func.func @f(%m: tensor<4xi8>) -> tensor<4xi8>
      %b = linalg.generic ins(%m : tensor<4xi8>) ... arith.cmpi ne, %x, 0 -> tensor<4xi1>
      ... uses of %b ...
      %r = linalg.generic ins(%v : tensor<4xi1>) ... arith.extui -> tensor<4xi8>
      return %r

A comparison returned directly is returned in its i8 storage (no conversion).
The runtime passes numpy bool arrays for these buffers as they are.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from .common import map_elementwise, rtype

__all__ = ["BOOL_STORAGE", "bool_boundaries", "is_bool_tensor"]

BOOL_STORAGE = 8  # bits of a stored bool: i8 0/1


def is_bool_tensor(t: ir.Type) -> bool:
    return isinstance(t, ir.RankedTensorType) and \
        ir.RankedTensorType(t).element_type == ir.IntegerType.get_signless(1)


def _stored(value: ir.Value) -> ir.Value:
    """An i1 tensor as i8 0/1: the i8 source of a narrowing generic, else a widening one."""
    owner = value.owner
    owner = owner.operation if hasattr(owner, "operation") else owner
    if isinstance(owner, ir.Operation) and owner.name == "linalg.generic" and \
            "strata.bool_narrow" in owner.attributes:
        return owner.operands[0]
    i8 = ir.IntegerType.get_signless(BOOL_STORAGE)
    shape = list(rtype(value).shape)
    return map_elementwise([value], ir.RankedTensorType.get(shape, i8),
                           lambda b: arith.extui(i8, b), i8)


def narrow(stored: ir.Value) -> ir.Value:
    """An i8 0/1 tensor as an i1 tensor (marked, so a returned one is not widened back)."""
    i1 = ir.IntegerType.get_signless(1)
    shape = list(rtype(stored).shape)
    out = map_elementwise([stored], ir.RankedTensorType.get(shape, i1),
                          lambda c: arith.cmpi(arith.CmpIPredicate.ne, c,
                                               arith.constant(c.type, 0)), i1)
    out.owner.attributes["strata.bool_narrow"] = ir.UnitAttr.get()
    return out


def bool_boundaries(fn: ir.Operation) -> None:
    """Retypes the i1 tensor arguments and results of ``fn`` (a func.func) to i8 storage."""
    if fn.regions and fn.regions[0].blocks:
        with fn.location:
            _retype(fn, fn.regions[0].blocks[0])


def _retype(fn: ir.Operation, block: ir.Block) -> None:
    i8 = ir.IntegerType.get_signless(BOOL_STORAGE)
    for arg in block.arguments:
        if not is_bool_tensor(arg.type):
            continue
        users = [(u.owner, u.operand_number) for u in arg.uses]
        arg.set_type(ir.RankedTensorType.get(list(rtype(arg).shape), i8))
        if not users:
            continue
        with ir.InsertionPoint.at_block_begin(block):
            bits = narrow(arg)
        for owner, number in users:
            owner = owner.operation if hasattr(owner, "operation") else owner
            owner.operands[number] = bits
    for op in block.operations:
        op = op.operation
        if op.name != "func.return":
            continue
        for i, value in enumerate(list(op.operands)):
            if is_bool_tensor(value.type):
                with ir.InsertionPoint(op), op.location:
                    op.operands[i] = _stored(value)
        ftype = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            [a.type for a in block.arguments], [v.type for v in op.operands]))
    for op in block.operations:  # the markers have done their job
        op = op.operation
        if "strata.bool_narrow" in op.attributes:
            del op.attributes["strata.bool_narrow"]
