"""Source locations of the user's code, for the ops that Python capture creates."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING

from .. import settings

if TYPE_CHECKING:  # the bindings are imported where they are used
    from mlir import ir

__all__ = ["user_frame", "user_location", "location_text", "position", "source_location",
           "user_position", "user_traceback"]

# (file, line, col) that importers (strata.torch) set for the ops they build: the location
# of the source the op came from, in place of the calling Python frame.
_SOURCE: list = []

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Modules of the package that are user programs written with strata's API (the demo's
# models): their lines are the locations of the ops they build.
_USER_CODE = {os.path.join(_PACKAGE_DIR, "demo.py")}


def _numpy_dir() -> str:
    import numpy

    return os.path.dirname(os.path.abspath(numpy.__file__)) + os.sep


# numpy's own Python code, called by the user on a traced value (``np.linalg.inv(x)``,
# ``np.mean(x)``): an op it builds, or an error it meets, is located at the user's line
# that called numpy, not inside numpy
_LIBRARY_DIR = _numpy_dir()


def _is_internal(filename: str) -> bool:
    path = os.path.abspath(filename)
    return (path.startswith(_PACKAGE_DIR + os.sep) and path not in _USER_CODE) or \
        path.startswith(_LIBRARY_DIR)


def user_frame():
    """The innermost frame on the stack that is not inside the strata package (or numpy)."""
    frame = sys._getframe(1)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def position(frame):
    """``(file, line, col)`` of the instruction ``frame`` is executing (col is 1-based)."""
    line, col = frame.f_lineno, 1
    positions = list(frame.f_code.co_positions())
    index = frame.f_lasti // 2
    if 0 <= index < len(positions):
        start_line, _, start_col, _ = positions[index]
        if start_line is not None:
            line = start_line
        if start_col is not None:
            col = start_col + 1
    return frame.f_code.co_filename, line, col


@contextlib.contextmanager
def source_location(filename: str, line: int, col: int = 1):
    """Within this block, ops built through the frontend are located at ``filename:line:col``
    (an importer's source position) instead of at the calling Python line."""
    _SOURCE.append((filename, int(line), int(col)))
    try:
        yield
    finally:
        _SOURCE.pop()


def user_position() -> tuple | None:
    """``(file, line, col)`` of the user's line calling into strata now (None: unknown)."""
    if _SOURCE:
        return _SOURCE[-1]
    frame = user_frame()
    return None if frame is None else position(frame)


def location_text() -> str:
    if _SOURCE:
        filename, line, col = _SOURCE[-1]
        return f"{filename}:{line}:{col}"
    frame = user_frame()
    if frame is None:
        return "<unknown>"
    filename, line, col = position(frame)
    return f"{filename}:{line}:{col}"


def user_location() -> ir.Location:
    """An ``ir.Location`` for the user's line that is calling into strata now."""
    from mlir import ir

    if _SOURCE:
        return ir.Location.file(*_SOURCE[-1])
    frame = user_frame()
    if frame is None:
        return ir.Location.unknown()
    filename, line, col = position(frame)
    return ir.Location.file(filename, line, col)


def user_traceback(tb):
    """The traceback ``tb`` without strata's (and numpy's) own frames, for a located error
    raised to the user: the user's lines stay (the call, the traced function's line), the
    8-10 frames of tracing and compiling between them go. The innermost frame stays
    where every frame is internal. ``STRATA_TRACEBACK=full`` keeps them all."""
    if tb is None or settings.get("STRATA_TRACEBACK") == "full":
        return tb
    import types

    entries = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    kept = [e for e in entries if not _is_internal(e.tb_frame.f_code.co_filename)]
    if not kept:
        kept = entries[-1:]
    out = None
    for e in reversed(kept):
        out = types.TracebackType(out, e.tb_frame, e.tb_lasti, e.tb_lineno)
    return out
