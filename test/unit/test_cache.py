"""The on-disk compilation cache: hits, misses, corruption, knobs, and no partial entries."""

import os
import subprocess
import sys

import numpy as np
import pytest

import strata
from strata.runtime import aot

pytestmark = pytest.mark.skipif(not aot.available(), reason="no C compiler driver (cc)")


def _fn(x, w):
    return strata.relu(x @ w) * 2.0


def _args(m=5, k=7, n=3):
    rng = np.random.default_rng(0)
    return rng.standard_normal((m, k)).astype(np.float32), \
        rng.standard_normal((k, n)).astype(np.float32)


def _ref(x, w):
    return np.maximum(x.astype(np.float64) @ w, 0) * 2


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("STRATA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("STRATA_CACHE", raising=False)
    return tmp_path / "cache"


def _entries(folder):
    return sorted(p for p in os.listdir(folder) if not p.startswith(".")) if folder.exists() \
        else []


def test_second_compile_hits_the_cache(cache_dir):
    x, w = _args()
    first = strata.jit(_fn)
    np.testing.assert_allclose(first(x, w), _ref(x, w), rtol=1e-5, atol=1e-5)
    assert first.stats.cache_hits == 0
    assert len(_entries(cache_dir)) == 1
    second = strata.jit(_fn)
    np.testing.assert_allclose(second(x, w), _ref(x, w), rtol=1e-5, atol=1e-5)
    assert second.stats.cache_hits == 1
    assert len(_entries(cache_dir)) == 1


def test_options_and_shapes_get_their_own_entries(cache_dir):
    x, w = _args()
    strata.jit(_fn)(x, w)
    strata.jit(_fn, fusion=False)(x, w)
    strata.jit(_fn)(*_args(4, 7, 3))
    assert len(_entries(cache_dir)) == 3


@pytest.mark.parametrize("damage", ["truncate-lib", "garbage-meta", "missing-lib"])
def test_a_damaged_entry_is_rebuilt(cache_dir, damage):
    # The entry is made by another process: a library loaded here would stay mapped.
    code = ("import sys; sys.path.insert(0, %r); import test_cache as t; "
            "strata = t.strata; strata.jit(t._fn)(*t._args())" % os.path.dirname(__file__))
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ))
    x, w = _args()
    (entry,) = _entries(cache_dir)
    folder = cache_dir / entry
    if damage == "truncate-lib":
        (folder / "lib.so").write_bytes(b"\x7fELF")
    elif damage == "garbage-meta":
        (folder / "meta.json").write_text("{not json")
    else:
        (folder / "lib.so").unlink()
    again = strata.jit(_fn)
    np.testing.assert_allclose(again(x, w), _ref(x, w), rtol=1e-5, atol=1e-5)
    assert again.stats.cache_hits == 0
    assert (cache_dir / _entries(cache_dir)[0] / "lib.so").stat().st_size > 1000


def test_cache_off_writes_nothing(cache_dir, monkeypatch):
    monkeypatch.setenv("STRATA_CACHE", "0")
    x, w = _args()
    np.testing.assert_allclose(strata.jit(_fn)(x, w), _ref(x, w), rtol=1e-5, atol=1e-5)
    assert not cache_dir.exists()


def test_unwritable_cache_folder_falls_back_to_the_jit(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("STRATA_CACHE_DIR", str(blocker / "cache"))
    x, w = _args()
    np.testing.assert_allclose(strata.jit(_fn)(x, w), _ref(x, w), rtol=1e-5, atol=1e-5)


def test_a_knob_changes_the_key(cache_dir, monkeypatch):
    x, w = _args()
    strata.jit(_fn)(x, w)
    monkeypatch.setenv("STRATA_SOME_KNOB", "1")
    strata.jit(_fn)(x, w)
    assert len(_entries(cache_dir)) == 2


def test_no_temporary_folders_are_left(cache_dir):
    x, w = _args()
    strata.jit(_fn)(x, w)
    assert [p for p in os.listdir(cache_dir) if p.startswith(".")] == []


def test_cached_code_is_vectorized(cache_dir):
    """The ahead-of-time path targets this machine (a module without a target triple
    would leave LLVM's loop vectorizer without vector registers)."""
    import importlib.util

    x = np.ones((64, 256), np.float32)
    strata.jit(lambda a: strata.relu(a * 2.0 + 1.0))(x)
    (entry,) = _entries(cache_dir)
    llvm = list(importlib.util.find_spec("llvm").submodule_search_locations)[0]
    asm = subprocess.run([os.path.join(llvm, "bin", "llvm-objdump"), "-d",
                          str(cache_dir / entry / "lib.so")], capture_output=True, text=True,
                         check=True).stdout
    import re

    assert re.search(r"\tv\w+ps\t.*%[yz]mm", asm), "no packed single ops on ymm/zmm registers"
