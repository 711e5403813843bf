"""``--verify-diagnostics``: MLIR's expected-* grammar and checks, as mlir-opt applies them.

    %0 = "strata.matmul"(%a, %b) : ...   // expected-error {{inner dimensions differ}}
    // expected-error @below {{axes [1, 1] repeat an axis}}
    %1 = "strata.sum"(%a) {axes = array<i64: 1, 1>} : ...

A designator is MLIR's (``SourceMgrDiagnosticVerifierHandler``): on one line,
``expected-<kind>[-re] [@<where>] {{<text>}}`` with nothing after the last
``}}`` but spaces; kind is error, warning, remark or note; spaces may stand
before ``@`` and before ``{{``. The text runs from the first ``{{`` to the last
``}}`` of the line, so a line holds one designator. ``@+N``/``@-N`` are
relative lines; ``@above`` is the last line above that is not a designator,
``@below`` the next line below that is not one (stacked designators share it);
``@unknown`` matches a diagnostic without a file location. Anything else
(``@12``, text after ``}}``) is not a designator, as in MLIR. With ``-re``, the
text is literal but for ``{{regex}}`` blocks (POSIX extended regexes; an invalid
one is reported, with POSIX's message, and its designator dropped).

One verifier spans the whole input, also with ``--split-input-file``, as in
mlir-opt: each diagnostic (and each of its notes) is checked when it is emitted
("unexpected error: ...", or "'error' diagnostic emitted when expecting a
'warning'" when only the kind differs); at the end every designator no
diagnostic matched is reported: ``expected error "..." was not produced``. A
designator may match several diagnostics; the first one on the line whose text
matches takes a diagnostic.

mlir-opt aborts on an unmet ``@unknown`` designator (an assertion in LLVM's
SourceMgr); strata-opt reports it at the designator instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import Diagnostic

__all__ = ["Expectation", "Problem", "Verifier", "parse_expectations"]

# MLIR's designator, matched against a line with trailing whitespace removed.
_DESIGNATOR = re.compile(
    r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *"
    r"\{\{(.*)\}\}$", re.S)
_LOC = re.compile(r"^(.*):(\d+):(\d+)$")

# POSIX regerror() texts (what LLVM's Regex reports) for Python's compile errors.
_POSIX_ERRORS = [
    ("unterminated character set", "brackets ([ ]) not balanced"),
    ("missing ), unterminated subpattern", "parentheses not balanced"),
    ("unbalanced parenthesis", "parentheses not balanced"),
    ("nothing to repeat", "repetition-operator operand invalid"),
    ("multiple repeat", "repetition-operator operand invalid"),
    ("bad character range", "invalid character range"),
    ("bad escape (end of pattern)", "trailing backslash (\\)"),
    ("min repeat greater than max repeat", "invalid repetition count(s)"),
    ("invalid group reference", "invalid backreference number"),
    ("unknown group name", "invalid backreference number"),
]
_CLASSES = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z",
            "lower": "a-z", "space": r" \t\n\r\f\v", "blank": r" \t", "xdigit": "0-9A-Fa-f",
            "punct": r"!-/:-@\[-`{-~", "print": r" -~", "graph": r"!-~",
            "cntrl": r"\x00-\x1f\x7f"}


def _posix_class(m: re.Match) -> str:
    return _CLASSES.get(m.group(1), m.group(0))


def _compile_block(block: str) -> str:
    """One ``{{regex}}`` block as a Python regex; raises ValueError with POSIX's message."""
    translated = re.sub(r"\[:([a-z]+):\]", _posix_class, block)
    try:
        re.compile(translated)
    except re.error as e:
        text = str(e.msg)
        for python, posix in _POSIX_ERRORS:
            if text.startswith(python):
                raise ValueError(f"invalid regex: {posix}") from None
        raise ValueError(f"invalid regex: {text}") from None
    return translated


def _compile(text: str) -> re.Pattern:
    """An expected-*-re text: literal, with ``{{regex}}`` blocks (each up to the next ``}}``)."""
    out, rest = "", text
    while rest:
        start = rest.find("{{")
        if start < 0:
            out += re.escape(rest)
            break
        out += re.escape(rest[:start])
        rest = rest[start + 2:]
        end = rest.find("}}")
        if end < 0:
            raise ValueError("found start of regex with no end '}}'")
        out += f"({_compile_block(rest[:end])})"
        rest = rest[end + 2:]
    return re.compile(out, re.S)


@dataclass
class Expectation:
    """One designator: its kind, the line it expects a diagnostic on (None: ``@unknown``),
    where it is written (line, column of ``expected-``) and its text."""

    kind: str
    line: int | None
    comment_line: int
    col: int
    text: str
    pattern: re.Pattern | None = None
    matched: bool = False

    def matches(self, message: str) -> bool:
        if self.pattern is not None:
            return self.pattern.search(message) is not None
        return self.text in message


@dataclass
class Problem:
    """A verification error: ``location`` (``file:line:col``), the message, and how many
    characters from there MLIR underlines (0: a caret only)."""

    location: str
    message: str
    width: int = 0


def _offset(digits: str) -> int:
    # LLVM's getAsInteger(0, ...): a leading 0 means octal
    if len(digits) > 1 and digits[0] == "0":
        try:
            return int(digits, 8)
        except ValueError:
            return 0
    return int(digits)


def parse_expectations(text: str, filename: str = "<stdin>"
                       ) -> tuple[list[Expectation], list[Problem]]:
    """The designators of ``text`` (a whole input file) and the problems of the invalid ones."""
    expected: list[Expectation] = []
    problems: list[Problem] = []
    lines = text.split("\n")
    last_plain = 0  # 0-based index of the last line without a designator
    pending: list[Expectation] = []  # @below designators waiting for their line
    for index, line in enumerate(lines):
        m = _DESIGNATOR.search(line.rstrip())
        if m is None:
            for e in pending:
                e.line = index + 1
            pending = []
            last_plain = index
            continue
        kind, regex, where, body = m.group(1), m.group(2), m.group(4), m.group(5)
        e = Expectation(kind, index + 1, index + 1, m.start() + 1, body)
        if regex:
            try:
                e.pattern = _compile(body)
            except ValueError as err:
                problems.append(Problem(f"{filename}:{index + 1}:{m.start() + 1}", str(err),
                                        len(body)))
                continue
        if where is None:
            pass
        elif where[0] in "+-":
            e.line += _offset(where[1:]) * (1 if where[0] == "+" else -1)
        elif where == "unknown":
            e.line = None
        elif where == "above":
            e.line = last_plain + 1
        else:  # below: the next line that is not a designator (the last line if none)
            e.line = len(lines)
            pending.append(e)
        expected.append(e)
    return expected, problems


class Verifier:
    """Checks the diagnostics of one input against its designators, as they come."""

    def __init__(self, text: str, filename: str):
        self.filename = filename
        self.expected, problems = parse_expectations(text, filename)
        self.initial = problems  # invalid designators: reported before anything else
        self.failed = bool(problems)

    def process(self, diag: Diagnostic) -> list[Problem]:
        """The problems with ``diag`` and its notes (each checked on its own, as MLIR does)."""
        out = []
        for d in [diag, *diag.notes]:
            problem = self._process_one(d)
            if problem is not None:
                out.append(problem)
        self.failed = self.failed or bool(out)
        return out

    def _process_one(self, d: Diagnostic) -> Problem | None:
        m = _LOC.match(d.location)
        if m is not None and m.group(1) != self.filename:
            candidates = []  # a diagnostic in another file: no designator can expect it
        elif m is not None:
            line = int(m.group(2))
            candidates = [e for e in self.expected if e.line == line]
        else:
            candidates = [e for e in self.expected if e.line is None]
        near = None
        for e in candidates:
            if e.matches(d.message):
                if e.kind == d.severity:
                    e.matched = True
                    return None
                near = e
        if near is not None:
            return Problem(f"{self.filename}:{near.comment_line}:{near.col}",
                           f"'{d.severity}' diagnostic emitted when expecting a '{near.kind}'")
        return Problem(d.location, f"unexpected {d.severity}: {d.message}")

    def finish(self) -> list[Problem]:
        """Every designator that no diagnostic matched (those of the file, then ``@unknown``)."""
        unmet = [e for e in self.expected if not e.matched and e.line is not None]
        unmet += [e for e in self.expected if not e.matched and e.line is None]
        out = [Problem(f"{self.filename}:{e.comment_line}:{e.col}",
                       f'expected {e.kind} "{e.text}" was not produced', len(e.text))
               for e in unmet]
        self.failed = self.failed or bool(out)
        return out
