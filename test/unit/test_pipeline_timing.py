"""run_pipeline(timing=...): MLIR's own per-pass timing report, as data."""

from __future__ import annotations

import numpy as np

import strata
from strata.frontend.module import trace
from strata.pipelines.levels import level_steps
from strata.pipelines.runner import run_pipeline, timing_rows

REPORT = """===-------------------------------------------------------------------------===
                         ... Execution time report ...
===-------------------------------------------------------------------------===
  Total Execution Time: 0.0145 seconds

  ----Wall Time----  ----Name----
    0.0014 (  9.7%)  StrataDecompose
    0.0114 ( 78.7%)  StrataFuse
    0.0001 (  0.4%)  'func.func' Pipeline
    0.0001 (  0.4%)    CSE
    0.0000 (  0.0%)      (A) DominanceInfo
    0.0010 (  7.2%)  Rest
    0.0145 (100.0%)  Total
"""


def test_timing_rows_parse_mlirs_report():
    assert timing_rows(REPORT) == [(0.0014, "StrataDecompose", 0), (0.0114, "StrataFuse", 0),
                                   (0.0001, "'func.func' Pipeline", 0), (0.0001, "CSE", 1),
                                   (0.0, "(A) DominanceInfo", 2), (0.001, "Rest", 0)]


# Where a level's passes ran on several threads, MLIR prints the user time first.
REPORT_THREADS = """  Total Execution Time: 0.4156 seconds

  ----User Time----  ----Wall Time----  ----Name----
    0.0400 (  8.6%)    0.0359 (  8.6%)  StrataLowerVectors
    0.0051 (  1.0%)    0.0042 (  1.0%)  'func.func' Pipeline
    0.0050 (  1.0%)    0.0041 (  1.0%)    ConvertLinalgToLoopsPass
    0.4600 (100.0%)    0.4156 (100.0%)  Total
"""


def test_timing_rows_take_the_wall_time_of_a_threaded_report():
    assert timing_rows(REPORT_THREADS) == [(0.0359, "StrataLowerVectors", 0),
                                           (0.0042, "'func.func' Pipeline", 0),
                                           (0.0041, "ConvertLinalgToLoopsPass", 1)]


def test_run_pipeline_collects_every_pass_of_every_level(capfd):
    def f(x):
        return strata.softmax(x) * 2.0

    m = trace(f, np.ones((4, 8), np.float32))
    seen = {}
    for level, text in level_steps("llvm"):
        rows = []
        run_pipeline(m.mlir.operation, f"builtin.module({text})", timing=rows)
        seen[level] = rows
        assert rows and all(t >= 0 for t, _, _ in rows)
    names = {level: [n for _, n, d in rows if d == 0] for level, rows in seen.items()}
    assert names["strata"][:2] == ["StrataVerify", "StrataCanonicalize"]
    assert "StrataFuse" in names["fused"] and "StrataVectorize" in names["bufferized"]
    assert names["llvm"][-1] == "Rest"
    # the report went into the rows, not onto the user's stderr
    assert "Execution time report" not in capfd.readouterr().err
