"""Integer bitwise ops (strata.bitwise_and/or/xor/not, left_shift, right_shift and the
``& | ^ ~ << >>`` operators) against a reference computed with Python integers: odd and
broadcast shapes, i32 and i64, the extreme values, shift counts outside [0, bits), bool
operands (which stay the logical ops) and the mixed-dtype promotions."""

from __future__ import annotations

import numpy as np
import pytest

import strata

BITS = {np.int32: 32, np.int64: 64}


def _wrap(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _ref(name, a, b, dtype):
    """The op on Python ints, element by element, wrapped to ``dtype`` (numpy's rules)."""
    bits = BITS[dtype]
    a, b = np.broadcast_arrays(a, b)

    def one(x, y):
        x, y = int(x), int(y)
        if name == "bitwise_and":
            return x & y
        if name == "bitwise_or":
            return x | y
        if name == "bitwise_xor":
            return x ^ y
        if name == "left_shift":
            return _wrap(x << y, bits) if 0 <= y < bits else 0
        if name == "right_shift":
            return x >> y if 0 <= y < bits else (-1 if x < 0 else 0)
        raise AssertionError(name)

    out = [one(x, y) for x, y in zip(a.reshape(-1), b.reshape(-1), strict=True)]
    return np.array(out, dtype=object).reshape(a.shape).astype(dtype)


def _values(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    special = np.array([0, -1, 1, info.min, info.max, 5, -6], dtype)
    flat = x.reshape(-1)
    flat[:min(len(special), flat.size)] = special[:flat.size]
    return x


def _counts(shape, dtype, seed):
    """Shift counts in and out of [0, bits): negative, 0, bits - 1, bits, beyond."""
    bits = BITS[dtype]
    rng = np.random.default_rng(seed)
    c = rng.integers(-3, bits + 4, size=shape).astype(dtype)
    flat = c.reshape(-1)
    edge = np.array([0, bits - 1, bits, -1, bits + 7, 1], dtype)
    flat[:min(len(edge), flat.size)] = edge[:flat.size]
    return c


OPS = ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"]
SHAPES = [((3, 5, 7), (3, 5, 7)), ((3, 5, 7), (7,)), ((1, 5, 1), (4, 1, 3)), ((13,), ())]


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("name", OPS)
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_binary_matches_python_integers(name, dtype, shapes):
    a = _values(shapes[0], dtype, 1)
    b = _counts(shapes[1], dtype, 2) if "shift" in name else _values(shapes[1], dtype, 2)
    got = strata.jit(getattr(strata, name))(a, b)
    want = _ref(name, a, b, dtype)
    assert got.dtype == dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_bitwise_not_and_invert(dtype):
    a = _values((5, 9), dtype, 3)
    got_not, got_op = strata.jit(lambda x: (strata.bitwise_not(x), ~x))(a)
    want = np.array([-int(v) - 1 for v in a.reshape(-1)], dtype=object).reshape(a.shape)
    np.testing.assert_array_equal(got_not, want.astype(dtype))
    np.testing.assert_array_equal(got_op, want.astype(dtype))
    assert strata.invert is strata.bitwise_not


def test_operators_with_scalars_on_either_side():
    a = _values((4, 7), np.int32, 4)
    c = _counts((4, 7), np.int32, 5)
    got = strata.jit(lambda x, n: (x & 12, 12 & x, x | -3, 9 ^ x, x << n, 3 << n, x >> 2,
                                   -77 >> n))(a, c)
    i32 = np.int32
    want = [_ref("bitwise_and", a, 12, i32), _ref("bitwise_and", 12, a, i32),
            _ref("bitwise_or", a, -3, i32), _ref("bitwise_xor", 9, a, i32),
            _ref("left_shift", a, c, i32), _ref("left_shift", 3, c, i32),
            _ref("right_shift", a, 2, i32), _ref("right_shift", -77, c, i32)]
    for g, w in zip(got, want, strict=True):
        assert g.dtype == np.int32
        np.testing.assert_array_equal(g, w)


def test_i32_beside_i64_widens():
    a = _values((3, 6), np.int32, 6)
    b = _values((6,), np.int64, 7)
    got = strata.jit(lambda x, y: x ^ y)(a, b)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, _ref("bitwise_xor", a.astype(np.int64), b, np.int64))


def test_bool_operands_stay_logical():
    rng = np.random.default_rng(8)
    p, q = rng.random((5, 7)) > 0.5, rng.random((7,)) > 0.4
    k = _values((5, 7), np.int32, 9)
    got = strata.jit(lambda p, q, k: (p & q, p | q, p ^ q, ~p, p & True, strata.bitwise_or(
        q, False), p & k, k | q))(p, q, k)
    want = [p & q, p | q, p ^ q, ~p, p & True, q | False,
            _ref("bitwise_and", p.astype(np.int32), k, np.int32),
            _ref("bitwise_or", k, q.astype(np.int32), np.int32)]
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("name", OPS)
def test_float_operands_are_a_located_error(name):
    with pytest.raises(strata.StrataError, match=rf"test_bitwise.py:\d+:\d+: error: {name}: "
                       r"operand element type f32 is not supported \(expected one of i32, "
                       r"i64\)"):
        strata.jit(lambda x: getattr(strata, name)(x, x))(np.ones(3, np.float32))


def test_float_invert_is_a_located_error():
    with pytest.raises(strata.StrataError, match=r"bitwise_not: operand element type f32"):
        strata.jit(lambda x: ~x)(np.ones(3, np.float32))
