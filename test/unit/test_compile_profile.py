"""jit(timing=True) / STRATA_TIMING: where a compile's time went."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import strata
from strata.errors import StrataError


def mlp(x, w):
    return strata.softmax(strata.relu(x @ w))


def _args():
    g = np.random.default_rng(0)
    return [g.standard_normal((8, 16)).astype(np.float32),
            g.standard_normal((16, 4)).astype(np.float32)]


def test_profile_has_phases_and_every_levels_passes(tmp_path, monkeypatch):
    monkeypatch.setenv("STRATA_CACHE_DIR", str(tmp_path))
    f = strata.jit(mlp, timing=True)
    f(*_args())
    p = f.compile_profile()
    names = [n for n, _ in p.phases]
    # every step of a cold compile, in order (runtime/program.py): what the time went to
    assert names[:4] == ["record trace + disk-cache lookup",
                         "import the MLIR bindings (once per process)", "trace (replay as MLIR)",
                         "program set-up (MLIR context)"]
    assert names[4:7] == ["specialize + cache lookup", "import the passes (once per process)",
                          "start opt and llc (they run during the passes)"]
    assert names[7] == "lower (MLIR passes)" and names[8].startswith("native code")
    assert all(s >= 0 for _, s in p.phases)
    assert list(p.passes) == ["strata", "linalg", "fused", "layout", "bufferized", "llvm"]
    top = {name for rows in p.passes.values() for _, name, depth in rows if depth == 0}
    assert {"StrataVerify", "StrataToLinalg", "StrataFuse", "StrataVectorize"} <= top
    text = str(p)
    assert text.startswith("@mlp(") and "lower (MLIR passes)" in text and "StrataFuse" in text
    assert "(pipeline set-up, IR walks)" in text
    d = p.as_dict()
    assert d["total_s"] == pytest.approx(sum(s for _, s in p.phases))
    # a new shape compiles again: a second profile
    f(np.ones((3, 16), np.float32), np.ones((16, 4), np.float32))
    assert len(f.stats.profiles) == 2 and "3x16" in f.compile_profile().signature


def test_no_profile_without_timing(tmp_path, monkeypatch):
    monkeypatch.setenv("STRATA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("STRATA_TIMING", raising=False)
    f = strata.jit(mlp)
    f(*_args())
    with pytest.raises(StrataError, match="timing=True or STRATA_TIMING=1"):
        f.compile_profile()


def test_strata_timing_prints_each_profile(tmp_path):
    code = ("import numpy as np, strata\n"
            "f = strata.jit(lambda x: strata.tanh(x) * 2.0)\n"
            "f(np.ones((4, 4), np.float32))\n")
    env = {"STRATA_TIMING": "1", "STRATA_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    for expect in ("lower (MLIR passes)", "trace record + load (disk hit)"):
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env, timeout=300)
        assert p.returncode == 0, p.stderr
        assert "strata: compile profile" in p.stderr and expect in p.stderr
