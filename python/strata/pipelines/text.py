"""Parsing and printing of MLIR's textual pass-pipeline syntax.

    builtin.module(strata-canonicalize, func.func(cse, canonicalize{max-iterations=4}))

parses into a tree of :class:`Element`; ``str(element)`` prints it back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Element", "PipelineSyntaxError", "parse_pipeline", "format_pipeline",
           "parse_options"]

_NAME = re.compile(r"[A-Za-z0-9_.\-]+")
MAX_DEPTH = 100  # nested anchors; the parser below recurses once per level


class PipelineSyntaxError(ValueError):
    """A malformed pipeline string; ``pos`` is the offset of the problem."""

    def __init__(self, message: str, text: str, pos: int):
        self.reason = message
        self.pos = pos
        super().__init__(f"{message}\n  {text}\n  {' ' * pos}^")


@dataclass
class Element:
    """One pipeline element: a pass (``name{options}``) or an op anchor (``name(children)``)."""

    name: str
    options: str = ""
    children: list[Element] | None = None
    pos: int = 0
    options_pos: int = 0  # offset of ``options`` in the pipeline text

    @property
    def is_anchor(self) -> bool:
        return self.children is not None

    def __str__(self) -> str:
        text = self.name
        if self.options:
            text += "{" + self.options + "}"
        if self.children is not None:
            text += "(" + format_pipeline(self.children) + ")"
        return text


def format_pipeline(elements: list[Element]) -> str:
    return ", ".join(str(e) for e in elements)


def parse_pipeline(text: str) -> list[Element]:
    """Parses a comma-separated list of elements (anchors or passes)."""
    elements, pos = _parse_list(text, 0, 0)
    if pos != len(text):
        raise PipelineSyntaxError(f"unexpected '{text[pos]}' in pass pipeline", text, pos)
    return elements


def _skip(text, pos):
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _parse_list(text, pos, level):
    elements = []
    pos = _skip(text, pos)
    if pos < len(text) and text[pos] == ")":
        return elements, pos
    while True:
        element, pos = _parse_element(text, pos, level)
        elements.append(element)
        pos = _skip(text, pos)
        if pos < len(text) and text[pos] == ",":
            pos = _skip(text, pos + 1)
            continue
        return elements, pos


def _parse_element(text, pos, level):
    pos = _skip(text, pos)
    m = _NAME.match(text, pos)
    if not m:
        raise PipelineSyntaxError("expected a pass or op name", text, pos)
    element = Element(m.group(0), pos=pos)
    pos = m.end()
    if pos < len(text) and text[pos] == "{":
        depth, start = 0, pos
        while pos < len(text):
            depth += {"{": 1, "}": -1}.get(text[pos], 0)
            pos += 1
            if depth == 0:
                break
        if depth:
            raise PipelineSyntaxError("unbalanced '{' in pass options", text, start)
        raw = text[start + 1:pos - 1]
        element.options = raw.strip()
        element.options_pos = start + 1 + len(raw) - len(raw.lstrip())
    pos = _skip(text, pos)
    if pos < len(text) and text[pos] == "(":
        if level >= MAX_DEPTH:
            raise PipelineSyntaxError(f"pass pipeline nested deeper than {MAX_DEPTH} levels",
                                      text, pos)
        children, pos = _parse_list(text, pos + 1, level + 1)
        if pos >= len(text) or text[pos] != ")":
            raise PipelineSyntaxError("expected ')' to close the nested pipeline", text, pos)
        element.children = children
        pos += 1
    return element, pos


def parse_options(text: str) -> dict[str, str]:
    """``"a=1 b=true c"`` -> ``{"a": "1", "b": "true", "c": "true"}`` (bare flags are true)."""
    out: dict[str, str] = {}
    pos = 0
    text = text.strip()
    while pos < len(text):
        pos = _skip(text, pos)
        m = re.compile(r"[A-Za-z0-9_\-]+").match(text, pos)
        if not m:
            raise PipelineSyntaxError("expected an option name", text, pos)
        key = m.group(0)
        pos = m.end()
        if pos < len(text) and text[pos] == "=":
            pos += 1
            start, depth = pos, 0
            while pos < len(text) and (depth or not text[pos].isspace()):
                depth += {"{": 1, "}": -1, "[": 1, "]": -1}.get(text[pos], 0)
                pos += 1
            value = text[start:pos]
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            out[key] = value
        else:
            out[key] = "true"
    return out
