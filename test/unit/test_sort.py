"""strata.argsort / sort / topk / take_along_axis against a reference sorted in float64
(Python's stable sort with NaN as the largest value): odd shapes, every axis, every
dtype, ties, NaN, infinities and signed zeros, both directions, a dynamic axis."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import strata

NP = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "f64": np.float64,
      "i32": np.int32, "i64": np.int64}


def _data(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype in ("i32", "i64"):
        info = np.iinfo(NP[dtype])
        x = rng.integers(-4, 5, shape).astype(NP[dtype])  # many ties
        flat = x.reshape(-1)
        flat[:3] = [info.max, info.min, info.min][:flat.size]
        return x
    x = np.round(rng.standard_normal(shape) * 3).astype(np.float64)  # ties too
    flat = x.reshape(-1)
    edges = [np.nan, np.inf, -np.inf, np.nan, 0.0, -0.0, 0.5]
    flat[::5][:len(edges)] = edges[:len(flat[::5])]
    return x.astype(NP[dtype])


def _ref_argsort(x, axis, descending=False):
    """Stable order of each row along ``axis`` in float64 (ints as Python ints)."""
    x = np.moveaxis(np.asarray(x), axis, -1)
    rows = x.reshape(-1, x.shape[-1]) if x.size else x.reshape(0, x.shape[-1])
    out = np.empty(rows.shape, np.int64)
    for r, row in enumerate(rows):
        vals = [int(v) for v in row] if row.dtype.kind == "i" else \
            [float(v) for v in row.astype(np.float64)]
        nan = [v != v for v in vals]
        if descending:  # NaN first, then largest; ties keep their order
            key = [(not n, 0 if n else -v) for n, v in zip(nan, vals, strict=True)]
        else:  # smallest first, NaN last
            key = [(n, 0 if n else v) for n, v in zip(nan, vals, strict=True)]
        out[r] = sorted(range(len(vals)), key=key.__getitem__)
    return np.moveaxis(out.reshape(x.shape), -1, axis)


def _same(got, want):
    """Bit for bit (NaN where NaN, signs of zeros)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "i":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_array_equal(got.astype(np.float64).view(np.uint64),
                                      want.astype(np.float64).view(np.uint64))


CASES = [((17,), 0), ((3, 5, 7), 1), ((3, 5, 7), -1), ((9, 2), 0), ((1,), 0), ((2, 33), 1),
         ((4, 64), -1)]


@pytest.mark.parametrize("dtype", sorted(NP))
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("shape,axis", CASES, ids=str)
def test_argsort_and_sort_match_the_stable_reference(shape, axis, descending, dtype):
    x = _data(shape, dtype, seed=sum(shape))
    before = x.copy()
    order, values = strata.jit(lambda v: (strata.argsort(v, axis=axis, descending=descending),
                                          strata.sort(v, axis=axis, descending=descending)))(x)
    want = _ref_argsort(x, axis, descending)
    assert order.dtype == np.int32
    np.testing.assert_array_equal(order, want)
    _same(values, np.take_along_axis(x, want, axis))
    _same(x, before)  # the input is not sorted in place


def test_ascending_matches_numpy_stable_argsort():
    x = _data((6, 31), "f32", 3)
    got = strata.jit(lambda v: strata.argsort(v))(x)
    np.testing.assert_array_equal(got, np.argsort(x.astype(np.float64), kind="stable"))


def test_axis_none_sorts_the_flattened_input():
    x = _data((3, 4, 5), "i32", 4)
    order, values = strata.jit(lambda v: (strata.argsort(v, axis=None),
                                          strata.sort(v, axis=None)))(x)
    np.testing.assert_array_equal(order, np.argsort(x, axis=None, kind="stable"))
    np.testing.assert_array_equal(values, np.sort(x, axis=None))


@pytest.mark.parametrize("dtype", sorted(NP))
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("shape,axis,k", [((5, 13), -1, 4), ((7, 3, 6), 0, 7), ((9,), 0, 1),
                                          ((4, 11), 1, 0)], ids=str)
def test_topk_is_the_head_of_the_stable_sort(shape, axis, k, largest, dtype):
    x = _data(shape, dtype, seed=k + len(shape))
    values, indices = strata.jit(lambda v: strata.topk(v, k, axis=axis, largest=largest))(x)
    want = np.take(_ref_argsort(x, axis, descending=largest), np.arange(k), axis=axis)
    np.testing.assert_array_equal(indices, want)
    _same(values, np.take_along_axis(x, want, axis))


def test_dynamic_axis_argsort():
    fn = strata.compile(lambda v: strata.argsort(v, descending=True),
                        strata.TensorSpec((3, None), "f32"))
    for n in (1, 2, 5, 16, 37):
        x = _data((3, n), "f32", n)
        np.testing.assert_array_equal(fn(x), _ref_argsort(x, 1, descending=True))


def test_take_along_axis_matches_numpy():
    x = _data((4, 6, 5), "f32", 5)
    idx = np.random.default_rng(6).integers(0, 6, (4, 3, 1)).astype(np.int32)
    got = strata.jit(lambda v, i: strata.take_along_axis(v, i, axis=1))(x, idx)
    _same(got, np.take_along_axis(x, np.broadcast_to(idx, (4, 3, 5)), axis=1))


@pytest.mark.parametrize("call,message", [
    (lambda v: strata.topk(v, 6), r"topk: k = 6 must be an integer in \[0, 5\]"),
    (lambda v: strata.argsort(v > 0), r"argsort: operand element type i1 is not supported"),
    (lambda v: strata.argsort(v, axis=2), r"argsort: axis 2 is out of range"),
    (lambda v: strata.take_along_axis(v, v, 1), r"take_along_axis: indices element type f32"),
])
def test_errors_are_located(call, message):
    with pytest.raises(strata.StrataError, match=r"test_sort.py:\d+:\d+: error: " + message):
        strata.jit(call)(np.ones((3, 5), np.float32))
