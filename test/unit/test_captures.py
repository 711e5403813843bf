"""Numpy arrays captured by a traced function are constants of the trace (as in JAX).

A writable captured array warns once (strata.CapturedArrayWarning, at the user's
line); a read-only one or strata.constant() does not. numpy arrays and scalars on
the left of an operator defer to the Tensor (``w * x`` works like ``x * w``).
"""

from __future__ import annotations

import inspect
import os
import warnings

import numpy as np
import pytest

import strata

HERE = os.path.abspath(__file__)


def captured_warnings(record):
    return [w for w in record if issubclass(w.category, strata.CapturedArrayWarning)]


def test_writable_capture_is_a_trace_time_constant_and_warns_once():
    w = np.arange(1, 5, dtype=np.float32)
    at_trace = w.copy()
    f = strata.jit(lambda x: x * w)
    line = inspect.getsourcelines(test_writable_capture_is_a_trace_time_constant_and_warns_once
                                  )[1] + 3
    x = np.linspace(-1, 1, 4, dtype=np.float32)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        y1 = f(x)
        w[:] = 5.0                     # not seen by the compiled function
        y2 = f(x)
        x2 = np.ones((3, 4), np.float32)
        y3 = f(x2)                     # a new shape traces again: w's values of now
    caught = captured_warnings(record)
    assert len(caught) == 1, [str(c.message) for c in caught]
    (c,) = caught
    assert os.path.abspath(c.filename) == HERE and c.lineno == line
    text = str(c.message)
    assert "shape (4,)" in text and "float32" in text
    assert "as an argument" in text and "setflags(write=False)" in text
    np.testing.assert_array_equal(y1, x * at_trace)
    np.testing.assert_array_equal(y2, x * at_trace)          # the trace-time constant
    assert not np.array_equal(y2, x * w)
    np.testing.assert_array_equal(y3, x2 * w)                # retraced: the current values


def test_read_only_capture_does_not_warn():
    w = np.full(4, 2.0, np.float32)
    w.setflags(write=False)
    f = strata.jit(lambda x: (x + w, w - x, strata.where(x > 0, w, x)))
    x = np.linspace(-1, 1, 4, dtype=np.float32)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        got = f(x)
    assert captured_warnings(record) == []
    for g, e in zip(got, (x + w, w - x, np.where(x > 0, w, x)), strict=True):
        np.testing.assert_array_equal(g, e)


def test_strata_constant_does_not_warn_and_every_writable_operand_does():
    w = np.ones((2, 3), np.float32)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        strata.trace(lambda x: x + strata.constant(w), np.ones((2, 3), np.float32))
    assert captured_warnings(record) == []
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        first = inspect.currentframe().f_lineno + 1
        strata.trace(lambda x: strata.where(x > 0, w, 0.0), np.ones((2, 3), np.float32))
        strata.trace(lambda x: strata.layer_norm(x, w[0], w[0]), np.ones((2, 3), np.float32))
    # one per line: w[0] is used twice on the second line (same shape and dtype)
    assert [c.lineno for c in captured_warnings(record)] == [first, first + 1]


def test_warning_names_the_shape_and_dtype_of_each_array():
    a = np.zeros((2, 3), np.float16)
    b = np.zeros(3, np.int32)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        strata.trace(lambda x, i: (x + a, i * b), np.ones((2, 3), np.float16),
                     np.ones(3, np.int32))
    texts = [str(c.message) for c in captured_warnings(record)]
    assert len(texts) == 2
    assert "shape (2, 3), dtype float16" in texts[0]
    assert "shape (3,), dtype int32" in texts[1]


RO = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
RO.setflags(write=False)


@pytest.mark.parametrize("name,fn,ref", [
    ("mul", lambda x: RO * x, lambda x: RO * x),
    ("add", lambda x: RO + x, lambda x: RO + x),
    ("sub", lambda x: RO - x, lambda x: RO - x),
    ("truediv", lambda x: RO / x, lambda x: RO / x),
    ("floordiv", lambda x: RO // x, lambda x: RO // x),
    ("mod", lambda x: RO % x, lambda x: RO % x),
    ("pow", lambda x: np.abs(RO) ** x, lambda x: np.abs(RO) ** x),
    ("matmul", lambda x: RO @ x.T, lambda x: RO @ x.T),
    ("eq", lambda x: RO == x, lambda x: RO == x),
    ("ne", lambda x: RO != x, lambda x: RO != x),
    ("lt", lambda x: RO < x, lambda x: RO < x),
    ("ge", lambda x: RO >= x, lambda x: RO >= x),
    ("np scalar", lambda x: np.float32(3) * x - np.float32(1), lambda x: 3 * x - 1),
])
def test_numpy_on_the_left_defers_to_the_tensor(name, fn, ref):
    x = np.array([[1.0, -2.0, 0.5, 3.0], [0.25, 1.0, -1.0, 2.0], [4.0, -0.5, 1.5, -3.0]],
                 np.float32)
    got = strata.jit(fn)(x)
    want = ref(x)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype == np.bool_:
        np.testing.assert_array_equal(got, want, err_msg=name)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=name)


def test_numpy_ufunc_on_a_tensor_is_a_type_error():
    """np.add(w, x) cannot build strata IR: numpy says so (the Tensor opts out of ufuncs)."""
    with pytest.raises(TypeError, match="does not support ufuncs"):
        strata.trace(lambda x: np.add(RO, x), np.ones((3, 4), np.float32))
