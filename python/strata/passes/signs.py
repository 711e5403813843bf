"""Which float values can never be negative, read off the ops that make them.

strata-expand-math asks this of a ``math.tanh``'s argument: ``tanh(relu(x*w+b)*.5+.1)``
takes the sign and the absolute value of an argument that is never below +0, and an
expansion for such arguments drops both (two of the ~25 vector ops per element of
that chain). The question is about the value's SSA producers only, so it holds
wherever the ops sit (a ``linalg.generic`` body, scalar or vector code):

* a constant (scalar or splat) that is +0 or above, also as a ``linalg.generic``
  input (a 0-d tensor) read through its body argument;
* ``arith.maximumf`` / ``arith.maxnumf`` with such an operand;
* ``arith.addf``, ``arith.mulf``, ``arith.divf`` of two such values;
* ``math.exp``, ``math.sqrt`` of anything (``sqrt(-0)`` is -0: only of such a value).

"Never negative" here means +0, a positive number, +inf or NaN: never -0, whose tanh
is -0 (``maximumf(-0, +0)`` is +0, so relu's result qualifies). A NaN keeps
propagating through the expansion as it does through the general one.
"""

from __future__ import annotations

import math

from mlir import ir

__all__ = ["never_negative"]

_DEPTH = 16  # producers followed up the SSA graph before answering "unknown"


def never_negative(value: ir.Value, depth: int = _DEPTH) -> bool:
    """Whether ``value`` (an f32/f16/bf16 scalar or vector) is +0, positive, +inf or NaN
    for every input, judged from its producers (False when unsure)."""
    if depth == 0:
        return False
    if isinstance(value.owner, ir.Block):
        return _constant_input(value)
    op = value.owner.operation if hasattr(value.owner, "operation") else value.owner
    name = op.name
    if name == "arith.constant":
        return _constant_never_negative(op.attributes["value"])
    if name in ("arith.maximumf", "arith.maxnumf"):
        return any(never_negative(v, depth - 1) for v in op.operands)
    if name in ("arith.addf", "arith.mulf", "arith.divf"):
        return all(never_negative(v, depth - 1) for v in op.operands)
    if name == "math.exp":
        return True
    if name == "math.sqrt":
        return never_negative(op.operands[0], depth - 1)
    return False


def _constant_input(arg) -> bool:
    """A ``linalg.generic`` body argument that reads a constant (strata passes its
    scalar constants as 0-d tensor inputs) that is never negative."""
    parent = arg.owner.owner
    if parent is None or parent.name != "linalg.generic":
        return False
    index = ir.BlockArgument(arg).arg_number
    if index >= len(parent.operands) - len(parent.results):
        return False
    source = parent.operands[index].owner
    return not isinstance(source, ir.Block) and source.name == "arith.constant" and \
        _constant_never_negative(source.attributes["value"])


def _constant_never_negative(attr: ir.Attribute) -> bool:
    if isinstance(attr, ir.FloatAttr):
        values = [attr.value]
    elif isinstance(attr, ir.DenseFPElementsAttr) and attr.is_splat:
        values = [ir.FloatAttr(attr.get_splat_value()).value]
    else:
        return False
    # +0.0 and -0.0 compare equal: copysign tells them apart
    return all(v > 0 or (v == 0 and math.copysign(1.0, v) > 0) for v in values)
