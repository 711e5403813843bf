"""The ``strata`` command: ``strata demo``, ``strata cache ...``, ``strata opt`` (strata-opt)."""

from __future__ import annotations

import sys

USAGE = """usage: strata <command> [args]

commands:
  demo     build, compile and run the demo models, checked against numpy
  opt      the strata-opt driver (same as the strata-opt command)
  cache    the on-disk compilation cache: info | list | clear | explain KEY
  draw     a function of a .mlir file as a picture (SVG + PNG) at a level
  report   SCRIPT.py:FN: its runtime costs, or with --html OUT the explanation page
  bisect   SCRIPT.py:FN: the first pass after which its result leaves tolerance
  tune     SCRIPT.py:FN: tune its heavy ops into the tuning record; --show lists it
"""


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        sys.exit(0 if argv else 1)
    command, rest = argv[0], argv[1:]
    if command == "demo":
        from ..demo import main as demo_main
        from ..errors import StrataError

        try:
            sys.exit(demo_main(rest))
        except StrataError as e:
            sys.stderr.write(f"{e}\n")
            sys.exit(1)
    if command == "cache":
        from .cache_cmd import run as cache_run

        sys.exit(cache_run(rest))
    if command == "draw":
        from .draw_cmd import run as draw_run

        sys.exit(draw_run(rest))
    if command == "report":
        from .report_cmd import run as report_run

        sys.exit(report_run(rest))
    if command == "bisect":
        from .bisect_cmd import run as bisect_run

        sys.exit(bisect_run(rest))
    if command == "tune":
        from .tune_cmd import run as tune_run

        sys.exit(tune_run(rest))
    if command == "opt":
        from .opt import main as opt_main

        opt_main(rest, "strata opt")
    sys.stderr.write(f"strata: unknown command '{command}'\n{USAGE}")
    sys.exit(1)


if __name__ == "__main__":
    main()
