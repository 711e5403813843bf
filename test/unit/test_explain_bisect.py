"""strata.bisect: the first pass (and fusion decision) after which results leave tolerance."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass

import numpy as np
import pytest
from mlir import ir
from mlir.dialects import arith

import strata
from strata.errors import StrataError
from strata.explain.bisect import bisect, pipeline_passes, split_pipeline
from strata.passes import fuse as fuse_mod
from strata.passes.base import Pass, collect_ops
from strata.pipelines import registry

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def f(x, w, b):
    h = strata.relu(x @ w + b)
    return strata.tanh(h * 0.5) + 1.0


def f_ref(x, w, b):
    return np.tanh(np.maximum(x @ w + b, 0) * 0.5) + 1.0


def _args(m=33, k=64, n=48, seed=0):
    g = np.random.default_rng(seed)
    return [g.standard_normal(s).astype(np.float32) for s in ((m, k), (k, n), (n,))]


def _mulf_to_addf(ops) -> bool:
    """Turns the first arith.mulf inside a linalg.generic of ``ops`` into arith.addf."""
    for op in ops:
        with ir.InsertionPoint(op), op.location:
            new = arith.addf(op.operands[0], op.operands[1])
        op.results[0].replace_all_uses_with(new)
        op.erase()
        return True
    return False


@dataclass(frozen=True)
class PerturbPass(Pass):
    """Test-only: a wrong rewrite (x * y becomes x + y in the first elementwise kernel)."""

    name = "test-perturb"

    def run(self, module):
        _mulf_to_addf(collect_ops(module, lambda o: o.name == "arith.mulf"
                                  and o.parent.name == "linalg.generic"))


def test_split_pipeline_keeps_nested_elements_whole():
    assert split_pipeline("a, b{x=1 y=2}, func.func(c, d{z=3}), e") == \
        ["a", "b{x=1 y=2}", "func.func(c, d{z=3})", "e"]
    passes = pipeline_passes()
    assert passes[0] == "strata-verify" and any(p.startswith("strata-fuse{") for p in passes)
    assert "func.func(loop-invariant-subset-hoisting)" in passes


def test_clean_pipeline_is_not_blamed():
    r = bisect(f, *_args(), reference=f_ref)
    assert r.clean and r.culprit is None and r.full_error <= r.bound
    assert "no pass leaves tolerance" in str(r)


@pytest.mark.parametrize("options", [dict(threads=2), dict(blas="always")])
def test_reordered_sums_stay_within_tolerance(options):
    """Threads split and OpenBLAS blocks the K = 1000 sums differently: a reordering, with a
    measurable difference from the float64 reference, and no false alarm."""
    args = _args(m=96, k=1000, n=64, seed=3)
    r = bisect(f, *args, reference=f_ref, **options)
    assert 0 < r.full_error <= r.bound
    assert r.clean


def test_planted_bad_pass_is_named(monkeypatch):
    monkeypatch.setitem(registry.PASSES, "test-perturb", PerturbPass)
    passes = pipeline_passes()
    at = next(i for i, p in enumerate(passes) if p.startswith("strata-fuse")) + 1
    passes.insert(at, "test-perturb")
    r = bisect(f, *_args(), reference=f_ref, passes=passes)
    assert r.culprit == "test-perturb" and r.culprit_index == at
    assert r.full_error > r.bound and r.decision is None
    assert "arith.mulf" in r.before and "arith.mulf" not in r.after
    # every prefix before the culprit was within tolerance, every one after it out
    assert all((e <= r.bound) == (k <= at) for k, e in r.errors)


def test_planted_bad_fusion_decision_is_named(monkeypatch, tmp_path):
    """strata-fuse merges wrongly when its merged kernel holds a tanh: the bisector names
    strata-fuse and the one decision whose flip restores the result."""
    original = fuse_mod.merge_into

    def bad_merge(producer, consumer):
        fused = original(producer, consumer)
        body = [o for o in collect_ops(fused, lambda o: o.name.startswith("math."))]
        if any(o.name == "math.tanh" for o in body):
            _mulf_to_addf(collect_ops(fused, lambda o: o.name == "arith.mulf"))
        return fused

    monkeypatch.setattr(fuse_mod, "merge_into", bad_merge)
    r = bisect(f, *_args(), reference=f_ref, blas="never")
    assert r.culprit.startswith("strata-fuse{")
    assert r.decision is not None and r.decision.startswith("[") and " fused " in \
        f" {r.decision.split('] ', 1)[1]}"
    assert "the decision that breaks it" in str(r)
    paths = r.save(str(tmp_path / "out"))
    assert sorted(os.path.basename(p) for p in paths) == ["after.mlir", "before.mlir",
                                                         "repro.sh"]
    # the reproducer runs (the unpatched strata-fuse, in a fresh process) on before.mlir
    cmd = r.repro(str(tmp_path / "out")).split(" ", 1)[1]
    p = subprocess.run(f"{sys.executable} {ROOT}/tools/strata-opt {cmd}", shell=True,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "linalg.generic" in p.stdout


def test_a_fault_outside_the_optional_passes_is_reported():
    """When even the plain pipeline disagrees with the reference, no optional pass is
    blamed: the error says so (here the reference itself is off by one)."""
    with pytest.raises(StrataError, match="even the plain pipeline leaves tolerance"):
        bisect(f, *_args(), reference=lambda x, w, b: f_ref(x, w, b) + 1.0)


def test_cli_bisect_clean_script(tmp_path):
    script = tmp_path / "model.py"
    script.write_text(
        "import numpy as np\nimport strata\n\n"
        "def f(x, w):\n    return strata.tanh(x @ w) * 2.0\n\n"
        "def f_inputs():\n    g = np.random.default_rng(0)\n"
        "    return [g.standard_normal((9, 33)).astype(np.float32),\n"
        "            g.standard_normal((33, 5)).astype(np.float32)]\n\n"
        "def f_reference(x, w):\n    return np.tanh(x @ w) * 2.0\n")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "strata"), "bisect",
                        f"{script}:f"], capture_output=True, text=True, timeout=600,
                       cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "no pass leaves tolerance" in p.stdout and "the given float64 reference" in p.stdout
    assert sorted(os.listdir(tmp_path)) == ["model.py"]
