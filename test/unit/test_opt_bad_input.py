"""The bad-input corpus of strata-opt (test/unit/opt_corpus): every case a clean error.

Each case runs the installed strata-opt as a subprocess and must exit with its
expected status (mlir-opt's, where mlir-opt takes the same arguments), print a
``file:line:col: error:`` diagnostic or a usage line matching the case, no
Python traceback, leave ``-o``'s existing file and the folder untouched, and not
be killed by a signal. See opt_corpus/harness.py.
"""

from __future__ import annotations

import os
from collections import Counter

import pytest
from opt_corpus import harness
from opt_corpus.cases import CASES


def test_the_corpus_covers_every_category():
    counts = Counter(c.category for c in CASES)
    assert len(CASES) >= 40
    assert len({c.name for c in CASES}) == len(CASES), "case names must be unique"
    for category in ("syntax", "verifier", "pass-name", "option", "pipeline", "output", "split",
                     "verify-diagnostics", "input", "nesting", "upstream-pass"):
        assert counts[category] >= 3, (category, counts)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.category}/{c.name}" for c in CASES])
def test_bad_input(case, tmp_path):
    if not os.path.exists(harness.STRATA_OPT):
        pytest.skip(f"{harness.STRATA_OPT} is not installed")
    result, problems = harness.check(case, str(tmp_path))
    if result is None:
        pytest.skip("no folder here refuses writes (needed by this case)")
    assert not problems, (f"{[w for _, w in problems]}\nexit status {result.returncode}\n"
                          f"stderr:\n{result.stderr[:3000]}")
