"""``strata tune script.py:fn [--budget S] [--executor local|ray]``; ``strata tune --show``.

Tunes the heavy ops of ``fn`` on the script's example inputs (``fn_inputs()`` or
``example_inputs()``, as ``strata report`` loads them; strata/autotune/) and saves the
winners to the tuning record, which later compiles on this target use; ``--show``
lists the record (this target's entries marked ``*``).
"""

from __future__ import annotations

import argparse
import sys


def run(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="strata tune", description=__doc__.splitlines()[0])
    p.add_argument("target", nargs="?", help="SCRIPT.py:FUNCTION")
    p.add_argument("--show", action="store_true", help="list the tuning record")
    p.add_argument("--budget", type=float, default=60.0, help="seconds of search (60)")
    p.add_argument("--executor", choices=("local", "ray"), default="local")
    p.add_argument("--blas", choices=("auto", "always", "never"), default="auto",
                   help="as strata.jit's blas: matmuls run as BLAS calls are not tuned")
    p.add_argument("--threads", type=int, default=None,
                   help="threads of the tuned code (default: STRATA_THREADS, else all CPUs)")
    p.add_argument("--max-spread", type=float, default=0.15,
                   help="reject measurements whose rounds spread more (0.15 = 15%%)")
    a = p.parse_args(argv)

    from ..errors import StrataError
    from ..runtime import tuning_record

    if a.show:
        sys.stdout.write(tuning_record.show())
        return 0
    if not a.target:
        p.print_usage(sys.stderr)
        sys.stderr.write("strata tune: give SCRIPT.py:FUNCTION, or --show\n")
        return 2
    from ..autotune import tune
    from .report_cmd import load

    try:
        fn, args = load(a.target)
        result = tune(fn, *args, budget=a.budget, executor=a.executor, threads=a.threads,
                      blas=a.blas,
                      max_spread=a.max_spread)
    except StrataError as e:
        sys.stderr.write(f"{e}\n")
        return 1
    except OSError as e:
        sys.stderr.write(f"strata tune: {e}\n")
        return 1
    sys.stdout.write(result.table() + "\n")
    for line in result.rejected:
        sys.stdout.write(f"rejected: {line}\n")
    sys.stdout.write(f"record: {result.record or '(nothing to save)'}\n")
    return 0
