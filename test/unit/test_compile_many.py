"""strata.compile_many (autotune/batch.py): many (function, arguments) variants built by
tasks (in this process, or Ray tasks on a local cluster started with 2 CPUs), validated
and installed into the local cache, so that later jit calls load them without compiling;
a worker that dies is retried; an entry built for another CPU type is rejected (and
compiled here). The Ray tests skip without Ray (``pip install strata[cluster]``)."""

import os
import platform

import numpy as np
import pytest
import test_remote_cache
from ray_tasks import dies_once, relu_mm, start_local_ray, worker_env

import strata
from strata.codegen.host import host_flags
from strata.frontend.tensor import TensorSpec
from strata.runtime import aot, cache

pytestmark = pytest.mark.skipif(not aot.available(), reason="no C compiler driver (cc)")
redis_url = test_remote_cache.redis_url  # a fixture: a redis-server of the test's own


_relu_mm = relu_mm


def _softmax_rows(x):
    return strata.softmax(x, axis=-1)


def _items():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((24, 16)).astype(np.float32)
    w = rng.standard_normal((16, 8)).astype(np.float32)
    return [(_relu_mm, (x, w)),
            (_relu_mm, (TensorSpec((5, 16), "f32"), TensorSpec((16, 3), "f32"))),
            (_softmax_rows, (rng.standard_normal((7, 33)).astype(np.float32),))]


def _entries():
    root = cache.cache_dir()
    return sorted(e for e in os.listdir(root) if not e.startswith(".") and
                  os.path.isdir(os.path.join(root, e))) if os.path.isdir(root) else []


def _all_hit_without_compiling(items, monkeypatch):
    monkeypatch.setenv("STRATA_CACHE_MUST_HIT", "1")  # a compile would raise
    for fn, args in items:
        args = [np.ones(a.shape, np.float32) if isinstance(a, TensorSpec) else a for a in args]
        f = strata.jit(fn, threads=1, blas="never")
        got = f(*args)
        assert f.stats.cache_hits == 1
        if fn is _relu_mm:
            np.testing.assert_allclose(got, np.maximum(args[0].astype(np.float64) @ args[1], 0),
                                       rtol=1e-5, atol=1e-5)


@pytest.fixture
def local_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("STRATA_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("STRATA_CACHE", "STRATA_REMOTE_CACHE", "STRATA_CACHE_MUST_HIT"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "cache"


def test_compile_many_in_process_fills_the_local_cache(local_cache, monkeypatch):
    items = _items()
    results = strata.compile_many(items, executor="local", threads=1, blas="never")
    assert [r.ok for r in results] == [True] * 3, [r.error for r in results]
    assert all(r.where == "local" and r.keys for r in results)
    assert sorted(k for r in results for k in r.keys) == _entries()
    _all_hit_without_compiling(items, monkeypatch)


def test_compile_many_unknown_executor_and_dynamic_spec(local_cache):
    with pytest.raises(strata.StrataError, match="unknown executor 'spark'"):
        strata.compile_many(_items(), executor="spark")
    with pytest.raises(strata.StrataError, match="dynamic dim"):
        strata.compile_many([(_relu_mm, (TensorSpec((None, 4)), TensorSpec((4, 4))))])


def test_a_damaged_entry_is_rejected(local_cache):
    from strata.autotune.batch import build_entries, install

    (fn, args) = _items()[0]
    out = build_entries(fn, args, {"threads": 1, "blas": "never"}, "")
    ((key, blob),) = out["entries"].items()
    at = blob.index(b"\x7fELF") + 1000  # a byte of the shared library
    damaged = blob[:at] + bytes([blob[at] ^ 0xFF]) + blob[at + 1:]
    with pytest.raises(ValueError, match="checksum"):
        install(key, damaged)
    with pytest.raises(ValueError):
        install("0" * 32, blob)  # its key parts do not hash to the key asked for
    assert _entries() == []
    install(key, blob)
    assert _entries() == [key]


# --- on Ray ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray", reason="no Ray (pip install 'strata[cluster]')")
    start_local_ray(ray)
    yield ray
    ray.shutdown()


def test_compile_many_on_ray_installs_into_the_local_cache(local_ray, local_cache, monkeypatch):
    items = _items()
    results = strata.compile_many(items, executor="ray", threads=1, blas="never",
                                  fallback=False)
    assert [r.ok for r in results] == [True] * 3, [r.error for r in results]
    assert all(r.where not in ("local", "fallback") for r in results)  # Ray node ids
    assert sorted(k for r in results for k in r.keys) == _entries()
    _all_hit_without_compiling(items, monkeypatch)


def test_a_worker_that_dies_is_retried(local_ray, local_cache, tmp_path, monkeypatch):
    marker = tmp_path / "died"
    items = [(dies_once, _items()[0][1])]
    (result,) = strata.compile_many(
        items, executor="ray", threads=1, blas="never", fallback=False,
        ray_options={"runtime_env": worker_env(TEST_DIE_ONCE_MARKER=str(marker))})
    assert marker.exists()  # a worker died...
    assert result.ok and result.where != "fallback", result.error  # ...and ran again
    _all_hit_without_compiling(items, monkeypatch)


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64") or
                    "avx2" not in host_flags().split(), reason="needs an AVX2 x86 host")
def test_an_entry_from_another_cpu_type_is_rejected(local_ray, local_cache, monkeypatch):
    # workers that target AVX2 stand for nodes of another CPU type
    items = _items()[:1]
    opts = {"runtime_env": worker_env(STRATA_CPU_FEATURES="avx2")}
    (result,) = strata.compile_many(items, executor="ray", threads=1, blas="never",
                                    fallback=False, ray_options=opts)
    assert not result.ok and "another CPU" in result.error and _entries() == []
    (result,) = strata.compile_many(items, executor="ray", threads=1, blas="never",
                                    ray_options=opts)  # compiled here instead
    assert result.ok and result.where == "fallback"
    _all_hit_without_compiling(items, monkeypatch)


def test_compile_many_publishes_to_the_shared_cache(local_cache, monkeypatch, redis_url):
    from strata.runtime import remote_cache

    monkeypatch.setenv("STRATA_REMOTE_CACHE", redis_url)
    remote_cache.reset()
    try:
        results = strata.compile_many(_items()[:2], executor="local", threads=1, blas="never")
        assert all(r.ok for r in results), [r.error for r in results]
        keys = sorted(k for r in results for k in r.keys)
        assert test_remote_cache._entry_keys(redis_url) == [remote_cache.ENTRY + k for k in keys]
    finally:
        remote_cache.reset()
