"""Threaded CPU code: large matmuls and row reductions split across threads.

Splitting only distributes whole output tiles / rows, never a reduction, so
threaded results must equal the sequential ones bit for bit (and both must be
close to float64 numpy). Every threaded test runs with both thread runtimes:
LLVM's OpenMP (where libomp is installed) and MLIR's async runtime.
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import strata
from strata.demo import _np_layer_norm, _np_softmax
from strata.runtime.api import default_threads
from strata.runtime.openmp import openmp_library
from strata.testing import assert_close

NO_OPENMP = pytest.mark.skipif(openmp_library() is None, reason="no libomp found (strata's "
                               "cmeel-libomp dependency has wheels for x86_64/aarch64 Linux)")


@pytest.fixture(params=[pytest.param("omp", marks=NO_OPENMP), "async"])
def runtime(request, monkeypatch):
    """The thread runtime the test's compiles use (STRATA_THREAD_RUNTIME)."""
    monkeypatch.setenv("STRATA_THREAD_RUNTIME", request.param)
    return request.param


def _split(ir: str, runtime: str) -> bool:
    """Whether LLVM-dialect ``ir`` runs a loop on threads of ``runtime``."""
    if runtime == "omp":
        return "omp.parallel num_threads" in ir and "mlirAsyncRuntime" not in ir
    return "mlirAsyncRuntimeAwaitAllInGroup" in ir and "omp." not in ir


def _sequential(ir: str) -> bool:
    return "llvm.call @mlirAsyncRuntime" not in ir and "omp.parallel" not in ir


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
def test_matmul_threads_match_sequential(rng, m, k, n, runtime):
    a, b = _rand(rng, m, k), _rand(rng, k, n)
    one, two, ir = _both(lambda x, y: x @ y, a, b)
    assert _split(ir, runtime)  # large enough to be split
    np.testing.assert_array_equal(one, two)
    assert_close(two, a.astype(np.float64) @ b, reduction_length=k,
                 magnitude=np.abs(a).astype(np.float64) @ np.abs(b))


def test_fused_epilogue_threads(rng, runtime):
    a, b, c = _rand(rng, 256, 520), _rand(rng, 520, 384), _rand(rng, 384)
    one, two, ir = _both(lambda x, y, z: strata.relu(x @ y + z), a, b, c)
    assert _split(ir, runtime)
    np.testing.assert_array_equal(one, two)
    ref = np.maximum(a.astype(np.float64) @ b + c, 0)
    assert_close(two, ref, reduction_length=520, magnitude=np.abs(a).astype(np.float64) @ np.abs(b)
                 + np.abs(c), ops=2)


def test_batch_matmul_threads(rng, runtime):
    a, b = _rand(rng, 8, 130, 257), _rand(rng, 8, 257, 67)
    one, two, ir = _both(lambda x, y: x @ y, a, b)
    assert _split(ir, runtime)
    np.testing.assert_array_equal(one, two)
    assert_close(two, a.astype(np.float64) @ b, reduction_length=257,
                 magnitude=np.abs(a).astype(np.float64) @ np.abs(b))


def test_row_reductions_threads(rng, runtime):
    x = _rand(rng, 1031, 1025)
    g, b = _rand(rng, 1025), _rand(rng, 1025)
    for fn, args, ref in (
            (lambda t: strata.sum(t, axis=1), [x], lambda: x.astype(np.float64).sum(1)),
            (lambda t: strata.softmax(t, axis=-1), [x], lambda: _np_softmax(x.astype(np.float64))),
            (lambda t, gg, bb: strata.layer_norm(t, gg, bb), [x, g, b],
             lambda: _np_layer_norm(x.astype(np.float64), g, b))):
        one, two, ir = _both(fn, *args)
        assert _split(ir, runtime)
        np.testing.assert_array_equal(one, two)
        np.testing.assert_allclose(two, ref(), rtol=1e-4, atol=1e-4)


def test_heavy_elementwise_threads(rng, runtime):
    x = _rand(rng, 515, 1031)
    one, two, ir = _both(lambda t: strata.gelu(t), x)
    assert _split(ir, runtime)
    np.testing.assert_array_equal(one, two)
    # the memory-bound add next to it stays on one thread
    ir_add = str(strata.compile(lambda a, b: a + b, x, x, threads=2, compile_to="llvm").mlir)
    assert _sequential(ir_add)


def test_small_ops_stay_sequential(rng):
    a, b = _rand(rng, 33, 17), _rand(rng, 17, 9)
    ir = str(strata.compile(lambda x, y: strata.softmax(x @ y, axis=-1), a, b, threads=2,
                            compile_to="llvm").mlir)
    assert _sequential(ir)


def test_jit_engines_with_threads_can_be_freed(rng, monkeypatch, runtime):
    # Without the cache the ExecutionEngine runs the code; freeing one engine must
    # not take the thread runtime away from the next.
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


def test_thread_runtime_settings(monkeypatch):
    from strata.runtime import openmp

    monkeypatch.setenv("STRATA_THREAD_RUNTIME", "tbb")
    with pytest.raises(strata.StrataError, match="STRATA_THREAD_RUNTIME='tbb': expected one of "
                                                  "omp, async"):
        openmp.thread_runtime()
    monkeypatch.setenv("STRATA_THREAD_RUNTIME", "async")
    assert openmp.thread_runtime() == "async"
    openmp.openmp_library.cache_clear()
    try:
        monkeypatch.setenv("STRATA_OPENMP_LIBRARY", "/nonexistent/libomp.so.5")
        monkeypatch.delenv("STRATA_THREAD_RUNTIME")
        assert openmp.thread_runtime() == "async"  # no libomp: MLIR's async runtime
        monkeypatch.setenv("STRATA_THREAD_RUNTIME", "omp")
        with pytest.raises(strata.StrataError, match="libomp.* was not found"):
            openmp.thread_runtime()
    finally:
        monkeypatch.delenv("STRATA_OPENMP_LIBRARY")
        openmp.openmp_library.cache_clear()


@NO_OPENMP
def test_openmp_library_restarts_from_disk(tmp_path):
    # An OpenMP library in the disk cache links libomp (rpath to its folder): a new
    # process loads it and runs it without compiling, and the async variant of the
    # same program is another cache entry.
    import subprocess
    import sys

    script = tmp_path / "run.py"
    script.write_text(
        "import numpy as np, strata\n"
        "from strata.testing import assert_close\n"
        "a = np.random.default_rng(1).standard_normal((256, 320)).astype(np.float32)\n"
        "f = strata.jit(lambda x, y: strata.relu(x @ y), threads=2, blas='never')\n"
        "r = f(a, a.T.copy())\n"
        "assert_close(r, np.maximum(a.astype(np.float64) @ a.T, 0), reduction_length=320,\n"
        "             magnitude=np.abs(a).astype(np.float64) @ np.abs(a.T))\n"
        "print(f.stats.cache_hits)\n")
    env = dict(__import__("os").environ, STRATA_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("STRATA_CACHE", None)
    runs = {}
    for name, runtime in (("cold", "omp"), ("warm", "omp"), ("async", "async")):
        env["STRATA_THREAD_RUNTIME"] = runtime
        p = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                           text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        runs[name] = p.stdout.split()[-1]
    assert runs == {"cold": "0", "warm": "1", "async": "0"}
    libs = list((tmp_path / "cache").rglob("*.so"))
    assert len(libs) == 2
    needs_omp = [b"libomp.so" in lib.read_bytes() for lib in libs]
    assert sorted(needs_omp) == [False, True]
