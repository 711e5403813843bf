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
