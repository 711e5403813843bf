"""Dtypes by any numpy spelling wherever strata takes one (astype, cast, constant), and a
clear message for a strata op called outside a trace."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import strata

X = np.arange(-3, 5, dtype=np.int64)


@pytest.mark.parametrize("spelling,want", [
    (np.float16, np.float16), ("float16", np.float16), ("f16", np.float16),
    (np.dtype("float32"), np.float32), ("f32", np.float32), (ml_dtypes.bfloat16,
                                                            ml_dtypes.bfloat16),
    (np.int32, np.int32), ("int64", np.int64), (int, np.int64), (float, np.float64),
    ("float64", np.float64),
])
def test_astype_and_cast_take_numpy_spellings(spelling, want):
    got = strata.jit(lambda x: x.astype(spelling))(X)
    assert got.dtype == np.dtype(want) and np.array_equal(got.astype(np.float64), X)
    got = strata.jit(lambda x: strata.cast(x, spelling) + strata.constant(np.ones(8),
                                                                           spelling))(X)
    assert got.dtype == np.dtype(want) and np.array_equal(got.astype(np.float64), X + 1)


def test_not_a_dtype_is_a_located_error():
    with pytest.raises(strata.StrataError, match=r"test_dtype_spellings\.py:\d+:\d+: error: "
                       r"'banana' is not a dtype \(use one of f32, f16, bf16, f64, i32, i64"):
        strata.jit(lambda x: x.astype("banana"))(X)


def test_strata_op_outside_a_trace_says_what_to_do():
    with pytest.raises(strata.StrataError, match=r"strata ops build a traced program: .* "
                       r"not on ndarray .*strata\.jit"):
        strata.softmax(np.ones(3, np.float32))
