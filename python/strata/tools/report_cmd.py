"""``strata report [--html OUT.html] script.py:fn``: the costs, or the whole explanation page.

The script is run as a module (not as ``__main__``); it must define ``fn`` (a Python
function of strata ops, or a ``strata.jit`` function) and ``fn_inputs()`` (or
``example_inputs()``) returning the example arguments, a tuple of numpy arrays.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys


def load(spec: str):
    """``(function, example arguments)`` named by ``script.py:fn``."""
    from ..errors import StrataError

    script, _, name = spec.rpartition(":")
    if not script or not name:
        raise StrataError(f"expected SCRIPT.py:FUNCTION, got '{spec}'", location="<report>")
    if not os.path.isfile(script):
        raise StrataError(f"no such script '{script}'", location="<report>")
    namespace = runpy.run_path(script, run_name="__strata_report__")
    if name not in namespace:
        raise StrataError(f"{script} defines no '{name}'", location="<report>")
    maker = namespace.get(f"{name}_inputs") or namespace.get("example_inputs")
    if maker is None:
        raise StrataError(f"{script} defines neither '{name}_inputs()' nor "
                          "'example_inputs()' to give the example arguments",
                          location="<report>")
    return namespace[name], tuple(maker())


def run(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="strata report", description=__doc__.splitlines()[0])
    p.add_argument("target", help="SCRIPT.py:FUNCTION")
    p.add_argument("--html", default=None, metavar="OUT.html",
                   help="write the explanation page (pictures, decisions, pass timing, "
                        "costs) instead of printing the costs")
    p.add_argument("--no-costs", action="store_true", help="leave the runtime costs out")
    a = p.parse_args(argv)

    from ..errors import StrataError

    try:
        fn, args = load(a.target)
        if a.html:
            from ..explain.html import html_report

            html_report(fn, *args, path=a.html, costs=not a.no_costs)
            sys.stdout.write(f"wrote {a.html}\n")
        else:
            from ..runtime.api import jit

            sys.stdout.write(f"{jit(getattr(fn, 'fn', fn)).report(*args)}\n")
    except StrataError as e:
        sys.stderr.write(f"{e}\n")
        return 1
    except OSError as e:
        sys.stderr.write(f"strata report: {e}\n")
        return 1
    return 0
