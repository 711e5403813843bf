"""Counts per category: cases tried, clean errors, crashes, wrong results.

    .venv/bin/python test/unit/opt_corpus/tally.py [-v]

A case that crashes and is also wrong counts as a crash; ``-v`` lists the
problems of every case that is not clean.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from opt_corpus import harness  # noqa: E402
from opt_corpus.cases import CASES  # noqa: E402


def main(verbose: bool) -> None:
    counts: dict[str, Counter] = {}
    for case in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            result, problems = harness.check(case, tmp)
        c = counts.setdefault(case.category, Counter())
        c["tried"] += 1
        if result is None:
            c["skipped"] += 1
            continue
        kinds = {k for k, _ in problems}
        verdict = "crash" if "crash" in kinds else "wrong" if kinds else "clean"
        c[verdict] += 1
        if verbose and problems:
            print(f"{case.category}/{case.name}: {verdict}: " + "; ".join(w for _, w in problems))
    print(f"{'category':<20} {'tried':>5} {'clean':>5} {'crash':>5} {'wrong':>5} {'skip':>5}")
    total = Counter()
    for cat, c in counts.items():
        total.update(c)
        print(f"{cat:<20} {c['tried']:>5} {c['clean']:>5} {c['crash']:>5} {c['wrong']:>5} "
              f"{c['skipped']:>5}")
    print(f"{'total':<20} {total['tried']:>5} {total['clean']:>5} {total['crash']:>5} "
          f"{total['wrong']:>5} {total['skipped']:>5}")


if __name__ == "__main__":
    main("-v" in sys.argv)
