"""Numerical comparison of strata results against float64 numpy references.

    from strata.testing import assert_close
    y = f(x, w)                                   # f32, f16, bf16 or i32 result
    ref = x.astype(np.float64) @ w.astype(np.float64)
    assert_close(y, ref, "f32", reduction_length=x.shape[-1],
                 magnitude=np.abs(x.astype(np.float64)) @ np.abs(w.astype(np.float64)))

The bound on each element is derived from the unit roundoff ``u`` of the
result's dtype (f32 ``2**-24``, f16 ``2**-11``, bf16 ``2**-8``; the bound uses
``2u``, one rounding of the result plus one of an input)::

    bound_i = rtol_factor * (ops + sqrt(reduction_length)) * 2u * scale_i

``scale_i`` is ``magnitude[i]`` when given (for a dot product, the sum of
``|a_k| * |b_k|``), else ``max(|expected_i|, 1)``. ``sqrt(K)`` is the usual
probabilistic growth of rounding error in a K-term sum; ``ops`` counts chained
elementwise roundings. Integer dtypes must match exactly. NaN positions must
match exactly, and so must infinities (sign included).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["assert_close", "error_report", "unit_roundoff"]

_ROUNDOFF = {"f32": 2.0 ** -24, "f16": 2.0 ** -11, "bf16": 2.0 ** -8, "f64": 2.0 ** -53}


def _dtype_name(dtype) -> str:
    if isinstance(dtype, str):
        return dtype
    dt = np.dtype(dtype)
    if dt.name == "bfloat16":
        return "bf16"
    return {"float32": "f32", "float16": "f16", "float64": "f64", "int32": "i32",
            "int64": "i64", "int8": "i8", "bool": "i1"}.get(dt.name, dt.name)


def unit_roundoff(dtype) -> float:
    """The unit roundoff of a float dtype (``"f32"``, ``np.float16``, ...); 0 for integers."""
    return _ROUNDOFF.get(_dtype_name(dtype), 0.0)


def error_report(actual, expected) -> dict:
    """Max abs error, max rel error and the worst element of ``actual`` vs ``expected``.

    Only positions where both are finite count; returns a dict with ``max_abs``,
    ``max_rel``, ``index`` (of the largest abs error, or None), ``actual`` and
    ``expected`` (the values there).
    """
    a = np.asarray(actual).astype(np.float64)
    e = np.asarray(expected).astype(np.float64)
    a, e = np.broadcast_arrays(a, e)
    finite = np.isfinite(a) & np.isfinite(e)
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.where(finite, np.abs(a - e), 0.0)
        rel = np.where(finite, err / np.maximum(np.abs(e), np.finfo(np.float64).tiny), 0.0)
    if err.size == 0:
        return {"max_abs": 0.0, "max_rel": 0.0, "index": None, "actual": None, "expected": None}
    idx = np.unravel_index(int(np.argmax(err)), err.shape)
    return {"max_abs": float(err.max()), "max_rel": float(rel.max()), "index": tuple(
        int(i) for i in idx), "actual": float(a[idx]), "expected": float(e[idx])}


def assert_close(actual, expected_f64, dtype=None, *, reduction_length: int = 1, ops: int = 1,
                 rtol_factor: float = 4.0, magnitude=None, atol: float = 0.0,
                 what: str = "") -> None:
    """Asserts ``actual`` (a strata result) is within a dtype-derived bound of the reference.

    ``dtype`` defaults to ``actual``'s dtype. ``reduction_length`` is K of a
    dot-product-like reduction, ``ops`` the count of chained elementwise ops,
    ``magnitude`` an optional per-element scale (broadcastable), ``atol`` an
    extra absolute slack. Raises AssertionError with the max abs/rel error,
    the bound and the worst element on a mismatch.
    """
    actual = np.asarray(actual)
    name = _dtype_name(actual.dtype if dtype is None else dtype)
    label = f"{what}: " if what else ""
    expected = np.asarray(expected_f64, dtype=np.float64)
    if actual.shape != expected.shape:
        raise AssertionError(f"{label}shape {actual.shape} != expected {expected.shape}")
    a = actual.astype(np.float64)
    if name.startswith("i") or actual.dtype == np.bool_:
        if not np.array_equal(a, expected):
            bad = np.argwhere(a != expected)
            idx = tuple(int(i) for i in bad[0])
            raise AssertionError(f"{label}{len(bad)} of {a.size} {name} elements differ; first "
                                 f"at {idx}: actual {a[idx]}, expected {expected[idx]}")
        return
    nan_a, nan_e = np.isnan(a), np.isnan(expected)
    if not np.array_equal(nan_a, nan_e):
        idx = tuple(int(i) for i in np.argwhere(nan_a != nan_e)[0])
        raise AssertionError(f"{label}NaN positions differ ({int(nan_a.sum())} actual vs "
                             f"{int(nan_e.sum())} expected); first at {idx}: actual {a[idx]}, "
                             f"expected {expected[idx]}")
    inf_a, inf_e = np.isinf(a), np.isinf(expected)
    if not np.array_equal(np.where(inf_a, a, 0), np.where(inf_e, expected, 0)):
        idx = tuple(int(i) for i in np.argwhere((inf_a | inf_e) & (a != expected))[0])
        raise AssertionError(f"{label}infinities differ; first at {idx}: actual {a[idx]}, "
                             f"expected {expected[idx]}")
    finite = ~(nan_e | inf_e)
    if magnitude is None:
        scale = np.maximum(np.abs(expected), 1.0)
    else:
        scale = np.broadcast_to(np.abs(np.asarray(magnitude, dtype=np.float64)), a.shape)
        scale = np.where(np.isfinite(scale), scale, 0.0)
    u = 2.0 * unit_roundoff(name)
    bound = rtol_factor * (ops + math.sqrt(max(reduction_length, 1))) * u * scale + atol
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.where(finite, np.abs(a - expected), 0.0)
    over = err > bound
    if over.any():
        rep = error_report(a, expected)
        excess = np.where(over, err - bound, -np.inf)
        idx = np.unravel_index(int(np.argmax(excess)), a.shape)
        raise AssertionError(
            f"{label}{int(over.sum())} of {a.size} {name} elements exceed the bound; "
            f"max abs error {rep['max_abs']:.6g}, max rel error {rep['max_rel']:.6g}; worst at "
            f"{tuple(int(i) for i in idx)}: actual {a[idx]!r}, expected {expected[idx]!r}, "
            f"error {err[idx]:.6g} > bound {bound[idx]:.6g}")
