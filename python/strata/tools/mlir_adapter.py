"""What strata-opt needs from MLIR that the pinned Python bindings (22.1.8) do not expose.

Everything strata-opt learns from MLIR's *text* rather than from an API is here,
in one place, each with the reason; the rest of the driver uses the bindings
(diagnostics through ``Context.attach_diagnostic_handler``, IR printing, timing
and statistics through the PassManager's ``enable_*``). When a binding appears,
its workaround goes.

- ``print_op_on_diagnostic``: mlir-opt turns MLIRContext's "see current
  operation" notes off under ``--verify-diagnostics``; the bindings have no
  setter, so the exported C++ method is called on the context's pointer.
- ``list_passes`` / ``pass_names`` / ``dialects``: the bindings do not expose
  MLIR's pass registry or the registered dialect names, so they come from
  ``mlir-opt --list-passes`` / ``--show-dialects`` of the same MLIR packages,
  run once when asked for (``--help``, ``--list-passes``, a misspelt flag).
- ``is_pass`` / ``restricted_to``: whether a flag names a registered pass, and
  the op a pass is restricted to (mlir-opt nests such a flag implicitly), from
  the message of ``PassManager.parse`` on a one-pass pipeline.
- ``select_dumps``: ``enable_ir_printing`` prints before/after *every* pass
  (no per-pass filter as ``--mlir-print-ir-before=<pass>`` wants); the dumps MLIR
  writes to stderr are filtered by their headers.
- ``Timing``: ``enable_timing`` prints the passes' report to stderr when the
  PassManager is destroyed, without mlir-opt's Parser and Output rows (its
  TimingManager is not exposed); the rows are read back and the report rebuilt.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import subprocess
import time

__all__ = ["print_op_on_diagnostic", "mlir_opt", "list_passes", "pass_names", "dialects",
           "PassEntry", "is_pass", "restricted_to", "select_dumps", "Timing", "split_timing",
           "DUMP_HEADER"]


# --------------------------------------------------------------------------- context flags

_PRINT_OP_ON_DIAGNOSTIC = "_ZN4mlir11MLIRContext19printOpOnDiagnosticEb"
_OP_NOTE = "see current operation: "


@functools.cache
def _print_op_setter():
    import ctypes

    import mlir._mlir_libs as libs

    path = os.path.join(os.path.dirname(libs.__file__), "libMLIRPythonCAPI.so")
    lib = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | ctypes.RTLD_GLOBAL)  # already loaded
    setter = getattr(lib, _PRINT_OP_ON_DIAGNOSTIC)
    setter.argtypes = [ctypes.c_void_p, ctypes.c_bool]
    setter.restype = None
    pointer = ctypes.pythonapi.PyCapsule_GetPointer
    pointer.restype = ctypes.c_void_p
    pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return lambda context, on: setter(pointer(context._CAPIPtr, b"mlir.ir.Context._CAPIPtr"), on)


def print_op_on_diagnostic(context, enabled: bool) -> bool:
    """MLIRContext::printOpOnDiagnostic; False if the method could not be reached (then
    :func:`without_op_notes` drops those notes instead)."""
    try:
        _print_op_setter()(context, enabled)
        return True
    except (OSError, AttributeError, ImportError):
        return False


def without_op_notes(diag):
    """``diag`` (a strata Diagnostic) without MLIR's "see current operation" notes."""
    diag.notes = [n for n in diag.notes if not n.message.startswith(_OP_NOTE)]
    return diag


# --------------------------------------------------------------------------- mlir-opt's lists

_PASS = re.compile(r"^  --(\S+)\s+-   (.*)$")


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


# --------------------------------------------------------------------------- pass lookup

_NOT_A_PASS = "does not refer to a registered pass"
_RESTRICTED = re.compile(r"restricted to '([^']+)' on a PassManager intended to run on")


@functools.cache
def _scratch_context():
    from mlir import ir

    return ir.Context()  # MLIR's pass registry is the same in every context


@functools.cache
def _parse_error(name: str) -> str | None:
    """MLIR's message for the pipeline ``builtin.module(<name>)`` (None: it parses)."""
    from mlir import passmanager

    try:
        passmanager.PassManager.parse(f"builtin.module({name})", context=_scratch_context())
    except ValueError as e:
        return str(e)
    return None


def is_pass(name: str) -> bool:
    """Whether ``name`` is an upstream pass (or pass pipeline) MLIR has registered."""
    error = _parse_error(name)
    return error is None or _NOT_A_PASS not in error


def restricted_to(name: str) -> str | None:
    """The op an upstream pass is restricted to, when it cannot run on a module."""
    error = _parse_error(name)
    m = _RESTRICTED.search(error) if error else None
    return m.group(1) if m else None


# --------------------------------------------------------------------------- IR dumps

DUMP_HEADER = re.compile(r"^// -----// IR Dump (Before|After) (.*) \((\S+)\)( \(.*\))? //----- //$")
_BAR = "===" + "-" * 73 + "==="


def select_dumps(text: str, before: set[str], after: set[str], *, before_all: bool,
                 after_all: bool, after_failure: bool, passthrough: str = "") -> str:
    """The IR dumps of ``text`` (MLIR printed them for every pass) that the flags ask for:
    before the passes in ``before``, after those in ``after``. Lines starting with
    ``passthrough`` (strata's own diagnostics, interleaved) are kept, the marker dropped."""
    out, keep = [], True
    for line in text.splitlines(keepends=True):
        if passthrough and line.startswith(passthrough):
            out.append(line[len(passthrough):])
            continue
        m = DUMP_HEADER.match(line.rstrip("\n"))
        if m:
            when, name, arg = m.group(1), m.group(2), m.group(3)
            if when == "Before":
                keep = before_all or arg in before
            elif name.endswith(" Failed"):
                keep = after_failure or arg in after or after_all
            else:
                keep = after_all or arg in after
        elif line.startswith(_BAR):
            keep = True
        if keep:
            out.append(line)
    return "".join(out)


# --------------------------------------------------------------------------- timing

_TIMING_TITLE = "... Execution time report ..."
_ROW = re.compile(r"^  (?:\s*([0-9.]+) \(\s*[0-9.]+%\)  )?\s*([0-9.]+) \(\s*[0-9.]+%\)  (.*)$")


def split_timing(text: str) -> tuple[str, str]:
    """``(everything else, MLIR's timing report)`` of captured stderr."""
    at = text.find(_BAR + "\n" + _TIMING_TITLE.center(79).rstrip())
    if at < 0:
        at = text.find(_TIMING_TITLE)
        at = text.rfind(_BAR, 0, at) if at >= 0 else -1
        if at >= 0:
            at = text.rfind(_BAR, 0, at)
    if at < 0:
        return text, ""
    return text[:at], text[at:]


class Timing:
    """mlir-opt's execution-time report: Parser, the passes (MLIR's own timers, read from
    the reports of each chunk's PassManager), Output, Rest."""

    def __init__(self):
        self.start = time.perf_counter()
        self.parser = 0.0
        self.output = 0.0
        self.rows: dict[str, list[float]] = {}  # indented name -> [user, wall]
        self.user_column = False

    def add_report(self, text: str) -> None:
        if "----User Time----" in text:
            self.user_column = True
        for line in text.splitlines():
            m = _ROW.match(line)
            if not m or m.group(3) in ("Rest", "Total"):
                continue
            wall = float(m.group(2))
            user = float(m.group(1)) if m.group(1) else wall
            row = self.rows.setdefault(m.group(3), [0.0, 0.0])
            row[0] += user
            row[1] += wall

    def report(self) -> str:
        total = time.perf_counter() - self.start
        top = [("Parser", self.parser, self.parser)]
        top += [(name, user, wall) for name, (user, wall) in self.rows.items()]
        top += [("Output", self.output, self.output)]
        counted = sum(wall for name, _, wall in top if not name.startswith(" "))
        counted_user = sum(user for name, user, _ in top if not name.startswith(" "))
        rest = max(total - counted, 0.0)
        total_user = counted_user + rest
        rows = top + [("Rest", rest, rest), ("Total", total_user, total)]
        lines = [_BAR, _TIMING_TITLE.center(79).rstrip(), _BAR,
                 f"  Total Execution Time: {total:.4f} seconds", ""]
        head = "  ----User Time----" if self.user_column else ""
        lines.append(head + "  ----Wall Time----  ----Name----")
        for name, user, wall in rows:
            cell = ""
            if self.user_column:
                cell = f"  {user:8.4f} ({100 * user / (total_user or 1e-12):5.1f}%)"
            cell += f"  {wall:8.4f} ({100 * wall / (total or 1e-12):5.1f}%)"
            lines.append(f"{cell}  {name}")
        return "\n".join(lines) + "\n"
