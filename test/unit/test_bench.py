"""The benchmark scripts stay importable (they are run by hand and by bench/gpu_check.sh)."""

from __future__ import annotations

import importlib
import os
import sys

import pytest

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "bench")


@pytest.mark.parametrize("name", ["common", "ops_bench", "fusion_bench", "gpu_bench",
                                  "blas_bench", "runtime_bench", "rows_bench"])
def test_bench_script_imports(name, monkeypatch):
    monkeypatch.syspath_prepend(os.path.abspath(BENCH))
    module = importlib.import_module(name)
    assert module.__doc__
    if name == "common":
        assert "strata threads" in module.machine()
    sys.modules.pop(name, None)


def test_suite_quick_run_writes_report(tmp_path):
    """One small row through the whole suite: limits, a fresh process per system, the
    cross-check of results and the report (numbers are printed, never asserted)."""
    import subprocess

    out = tmp_path / "docs"
    p = subprocess.run([sys.executable, os.path.join(BENCH, "suite.py"), "--quick", "--rows",
                        "^demo mlp$", "--no-torch", "--budget", "0.05", "--out", str(out)],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    text = (out / "benchmarks.md").read_text()
    assert "**Limits measured in this run:** f32 FMA" in text
    row = next(line for line in text.splitlines() if line.startswith("| demo mlp | strata |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[6] == "numpy" and cells[3].endswith(("ms", "µs"))
    assert "wrong result" not in text and "failed" not in text
    assert not (out / ".benchmarks.md.tmp").exists()


def test_suite_rows_compute_the_same_function_in_every_system():
    """Each row's strata and numpy programs agree on small inputs (the suite would flag it
    at benchmark time, this catches a wrong row definition in CI)."""
    sys.path.insert(0, os.path.abspath(BENCH))
    try:
        import suite_rows
    finally:
        sys.path.pop(0)
    import numpy as np

    import strata

    names = set()
    for row in suite_rows.rows():
        assert row.name not in names
        names.add(row.name)
        assert row.peer in ("numpy", "torch", "torch.compile")
        if row.numpy is None or row.group in ("matmul", "models"):
            continue
        small = [tuple(min(d, 33) for d in s) for s in row.shapes]
        row.shapes = small
        args = row.inputs()
        got = strata.jit(row.strata)(*args)
        want = row.numpy(*[a.astype(np.float64) if a.dtype.kind == "f" else a for a in args])
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-4, err_msg=row.name)


def test_torch_bench_keeps_the_best_round_and_judges_the_cold_goal(monkeypatch):
    """bench/torch_bench.py's table from made-up rounds (no torch needed): the fastest warm
    and cold of each system's rounds, the spread of the per-round warm ratio, the trace's
    share, and a cold goal called unreachable only where the trace alone exceeds it."""
    monkeypatch.syspath_prepend(os.path.abspath(BENCH))
    torch_bench = importlib.import_module("torch_bench")
    try:
        runs = {"m": {
            "trace": [{"cold": 0.5, "warm": None}, {"cold": 0.4, "warm": None}],
            "inductor": [{"cold": 1.5, "warm": 0.004}, {"cold": 1.0, "warm": 0.002}],
            "strata": [{"cold": 2.0, "warm": 0.003, "err": 1e-7, "eager_ops": 0, "ops": 9},
                       {"error": "boom"}, ],
        }}
        best = {n: {s: torch_bench.best(v) for s, v in per.items()} for n, per in runs.items()}
        assert best["m"]["inductor"] == {"cold": 1.0, "warm": 0.002, "rounds": 2}
        assert best["m"]["strata"]["cold"] == 2.0 and best["m"]["strata"]["rounds"] == 1
        assert torch_bench.best([{"error": "x"}]) == {"error": "x"}
        # the third round of strata failed: only the first pairs with inductor's
        assert torch_bench.warm_spread(runs["m"]) == ""
        runs["m"]["strata"][1] = {"cold": 3.0, "warm": 0.004}
        assert torch_bench.warm_spread(runs["m"]) == " (0.75-2.00)"
        assert torch_bench.cold_goal(best["m"]).startswith("**no**: the trace alone is 0.40")
        row = torch_bench.table(best, runs).splitlines()[2]
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[4] == "1.50 (0.75-2.00)" and cells[8] == "1.60 s" and cells[9] == "2.00"
        fast = {"strata": {"cold": 0.15}, "inductor": {"cold": 1.0}, "trace": {"cold": 0.1}}
        assert torch_bench.cold_goal(fast) == "met"
        slow = {"strata": {"cold": 0.5}, "inductor": {"cold": 1.0}, "trace": {"cold": 0.1}}
        assert torch_bench.cold_goal(slow) == "**no**"
    finally:
        sys.modules.pop("torch_bench", None)
