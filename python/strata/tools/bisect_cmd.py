"""``strata bisect script.py:fn [-o DIR]``: the pass that breaks a function's numbers.

The script defines ``fn``, ``fn_inputs()`` (or ``example_inputs()``) and, optionally,
``fn_reference(*float64 arrays)``: numpy code for the exact result. Exit status 0 when
no pass leaves tolerance, 2 when one does (its IR before and after, and a strata-opt
command that reproduces it, go to DIR), 1 on an error.
"""

from __future__ import annotations

import argparse
import runpy
import sys


def run(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="strata bisect", description=__doc__.splitlines()[0])
    p.add_argument("target", help="SCRIPT.py:FUNCTION")
    p.add_argument("-o", "--output", default="strata-bisect",
                   help="folder for before.mlir, after.mlir and repro.sh (default: "
                        "strata-bisect)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--blas", default="auto", choices=("auto", "always", "never"))
    a = p.parse_args(argv)

    from ..errors import StrataError
    from ..explain.bisect import bisect
    from .report_cmd import load

    try:
        fn, args = load(a.target)
        script, _, name = a.target.rpartition(":")
        reference = runpy.run_path(script, run_name="__strata_report__").get(
            f"{name}_reference")
        result = bisect(fn, *args, reference=reference, threads=a.threads, blas=a.blas)
    except StrataError as e:
        sys.stderr.write(f"{e}\n")
        return 1
    sys.stdout.write(f"{result}\n")
    if result.clean:
        return 0
    for path in result.save(a.output):
        sys.stdout.write(f"wrote {path}\n")
    return 2
