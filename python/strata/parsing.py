"""Parsing of .mlir text into a builtin.module, as mlir-opt does it.

Locations keep the file's own name and line numbers, also for a chunk of a
``--split-input-file`` input (the chunk is parsed at its original line offset).
Several top-level ops are wrapped in an implicit module; a single non-module op
is moved into one.
"""

from __future__ import annotations

import re

from mlir import ir

from .context import ensure_dialect
from .errors import Diagnostic, StrataError

__all__ = ["parse_module", "parse_diagnostics"]


_CUSTOM_FORM = re.compile(r"(?<![\"\w.$@#!])strata\.[A-Za-z_][A-Za-z0-9_]*")


def _custom_form_diagnostic(text: str, filename: str) -> Diagnostic | None:
    """MLIR reports nothing when a strata op is written in a custom form; locate it here."""
    for lineno, line in enumerate(text.splitlines(), 1):
        code = line.split("//", 1)[0]
        for m in _CUSTOM_FORM.finditer(code):
            if code[:m.start()].count('"') % 2:  # inside a string
                continue
            name = m.group(0)
            return Diagnostic(f"{filename}:{lineno}:{m.start() + 1}",
                              f"'{name}' has no custom assembly form; write it in the generic "
                              f'form, e.g. "{name}"(%x) : (tensor<4xf32>) -> tensor<4xf32>')
    return None


def parse_diagnostics(err: ir.MLIRError, text: str | None = None,
                      filename: str = "<unknown>") -> list[Diagnostic]:
    diags = [Diagnostic.from_mlir(d) for d in err.error_diagnostics]
    if diags:
        return diags
    found = _custom_form_diagnostic(text, filename) if text is not None else None
    return [found or Diagnostic(filename, str(err))]


def parse_module(text: str, filename: str = "<stdin>", context: ir.Context | None = None,
                 first_line: int = 1) -> ir.Operation:
    """Parses ``text`` (whose first line is line ``first_line`` of ``filename``)."""
    context = context or ir.Context.current
    ensure_dialect(context)
    padded = "\n" * (first_line - 1) + text
    with context:
        try:
            op = ir.Operation.parse(padded, source_name=filename)
        except ir.MLIRError as err:
            diags = parse_diagnostics(err, padded, filename)
            if not (len(diags) == 1 and "single top-level operation" in diags[0].message):
                raise StrataError(diagnostics=diags) from None
            wrapped = "module {" + padded + "\n}"
            try:
                op = ir.Operation.parse(wrapped, source_name=filename)
            except ir.MLIRError as err2:
                raise StrataError(diagnostics=parse_diagnostics(err2, wrapped, filename)) from None
            return op.operation
        op = op.operation
        if op.name == "builtin.module":
            return op
        with ir.Location.unknown():
            module = ir.Module.create()
        module.body.append(op)
        return module.operation
