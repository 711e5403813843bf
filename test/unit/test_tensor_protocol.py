"""The Tensor proxy and Python's protocols: numpy-like == / !=, hashing, masks,
len() / iteration, and located errors for conversions that need a traced value."""

from __future__ import annotations

import inspect
import operator
import os
import re

import ml_dtypes
import numpy as np
import pytest

import strata
from strata.errors import StrataError

HERE = os.path.abspath(__file__)
NP = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "i32": np.int32}


# ------------------------------------------------------------------ == and != are elementwise

@strata.jit
def equalities(x, y):
    return x == y, x != y, x == 1, 2 == x, 2 != x


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16", "i32"])
def test_eq_ne_are_elementwise_like_numpy(dtype):
    x = np.array([[0, 1, 2, np.nan, -1, 2]], np.float64)
    if dtype == "i32":
        x = np.nan_to_num(x)
    x = x.astype(NP[dtype])
    y = np.array([0, 2, 2, np.nan, 1, -2], np.float64)
    y = (np.nan_to_num(y) if dtype == "i32" else y).astype(NP[dtype])
    got = equalities(x, y)
    want = (x == y, x != y, x == 1, x == 2, x != 2)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.dtype == np.bool_ and g.shape == w.shape, i
        np.testing.assert_array_equal(g, w, err_msg=f"result {i}")


def test_eq_builds_a_compare_and_non_operands_compare_by_identity():
    def fn(x, y):
        eq, ne = x == y, x != y
        assert (x == None) is False and (x != "a") is True  # noqa: E711 - the point here
        assert isinstance(x == x, strata.Tensor)             # a comparison, not a bool
        return eq, ne

    m = strata.trace(fn, np.ones(3, np.float32), np.ones(3, np.float32))
    text = str(m)
    assert 'predicate = "eq"' in text and 'predicate = "ne"' in text


def test_tensors_hash_by_identity():
    def fn(x, y):
        seen = {x: "x", y: "y"}
        assert len(seen) == 2 and seen[x] == "x" and seen[y] == "y"
        assert len({x, y, x}) == 2
        assert x in [x] and [x, y].index(x) == 0  # identity is checked before ==
        return x + y

    strata.trace(fn, np.ones(3, np.float32), np.ones(3, np.float32))


def test_python_membership_of_another_tensor_is_a_located_error():
    """``y in [x]`` asks for the truth value of ``x == y``: an error, as numpy's."""
    with pytest.raises(StrataError) as ei:
        strata.trace(lambda x, y: x + (y in [x]), np.ones(3, np.float32), np.ones(3, np.float32))
    assert_located(ei, "has no truth value")


# ------------------------------------------------------------ masks: where with scalars, cast

@strata.jit
def masks(x):
    m = x > 0
    return (strata.where(m, 1.0, 0.0), strata.where(m, 1, -1), strata.where(m, 2, 0.5),
            strata.where(m, np.float16(1), np.float16(0)), strata.cast(m, "f32"),
            m.astype("i32"), m.astype("f16"), m.astype("bf16"), strata.where(x == 0, x, 7))


def test_where_with_two_scalars_and_cast_of_a_mask():
    x = np.array([[-1.5, 0.0, 2.0], [3.0, -0.0, np.nan]], np.float32)
    m = x > 0
    got = masks(x)
    want = [np.where(m, 1.0, 0.0).astype(np.float32),      # numpy: float64; strata: f32
            np.where(m, 1, -1).astype(np.int32),
            np.where(m, 2, 0.5).astype(np.float32),
            np.where(m, np.float16(1), np.float16(0)),
            m.astype(np.float32), m.astype(np.int32), m.astype(np.float16),
            m.astype(ml_dtypes.bfloat16), np.where(x == 0, x, np.float32(7))]
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.dtype == w.dtype, (i, g.dtype, w.dtype)
        np.testing.assert_array_equal(g.astype(np.float64), w.astype(np.float64),
                                      err_msg=f"result {i}")


# ------------------------------------------------------------------------ len and iteration

def test_len_and_iteration_follow_the_first_axis():
    def fn(x):
        assert len(x) == 3
        rows = list(x)
        assert [r.shape for r in rows] == [(4,)] * 3
        a, b, c = x                       # unpacking iterates too
        return a + b * c, sum(rows[1:], rows[0])

    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = strata.jit(fn)(x)
    np.testing.assert_array_equal(got[0], x[0] + x[1] * x[2])
    np.testing.assert_array_equal(got[1], x[0] + x[1] + x[2])


def error_line(excinfo) -> int:
    """The line of the innermost traceback frame in this file (the user's call)."""
    line, tb = None, excinfo.tb
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename) == HERE:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def assert_located(excinfo, message_regex):
    err = excinfo.value
    line = error_line(excinfo)
    assert re.match(rf"^{re.escape(HERE)}:{line}:\d+: error: ", str(err)), str(err)
    assert err.location.startswith(f"{HERE}:{line}:")
    assert re.search(message_regex, err.message), err.message


@pytest.mark.parametrize("spec,fn,msg", [
    (strata.TensorSpec(()), len, r"^len\(\): a rank-0 tensor has no first axis$"),
    (strata.TensorSpec((None, 3)), len, r"^len\(\): the first axis of tensor<\?x3xf32> is "
                                        r"dynamic"),
    (strata.TensorSpec(()), lambda x: [r for r in x], r"^iterating over a tensor: a rank-0"),
    (strata.TensorSpec((None,)), lambda x: [r for r in x], r"^iterating over a tensor: the "
                                                           r"first axis .* is dynamic"),
], ids=["len-0d", "len-dynamic", "iter-0d", "iter-dynamic"])
def test_len_and_iteration_need_a_static_first_axis(spec, fn, msg):
    with pytest.raises(StrataError) as ei:
        strata.trace(lambda x: fn(x), spec)
    assert_located(ei, msg)


# ------------------------------------------------- conversions that need a value are errors

DATA_DEPENDENT = r"needs the value of a traced tensor, which is not known while tracing: " \
                 r"data-dependent Python is not captured\. "


@pytest.mark.parametrize("fn,what,advice", [
    (lambda x: float(x), r"^float\(\) ", r"strata ops"),
    (lambda x: int(x), r"^int\(\) ", r"strata ops"),
    (lambda x: complex(x), r"^complex\(\) ", r"strata ops"),
    (lambda x: operator.index(x), r"^using a tensor as an index or size \(operator\.index\) ", r"Python ints"),
    (lambda x: range(x), r"^using a tensor as an index or size \(operator\.index\) ", r"Python ints"),
    (lambda x: [1, 2][x], r"^using a tensor as an index or size \(operator\.index\) ", r"Python ints"),
    (lambda x: np.asarray(x), r"^np\.asarray\(\)/np\.array\(\) ", r"its result is a numpy"),
    (lambda x: np.array(x), r"^np\.asarray\(\)/np\.array\(\) ", r"its result is a numpy"),
    (lambda x: np.array([x, x]), r"^np\.asarray\(\)/np\.array\(\) ", r"its result is a numpy"),
    (lambda x: x.item(), r"^\.item\(\) ", r"strata ops"),
    (lambda x: x.tolist(), r"^\.tolist\(\) ", r"strata ops"),
    (lambda x: x if x else -x, r"^a traced tensor has no truth value: use strata\.where", ""),
], ids=["float", "int", "complex", "index", "range", "list-index", "asarray", "array",
        "array-of-tensors", "item", "tolist", "bool"])
def test_python_conversions_of_a_traced_tensor_are_located_errors(fn, what, advice):
    with pytest.raises(StrataError) as ei:
        strata.jit(fn)(np.float32(1.5))
    msg = what + ("" if what.startswith("^a traced") else DATA_DEPENDENT) + ".*" + advice
    assert_located(ei, msg)
    assert error_line(ei) == inspect.getsourcelines(fn)[1]  # the lambda's line, not strata's


# ------------------------------------------------ numpy's functions called on traced values

def _line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


@strata.jit
def numpy_reductions(x):
    return (np.sum(x, axis=0), np.mean(x, axis=1, keepdims=True), np.max(x), np.min(x, 0),
            np.prod(x, axis=1), np.argmax(x, axis=1), np.argmin(x, axis=0),
            np.mean(x, axis=0, dtype=np.float16))


def test_numpy_reduction_functions_run_as_strata_ops():
    x = np.random.default_rng(3).standard_normal((5, 7)).astype(np.float32)
    got = numpy_reductions(x)
    x64 = x.astype(np.float64)
    want = (x64.sum(0), x64.mean(1, keepdims=True), x64.max(), x64.min(0), x64.prod(1),
            x.argmax(1), x.argmin(0), x64.mean(0))
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.shape == np.shape(w), i
        np.testing.assert_allclose(g.astype(np.float64), w, rtol=2e-3, atol=2e-3, err_msg=str(i))
    assert got[-1].dtype == np.float16


def test_numpy_out_keyword_is_a_located_error():
    @strata.jit
    def into(x):
        return np.sum(x, axis=0, out=np.empty(3, np.float32))

    with pytest.raises(StrataError, match="out= is not supported") as e:
        into(np.ones((2, 3), np.float32))
    assert f"{HERE}:{_line_of(into.fn, 'np.sum(x')}:" in str(e.value)


def test_errors_inside_numpy_are_located_at_the_users_line():
    """np.linalg.inv needs the tensor's values: the error names the line that called
    numpy, not a line of numpy's own code."""
    @strata.jit
    def inverse(x):
        return np.linalg.inv(x)

    with pytest.raises(StrataError, match="needs the value of a traced tensor") as e:
        inverse(np.eye(3, dtype=np.float32))
    assert str(e.value).startswith(f"{HERE}:{_line_of(inverse.fn, 'np.linalg.inv')}:")
    assert "numpy" + os.sep not in str(e.value).split(": error:")[0]
