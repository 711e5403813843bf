"""strata.testing: the tolerance helper the numerics tests rely on."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from strata.testing import assert_close, error_report, unit_roundoff


def test_unit_roundoff():
    assert unit_roundoff("f32") == 2.0 ** -24
    assert unit_roundoff(np.float16) == 2.0 ** -11
    assert unit_roundoff(ml_dtypes.bfloat16) == 2.0 ** -8
    assert unit_roundoff("i32") == 0.0


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_rounding_the_reference_passes(dtype):
    ref = np.random.default_rng(0).uniform(-100, 100, size=(17, 5))
    assert_close(ref.astype(dtype), ref, rtol_factor=1.0)


@pytest.mark.parametrize("dtype,ulps", [(np.float32, 2.0 ** -20), (np.float16, 2.0 ** -7),
                                        (ml_dtypes.bfloat16, 2.0 ** -4)])
def test_a_real_mismatch_fails_and_is_reported(dtype, ulps):
    ref = np.linspace(1.0, 2.0, 12).reshape(3, 4)
    bad = ref.copy()
    bad[2, 1] *= 1 + 4 * ulps  # far past a few roundings
    with pytest.raises(AssertionError) as info:
        assert_close(bad.astype(dtype), ref, what="thing")
    text = str(info.value)
    for piece in ("thing", "max abs error", "max rel error", "bound", "(2, 1)", "actual",
                  "expected"):
        assert piece in text, (piece, text)


def test_reduction_length_and_magnitude_widen_the_bound():
    ref = np.full(4, 1000.0)
    actual = (ref + 1000.0 * 2.0 ** -24 * 40).astype(np.float32)  # ~40 ulps of 1000
    with pytest.raises(AssertionError):
        assert_close(actual, ref, "f32")
    assert_close(actual, ref, "f32", reduction_length=100)
    small = np.full(4, 1e-3)
    with pytest.raises(AssertionError):
        assert_close((small + 1e-6).astype(np.float32), small, "f32")
    assert_close((small + 1e-6).astype(np.float32), small, "f32", magnitude=np.full(4, 10.0))
    assert_close(np.float32([2.0]), [1.0], "f32", atol=1.5)


def test_nan_positions_must_match():
    ref = np.array([1.0, np.nan, 3.0])
    assert_close(np.float32([1.0, np.nan, 3.0]), ref)
    with pytest.raises(AssertionError, match="NaN"):
        assert_close(np.float32([1.0, 2.0, 3.0]), ref)
    with pytest.raises(AssertionError, match="NaN"):
        assert_close(np.float32([np.nan, np.nan, 3.0]), ref)


def test_infinities_must_match_exactly():
    ref = np.array([np.inf, -np.inf, 1.0])
    assert_close(np.float16([np.inf, -np.inf, 1.0]), ref)
    with pytest.raises(AssertionError, match="infinities"):
        assert_close(np.float16([np.inf, np.inf, 1.0]), ref)
    with pytest.raises(AssertionError, match="infinities"):
        assert_close(np.float16([65504.0, -np.inf, 1.0]), ref)
    with pytest.raises(AssertionError, match="infinities"):
        assert_close(np.float16([np.inf, -np.inf, np.inf]), ref)


def test_integers_must_be_exact():
    assert_close(np.int32([1, -2, 3]), np.array([1.0, -2.0, 3.0]))
    with pytest.raises(AssertionError, match=r"differ; first at \(1,\)"):
        assert_close(np.int32([1, -1, 3]), np.array([1.0, -2.0, 3.0]))


def test_shape_mismatch_and_empty():
    with pytest.raises(AssertionError, match="shape"):
        assert_close(np.zeros((2, 3), np.float32), np.zeros((3, 2)))
    assert_close(np.zeros((0, 3), np.float32), np.zeros((0, 3)))


def test_error_report():
    rep = error_report(np.float32([1.0, 2.5, np.nan]), np.array([1.0, 2.0, np.nan]))
    assert rep["max_abs"] == 0.5 and rep["max_rel"] == 0.25
    assert rep["index"] == (1,) and rep["actual"] == 2.5 and rep["expected"] == 2.0
    assert error_report(np.zeros(0), np.zeros(0))["index"] is None
