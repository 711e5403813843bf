"""Sorting over Tensor proxies: argsort (strata.argsort), and sort / topk built from it.

    strata.argsort(x, axis=-1, descending=False)    # i32 indices, stable (numpy kind="stable")
    strata.sort(x, axis=-1, descending=False)       # the sorted values
    strata.topk(x, k, axis=-1, largest=True)        # (values, i32 indices) of the k first
    strata.take_along_axis(x, indices, axis)        # numpy's take_along_axis

NaN sorts as the largest value (last ascending, first descending), as numpy and PyTorch
do; equal elements keep their order. ``topk`` takes the first ``k`` of the stable sort:
among ties the lower index comes first. Values are picked with one ``strata.take`` from
the flattened input at flat offsets (the other coordinates are small constant aranges),
so ``sort`` and ``topk`` need static shapes; ``argsort`` takes dynamic dims too.
"""

from __future__ import annotations

import numpy as np

from ..dialect import shapes as S
from . import ops as O
from .record import DIALECT as strata

__all__ = ["argsort", "sort", "topk", "take_along_axis"]


def _axis_of(x, axis):
    """``(x, axis)``: ``axis=None`` sorts the flattened ``x``, as numpy."""
    if axis is None:
        return O.reshape(x, [-1]), 0
    return x, S.normalize_axis("argsort", int(axis), x.ndim)


def _argsort(x, axis, descending):
    scope, (x,) = O._as_tensors(x)
    x, axis = _axis_of(x, axis)
    return O._emit(scope, strata.ArgsortOp, x, axis,
                   descending=True if descending else None)


@O._user_errors
def argsort(x, axis: int | None = -1, descending: bool = False):
    """numpy ``argsort(x, axis, kind="stable")`` (``descending=True``: largest first, ties
    still in order): i32 indices; NaN sorts as the largest value."""
    return _argsort(x, axis, descending)


@O._user_errors
def take_along_axis(x, indices, axis: int):
    """numpy ``take_along_axis``: ``out[..., i, ...] = x[..., indices[..., i, ...], ...]``;
    ``indices`` (i32 / i64, a tensor of ``x``'s rank) broadcasts against ``x`` in the other
    dims. An index is wrapped if negative and clamped into the axis. Static shapes only."""
    scope, (x, idx) = O._as_tensors(x, indices)
    if idx.dtype not in ("i32", "i64"):
        raise S.ShapeError(f"take_along_axis: indices element type {idx.dtype} is not "
                           "supported (expected i32 or i64)")
    if idx.ndim != x.ndim:
        raise S.ShapeError(f"take_along_axis: indices {S.fmt_shape(idx.shape)} must have the "
                           f"input's rank {x.ndim}")
    axis = S.normalize_axis("take_along_axis", int(axis), x.ndim)
    if None in x.shape or None in idx.shape:
        raise S.ShapeError("take_along_axis: dynamic dims are not supported (the values of "
                           "sort and topk need static shapes; argsort takes dynamic ones)")
    out_shape = list(S.broadcast_shapes("take_along_axis", [
        1 if i == axis else d for i, d in enumerate(x.shape)],
        [1 if i == axis else d for i, d in enumerate(idx.shape)]))
    out_shape[axis] = idx.shape[axis]
    if x.shape[axis] == 0:
        raise S.ShapeError(f"take_along_axis: axis {axis} of the input "
                           f"{S.fmt_shape(x.shape)} has no elements to pick")
    total = int(np.prod(x.shape, dtype=np.int64))
    dtype = "i32" if total < 2**31 else "i64"
    npd = np.int32 if dtype == "i32" else np.int64
    strides = [int(np.prod(x.shape[d + 1:], dtype=np.int64)) for d in range(x.ndim)]
    size = x.shape[axis]
    picked = O.cast(idx, dtype) if idx.dtype != dtype else idx
    picked = O.where(O.less(picked, 0), O.add(picked, size), picked)
    picked = O.minimum(O.maximum(picked, 0), size - 1)
    flat = O.mul(picked, strides[axis]) if strides[axis] != 1 else picked
    for d in range(x.ndim):
        if d == axis or out_shape[d] == 1:
            continue
        shape = [1] * x.ndim
        shape[d] = out_shape[d]
        coords = (np.arange(out_shape[d], dtype=npd) * npd(strides[d])).reshape(shape)
        coords.setflags(write=False)
        flat = O.add(flat, O.constant(coords, dtype))
    if list(flat.shape) != out_shape:
        flat = O.broadcast_to(flat, out_shape)
    return O.take(O.reshape(x, [total]), flat, axis=0)


@O._user_errors
def sort(x, axis: int | None = -1, descending: bool = False):
    """numpy ``sort(x, axis, kind="stable")``, or largest first with ``descending=True``;
    NaN sorts as the largest value (PyTorch's ``sort(stable=True)``)."""
    scope, (x,) = O._as_tensors(x)
    x, axis = _axis_of(x, axis)
    return take_along_axis(x, _argsort(x, axis, descending), axis)


@O._user_errors
def topk(x, k: int, axis: int = -1, largest: bool = True):
    """PyTorch ``topk``: ``(values, indices)`` of the ``k`` largest (``largest=False``:
    smallest) elements along ``axis``, in sorted order; i32 indices. Ties give the lower
    index first; NaN counts as the largest value."""
    scope, (x,) = O._as_tensors(x)
    axis = S.normalize_axis("topk", int(axis), x.ndim)
    size = x.shape[axis]
    if not isinstance(k, (int, np.integer)) or k < 0 or (size is not None and k > size):
        raise S.ShapeError(f"topk: k = {k} must be an integer in [0, {size}] (the size of "
                           f"axis {axis})")
    order = _argsort(x, axis, largest)
    starts = [0] * x.ndim
    limits = [d if i != axis else int(k) for i, d in enumerate(x.shape)]
    indices = O.slice(order, starts, limits)
    return take_along_axis(x, indices, axis), indices
