"""Parsing of .mlir text into a builtin.module, as mlir-opt does it.

Locations keep the file's own name, lines and columns, also for a chunk of a
``--split-input-file`` input (the chunk is parsed at its original offset).
Several top-level ops go into MLIR's implicit module, and a single non-module
op into one, located as mlir-opt locates it (``file:0:0``).

Nesting is limited to ``MAX_NESTING`` (1000) levels of brackets — ``(``, ``[``,
``{`` and ``<`` — counted outside strings and comments. MLIR's parser, verifier,
printer and passes recurse per level; measured on the default 8 MiB thread
stack, the parser overflows at about 3800 nested ``module {`` (5000 segfault
mlir-opt itself) and ``canonicalize`` at about 2600 nested regions (3 KiB a
level). Deeper input is rejected here with a located error before MLIR sees
it, so 1000 levels keep a margin of 2.5x on any thread with the default stack;
strata-opt also runs on a thread with a larger one (``strata.tools.opt.STACK_SIZE``).
"""

from __future__ import annotations

import re

from mlir import ir

from .context import ensure_dialect
from .errors import Diagnostic, StrataError

__all__ = ["parse_module", "parse_diagnostics", "check_nesting", "MAX_NESTING"]


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
    diags = [_renamed(Diagnostic.from_mlir(d), filename) for d in err.error_diagnostics]
    if diags:
        return diags
    found = _custom_form_diagnostic(text, filename) if text is not None else None
    return [found or Diagnostic(filename, str(err))]


def _renamed(d: Diagnostic, filename: str) -> Diagnostic:
    """A diagnostic of ``ir.Module.parse`` (whose buffer is named ``-``) in ``filename``."""
    if d.location.startswith("-:"):
        d.location = filename + d.location[1:]
    for note in d.notes:
        _renamed(note, filename)
    return d


def parse_module(text: str, filename: str = "<stdin>", context: ir.Context | None = None,
                 first_line: int = 1, first_col: int = 1) -> ir.Operation:
    """Parses ``text`` (which starts at ``first_line``:``first_col`` of ``filename``).

    As mlir-opt does: a single ``builtin.module`` is the module; other top-level
    ops go into an implicit module located at ``filename:0:0`` (a chunk of a
    split file: where the chunk starts).
    """
    context = context or ir.Context.current
    ensure_dialect(context)
    padded = "\n" * (first_line - 1) + " " * (first_col - 1) + text
    check_nesting(padded, filename)
    _reject_known_aborts(padded, filename)
    implicit_loc = (0, 0) if (first_line, first_col) == (1, 1) else (first_line, first_col)
    with context:
        try:
            op = ir.Operation.parse(padded, source_name=filename)
        except ir.MLIRError as err:
            diags = parse_diagnostics(err, padded, filename)
            if not (len(diags) == 1 and "single top-level operation" in diags[0].message):
                raise StrataError(diagnostics=diags) from None
            # Several top-level ops (or none): MLIR's own implicit module, as mlir-opt makes it.
            try:
                module = ir.Module.parse(padded)
            except ir.MLIRError as err2:
                raise StrataError(diagnostics=parse_diagnostics(err2, padded, filename)) from None
            _rename_buffer(module.operation, filename)
            module.operation.location = ir.Location.file(filename, *implicit_loc)
            return module.operation
        return _owned_by_module(op.operation, ir.Location.file(filename, *implicit_loc))


def _rename_buffer(root: ir.Operation, filename: str) -> None:
    """Locations in ``ir.Module.parse``'s buffer (named ``-``) moved to ``filename``."""

    def renamed(loc):
        if loc.is_a_file() and loc.filename == "-":
            return ir.Location.file(filename, loc.start_line, loc.start_col)
        return None

    def visit(op):
        new = renamed(op.location)
        if new is not None:
            op.location = new
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    new = renamed(arg.location)
                    if new is not None:
                        arg.set_location(new)
        return ir.WalkResult.ADVANCE

    root.walk(visit)


MAX_NESTING = 1000

# A string literal, a comment, or one bracket (`->`, `<=` and `>=` are not brackets).
_NESTING_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|[()\[\]{}]|<(?!=)|(?<!-)>(?!=)')
_OPENER = {")": "(", "]": "[", "}": "{", ">": "<"}


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def check_nesting(text: str, filename: str, limit: int | None = None) -> None:
    """Raises StrataError at the first bracket nested deeper than ``limit`` levels.

    A cheap scan of the text (strings and comments skipped) before MLIR's
    recursive-descent parser sees it, so that deep input is an error, not a
    stack overflow. A closer pops back to its own opener; a stray ``>`` is not
    a closer.
    """
    limit = MAX_NESTING if limit is None else limit
    stack: list[str] = []
    for m in _NESTING_TOKEN.finditer(text):
        token = m.group(0)
        if len(token) > 1:  # a string or a comment
            continue
        if token in "([{<":
            stack.append(token)
            if len(stack) > limit:
                line, col = _position(text, m.start())
                raise StrataError(
                    f"nesting deeper than {limit} levels of brackets; strata-opt rejects it "
                    "before MLIR's recursive parser would run out of stack",
                    location=f"{filename}:{line}:{col}")
        elif token == ">":
            if stack and stack[-1] == "<":
                stack.pop()
        elif _OPENER[token] in stack:
            while stack.pop() != _OPENER[token]:
                pass


# Inputs the MLIR 22 parser itself aborts the process on (an assertion), caught first.
_ABORTS = [(re.compile(r"array<\s*index\b"),
            "dense arrays of 'index' elements are not supported (use array<i64: ...>)")]


def _reject_known_aborts(text: str, filename: str) -> None:
    for pattern, message in _ABORTS:
        m = pattern.search(text)
        if m:
            line = text.count("\n", 0, m.start()) + 1
            col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
            raise StrataError(message, location=f"{filename}:{line}:{col}")


def _owned_by_module(op: ir.Operation, implicit: ir.Location) -> ir.Operation:
    """Moves a parsed top-level op (or a parsed module's contents) into an ``ir.Module``.

    Passes such as the transform interpreter need the payload to be owned by an
    ``ir.Module``; a bare ``Operation.parse`` result corrupts memory there. A
    single op other than a module goes into an implicit one, at ``implicit``.
    """
    with ir.Location.unknown():
        module = ir.Module.create(loc=op.location if op.name == "builtin.module" else implicit)
    if op.name != "builtin.module":
        module.body.append(op)
        return module.operation
    # Iterating an op's attributes gives their names in MLIR 22's bindings (NamedAttributes before).
    for name in [a if isinstance(a, str) else a.name for a in op.attributes]:
        module.operation.attributes[name] = op.attributes[name]
    for inner in list(op.regions[0].blocks[0].operations):
        inner.operation.detach_from_parent()
        module.body.append(inner.operation)
    return module.operation

