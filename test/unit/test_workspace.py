"""Intermediates live in one workspace per thread (strata-workspace), allocated once."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import threading

import numpy as np
import pytest

import strata
from strata.runtime import aot


def _chain(x, w, v):
    h = strata.relu(x @ w)          # an intermediate of x.shape[0] x w.shape[1]
    return strata.softmax(h @ v, axis=-1).sum(axis=1)


def _ref(x, w, v):
    h = np.maximum(x.astype(np.float64) @ w, 0) @ v
    e = np.exp(h - h.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).sum(axis=1)


def _args(m=96, k=40, n=200, p=24, seed=0):
    r = np.random.default_rng(seed)
    return (r.standard_normal((m, k)).astype(np.float32),
            (r.standard_normal((k, n)) / 6).astype(np.float32),
            (r.standard_normal((n, p)) / 14).astype(np.float32))


def _variant(f):
    (program,) = f._programs.values()
    (compiled,) = program._cache.values()
    return compiled


@pytest.mark.parametrize("cache", ["1", "0"], ids=["aot-library", "jit-engine"])
def test_intermediates_use_the_workspace_and_results_hold(cache, monkeypatch, tmp_path):
    monkeypatch.setenv("STRATA_CACHE", cache)
    monkeypatch.setenv("STRATA_CACHE_DIR", str(tmp_path))
    f = strata.jit(_chain)
    x, w, v = _args()
    np.testing.assert_allclose(f(x, w, v), _ref(x, w, v), rtol=1e-5, atol=1e-5)
    assert _variant(f).workspace >= 96 * 200 * 4  # the relu(x @ w) buffer at least
    np.testing.assert_allclose(f(x, w, v), _ref(x, w, v), rtol=1e-5, atol=1e-5)


def test_each_thread_gets_its_own_workspace():
    f = strata.jit(_chain)
    wrong = []

    def worker(seed):
        for i in range(25):
            args = _args(seed=seed * 100 + i)
            if not np.allclose(f(*args), _ref(*args), rtol=1e-5, atol=1e-5):
                wrong.append((seed, i))

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(8)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert not wrong
    assert _variant(f)._local is not None


def test_warm_calls_do_not_fault_in_fresh_pages_for_intermediates():
    # A 64 MiB intermediate (4096 x 4096 f32) and a 16 KiB result. glibc serves
    # allocations above 32 MiB with fresh mappings whatever it has freed before, so
    # a warm call that malloc'ed the intermediate would fault in 16384 pages.
    f = strata.jit(lambda x, w: strata.softmax(x @ w, axis=-1).sum(axis=1))
    x = np.ones((4096, 16), np.float32)
    w = np.ones((16, 4096), np.float32) / 64
    f(x, w)
    f(x, w)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(4):
        out = f(x, w)
    faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 4
    np.testing.assert_allclose(out, np.ones(4096), rtol=1e-4)
    assert faults < 64, f"{faults} page faults per warm call"


@pytest.mark.skipif(not aot.available(), reason="no C compiler driver (cc)")
def test_exported_functions_take_their_workspace(tmp_path):
    x, w, v = _args(8, 5, 16, 3)
    header = strata.export_library(_chain, x, w, v, path=str(tmp_path / "chain.so"))
    text = open(header).read()
    line = next(s for s in text.splitlines() if "_mlir_ciface__chain(" in s)
    size = int(line.split("*workspace /* ")[1].split(" bytes")[0])
    assert size >= 8 * 16 * 4
    kernel = aot.SharedLibrary(str(tmp_path / "chain.so")).kernel(
        "_chain", [(8, 5), (5, 16), (16, 3), (8,), (size,)])
    out = np.empty(8, np.float32)
    ws = np.zeros(size + 64, np.uint8)
    start = (-ws.ctypes.data) % 64
    kernel([x, w, v, out, ws[start:start + size]])
    np.testing.assert_allclose(out, _ref(x, w, v), rtol=1e-5, atol=1e-5)
    cc = "cc"
    src = tmp_path / "use.c"
    src.write_text(f'#include "{header}"\nint main(void) {{ return 0; }}\n')
    subprocess.run([cc, "-fsyntax-only", str(src)], check=True)


def test_a_workspace_too_big_for_the_process_is_a_memory_error():
    code = ("import numpy as np, strata\n"
            "f = strata.jit(lambda x, w: (x @ w).sum(axis=1) * 2.0)\n"
            "x = np.ones((2**16, 1), np.float32); w = np.ones((1, 2**20), np.float32)\n"
            "try:\n    f(x, w); print('no error')\n"
            "except MemoryError as e:\n    print(type(e).__name__, e)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ))
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.startswith("StrataMemoryError"), p.stdout
    assert "256 GiB" in p.stdout
