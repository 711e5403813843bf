"""Parsing of .mlir text into a builtin.module, as mlir-opt does it.

Locations keep the file's own name and line numbers, also for a chunk of a
``--split-input-file`` input (the chunk is parsed at its original line offset).
Several top-level ops are wrapped in an implicit module; a single non-module op
is moved into one.

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
    check_nesting(padded, filename)
    _reject_known_aborts(padded, filename)
    with context:
        try:
            op = ir.Operation.parse(padded, source_name=filename)
        except ir.MLIRError as err:
            diags = parse_diagnostics(err, padded, filename)
            if not (len(diags) == 1 and "single top-level operation" in diags[0].message):
                raise StrataError(diagnostics=diags) from None
            wrapped = _wrap_in_module(padded)
            try:
                op = ir.Operation.parse(wrapped, source_name=filename)
            except ir.MLIRError as err2:
                raise StrataError(diagnostics=parse_diagnostics(err2, wrapped, filename)) from None
        return _owned_by_module(op.operation)


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


_ALIAS = re.compile(r"^\s*[#!][\w.$\-]+\s*=")


def _wrap_in_module(text: str) -> str:
    """``module { ... }`` around the top-level ops, keeping aliases outside and lines in place.

    ``module {`` goes at the end of the last alias definition (or on a blank line)
    before the first op, so no line moves; only if there is no such line does it
    precede the first line.
    """
    lines = text.split("\n")
    first_op = next((i for i, line in enumerate(lines)
                     if line.strip() and not line.strip().startswith("//")
                     and not _ALIAS.match(line)), len(lines))
    aliases = [i for i in range(first_op) if _ALIAS.match(lines[i])]
    blanks = [i for i in range(first_op) if not lines[i].strip()]
    if aliases:
        lines[aliases[-1]] += " module {"
    elif blanks:
        lines[blanks[-1]] = "module {"
    else:
        lines[0] = "module {" + lines[0]
    return "\n".join(lines) + "\n}"


def _owned_by_module(op: ir.Operation) -> ir.Operation:
    """Moves a parsed top-level op (or a parsed module's contents) into an ``ir.Module``.

    Passes such as the transform interpreter need the payload to be owned by an
    ``ir.Module``; a bare ``Operation.parse`` result corrupts memory there.
    """
    with ir.Location.unknown():
        module = ir.Module.create(loc=op.location)
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

