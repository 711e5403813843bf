"""The benchmark scripts stay importable (they are run by hand and by bench/gpu_check.sh)."""

from __future__ import annotations

import importlib
import os
import sys

import pytest

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "bench")


@pytest.mark.parametrize("name", ["common", "ops_bench", "fusion_bench", "gpu_bench",
                                  "blas_bench", "rows_bench"])
def test_bench_script_imports(name, monkeypatch):
    monkeypatch.syspath_prepend(os.path.abspath(BENCH))
    module = importlib.import_module(name)
    assert module.__doc__
    if name == "common":
        assert "strata threads" in module.machine()
    sys.modules.pop(name, None)
