"""3-D convolution and pooling (NCDHW), and 1-D pooling (NCL), over Tensor proxies.

    strata.conv3d(x, w, stride=1, padding=1, groups=1)   # strata.conv3d, PyTorch's conv3d
    strata.max_pool3d(x, 2); strata.avg_pool3d(x, 3, 2, 1)  # strata.max_pool3d / avg_pool3d
    strata.max_pool1d(x, 3, 2, 1)                        # a 2-D pool of height 1

Sizes are an int for every spatial dim or one value per dim; ``padding`` may also give
``(before, after)`` for each dim (6 values in 3-D). As the 2-D pools, padded positions
never win a max and an average divides by the real elements of its window.
"""

from __future__ import annotations

import numpy as np

from ..dialect import shapes as S
from . import ops as O
from .record import DIALECT as strata

__all__ = ["conv3d", "max_pool3d", "avg_pool3d", "max_pool1d", "avg_pool1d"]


def _sizes(v, n):
    return [int(v)] * n if isinstance(v, (int, np.integer)) else [int(x) for x in v]


def _padding(v, n):
    """One ``(before, after)`` pair per spatial dim, flattened."""
    v = _sizes(v, 2 * n)
    return [p for x in v for p in (x, x)] if len(v) == n else v


def _window(kernel, stride, padding, n):
    """(kernel, strides, padding) of a pool over ``n`` spatial dims; the stride defaults
    to the kernel."""
    kernel = _sizes(kernel, n)
    return kernel, kernel if stride is None else _sizes(stride, n), _padding(padding, n)


@O._user_errors
def conv3d(x, filter, stride=1, padding=0, dilation=1, groups: int = 1):  # noqa: A002
    """PyTorch ``conv3d`` in NCDHW: filter ``[F, C/groups, KD, KH, KW]``; floats only."""
    scope, (x, w) = O._as_tensors(x, filter)
    if isinstance(groups, (int, np.integer)) and not isinstance(groups, bool):
        groups = int(groups)
    extra = {} if groups == 1 else {"groups": groups}
    return O._emit(scope, strata.Conv3dOp, x, w, _sizes(stride, 3), _padding(padding, 3),
                   _sizes(dilation, 3), **extra)


def _pool3d(name, x, kernel, stride, padding):
    scope, (x,) = O._as_tensors(x)
    return O._emit(scope, strata.op_class(f"strata.{name}"), x, *_window(kernel, stride,
                                                                          padding, 3))


@O._user_errors
def max_pool3d(x, kernel, stride=None, padding=0):
    """3-D max pooling of ``[N, C, D, H, W]``; ``stride`` defaults to the kernel."""
    return _pool3d("max_pool3d", x, kernel, stride, padding)


@O._user_errors
def avg_pool3d(x, kernel, stride=None, padding=0):
    """3-D average pooling over the real (unpadded) elements of each window."""
    return _pool3d("avg_pool3d", x, kernel, stride, padding)


def _pool1d(name, x, kernel, stride, padding):
    """A pool of ``[N, C, L]`` as the 2-D pool of ``[N, C, 1, L]`` with a 1-high window."""
    scope, (x,) = O._as_tensors(x)
    if x.ndim != 3:
        raise S.ShapeError(f"{name}: input must have rank 3 (NCL), got {S.fmt_shape(x.shape)}")
    (k,), (s,), pads = _window(kernel, stride, padding, 1)
    pool = O.max_pool2d if name == "max_pool1d" else O.avg_pool2d
    y = pool(O.reshape(x, [x.shape[0], x.shape[1], 1, x.shape[2]]), [1, k], [1, s],
             [0, 0, *pads])
    return O.reshape(y, [y.shape[0], y.shape[1], y.shape[3]])


@O._user_errors
def max_pool1d(x, kernel, stride=None, padding=0):
    """1-D max pooling of ``[N, C, L]``; ``stride`` defaults to the kernel."""
    return _pool1d("max_pool1d", x, kernel, stride, padding)


@O._user_errors
def avg_pool1d(x, kernel, stride=None, padding=0):
    """1-D average pooling over the real (unpadded) elements of each window."""
    return _pool1d("avg_pool1d", x, kernel, stride, padding)
