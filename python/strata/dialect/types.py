"""Conversions between strata's dtype names, numpy dtypes and MLIR types."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the bindings are imported where they are used
    from mlir import ir

import numpy as np

__all__ = ["dtype_to_mlir", "mlir_to_dtype", "tensor_type", "shape_of", "numpy_dtype",
           "dtype_of_numpy", "dtype_name", "DYNAMIC"]

# MLIR's ShapedType::kDynamic (``ir.ShapedType.get_dynamic_size()``), spelled out so that
# importing this module does not load MLIR (a disk-cache hit never needs it).
DYNAMIC = -(2**63)


def dtype_to_mlir(dtype: str) -> ir.Type:
    """``"f32"`` -> ``f32`` in the current context."""
    from mlir import ir

    if dtype == "f32":
        return ir.F32Type.get()
    if dtype == "f16":
        return ir.F16Type.get()
    if dtype == "bf16":
        return ir.BF16Type.get()
    if dtype == "f64":
        return ir.F64Type.get()
    if dtype in ("i1", "i8", "i32", "i64"):
        return ir.IntegerType.get_signless(int(dtype[1:]))
    raise ValueError(f"unknown element type '{dtype}'")


def mlir_to_dtype(t: ir.Type) -> str:
    """``f32`` -> ``"f32"``; any other type prints as its own name."""
    return str(t)


def tensor_type(shape, dtype: str) -> ir.RankedTensorType:
    from mlir import ir

    dims = [DYNAMIC if d is None else int(d) for d in shape]
    return ir.RankedTensorType.get(dims, dtype_to_mlir(dtype))


def shape_of(t: ir.Type):
    """``(shape, dtype)`` of a ranked tensor type; ``None`` for a dynamic dim."""
    from mlir import ir

    rt = ir.RankedTensorType(t)
    shape = tuple(None if rt.is_dynamic_dim(i) else rt.get_dim_size(i) for i in range(rt.rank))
    return shape, mlir_to_dtype(rt.element_type)


def numpy_dtype(dtype: str) -> np.dtype:
    if dtype == "bf16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype({"f32": np.float32, "f16": np.float16, "f64": np.float64, "i32": np.int32,
                     "i64": np.int64, "i8": np.int8, "i1": np.bool_}[dtype])


_NAMES = ("f32", "f16", "bf16", "f64", "i1", "i8", "i32", "i64")


def dtype_name(dtype) -> str | None:
    """strata's name of a dtype however the user spells it: ``"f32"``, ``"float32"``,
    ``np.float32``, ``np.dtype("float32")``, ``ml_dtypes.bfloat16``, ``bool``, ``int``,
    ``float`` (numpy's meaning: float64, int64); None if it names no dtype."""
    if isinstance(dtype, str) and dtype in _NAMES:
        return dtype
    try:
        return dtype_of_numpy(np.dtype(dtype))
    except TypeError:
        return None


def dtype_of_numpy(dt) -> str | None:
    dt = np.dtype(dt)
    if dt.name == "bfloat16":
        return "bf16"
    return {"float32": "f32", "float16": "f16", "float64": "f64", "int32": "i32",
            "int64": "i64", "bool": "i1", "int8": "i8"}.get(dt.name)
