"""The runtime: guards, argument layouts, specialization, result ownership, memory, levels."""

from __future__ import annotations

import gc
import os

import ml_dtypes
import numpy as np
import pytest

import strata
from strata import StrataError
from strata.testing import assert_close


def dynamic_module():
    m = strata.Module()
    f = m.function("mlp", x=strata.TensorSpec((None, 8)), w=strata.TensorSpec((8, 4)))
    x, w = f.arg("x"), f.arg("w")
    f.ret(strata.relu(x @ w), strata.sum(x, axis=1))
    return m


@pytest.fixture(scope="module")
def static_prog():
    m = strata.Module()
    f = m.function("affine", x=strata.TensorSpec((3, 8)), w=strata.TensorSpec((8, 4)))
    f.ret(f.arg("x") @ f.arg("w") + 1.0)
    return strata.compile(m)


@pytest.fixture(scope="module")
def dyn_prog():
    return strata.compile(dynamic_module())


@strata.jit
def affine(x, w):
    return x @ w + 1.0


RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 8)).astype(np.float32)
W = RNG.standard_normal((8, 4)).astype(np.float32)
REF = X.astype(np.float64) @ W.astype(np.float64) + 1.0


def close(y, ref=REF):
    assert_close(y, ref, "f32", reduction_length=8,
                 magnitude=np.abs(X.astype(np.float64)) @ np.abs(W.astype(np.float64)) + 1)


# ---------------------------------------------------------------------------- guards

@pytest.mark.parametrize("bad,expect", [
    (X.astype(np.float64), r"argument '(arg0|x)' expects tensor<3x8xf32>, got a float64 array"),
    (X.astype(np.float16), r"argument '(arg0|x)' expects tensor<3x8xf32>, got a float16"),
    (X.reshape(3, 8, 1), r"argument '(arg0|x)' expects tensor<3x8xf32>, got shape \(3, 8, 1\)"),
    (X[:2], r"argument '(arg0|x)' expects tensor<3x8xf32>, got shape \(2, 8\)"),
    ([[1.0] * 8] * 3, r"argument '(arg0|x)' must be a numpy array of type tensor<3x8xf32>, "
                      r"got list"),
])
def test_guards_of_a_compiled_module(static_prog, bad, expect):
    close(static_prog(X, W))
    with pytest.raises(StrataError, match=expect):
        static_prog(bad, W)
    with pytest.raises(StrataError, match=expect):
        static_prog.affine(bad, W)


def test_guards_name_the_argument_of_a_traced_function():
    prog = strata.compile(affine.fn, X, W)
    with pytest.raises(StrataError, match=r"argument 'w' expects tensor<8x4xf32>, got shape"):
        prog(X, W.T.copy())
    with pytest.raises(StrataError, match=r"argument 'x' expects tensor<3x8xf32>, got a int32"):
        prog(X.astype(np.int32), W)


def test_wrong_number_of_arguments(static_prog):
    with pytest.raises(StrataError, match="expected 2 arguments, got 1"):
        static_prog(X)
    with pytest.raises(StrataError, match="expected 2 arguments, got 3"):
        static_prog(X, W, W)


def test_dynamic_dims_guard_static_dims_and_rank(dyn_prog):
    with pytest.raises(StrataError, match=r"expects tensor<\?x8xf32>, got shape \(5, 7\)"):
        dyn_prog(np.zeros((5, 7), np.float32), W)
    with pytest.raises(StrataError, match=r"expects tensor<\?x8xf32>, got shape \(8,\)"):
        dyn_prog(np.zeros(8, np.float32), W)


def test_jit_retraces_per_dtype_instead_of_failing():
    f = strata.jit(lambda x: x * 2)
    for dt in (np.float32, np.float16, ml_dtypes.bfloat16, np.int32):
        out = f(np.arange(6).astype(dt))
        assert out.dtype == np.dtype(dt)
        np.testing.assert_array_equal(out.astype(np.float64), np.arange(6) * 2.0)
    assert f.stats.compiles == 4


# ---------------------------------------------------------------------------- layouts

@pytest.mark.parametrize("make", [
    lambda: (np.asfortranarray(X), W),                                 # column-major
    lambda: (X.T.copy().T, W),                                          # a transposed view
    lambda: (np.repeat(X, 2, axis=1)[:, ::2], W),                       # strided columns
    lambda: (np.repeat(X, 3, axis=0)[::3], W[:, :]),                    # strided rows
    lambda: (X.astype(">f4"), W.astype(">f4")),                         # big-endian
    lambda: (np.frombuffer(b"\0" + X.tobytes(), np.float32, offset=1).reshape(3, 8), W),
])
def test_non_contiguous_and_foreign_arrays(static_prog, make):
    x, w = make()
    np.testing.assert_array_equal(x, X)
    close(static_prog(x, w))
    close(affine(x, w))


# ---------------------------------------------------------------------------- specialization

def test_dynamic_dims_are_specialized_per_shape():
    prog = strata.compile(dynamic_module())
    for rows in (5, 17, 5, 17, 1):
        x = RNG.standard_normal((rows, 8)).astype(np.float32)
        y, s = prog(x, W)
        a = x.astype(np.float64)
        assert y.shape == (rows, 4) and s.shape == (rows,)
        assert_close(y, np.maximum(a @ W.astype(np.float64), 0), "f32", reduction_length=8,
                     magnitude=np.abs(a) @ np.abs(W.astype(np.float64)))
        assert_close(s, a.sum(axis=1), "f32", reduction_length=8,
                     magnitude=np.abs(a).sum(axis=1))
    assert prog.stats.compiles == 3
    assert prog.stats.calls == 5
    assert [spec[1][0] for spec in prog.stats.specializations] == [(5, 8), (17, 8), (1, 8)]


def test_jit_compiles_once_per_signature():
    f = strata.jit(lambda x, w: x @ w + 1.0)
    close(f(X, W))
    close(f(X, W))
    close(f(X.copy(), W.copy()))
    assert f.stats.compiles == 1 and f.stats.calls == 3


# ---------------------------------------------------------------------------- ownership

def test_results_never_alias_inputs_or_each_other():
    f = strata.jit(lambda x: (x, x, x + 0.0, strata.reshape(x, (4, 2))))
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    outs = f(x)
    assert isinstance(outs, tuple) and len(outs) == 4
    for o in outs:
        assert not np.shares_memory(o, x)
    for i, a in enumerate(outs):
        for b in outs[i + 1:]:
            assert not np.shares_memory(a, b)
    outs[0][...] = -1
    np.testing.assert_array_equal(x, np.arange(8).reshape(2, 4))
    for o in outs[1:]:
        np.testing.assert_array_equal(o.reshape(-1), np.arange(8))
    again = f(x)
    np.testing.assert_array_equal(again[0], x)


def test_same_value_returned_twice_gives_two_arrays():
    f = strata.jit(lambda x: (x + 1.0, x + 1.0, x > 0, x > 0))
    x = np.array([-1.0, 2.0], np.float32)
    a, b, c, d = f(x)
    np.testing.assert_array_equal(a, [0.0, 3.0])
    a[0] = 99
    np.testing.assert_array_equal(b, [0.0, 3.0])
    assert c.dtype == np.bool_ and not np.shares_memory(c, d)
    np.testing.assert_array_equal(d, [False, True])


def test_function_returning_its_argument_returns_a_copy(static_prog):
    ident = strata.jit(lambda x: x)
    x = np.ones((2, 3), np.float32)
    y = ident(x)
    assert not np.shares_memory(x, y)
    y[0, 0] = 5
    assert x[0, 0] == 1


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_repeated_calls_keep_memory_flat():
    # 256 KiB intermediates (64 Ki f32) that the compiled code allocates and frees per call
    f = strata.jit(lambda x, w: strata.sum(strata.tanh(x @ w) * 2.0, axis=1))
    x = RNG.standard_normal((256, 32)).astype(np.float32)
    w = RNG.standard_normal((32, 256)).astype(np.float32)
    ref = (np.tanh(x.astype(np.float64) @ w.astype(np.float64)) * 2).sum(axis=1)
    for _ in range(200):
        f(x, w)
    gc.collect()
    before = _rss_bytes()
    for i in range(3000):
        y = f(x, w)
        if i % 1000 == 0:
            assert_close(y, ref, "f32", reduction_length=256 * 32, ops=3)
    gc.collect()
    growth = _rss_bytes() - before
    assert growth < 20 * 2**20, f"resident memory grew by {growth / 2**20:.1f} MiB"


# ---------------------------------------------------------------------------- scalars, tuples

def test_python_scalars_for_rank0_arguments():
    m = strata.Module()
    f = m.function("scale", x=strata.TensorSpec((4,)), s=strata.TensorSpec(()))
    f.ret(f.arg("x") * f.arg("s"))
    prog = strata.compile(m)
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(prog(x, 2.5), x * 2.5)
    np.testing.assert_array_equal(prog(x, 3), x * 3)
    np.testing.assert_array_equal(prog(x, np.float32(-1)), -x)
    np.testing.assert_array_equal(prog(x, np.array(0.5, np.float32)), x * 0.5)
    g = strata.jit(lambda x, s: x + s)
    np.testing.assert_array_equal(g(x, 1.5), x + 1.5)
    assert g(np.arange(3, dtype=np.int32), 2).dtype == np.int32


def test_multiple_results_are_a_tuple(dyn_prog):
    out = dyn_prog(X[:, :8], W)
    assert isinstance(out, tuple) and len(out) == 2
    single = strata.jit(lambda x: x * 2)(X)
    assert isinstance(single, np.ndarray)


def test_program_with_several_functions_is_called_by_name():
    m = strata.Module()
    f = m.function("double", x=strata.TensorSpec((3,)))
    f.ret(f.arg("x") * 2.0)
    g = m.function("negate", x=strata.TensorSpec((3,)))
    g.ret(-g.arg("x"))
    prog = strata.compile(m)
    x = np.array([1.0, -2.0, 3.0], np.float32)
    np.testing.assert_array_equal(prog.double(x), x * 2)
    np.testing.assert_array_equal(prog.negate(x), -x)
    with pytest.raises(StrataError, match="several functions"):
        prog(x)


# ---------------------------------------------------------------------------- levels

def test_compile_to_linalg():
    out = strata.compile(dynamic_module(), compile_to="linalg")
    text = str(out)
    assert "linalg." in text
    assert "strata." not in text
    llvm = str(strata.compile(affine.fn, X, W, compile_to="llvm"))
    assert "llvm.func" in llvm and "linalg." not in llvm


def test_unknown_level_and_target():
    with pytest.raises(StrataError, match="unknown level"):
        strata.compile(dynamic_module(), compile_to="bogus")
    with pytest.raises(StrataError, match="unknown target"):
        strata.compile(dynamic_module(), target="tpu")


def test_dynamic_compile_of_a_reshape_across_a_dynamic_dim():
    """One compile with the dims as declared: the reshape's result keeps its dynamic dim
    (specialization used to multiply the operand's sizes, None included)."""
    m = strata.Module()
    f = m.function("main", x=strata.TensorSpec((None, 6, 4)))
    f.ret(strata.reshape(f.arg("x"), [-1, 4]) * 2)
    prog = strata.compile(m)
    for batch in (2, 5):
        x = np.random.rand(batch, 6, 4).astype(np.float32)
        (y,) = prog._get("main", [((None, 6, 4), "f32")]).run([x])
        assert_close(y, x.reshape(-1, 4) * 2)
    assert prog.stats.compiles == 1
