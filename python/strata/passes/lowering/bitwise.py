"""strata bitwise ops (i32 / i64) -> one linalg.generic each, with numpy broadcasting maps.

    %0 = "strata.bitwise_and"(%a, %b) : (tensor<4x8xi32>, tensor<8xi32>) -> tensor<4x8xi32>
  =>
    %0 = linalg.generic {...} ins(%a, %b) outs(tensor.empty()) { arith.andi }

``bitwise_not`` is ``xori x, -1``. A shift whose count lies outside ``[0, bits)`` is
poison in arith (and undefined in LLVM), so the shifts are guarded to give numpy's and
PyTorch's results; one unsigned comparison catches negative counts too:

    left_shift  = select(b <u bits, shli(a, b), 0)
    right_shift = shrsi(a, minui(b, bits - 1))       (the sign fills in: 0 or -1)
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from .common import map_elementwise, rtype, scalar

__all__ = ["lower_bitwise", "lower_bitwise_not"]


def _left_shift(a, b):
    t = a.type
    bits = scalar(t, ir.IntegerType(t).width)
    in_range = arith.cmpi(arith.CmpIPredicate.ult, b, bits)
    return arith.select(in_range, arith.shli(a, b), scalar(t, 0))


def _right_shift(a, b):
    t = a.type
    count = arith.minui(b, scalar(t, ir.IntegerType(t).width - 1))
    return arith.shrsi(a, count)


_SCALAR = {
    "bitwise_and": arith.andi, "bitwise_or": arith.ori, "bitwise_xor": arith.xori,
    "left_shift": _left_shift, "right_shift": _right_shift,
}


def lower_bitwise(op, name: str):
    """``bitwise_and`` / ``bitwise_or`` / ``bitwise_xor`` / ``left_shift`` / ``right_shift``."""
    return map_elementwise(list(op.operands), rtype(op.result), _SCALAR[name])


def lower_bitwise_not(op):
    return map_elementwise([op.operands[0]], rtype(op.result),
                           lambda a: arith.xori(a, scalar(a.type, -1)))
