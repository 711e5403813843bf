"""strata.prod and strata.min against a float64 numpy reference, every dtype, odd shapes."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import strata

NP = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "i32": np.int32}
ULP = {"f32": 2.0 ** -23, "f16": 2.0 ** -10, "bf16": 2.0 ** -7}


def _data(shape, dtype, seed, name):
    rng = np.random.default_rng(seed)
    if dtype == "i32":
        return rng.integers(-9, 10, shape).astype(np.int32)
    if name == "prod":  # magnitudes near 1: the product stays in range
        x = rng.uniform(0.7, 1.4, shape) * rng.choice([-1.0, 1.0], shape)
    else:
        x = rng.standard_normal(shape) * 50
    return x.astype(NP[dtype])


@pytest.mark.parametrize("dtype", sorted(NP))
@pytest.mark.parametrize("name", ["prod", "min"])
@pytest.mark.parametrize("shape,axis,keepdims", [
    ((17,), None, False), ((3, 5, 7), 1, False), ((3, 5, 7), (0, 2), True),
    ((2, 9), -1, True), ((4, 0), 1, False)])  # the last: empty rows give the identity
def test_matches_numpy(name, dtype, shape, axis, keepdims):
    x = _data(shape, dtype, seed=len(shape), name=name)
    got = strata.jit(lambda v: getattr(strata, name)(v, axis=axis, keepdims=keepdims))(x)
    ref = x.astype(np.float64)
    if name == "prod":  # i32 products wrap around, as numpy's int32 ones
        want = (np.prod(x, axis=axis, keepdims=keepdims, dtype=np.int32).astype(np.float64)
                if dtype == "i32" else np.prod(ref, axis=axis, keepdims=keepdims))
    else:
        init = np.inf if dtype != "i32" else 2 ** 31 - 1
        want = np.min(ref, axis=axis, keepdims=keepdims, initial=init)
    assert got.dtype == x.dtype and got.shape == want.shape
    got = got.astype(np.float64)
    if dtype == "i32" or name == "min":  # exact
        assert np.array_equal(got, want)
    else:
        k = max(1, x.size // max(1, want.size))
        bound = (2 * ULP[dtype] + 2 * k * 2.0 ** -24) * np.abs(want)
        assert np.all(np.abs(got - want) <= bound)


def test_int32_products_wrap_and_min_sees_nan():
    x = np.array([[2 ** 20, 2 ** 15], [-3, 7]], np.int32)
    got = strata.jit(lambda v: strata.prod(v, axis=1))(x)
    assert np.array_equal(got, np.prod(x, axis=1, dtype=np.int32))  # 2**35 wraps to 8
    y = np.array([[1.0, np.nan, -2.0], [3.0, -np.inf, 0.0]], np.float32)
    got = strata.jit(lambda v: strata.min(v, axis=1))(y)
    assert np.isnan(got[0]) and got[1] == -np.inf  # NaN propagates, as in numpy


def test_bad_axis_is_a_located_error():
    with pytest.raises(strata.StrataError, match="prod: axis 3 is out of range") as info:
        strata.jit(lambda v: strata.prod(v, axis=3))(np.ones((2, 3), np.float32))
    assert "test_prod_min.py" in str(info.value)
