"""What each row of ``f.report()`` / ``strata report`` measured (runtime/report.py): the
variants built during exactly its measured calls (``CostReport.builds``), so that a row
named for a compile timed one. Counters, not times: nothing here depends on the
machine's speed."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np

import strata

STRATA = os.path.join(os.path.dirname(sys.executable), "strata")
R = np.random.default_rng(0)
W = R.standard_normal((13, 4)).astype(np.float32)


def _model(x, w):
    return strata.relu(x @ w)


def _x(n=6):
    return R.standard_normal((n, 13)).astype(np.float32)


def test_without_automatic_dynamic_the_third_size_is_timed_on_its_compile():
    report = strata.jit(_model).report(_x(), W)
    assert list(report.as_dict()) == ["cold compile", "restart (disk hit)", "warm call",
                                      "new shape, compiled", "new shape, recompiled"]
    # (variants built, of them loaded from the disk cache) in each row's measured calls
    assert report.builds == {"cold compile": (1, 0), "restart (disk hit)": (1, 1),
                             "warm call": (0, 0), "new shape, compiled": (1, 0),
                             "new shape, recompiled": (1, 0)}
    assert "first call with dim 0 of 'x' 8, a size not seen before: compiled again" \
        in str(report)


def test_with_automatic_dynamic_the_third_size_is_the_dynamic_variant_warm():
    report = strata.jit(_model, automatic_dynamic=True).report(_x(), W)
    assert report.builds["new shape, compiled"] == (1, 0)  # the dynamic variant
    assert report.builds["new shape, dynamic variant"] == (0, 0)  # no compile, warm-up too
    assert "new shape, recompiled" not in report.builds


def test_a_size_a_bucket_serves_is_named_no_compile():
    report = strata.jit(_model, buckets={"x": {0: "pow2"}}).report(_x(5), W)
    costs = report.as_dict()
    assert report.builds["new shape, no compile"] == (0, 0)  # 6 rows: bucket 8, as 5 rows
    assert report.builds["another shape, no compile"] == (0, 0)  # 7 rows: bucket 8
    assert "new shape, compiled" not in costs and "new shape, recompiled" not in costs
    assert "bucket pad + slice" in costs


def test_strata_report_prints_the_recompile_row(tmp_path):
    script = tmp_path / "model.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import strata

        def model(x, w):
            return strata.relu(x @ w)

        def model_inputs():
            return np.ones((6, 13), np.float32), np.ones((13, 4), np.float32)
    """))
    p = subprocess.run([STRATA, "report", f"{script}:model"], capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    (line,) = [r for r in p.stdout.splitlines() if r.startswith("new shape, recompiled")]
    assert line.endswith("first call with dim 0 of 'x' 8, a size not seen before: compiled "
                         "again (automatic dynamic off or not possible)")
