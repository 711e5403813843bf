"""ATen's bitwise ops as strata's (frontend/bitwise.py): the converters aten_ops.py merges.

    aten.bitwise_and.Tensor(%a, %b)      int32 / int64 -> strata.bitwise_and
    aten.__lshift__.Scalar(%a, 3)        -> strata.left_shift (shift counts as numpy/torch)
    aten.bitwise_not(%mask)              bool -> the logical ops (strata.compare)

Operands are cast to the node's result dtype first (torch promotes: an int32 tensor with
an int64 one, or a bool tensor with an int one, gives int64 / int), so each strata op
sees one dtype; Python numbers beside a bool result are read as bools.
"""

from __future__ import annotations

import numpy as np

from ..frontend import bitwise as B
from ..frontend import ops as S
from ..frontend.tensor import Tensor
from .aten_dtypes import cast_to, numpy_type, out_dtype

__all__ = ["BITWISE_CONVERTERS"]


def _binary(fn):
    def convert(node, self, other):
        dtype = out_dtype(node)
        if not isinstance(self, Tensor) and not isinstance(other, Tensor):
            self = S.constant(np.array(self, numpy_type(node)), dtype)
        values = [cast_to(v, dtype) if isinstance(v, Tensor) else
                  bool(v) if dtype == "i1" else int(v) for v in (self, other)]
        return fn(*values)

    return convert


def _bitwise_not(node, self):
    return B.bitwise_not(cast_to(self, out_dtype(node)))


BITWISE_CONVERTERS = {
    "bitwise_and": _binary(B.bitwise_and), "bitwise_or": _binary(B.bitwise_or),
    "bitwise_xor": _binary(B.bitwise_xor), "bitwise_not": _bitwise_not,
    "__and__": _binary(B.bitwise_and), "__or__": _binary(B.bitwise_or),
    "__xor__": _binary(B.bitwise_xor),
    "bitwise_left_shift": _binary(B.left_shift), "__lshift__": _binary(B.left_shift),
    "bitwise_right_shift": _binary(B.right_shift), "__rshift__": _binary(B.right_shift),
}
