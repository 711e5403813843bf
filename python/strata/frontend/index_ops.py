"""numpy-style builders of the scan, reversal, padding and scatter ops.

    strata.cumsum(x, axis=1)                    # strata.cumsum
    strata.flip(x, axis=(0, 2))                 # strata.reverse (x[::-1] builds it too)
    strata.pad(x, ((1, 0), (2, 3)), value=-1)   # strata.pad; negative widths crop
    strata.scatter_add(x, ids, updates, axis=0) # strata.scatter_add
    strata.index_put(x, ids, values)            # x[ids] = values: strata.scatter

Each builder is a :func:`frontend.ops._user_errors` function: a broken rule is a
located ``StrataError`` at the user's line.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

import numpy as np

from ..dialect import shapes as S
from .ops import (
    _as_tensors,
    _cast,
    _emit,
    _slice,
    _user_errors,
    broadcast_to,
    not_equal,
    reshape,
)
from .record import DIALECT as strata

__all__ = ["cumsum", "flip", "pad", "scatter", "scatter_add", "index_put"]


@_user_errors
def cumsum(x, axis: int | None = None):
    """numpy ``cumsum``: running sums along ``axis`` (``None``: of the flattened ``x``),
    in ``x``'s dtype; f16/bf16 accumulate in f32."""
    scope, (x,) = _as_tensors(x)
    if axis is None:
        x = reshape(x, [-1])
        axis = 0
    return _emit(scope, strata.CumsumOp, x, int(axis))


@_user_errors
def flip(x, axis: int | Sequence[int] | None = None):
    """numpy ``flip``: the order of elements reversed along ``axis`` (``None``: all)."""
    scope, (x,) = _as_tensors(x)
    if axis is None:
        axes = list(range(x.ndim))
    elif isinstance(axis, (int, np.integer)):
        axes = [int(axis)]
    else:
        axes = [int(a) for a in axis]
    if x.dtype == "i1":  # a bool mask: reversed as 0 / 1
        return not_equal(_emit(scope, strata.ReverseOp, _cast(scope, x, "i32"), axes), 0)
    return _emit(scope, strata.ReverseOp, x, axes)


def _widths(pad_width, rank):
    """numpy's pad_width forms: ``n``, ``(before, after)``, ``((b0, a0), (b1, a1), ...)``."""
    w = np.asarray(pad_width, dtype=object)
    if w.ndim == 0:
        pairs = [(int(w), int(w))] * rank
    elif w.ndim == 1 and len(w) == 1:
        pairs = [(int(w[0]), int(w[0]))] * rank
    elif w.ndim == 1 and len(w) == 2:
        pairs = [(int(w[0]), int(w[1]))] * rank
    elif w.ndim == 2 and w.shape[1] == 2 and w.shape[0] in (1, rank):
        pairs = [(int(a), int(b)) for a, b in w] * (rank if w.shape[0] == 1 else 1)
    else:
        raise S.ShapeError(f"pad: pad_width {pad_width!r} does not fit a rank-{rank} input "
                           "(expected n, (before, after) or one pair per dim)")
    return pairs


@_user_errors
def pad(x, pad_width, value: float = 0.0):
    """numpy ``pad(x, pad_width, constant_values=value)``; a negative width crops that
    many elements (PyTorch's ``F.pad``)."""
    scope, (x,) = _as_tensors(x)
    pairs = _widths(pad_width, x.ndim)
    if builtins.any(lo < 0 or hi < 0 for lo, hi in pairs):
        starts, limits = [], []
        for i, (lo, hi) in enumerate(pairs):
            size = x.shape[i]
            if size is None and hi < 0:
                raise S.ShapeError(f"pad: cropping the end of dynamic dim {i} is not supported")
            start, limit = builtins.max(-lo, 0), size if hi >= 0 else size + hi
            if size is not None and start > limit:
                raise S.ShapeError(f"pad: widths {(lo, hi)} crop more than the {size} "
                                   f"elements of dim {i}")
            starts.append(start)
            limits.append(limit)
        x = _slice(scope, x, starts, limits, [1] * x.ndim)
        pairs = [(builtins.max(lo, 0), builtins.max(hi, 0)) for lo, hi in pairs]
    if builtins.all(lo == 0 and hi == 0 for lo, hi in pairs):
        return x
    value = float(value)
    if x.dtype == "i1":  # a bool mask: padded as 0 / 1
        return not_equal(pad(_cast(scope, x, "i32"), pairs, value=float(bool(value))), 0)
    return _emit(scope, strata.PadOp, x, [lo for lo, _ in pairs], [hi for _, hi in pairs],
                 pad_value=None if value == 0.0 else value)


def _constant_indices(indices):
    """i32 numpy indices (our copy of a list, or a converted array), or the value as is."""
    if isinstance(indices, (list, tuple)):
        out = np.asarray(indices, dtype=np.int64)
    elif isinstance(indices, np.ndarray) and indices.dtype.kind in "iu":
        out = indices
    else:
        return indices
    if out.size and (out.max() >= 2**31 or out.min() < -2**31):
        raise S.ShapeError("indices do not fit in i32")
    if out.dtype != np.int32:
        writable = out.flags.writeable and out is indices
        out = out.astype(np.int32)
        out.setflags(write=writable)
    return out


def _check_constant_range(op, indices, size, axis):
    if isinstance(indices, np.ndarray) and size is not None and indices.size:
        bad = indices[(indices < -size) | (indices >= size)]
        if bad.size:
            raise S.ShapeError(f"{op}: index {int(bad.flat[0])} is out of range for axis "
                               f"{axis} of size {size}")


def _scatter(op, x, indices, updates, axis):
    indices = _constant_indices(indices)
    scope, (x,) = _as_tensors(x)
    scope, (x, idx, upd) = _as_tensors(x, indices, updates, scope=scope, dtype=x.dtype)
    ax = S.normalize_axis(op, int(axis), x.ndim)
    _check_constant_range(op, indices, x.shape[ax], ax)
    if idx.ndim == upd.ndim and idx.shape != upd.shape and builtins.all(
            u is not None and k is not None and u >= k
            for u, k in zip(upd.shape, idx.shape, strict=True)):  # PyTorch: src may be larger
        upd = _slice(scope, upd, [0] * upd.ndim, list(idx.shape), [1] * upd.ndim)
    return _emit(scope, strata.op_class(f"strata.{op}"), x, idx, upd, ax)


@_user_errors
def scatter(x, indices, updates, axis: int = 0):
    """PyTorch ``x.scatter(axis, indices, updates)``: a copy of ``x`` with
    ``out[..., indices[p], ...] = updates[p]`` (the axis coordinate from ``indices``).
    Negative indices count from the end; constant indices out of range are an error,
    runtime ones out of range are skipped. The last of duplicate indices wins."""
    return _scatter("scatter", x, indices, updates, axis)


@_user_errors
def scatter_add(x, indices, updates, axis: int = 0):
    """PyTorch ``x.scatter_add(axis, indices, updates)``: a copy of ``x`` with
    ``updates[p]`` added at ``out[..., indices[p], ...]``; duplicates add up. Index rules
    as :func:`scatter`'s."""
    return _scatter("scatter_add", x, indices, updates, axis)


@_user_errors
def index_put(x, indices, values, accumulate: bool = False):
    """PyTorch ``x.index_put((indices,), values, accumulate)`` with one index tensor:
    ``x[indices] = values`` (or ``+=`` with ``accumulate``) along the first axis, as a copy."""
    indices = _constant_indices(indices)
    scope, (x,) = _as_tensors(x)
    scope, (idx, vals) = _as_tensors(indices, values, scope=scope, dtype=x.dtype)
    if x.ndim == 0:
        raise S.ShapeError("index_put: the input must have rank >= 1")
    _check_constant_range("index_put", indices, x.shape[0], 0)
    rest = list(x.shape[1:])
    if builtins.any(d is None for d in rest):
        raise S.ShapeError("index_put: dims after the first must be static")
    target = list(idx.shape) + rest
    if vals.shape != tuple(target):
        vals = broadcast_to(vals, target)
    if idx.ndim != 1:
        idx = reshape(idx, [-1])
        vals = reshape(vals, [idx.shape[0]] + rest)
    k = idx.shape[0]
    if rest:
        idx = broadcast_to(reshape(idx, [k] + [1] * len(rest)), [k] + rest)
    return _emit(scope, strata.op_class("strata.scatter_add" if accumulate else
                                        "strata.scatter"), x, idx, vals, 0)
