"""Threaded CPU code: large matmuls and row reductions split across threads.

Splitting only distributes whole output tiles / rows, never a reduction, so
threaded results must equal the sequential ones bit for bit (and both must be
close to float64 numpy).
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import strata
from strata.demo import _np_layer_norm, _np_softmax
from strata.runtime.api import default_threads
from strata.testing import assert_close


def _rand(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


@pytest.fixture(scope="module")
def rng():
    return np.random.default_rng(7)


def _both(fn, *args):
    """(threads=1 result, threads=2 result, threads=2 LLVM IR) of strata's generated code
    (blas="never": OpenBLAS's results depend on its thread count, see test_blas.py)."""
    one = strata.compile(fn, *args, threads=1, blas="never")(*args)
    two = strata.compile(fn, *args, threads=2, blas="never")(*args)
    ir = str(strata.compile(fn, *args, threads=2, compile_to="llvm", blas="never").mlir)
    return one, two, ir


@pytest.mark.parametrize("m,k,n", [(255, 513, 131), (512, 256, 300)])
def test_matmul_threads_match_sequential(rng, m, k, n):
    a, b = _rand(rng, m, k), _rand(rng, k, n)
    one, two, ir = _both(lambda x, y: x @ y, a, b)
    assert "mlirAsyncRuntimeAwaitAllInGroup" in ir  # large enough to be split
    np.testing.assert_array_equal(one, two)
    assert_close(two, a.astype(np.float64) @ b, reduction_length=k,
                 magnitude=np.abs(a).astype(np.float64) @ np.abs(b))


def test_fused_epilogue_threads(rng):
    a, b, c = _rand(rng, 256, 520), _rand(rng, 520, 384), _rand(rng, 384)
    one, two, ir = _both(lambda x, y, z: strata.relu(x @ y + z), a, b, c)
    assert "mlirAsyncRuntimeAwaitAllInGroup" in ir
    np.testing.assert_array_equal(one, two)
    ref = np.maximum(a.astype(np.float64) @ b + c, 0)
    assert_close(two, ref, reduction_length=520, magnitude=np.abs(a).astype(np.float64) @ np.abs(b)
                 + np.abs(c), ops=2)


def test_batch_matmul_threads(rng):
    a, b = _rand(rng, 8, 130, 257), _rand(rng, 8, 257, 67)
    one, two, ir = _both(lambda x, y: x @ y, a, b)
    assert "mlirAsyncRuntimeAwaitAllInGroup" in ir
    np.testing.assert_array_equal(one, two)
    assert_close(two, a.astype(np.float64) @ b, reduction_length=257,
                 magnitude=np.abs(a).astype(np.float64) @ np.abs(b))


def test_row_reductions_threads(rng):
    x = _rand(rng, 1031, 1025)
    g, b = _rand(rng, 1025), _rand(rng, 1025)
    for fn, args, ref in (
            (lambda t: strata.sum(t, axis=1), [x], lambda: x.astype(np.float64).sum(1)),
            (lambda t: strata.softmax(t, axis=-1), [x], lambda: _np_softmax(x.astype(np.float64))),
            (lambda t, gg, bb: strata.layer_norm(t, gg, bb), [x, g, b],
             lambda: _np_layer_norm(x.astype(np.float64), g, b))):
        one, two, ir = _both(fn, *args)
        assert "mlirAsyncRuntimeAwaitAllInGroup" in ir
        np.testing.assert_array_equal(one, two)
        np.testing.assert_allclose(two, ref(), rtol=1e-4, atol=1e-4)


def test_heavy_elementwise_threads(rng):
    x = _rand(rng, 515, 1031)
    one, two, ir = _both(lambda t: strata.gelu(t), x)
    assert "mlirAsyncRuntimeAwaitAllInGroup" in ir
    np.testing.assert_array_equal(one, two)
    # the memory-bound add next to it stays on one thread
    ir_add = str(strata.compile(lambda a, b: a + b, x, x, threads=2, compile_to="llvm").mlir)
    assert "llvm.call @mlirAsyncRuntime" not in ir_add


def test_small_ops_stay_sequential(rng):
    a, b = _rand(rng, 33, 17), _rand(rng, 17, 9)
    ir = str(strata.compile(lambda x, y: strata.softmax(x @ y, axis=-1), a, b, threads=2,
                            compile_to="llvm").mlir)
    assert "llvm.call @mlirAsyncRuntime" not in ir


def test_jit_engines_with_threads_can_be_freed(rng, monkeypatch):
    # Without the cache the ExecutionEngine runs the code; freeing one engine must
    # not take the async runtime away from the next.
    monkeypatch.setenv("STRATA_CACHE", "0")
    a, b = _rand(rng, 256, 512), _rand(rng, 512, 256)
    expect = strata.compile(lambda x, y: x @ y, a, b, threads=1)(a, b)
    for _ in range(3):
        prog = strata.compile(lambda x, y: x @ y, a, b, threads=2)
        np.testing.assert_array_equal(prog(a, b), expect)
        del prog
        gc.collect()


def test_thread_count_settings(monkeypatch):
    monkeypatch.setenv("STRATA_THREADS", "3")
    assert default_threads() == 3
    monkeypatch.delenv("STRATA_THREADS")
    assert default_threads() >= 1
    for bad in ("zero", "0", "-2"):
        monkeypatch.setenv("STRATA_THREADS", bad)
        with pytest.raises(strata.StrataError, match="STRATA_THREADS must be a positive integer"):
            default_threads()
    monkeypatch.delenv("STRATA_THREADS")
    x = np.ones((4, 4), np.float32)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(strata.StrataError, match="threads must be a positive integer"):
            strata.compile(lambda t: t + t, x, threads=bad)


def test_register_tiles_follow_the_vector_width():
    from strata.codegen.host import f32_lanes

    assert f32_lanes("fpu sse2 avx avx2 fma", "x86_64") == 8
    assert f32_lanes("fpu avx2 avx512f avx512bw", "x86_64") == 16
    assert f32_lanes("fpu sse2", "x86_64") == 4
    assert f32_lanes("", "aarch64") == 4
