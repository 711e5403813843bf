"""Threaded code on a machine with no system libomp (runtime/openmp.py).

``pip install`` alone must give working, fast parallel code: on x86_64 and aarch64 Linux
the pinned ``cmeel-libomp`` wheel brings LLVM's OpenMP runtime, and strata takes it before
any system copy (so CI, which may have Debian's libomp5, runs what a fresh machine runs).
Where no libomp is found at all, threaded code falls back to MLIR's async runtime and says
so once; code lowered for OpenMP regardless is refused with the ways to get libomp.

The runs that load a runtime or count a once-per-process warning are new processes.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import subprocess
import sys
import tomllib

import numpy as np
import pytest

import strata
from strata.runtime import openmp

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WHEEL_PLATFORM = sys.platform == "linux" and platform.machine() in ("x86_64", "aarch64")
needs_wheel = pytest.mark.skipif(not WHEEL_PLATFORM,
                                 reason="cmeel-libomp has wheels for x86_64/aarch64 Linux only")

# 256x320 @ 320x256 is 2^25.3 flops: over the threshold at which a matmul runs on threads
PROGRAM = """
import numpy as np, strata
from strata.testing import assert_close

a = np.random.default_rng(1).standard_normal((256, 320)).astype(np.float32)
b = a.T.copy()
want = np.maximum(a.astype(np.float64) @ b, 0)

def check(fn, scale):
    got = strata.compile(fn, a, b, threads=2, blas="never")(a, b)
    assert_close(got, scale * want, reduction_length=320,
                 magnitude=scale * (np.abs(a).astype(np.float64) @ np.abs(b)))
    return str(strata.compile(fn, a, b, threads=2, blas="never", compile_to="llvm").mlir)
"""


def _run(script: str, tmp_path, **env) -> str:
    """Runs ``script`` in a new Python process with a fresh disk cache and the extra
    environment ``env`` (a None value removes the variable); returns its stdout."""
    full = {k: v for k, v in os.environ.items()
            if k not in ("STRATA_OPENMP_LIBRARY", "STRATA_THREAD_RUNTIME", "STRATA_CACHE")}
    full["STRATA_CACHE_DIR"] = str(tmp_path / "cache")
    full.update({k: v for k, v in env.items() if v is not None})
    p = subprocess.run([sys.executable, "-c", PROGRAM + script], env=full, cwd=str(tmp_path),
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-4000:]
    return p.stdout


@needs_wheel
def test_pip_install_brings_libomp_and_strata_takes_it_first(monkeypatch):
    """The wheel is a pinned dependency, installed, found, and preferred to the system's."""
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        deps = tomllib.load(f)["project"]["dependencies"]
    assert [d.split(";")[0].strip() for d in deps if d.startswith("cmeel-libomp")] == \
        [openmp.OPENMP_WHEEL]
    name, version = openmp.OPENMP_WHEEL.split("==")
    assert importlib.metadata.version(name) == version
    files = importlib.metadata.files(name)
    installed = {os.path.realpath(f.locate()) for f in files if f.name == "libomp.so"}
    assert openmp.wheel_library() in installed
    monkeypatch.delenv("STRATA_OPENMP_LIBRARY", raising=False)
    monkeypatch.delenv("STRATA_THREAD_RUNTIME", raising=False)
    openmp.openmp_library.cache_clear()
    try:
        assert openmp.openmp_library() == openmp.wheel_library()
        assert openmp.thread_runtime() == "omp"
    finally:
        openmp.openmp_library.cache_clear()


@needs_wheel
@pytest.mark.parametrize("road", ["jit", "disk"])
def test_threaded_code_runs_on_the_wheels_libomp(tmp_path, road):
    """A parallel program compiled through MLIR's JIT (STRATA_CACHE=0) or the disk cache runs
    as OpenMP regions on the wheel's libomp, the only OpenMP runtime in the process, and
    says nothing about a fallback."""
    out = _run("""
import os, warnings
from strata.runtime.openmp import wheel_library
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    ir = check(lambda x, y: strata.relu(x @ y), 1.0)
assert "omp.parallel" in ir and "mlirAsyncRuntime" not in ir, "not OpenMP code"
loaded = {line.split()[-1] for line in open("/proc/self/maps")
          if os.path.basename(line.split()[-1]).startswith(("libomp", "libiomp", "libgomp"))}
assert loaded == {wheel_library()}, loaded
assert not [w for w in seen if "libomp" in str(w.message)], [str(w.message) for w in seen]
print("ok")
""", tmp_path, STRATA_CACHE="0" if road == "jit" else None)
    assert out.split()[-1] == "ok"


@pytest.mark.parametrize("road", ["jit", "disk"])
def test_without_any_libomp_threaded_code_falls_back_and_says_so_once(tmp_path, road):
    """No libomp anywhere (STRATA_OPENMP_LIBRARY names a missing file): two threaded programs
    and a threaded bisect (which lowers its own pipeline) run on MLIR's async runtime, right,
    with one StrataPerformanceWarning for the process."""
    out = _run("""
import warnings
from strata.explain.bisect import bisect
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    irs = [check(lambda x, y: strata.relu(x @ y), 1.0),
           check(lambda x, y: strata.relu(x @ y) * 2.0, 2.0)]
    r = bisect(lambda x, y: strata.relu(x @ y), a, b, threads=2, blas="never")
assert all("mlirAsyncRuntime" in ir and "omp." not in ir for ir in irs), "not async code"
assert r.culprit is None and r.full_error <= r.bound, r
said = [w for w in seen if "libomp" in str(w.message)]
assert len(said) == 1, [str(w.message) for w in seen]
assert said[0].category is strata.StrataPerformanceWarning
assert "cmeel-libomp" in str(said[0].message)
print("ok")
""", tmp_path, STRATA_OPENMP_LIBRARY="/nonexistent/libomp.so.5",
               STRATA_CACHE="0" if road == "jit" else None)
    assert out.split()[-1] == "ok"


def test_asking_for_async_is_not_a_fallback(tmp_path):
    """STRATA_THREAD_RUNTIME=async without libomp: async code, no warning."""
    out = _run("""
import warnings
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    ir = check(lambda x, y: strata.relu(x @ y), 1.0)
assert "mlirAsyncRuntime" in ir
assert not [w for w in seen if "libomp" in str(w.message)], [str(w.message) for w in seen]
print("ok")
""", tmp_path, STRATA_OPENMP_LIBRARY="/nonexistent/libomp.so.5", STRATA_THREAD_RUNTIME="async",
               STRATA_CACHE="0")
    assert out.split()[-1] == "ok"


def test_openmp_code_without_libomp_is_a_clear_error(monkeypatch):
    """Code lowered for OpenMP explicitly, in a process with no libomp: the JIT refuses it
    with a StrataError that says how to get libomp or to lower it for the async runtime."""
    from strata.runtime.api import lower
    from strata.runtime.engine import Engine

    a = np.ones((256, 320), np.float32)
    m = strata.compile(lambda x, y: strata.relu(x @ y), a, a.T.copy(), compile_to="strata").mlir
    with m.context:
        lower(m, "llvm", threads=2, blas="never", thread_runtime="omp")
    assert "omp.parallel" in str(m)
    monkeypatch.setenv("STRATA_OPENMP_LIBRARY", "/nonexistent/libomp.so.5")
    openmp.openmp_library.cache_clear()
    openmp.load_openmp.cache_clear()
    try:
        with pytest.raises(strata.StrataError, match=r"OpenMP runtime \(libomp.*not found: "
                           r"pip install 'cmeel-libomp==.*thread-runtime=async"):
            Engine(m)
    finally:
        openmp.openmp_library.cache_clear()
        openmp.load_openmp.cache_clear()
