"""bench/zoo_bench.py: the stock transformers models benchmark runs end to end at tiny
configs (numbers are printed, never asserted), and its table shows a failure in its cell."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys

import pytest

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "bench")


def _cells(text, name):
    row = next(line for line in text.splitlines() if line.startswith(f"| {name} |"))
    return [c.strip() for c in re.split(r"(?<!\\)\|", row.strip()[1:-1])]  # not "\\|"


def test_zoo_bench_quick_run_has_the_rows():
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    p = subprocess.run([sys.executable, os.path.join(BENCH, "zoo_bench.py"), "--quick",
                        "--models", "gpt2", "--systems", "eager,strata"],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    cells = _cells(p.stdout, "gpt2")
    assert cells[1] == "1 x 16 tokens"
    assert cells[2].endswith(("ms", " s")) and cells[4].endswith(("ms", " s")), cells
    assert cells[3] == "-"  # inductor left out
    assert float(cells[8]) < 1e-3, cells  # strata's max relative error vs eager
    assert re.fullmatch(r"\d+ of \d+ \(\d+ graphs\).*", cells[9]), cells
    generate = _cells(p.stdout, "gpt2-generate")
    assert "tok/s" in generate[4] and generate[8].startswith("tokens"), generate


def test_zoo_bench_table_shows_a_failure_in_its_cell(monkeypatch):
    monkeypatch.syspath_prepend(os.path.abspath(BENCH))
    zoo_bench = importlib.import_module("zoo_bench")
    try:
        z = zoo_bench.sizes(large=True, quick=False)
        results = {"llama": {
            "eager": {"cold": 0.5, "warm": 0.04, "err": 0.0},
            "inductor": {"cold": 30.0, "warm": 0.02, "err": 1e-6},
            "strata": {"error": "RuntimeError: a | b\nc"}}, "gpt2-generate": {
            "inductor": {"cold": 20.0, "warm": 0.5, "same": True, "new_tokens": 32},
            "strata": {"cold": 10.0, "warm": 0.25, "same": False, "differ_at": 3,
                       "new_tokens": 32, "eager_ops": 2, "ops": 400, "graphs": 3,
                       "eager_names": ["aten.sort.default"]}}}
        text = zoo_bench.table(results, z)
        cells = _cells(text, "llama")
        assert len(cells) == 10
        assert cells[1] == "8 x 512 tokens"
        assert cells[4] == r"failed: RuntimeError: a \| b c" and cells[7] == "failed"
        assert cells[5] == "-" and cells[8] == "-"
        cells = _cells(text, "gpt2-generate")
        assert cells[2] == "-" and cells[3] == "64 tok/s (500 ms)"
        assert cells[5] == "2.00"  # inductor time / strata time: strata twice as fast
        assert cells[8] == "tokens differ from eager's at new token 3"
        assert cells[9] == "2 of 400 (3 graphs): aten.sort.default"
    finally:
        sys.modules.pop("zoo_bench", None)
