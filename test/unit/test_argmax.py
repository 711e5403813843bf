"""strata.argmax / strata.argmin against numpy: odd shapes, every dtype, ties, NaN, inf."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import strata

NP = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "i32": np.int32}


def _data(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == "i32":
        x = rng.integers(-4, 5, shape).astype(np.int32)  # many ties
        flat = x.reshape(-1)
        flat[:2] = [2 ** 31 - 1, -(2 ** 31)][:flat.size]
        return x
    x = np.round(rng.standard_normal(shape) * 3).astype(np.float32)  # ties too
    flat = x.reshape(-1)
    edges = [np.nan, np.inf, -np.inf, np.nan, 0.0, -0.0]
    flat[::7][:len(edges)] = edges[:len(flat[::7])]
    return x.astype(NP[dtype])


@pytest.mark.parametrize("dtype", sorted(NP))
@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("shape,axis,keepdims", [
    ((17,), 0, False), ((3, 5, 7), 1, False), ((3, 5, 7), -1, True), ((9, 2), 0, True),
    ((4, 5), None, False), ((1,), 0, False)])
def test_matches_numpy(name, dtype, shape, axis, keepdims):
    x = _data(shape, dtype, seed=sum(shape))
    got = strata.jit(lambda v: getattr(strata, name)(v, axis=axis, keepdims=keepdims))(x)
    want = getattr(np, name)(x.astype(np.float64), axis=axis, keepdims=keepdims)
    assert got.dtype == np.int32
    assert np.array_equal(got, want)


def test_all_nan_and_all_equal_rows():
    x = np.array([[np.nan, np.nan], [5.0, 5.0], [-np.inf, -np.inf]], np.float32)
    for name in ("argmax", "argmin"):
        got = strata.jit(lambda v, name=name: getattr(strata, name)(v, axis=1))(x)
        assert np.array_equal(got, getattr(np, name)(x, axis=1))


def test_empty_axis_is_a_located_error():
    with pytest.raises(strata.StrataError, match="argmax: axis 1 of the input 3x0 is "
                       "empty") as info:
        strata.jit(lambda v: strata.argmax(v, axis=1))(np.ones((3, 0), np.float32))
    assert "test_argmax.py" in str(info.value)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("shape", [(3, 17), (5, 1000), (1100, 1000), (2, 3, 257)], ids=str)
def test_last_axis_rows(name, dtype, threads, shape):
    """The last axis as two vectorized row reductions (the best value, then its first
    index): rows past the reduction width, a partial last vector, rows on threads
    (1100 x 1000 is past parallel-elements), ties, NaN and infinities in the rows."""
    x = _data(shape, dtype, seed=shape[-1])
    x.reshape(-1, shape[-1])[-1, -1] = np.nan  # a NaN in the last vector of a row
    got = strata.jit(lambda v: getattr(strata, name)(v, axis=-1), threads=threads)(x)
    want = getattr(np, name)(x.astype(np.float64), axis=-1)
    assert np.array_equal(got, want)


def test_last_axis_dynamic_rows():
    x = _data((37, 100), "f32", seed=3)
    f = strata.jit(lambda v: strata.argmax(v, axis=1), dynamic={"v": [0, 1]})
    for rows, cols in ((37, 100), (5, 33)):
        part = np.ascontiguousarray(x[:rows, :cols])
        assert np.array_equal(f(part), np.argmax(part.astype(np.float64), axis=1))
