"""``--verify-diagnostics``: match produced diagnostics against expected-* comments.

    %0 = "strata.matmul"(%a, %b) : ...   // expected-error {{inner dimensions differ}}
    // expected-error@+1 {{axes [1, 1] repeat an axis}}
    %1 = "strata.sum"(%a) {axes = array<i64: 1, 1>} : ...

``@+N``/``@-N`` are relative lines, ``@N`` an absolute line, ``@above``/``@below``
the neighbouring lines. As in mlir-opt, ``expected-error-re {{a {{[0-9]+}} b}}``
matches ``a``, then the regex ``[0-9]+``, then ``b``; an invalid regex is
reported (``invalid regex: ...``) and that expectation dropped. Kinds: error,
warning, remark, note.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import Diagnostic

__all__ = ["Expectation", "parse_expectations", "check_diagnostics"]

_EXPECT = re.compile(
    r"expected-(error|warning|remark|note)(-re)?(?:@(above|below|[+-]?\d+))?\s*\{\{(.*?)\}\}")
# An expected-*-re message runs to the last '}}' of the line (it holds {{regex}} blocks).
_EXPECT_RE_BODY = re.compile(r"\s*\{\{(.*)\}\}")
_LOC = re.compile(r"^(.*):(\d+):(\d+)$")


@dataclass
class Expectation:
    kind: str
    line: int  # the line the diagnostic is expected on
    comment_line: int
    col: int
    text: str
    regex: bool
    matched: bool = False
    problem: str | None = None  # why this expectation cannot be checked
    pattern: re.Pattern | None = None

    def __post_init__(self):
        if self.regex and self.problem is None:
            try:
                self.pattern = _compile(self.text)
            except ValueError as e:
                self.problem = str(e)

    def matches(self, message: str) -> bool:
        if self.problem is not None:
            return False
        if self.regex:
            return self.pattern.search(message) is not None
        return self.text in message


def _compile(text: str) -> re.Pattern:
    """mlir-opt's expected-*-re: literal text with ``{{regex}}`` blocks."""
    out, rest = "", text
    while True:
        start = rest.find("{{")
        if start < 0:
            out += re.escape(rest)
            break
        out += re.escape(rest[:start])
        rest = rest[start + 2:]
        end = rest.find("}}")
        if end < 0:
            raise ValueError("found start of regex with no end '}}'")
        block = rest[:end]
        try:
            re.compile(block)
        except re.error as e:
            raise ValueError(f"invalid regex: {e}") from None
        out += f"({block})"
        rest = rest[end + 2:]
    return re.compile(out)


def parse_expectations(text: str, first_line: int = 1) -> list[Expectation]:
    out = []
    for i, line in enumerate(text.splitlines()):
        lineno = first_line + i
        for m in _EXPECT.finditer(line):
            kind, regex, where, body = m.groups()
            if regex:
                body = _EXPECT_RE_BODY.match(line, m.end(3) if where else m.end(2)).group(1)
            if where is None:
                target = lineno
            elif where == "above":
                target = lineno - 1
            elif where == "below":
                target = lineno + 1
            elif where[0] in "+-":
                target = lineno + int(where)
            else:
                target = int(where)
            out.append(Expectation(kind, target, lineno, m.start() + 1, body, bool(regex)))
    return out


def _line_of(diag: Diagnostic) -> int | None:
    m = _LOC.match(diag.location)
    return int(m.group(2)) if m else None


def check_diagnostics(produced: list[Diagnostic], expected: list[Expectation],
                      filename: str) -> list[str]:
    """Problems found, each an MLIR-style ``file:line:col: error: ...`` line."""
    problems = [f"{filename}:{e.comment_line}:{e.col}: error: {e.problem}"
                for e in expected if e.problem is not None]
    expected = [e for e in expected if e.problem is None]
    flat = []
    for d in produced:
        flat.append(d)
        flat += [n for n in d.notes if n.severity == "note"]
    for d in flat:
        line = _line_of(d)
        for e in expected:
            if not e.matched and e.kind == d.severity and e.line == line and e.matches(d.message):
                e.matched = True
                break
        else:
            if d.severity != "note":
                problems.append(f"{d.location}: error: unexpected {d.severity}: {d.message}")
    for e in expected:
        if not e.matched:
            problems.append(f'{filename}:{e.comment_line}:{e.col}: error: expected {e.kind} '
                            f'"{e.text}" was not produced')
    return problems
