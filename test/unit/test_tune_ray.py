"""strata.tune(..., executor="ray") on a local Ray cluster started by the tests: candidate
builds and measurements as Ray tasks, a dying worker retried, and timings from another CPU
type kept out of this target's record. Skips without Ray (``pip install strata[cluster]``)."""

import os
import platform

import numpy as np
import pytest
from ray_tasks import dies_once, relu_mm, start_local_ray, worker_env

import strata
from strata.codegen.host import host_flags
from strata.runtime import aot, tuning_record

ray = pytest.importorskip("ray", reason="no Ray (pip install 'strata[cluster]')")
pytestmark = pytest.mark.skipif(not aot.available(), reason="no C compiler driver (cc)")

QUICK = {"budget": 20, "threads": 1, "blas": "never", "max_spread": 100.0, "rounds": 3,
         "round_s": 0.002}


def _env(**extra):
    """A runtime_env for Ray workers: this folder importable (the tuned functions live in
    ray_tasks.py), the test's cache folder, and ``extra``."""
    return worker_env(STRATA_CACHE_DIR=os.environ["STRATA_CACHE_DIR"], **extra)


@pytest.fixture(scope="module")
def local_ray(tmp_path_factory):
    cache = tmp_path_factory.mktemp("ray-cache")
    os.environ["STRATA_CACHE_DIR"] = str(cache)  # the workers inherit it
    start_local_ray(ray, STRATA_CACHE_DIR=str(cache))
    yield cache
    ray.shutdown()
    os.environ.pop("STRATA_CACHE_DIR", None)


@pytest.fixture
def record(local_ray, tmp_path, monkeypatch):
    path = tmp_path / "tuning.json"
    monkeypatch.setenv("STRATA_TUNING_RECORD", str(path))
    return path


def _args():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((96, 64)).astype(np.float32),
            rng.standard_normal((64, 80)).astype(np.float32))


def test_tuning_on_ray_fills_the_same_record(record):
    result = strata.tune(relu_mm, *_args(), executor="ray", **QUICK,
                         ray_options={"runtime_env": _env()})
    assert len(result.entries) == 1, result.rejected
    (entry,) = result.entries
    assert entry["executor"] == "ray" and entry["candidates"] >= 2
    assert entry["target"] == tuning_record.target_key()["target"]
    assert [e["op"] for e in tuning_record.entries()] == [entry["op"]]


def test_a_worker_that_dies_is_retried(record, tmp_path):
    marker = tmp_path / "died"
    result = strata.tune(dies_once, *_args(), executor="ray", **QUICK, ray_options={
        "runtime_env": _env(TEST_DIE_ONCE_MARKER=str(marker))})
    assert marker.exists()  # a worker died...
    (entry,) = result.entries  # ...and its task ran again: every candidate came back
    assert not [r for r in result.rejected if "another CPU" in r]


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64") or
                    "avx2" not in host_flags().split(), reason="needs an AVX2 x86 host")
def test_timings_from_another_cpu_type_never_enter_the_record(record):
    # workers that target AVX2 (STRATA_CPU_FEATURES) stand for nodes of another CPU type
    result = strata.tune(relu_mm, *_args(), executor="ray", **QUICK, ray_options={
        "runtime_env": _env(STRATA_CPU_FEATURES="avx2")})
    assert result.entries == [] and result.record is None
    assert any("another CPU type" in r for r in result.rejected)
    assert not record.exists()
