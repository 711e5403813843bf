"""torch dtypes as strata's, and a node's operands cast to its result dtype.

torch promotes mixed operands (an int32 tensor with an int64 one gives int64), strata's
ops do not: converters (aten_ops.py, aten_bitwise.py) cast to the node's result dtype.
"""

from __future__ import annotations

import numpy as np
import torch

from ..frontend import ops as S
from ..frontend.tensor import Tensor

__all__ = ["strata_dtype", "out_dtype", "cast_to", "numpy_type"]


_DTYPES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
           torch.float64: "f64", torch.int32: "i32", torch.int64: "i64", torch.bool: "i1"}


def strata_dtype(dtype: torch.dtype) -> str | None:
    """The strata dtype of a torch dtype, or None."""
    return _DTYPES.get(dtype)


def out_dtype(node, index=None) -> str:
    """The strata dtype of the node's result (of result ``index``)."""
    val = node.meta.get("val")
    if index is not None:
        val = val[index]
    return strata_dtype(val.dtype)


def cast_to(x, dtype):
    """``x`` in ``dtype`` (a bool as ``x != 0``); a Python number as it is."""
    if isinstance(x, Tensor) and x.dtype != dtype:
        if dtype == "i1":
            return S.not_equal(x, 0)
        return S.cast(x, dtype)
    return x


def numpy_type(node):
    """The numpy scalar type of the node's result dtype (bf16 as float32)."""
    dtype = out_dtype(node)
    return {"f32": np.float32, "f16": np.float16, "bf16": np.float32, "f64": np.float64,
            "i32": np.int32, "i64": np.int64, "i1": np.bool_}[dtype]
