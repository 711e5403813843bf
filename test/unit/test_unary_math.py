"""erf, sin, cos, floor, ceil, round and sign against a float64 numpy reference."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import strata

_ERF = np.vectorize(math.erf, otypes=[np.float64])
REFERENCE = {"erf": _ERF, "sin": np.sin, "cos": np.cos, "floor": np.floor, "ceil": np.ceil,
             "round": np.round, "sign": np.sign}
NP = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}
# one rounding of the result (and of the f32 input for f16/bf16, where sin/cos grow)
ULP = {"f32": 2.0 ** -23, "f16": 2.0 ** -10, "bf16": 2.0 ** -7}
EDGES = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, np.inf, -np.inf, np.nan, 1e4, -7.25]


def _inputs(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    flat = x.reshape(-1)
    n = min(len(EDGES), flat.size)
    flat[:n] = EDGES[:n]
    return x.astype(NP[dtype])


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("name", sorted(REFERENCE))
@pytest.mark.parametrize("shape", [(17,), (3, 5, 7)])
def test_matches_numpy(name, dtype, shape):
    x = _inputs(shape, dtype, seed=len(name))
    got = strata.jit(lambda v: getattr(strata, name)(v))(x).astype(np.float64)
    with np.errstate(invalid="ignore"):  # sin(inf), cos(inf): NaN
        want = REFERENCE[name](x.astype(np.float64))
    assert got.shape == want.shape
    assert np.array_equal(np.isnan(got), np.isnan(want))
    finite = np.isfinite(want)
    assert np.array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    if name in ("floor", "ceil", "round", "sign"):  # exact on representable values
        assert np.array_equal(got[finite], want[finite].astype(NP[dtype]).astype(np.float64))
    else:
        bound = 2 * ULP[dtype] * np.maximum(1.0, np.abs(x.astype(np.float64)[finite]))
        assert np.all(np.abs(got[finite] - want[finite]) <= bound)


def test_sign_of_int32():
    x = np.array([-(2 ** 31), -5, -1, 0, 1, 9, 2 ** 31 - 1], np.int32)
    got = strata.jit(lambda v: strata.sign(v))(x)
    assert got.dtype == np.int32 and np.array_equal(got, np.sign(x))


@pytest.mark.parametrize("name", ["erf", "sin", "cos", "floor", "ceil", "round"])
def test_float_only_ops_reject_int32_at_the_users_line(name):
    with pytest.raises(strata.StrataError, match=f"{name}: operand element type i32 is not "
                       "supported"):
        strata.jit(lambda v: getattr(strata, name)(v))(np.arange(3, dtype=np.int32))


def test_constants_fold():
    m = strata.Module()
    f = m.function("main")
    f.ret(strata.floor(strata.constant(np.array([1.5, -1.5], np.float32))) +
          strata.sign(strata.constant(np.array([-3.0, 2.0], np.float32))))
    text = str(strata.compile(m, compile_to="strata"))
    assert "strata.floor" not in text and "strata.sign" not in text
