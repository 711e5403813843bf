"""Running MLIR pass managers safely: every diagnostic captured, none left to the bindings.

The bindings capture the errors emitted while ``PassManager.run`` (or the
transform interpreter) runs and *assert* that a call which succeeded left none
("unhandled captured errors"), aborting the process. An upstream pass may emit
an error and still succeed (mlir-opt prints it and carries on), so every run in
strata goes through :func:`capture_diagnostics`: our own handler takes every
diagnostic, in order, and the bindings' capture never sees one.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile

from mlir import ir, passmanager

from .errors import Diagnostic

__all__ = ["capture_diagnostics", "run_pass_manager", "captured_stderr"]


@contextlib.contextmanager
def capture_diagnostics(context: ir.Context, on_diagnostic=None):
    """Collects, in order, every diagnostic emitted in ``context`` while inside.

    ``on_diagnostic`` (if given) is also called with each one as it comes.
    """
    diags: list[Diagnostic] = []

    def handler(d):
        diag = Diagnostic.from_mlir(d)
        diags.append(diag)
        if on_diagnostic is not None:
            on_diagnostic(diag)
        return True

    previous = context.emit_error_diagnostics
    context.emit_error_diagnostics = True
    handle = context.attach_diagnostic_handler(handler)
    try:
        yield diags
    finally:
        handle.detach()
        context.emit_error_diagnostics = previous


def run_pass_manager(pm: passmanager.PassManager,
                     op: ir.Operation) -> tuple[bool, list[Diagnostic]]:
    """Runs ``pm`` on ``op``: ``(succeeded, diagnostics)``; never aborts, never raises MLIRError.

    A successful run may still have emitted errors (see the module docstring).
    """
    with capture_diagnostics(op.context) as diags:
        try:
            pm.run(op)
        except ir.MLIRError:
            return False, diags
    return True, diags


class _Captured:
    text = ""


@contextlib.contextmanager
def captured_stderr(on_file=None):
    """What is written to file descriptor 2 while inside (``.text`` once out).

    MLIR and LLVM write IR dumps, timing and statistics reports and option
    errors straight to the process's stderr (``llvm::errs()``), not through
    Python; this is how strata-opt gets them in order and can reshape them.
    ``on_file`` (if given) is told the path of the file that collects them,
    which is left behind if the process dies inside.
    """
    captured = _Captured()
    sys.stderr.flush()
    with (tempfile.TemporaryFile() if on_file is None
          else tempfile.NamedTemporaryFile(prefix="strata-stderr-")) as tmp:
        if on_file is not None:
            on_file(tmp.name)
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            yield captured
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            captured.text = tmp.read().decode("utf-8", errors="replace")
