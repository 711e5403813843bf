"""strata.conv3d, max_pool3d / avg_pool3d (NCDHW) and max_pool1d / avg_pool1d against
float64 numpy references: odd sizes, strides, paddings, dilations, groups, every dtype,
a dynamic batch."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import strata
from strata.testing import assert_close

FLOATS = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "f64": np.float64}


def _rand(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _pad(x, padding, value):
    widths = [(0, 0), (0, 0)] + [(padding[2 * i], padding[2 * i + 1])
                                 for i in range(x.ndim - 2)]
    return np.pad(x, widths, constant_values=value)


def _windows(x, kernel, strides, dilations):
    """``[N, C, O..., K...]``: each output position's window (dilated, strided)."""
    r = x.ndim - 2
    span = [d * (k - 1) + 1 for k, d in zip(kernel, dilations, strict=True)]
    win = sliding_window_view(x, span, axis=tuple(range(2, 2 + r)))
    index = (slice(None),) * 2 + tuple(slice(None, None, s) for s in strides) + tuple(
        slice(None, None, d) for d in dilations)
    return win[index]


def ref_conv3d(x, w, strides, padding, dilations, groups):
    x = _pad(x.astype(np.float64), padding, 0.0)
    w = w.astype(np.float64)
    win = _windows(x, w.shape[2:], strides, dilations)
    f, cg = w.shape[:2]
    fg = f // groups
    return np.concatenate([np.einsum("ncdhwijk,fcijk->nfdhw", win[:, g * cg:(g + 1) * cg],
                                     w[g * fg:(g + 1) * fg]) for g in range(groups)], axis=1)


def ref_pool(name, x, kernel, strides, padding):
    """Padded positions ignored: never the max, not counted in the average."""
    r = x.ndim - 2
    axes = tuple(range(-r, 0))
    x = x.astype(np.float64)
    ones = [1] * r
    if name == "max":
        win = _windows(_pad(x, padding, -np.inf), kernel, strides, ones)
        return win.max(axis=axes)
    total = _windows(_pad(x, padding, 0.0), kernel, strides, ones).sum(axis=axes)
    count = _windows(_pad(np.ones_like(x), padding, 0.0), kernel, strides, ones).sum(axis=axes)
    return total / count


CONVS = [  # input shape, filter shape, strides, padding (6), dilations, groups
    ((2, 3, 5, 6, 7), (4, 3, 3, 3, 3), (1, 1, 1), (0, 0, 0, 0, 0, 0), (1, 1, 1), 1),
    ((1, 4, 7, 5, 9), (6, 2, 3, 2, 3), (1, 2, 1), (1, 1, 0, 0, 2, 2), (1, 2, 1), 2),
    ((3, 6, 5, 5, 5), (6, 1, 3, 3, 1), (2, 1, 2), (1, 0, 1, 1, 0, 0), (1, 1, 1), 6),
    ((1, 2, 4, 3, 5), (5, 2, 1, 1, 1), (1, 1, 1), (0, 0, 0, 0, 0, 0), (1, 1, 1), 1),
]


@pytest.mark.parametrize("dtype", sorted(FLOATS))
@pytest.mark.parametrize("case", CONVS, ids=lambda c: "x".join(map(str, c[0])))
def test_conv3d_matches_float64(case, dtype):
    xs, ws, strides, padding, dilations, groups = case
    x, w = _rand(xs, FLOATS[dtype], 1), _rand(ws, FLOATS[dtype], 2)
    got = strata.jit(lambda a, b: strata.conv3d(a, b, stride=strides, padding=padding,
                                                dilation=dilations, groups=groups))(x, w)
    want = ref_conv3d(x, w, strides, padding, dilations, groups)
    assert got.dtype == x.dtype
    assert_close(got, want, reduction_length=int(np.prod(ws[1:])),
                 magnitude=ref_conv3d(np.abs(x), np.abs(w), strides, padding, dilations,
                                      groups))


POOLS = [  # input shape, kernel, strides, padding (6)
    ((2, 3, 6, 7, 8), (2, 2, 2), (2, 2, 2), (0, 0, 0, 0, 0, 0)),
    ((1, 2, 5, 6, 7), (3, 3, 3), (2, 2, 2), (1, 1, 1, 1, 1, 1)),
    ((2, 1, 7, 4, 5), (3, 1, 2), (1, 2, 2), (1, 1, 0, 0, 1, 1)),
]


@pytest.mark.parametrize("dtype", sorted(FLOATS) + ["i32", "i64"])
@pytest.mark.parametrize("name", ["max", "avg"])
@pytest.mark.parametrize("case", POOLS, ids=lambda c: "x".join(map(str, c[0])))
def test_pool3d_matches_float64(case, name, dtype):
    if name == "avg" and dtype.startswith("i"):
        pytest.skip("average pooling is floating-point only")
    shape, kernel, strides, padding = case
    if dtype.startswith("i"):
        x = np.random.default_rng(3).integers(-50, 50, shape).astype({"i32": np.int32,
                                                                      "i64": np.int64}[dtype])
    else:
        x = _rand(shape, FLOATS[dtype], 3)
        x.reshape(-1)[5] = np.nan  # a max propagates NaN, as PyTorch's
    fn = getattr(strata, f"{name}_pool3d")
    got = strata.jit(lambda a: fn(a, kernel, strides, padding))(x)
    want = ref_pool(name, x, kernel, strides, padding)
    assert got.dtype == x.dtype
    assert_close(got, want, reduction_length=int(np.prod(kernel)),
                 magnitude=ref_pool(name, np.abs(x.astype(np.float64)), kernel, strides,
                                    padding) if name == "avg" else None)


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
@pytest.mark.parametrize("name", ["max", "avg"])
def test_pool1d_matches_float64(name, dtype):
    x = _rand((2, 3, 11), FLOATS[dtype], 4)
    fn = getattr(strata, f"{name}_pool1d")
    got = strata.jit(lambda a: fn(a, 3, 2, 1))(x)
    assert_close(got, ref_pool(name, x, (3,), (2,), (1, 1)), reduction_length=3)


def test_dynamic_batch():
    w = _rand((4, 3, 2, 2, 2), np.float32, 5)
    fn = strata.compile(lambda a: (strata.conv3d(a, w, padding=1),
                                   strata.avg_pool3d(a, 2, 1, 1)),
                        strata.TensorSpec((None, 3, 4, 5, 3), "f32"))
    for n in (1, 3):
        x = _rand((n, 3, 4, 5, 3), np.float32, n)
        conv, pool = fn(x)
        assert_close(conv, ref_conv3d(x, w, (1, 1, 1), (1,) * 6, (1, 1, 1), 1),
                     reduction_length=24)
        assert_close(pool, ref_pool("avg", x, (2, 2, 2), (1, 1, 1), (1,) * 6),
                     reduction_length=8)


@pytest.mark.parametrize("call,message", [
    (lambda x: strata.conv3d(x, x[:, :2]),
     r"conv3d: the filter must have 3 / 1 = 3 channels, got 2"),
    (lambda x: strata.max_pool3d(x, 2, padding=2),
     r"max_pool3d: padding \[2, 2, 2, 2, 2, 2\] must be smaller than the kernel"),
    (lambda x: strata.max_pool1d(x, 2), r"max_pool1d: input must have rank 3 \(NCL\)"),
])
def test_errors_are_located(call, message):
    with pytest.raises(strata.StrataError, match=r"test_conv3d.py:\d+:\d+: error: " + message):
        strata.jit(call)(np.ones((4, 3, 4, 4, 4), np.float32))
