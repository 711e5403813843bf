"""strata.logical_and / or / xor / not on bool arrays, comparisons and numbers, vs numpy."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import strata

NAMES = ["logical_and", "logical_or", "logical_xor"]


@pytest.mark.parametrize("name", NAMES)
def test_bool_arguments_broadcast(name):
    rng = np.random.default_rng(len(name))
    a = rng.random((3, 1, 5)) < 0.5
    b = rng.random((4, 5)) < 0.5
    got = strata.jit(lambda x, y: getattr(strata, name)(x, y))(a, b)
    assert got.dtype == np.bool_ and np.array_equal(got, getattr(np, name)(a, b))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16, np.int32])
@pytest.mark.parametrize("name", NAMES + ["logical_not"])
def test_numbers_are_true_when_non_zero(name, dtype):
    x = np.array([0.0, -0.0, 2.0, -1.0, 0.5, 7.0, 0.0, 3.0], np.float64)
    if dtype != np.int32:
        x[-1] = np.nan
    x = x.astype(dtype)
    mask = np.array([True, False, True, False, False, True, True, False])
    if name == "logical_not":
        got = strata.jit(lambda v: strata.logical_not(v))(x)
        want = np.logical_not(x.astype(np.float64))
    else:  # a number and a comparison's result
        got = strata.jit(lambda v, m: getattr(strata, name)(v, strata.greater(m, 0.5)))(
            x, mask.astype(np.float32))
        want = getattr(np, name)(x.astype(np.float64), mask)
    assert got.dtype == np.bool_ and np.array_equal(got, want)


def test_not_of_a_mask_selects():
    a = np.array([[1.0, -2.0], [3.0, -4.0]], np.float32)
    got = strata.jit(lambda x: strata.where(strata.logical_not(strata.less(x, 0.0)), x, 0.0))(a)
    assert np.array_equal(got, np.where(~(a < 0), a, 0))


def test_scalars_alone_are_an_error():
    with pytest.raises(strata.StrataError, match="at least one operand must be a strata "
                       "tensor"):
        strata.jit(lambda x: strata.logical_and(1, 0) + x)(np.ones(2, np.float32))
