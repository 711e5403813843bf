"""int64 is a real dtype (i64): arguments, arithmetic, constants and indices beyond int32
are never narrowed or wrapped; integer powers compile."""

import numpy as np
import pytest

import strata

BIG = np.array([[2**40, -2**35, 7], [3, 2**33, -1]], np.int64)
SMALL = np.array([[1, 2, 3], [4, 5, 6]], np.int64)

CASES = {
    "add": (lambda x, y: x + y, lambda x, y: x + y),
    "mul3p1": (lambda x, y: x * 3 + 1, lambda x, y: x * 3 + 1),
    "sub_big_scalar": (lambda x, y: x - 2**40, lambda x, y: x - 2**40),
    "maximum": (lambda x, y: strata.maximum(x, y), np.maximum),
    "sum": (lambda x, y: strata.sum(x, axis=1), lambda x, y: x.sum(1)),
    "matmul": (lambda x, y: x @ strata.transpose(y, (1, 0)), lambda x, y: x @ y.T),
    "compare": (lambda x, y: x > y, lambda x, y: x > y),
    "cumsum": (lambda x, y: strata.cumsum(x, axis=1), lambda x, y: np.cumsum(x, 1)),
    "where": (lambda x, y: strata.where(x > y, x, y), lambda x, y: np.where(x > y, x, y)),
    "floor_divide": (lambda x, y: x // 7, lambda x, y: x // 7),
    "mod": (lambda x, y: x % 7, lambda x, y: x % 7),
    "with_i32": (lambda x, y: x + strata.cast(y, "i32"), lambda x, y: x + y.astype(np.int32)),
    "to_f32": (lambda x, y: strata.cast(x, "f32"), lambda x, y: x.astype(np.float32)),
    "to_i32_wraps_as_numpy": (lambda x, y: strata.cast(x, "i32"),
                              lambda x, y: x.astype(np.int32)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_int64_ops_match_numpy_exactly(name):
    fn, ref = CASES[name]
    got = np.asarray(strata.jit(fn)(BIG, SMALL))
    want = np.asarray(ref(BIG, SMALL))
    assert got.dtype == want.dtype and np.array_equal(got, want), (got, want)


def test_take_never_wraps_an_index():
    """2**32 + 1 as an int32 would be 1; strata's rule is numpy's mode='clip' (documented
    on strata.take), so it picks the last element, as does -1 and 7."""
    x = np.arange(5, dtype=np.float32)
    f = strata.jit(lambda x, i: strata.take(x, i))
    for idx in ([2**32 + 1], [7], [-1], [2**40, 0, -2**40]):
        got = f(x, np.array(idx, np.int64))
        assert np.array_equal(got, np.take(x, idx, mode="clip") if min(idx) >= 0 else
                              x[[i if -5 <= i < 5 else (4 if i > 0 else 0) for i in idx]])
    const = strata.jit(lambda x: strata.take(x, np.array([2**32 + 1])))
    assert np.array_equal(const(x), [4.0])


def test_constant_beyond_int32_stays_int64():
    values = np.array([2**33, -2**40, 5])
    values.setflags(write=False)
    got = strata.jit(lambda x: x + values)(np.zeros(3, np.int64))
    assert got.dtype == np.int64 and np.array_equal(got, values)
    small = np.array([1, 2, 3])
    small.setflags(write=False)
    narrowed = strata.jit(lambda x: x + small)(np.zeros(3, np.int32))
    assert narrowed.dtype == np.int32 and np.array_equal(narrowed, small)


def test_int32_constant_dtype_out_of_range_is_an_error():
    with pytest.raises(strata.StrataError, match="does not fit in i32"):
        strata.jit(lambda x: x + strata.constant(np.array([2**40]), "i32"))(
            np.zeros(1, np.int32))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_powers(dtype):
    """math.ipowi has no LLVM lowering: convert-math-to-funcs makes it a function."""
    x = np.arange(-20, 21, dtype=dtype).reshape(41, 1) * np.ones((1, 37), dtype)
    assert np.array_equal(strata.jit(lambda x: x ** 2)(x), x ** 2)
    assert np.array_equal(strata.jit(lambda x: x ** 3 + 1)(x), x ** 3 + 1)
    exps = (np.maximum(x, 0) % 4).astype(dtype)
    assert np.array_equal(strata.jit(lambda x, e: x ** e)(x, exps), x ** exps)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_negative_integer_powers_are_defined(dtype):
    """numpy raises for a negative integer exponent; strata gives truncating 1 / x**|n|:
    1 for x == 1, -1 or 1 for x == -1, else 0 (0 ** -n too: no division is done)."""
    x = np.array([1, -1, -1, 2, -3, 0, 7], dtype)
    n = np.array([-1, -1, -2, -1, -3, -2, -5], dtype)
    got = strata.jit(lambda x, n: x ** n)(x, n)
    assert np.array_equal(got, np.array([1, -1, 1, 0, 0, 0, 0], dtype))
