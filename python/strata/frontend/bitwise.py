"""numpy's bitwise ops over Tensor proxies (``&``, ``|``, ``^``, ``~``, ``<<``, ``>>``).

    strata.bitwise_and(a, b)        # strata.bitwise_and on i32 / i64 (numpy broadcasting)
    a << 3; a >> b                  # strata.left_shift / strata.right_shift
    ~a; strata.invert(a)            # strata.bitwise_not
    (x > 0) & (y > 0)               # bools: strata.logical_and (a bool tensor), as numpy

Integer operands follow ``strata.add``'s rules (an i32 beside an i64 widens, a scalar
takes the tensor's dtype). A bool tensor beside an integer one counts as 0 / 1 of that
type (numpy's promotion); bool ``&``, ``|``, ``^``, ``~`` stay bool. Shift counts
outside ``[0, bits)`` give numpy's results: 0 for ``<<``, 0 or -1 for ``>>``.
"""

from __future__ import annotations

import sys

import numpy as np

from . import ops as O
from .tensor import Tensor, install_builders

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "invert",
           "left_shift", "right_shift"]

_LOGICAL = {"bitwise_and": O.logical_and, "bitwise_or": O.logical_or,
            "bitwise_xor": O.logical_xor}


def _is_bool(v) -> bool:
    if isinstance(v, Tensor):
        return v.dtype == "i1"
    if isinstance(v, np.ndarray):
        return v.dtype == np.bool_
    return isinstance(v, (bool, np.bool_))


def _as_int(v, beside):
    """A bool operand as 0 / 1 of the integer type beside it (i32 if none)."""
    if isinstance(v, Tensor) and v.dtype == "i1":
        other = beside.dtype if isinstance(beside, Tensor) and beside.dtype != "i1" else "i32"
        return O.cast(v, other)
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    return v


def _binary(name, lhs, rhs):
    if name in _LOGICAL and _is_bool(lhs) and _is_bool(rhs):
        return _LOGICAL[name](lhs, rhs)
    return O._binary(name, _as_int(lhs, rhs), _as_int(rhs, lhs))


def _make_binary(name, doc):
    @O._user_errors
    def fn(lhs, rhs):
        return _binary(name, lhs, rhs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


bitwise_and = _make_binary("bitwise_and", "numpy ``bitwise_and`` (``lhs & rhs``).")
bitwise_or = _make_binary("bitwise_or", "numpy ``bitwise_or`` (``lhs | rhs``).")
bitwise_xor = _make_binary("bitwise_xor", "numpy ``bitwise_xor`` (``lhs ^ rhs``).")
left_shift = _make_binary("left_shift", "numpy ``left_shift`` (``lhs << rhs``); a count "
                          "outside [0, bits) gives 0.")
right_shift = _make_binary("right_shift", "numpy ``right_shift`` (``lhs >> rhs``), "
                           "arithmetic; a count outside [0, bits) gives 0 or -1.")


@O._user_errors
def bitwise_not(x):
    """numpy ``invert`` (``~x``): every bit flipped; a bool tensor is negated logically."""
    if _is_bool(x):
        return O.logical_not(x)
    return O._unary("bitwise_not", x)


invert = bitwise_not

install_builders("bitwise", sys.modules[__name__])  # Tensor's & | ^ ~ << >>
