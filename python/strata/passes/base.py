"""The base of strata's Python passes: typed options, located diagnostics, failure.

A pass is a frozen dataclass whose fields are its options, declared once with
:func:`option` (type = the field's annotation, range, help text) and checked
when the pass is built, from a pipeline's text (``from_options``) or from
Python alike. ``run(module)`` gets the ``builtin.module`` and visits the
functions it works on; it reports with ``error``/``remark`` and stops with
``fail``. The pipelines package (above this one) adds passes to MLIR's own
PassManager; a pass knows nothing of pipelines, tools or the runtime.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import math
import re
import typing
from typing import ClassVar

from mlir import ir

from ..errors import Diagnostic, format_location

__all__ = ["Pass", "PassPipeline", "Options", "PassFailure", "OptionError", "OptionSyntaxError", "Option",
           "option", "threads_option", "option_help", "check_threads", "parse_options",
           "collect_ops", "drop_attributes", "in_loop"]

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
MAX_THREADS = 1024


class PassFailure(Exception):
    """A pass reported errors; ``diagnostics`` says where and why.

    ``locations`` holds the ``ir.Location`` of each diagnostic (or None), so that
    the pass manager can emit the errors through MLIR's diagnostic engine.
    """

    def __init__(self, diagnostics: list[Diagnostic], locations=None):
        self.diagnostics = diagnostics
        self.locations = list(locations) if locations is not None else [None] * len(diagnostics)
        super().__init__("\n".join(str(d) for d in diagnostics))


class OptionError(ValueError):
    """A bad pass option: unknown name, a value of the wrong type or out of its range."""


class OptionSyntaxError(OptionError):
    """Malformed option text (``{=3}``); ``reason`` says what, ``pos`` is its offset in the text."""

    def __init__(self, reason: str, text: str, pos: int):
        self.reason = reason
        self.text = text
        self.pos = pos
        super().__init__(reason)


@dataclasses.dataclass(frozen=True)
class Option:
    """What values one pass option takes, beyond its type (the field's annotation).

    ``help`` is its one-line description (``--list-passes``); ``min``/``max``
    bound a number (an int is always within int64); ``choices`` lists the values
    of a string option (``noun`` names one in messages: ``unknown level 'x'
    (levels: ...)``); ``pattern`` is a regex a string value must match in full,
    ``form`` what that looks like to a user.
    """

    min: int | float | None = None
    max: int | float | None = None
    choices: tuple[str, ...] = ()
    pattern: str | None = None
    form: str = ""
    noun: str = ""
    help: str = ""

    def describe(self) -> str:
        """The constraint as ``--list-passes`` shows it ("" when there is none)."""
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.min is not None and self.max is not None:
            return f"{self.min} to {self.max}"
        if self.min is not None:
            return f"at least {self.min}"
        if self.max is not None:
            return f"at most {self.max}"
        return f"like {self.form}" if self.form else ""


def option(default, *, help="", min=None, max=None, choices=(), pattern=None, form="",  # noqa: A002
           noun=""):
    """Declares a pass option field: ``max_iterations: int = option(10, min=1, help=...)``.

    The type is the field's annotation (bool, int, float or str); every strata
    pass declares its options this way and :meth:`Options.__post_init__` checks
    them all, when a pipeline is built, with one set of messages.
    """
    spec = Option(min, max, tuple(choices), pattern, form, noun, help)
    return dataclasses.field(default=default, metadata={"option": spec})


def threads_option():
    """The ``threads`` option of every pass that has one: 1 (sequential) to MAX_THREADS."""
    return option(1, min=1, max=MAX_THREADS,
                  help="Threads the compiled code may use for large ops (1: sequential)")


def _field_type(cls, f):
    return _type_hints(cls).get(f.name, str)


@functools.cache
def _type_hints(cls) -> dict:
    """A pass class's resolved annotations (resolving them each time a pass is built took
    ~0.1 s of a cold compile)."""
    return typing.get_type_hints(cls)


def _spec(typ, f) -> Option:
    spec = f.metadata.get("option", Option())
    if isinstance(typ, type) and issubclass(typ, enum.Enum) and not spec.choices:
        spec = dataclasses.replace(spec, choices=tuple(m.value for m in typ))
    return spec


_INT = re.compile(r"[+-]?[0-9]+")
_TRUE, _FALSE = ("true", "1", "on", "yes"), ("false", "0", "off", "no")
_OPTION_NAME = re.compile(r"[A-Za-z0-9_\-]+")


def parse_options(text: str) -> dict[str, str]:
    """``"a=1 b=true c"`` -> ``{"a": "1", "b": "true", "c": "true"}`` (bare flags are true).

    The syntax of MLIR's pass options: space-separated ``key=value`` (a value
    may be quoted or hold ``{...}``/``[...]``). Raises OptionSyntaxError.
    """
    out: dict[str, str] = {}
    pos = 0
    text = text.strip()
    while pos < len(text):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        m = _OPTION_NAME.match(text, pos)
        if not m:
            raise OptionSyntaxError("expected an option name", text, pos)
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


def _convert(pass_name, option, typ, text):
    """The typed value of option text (the range is checked by check_option)."""
    if typ is bool:
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise OptionError(f"{pass_name}: option '{option}' expects true or false, got '{text}'")
    if typ is int:
        if not _INT.fullmatch(text):
            raise OptionError(f"{pass_name}: option '{option}' expects an integer, got '{text}'")
        return int(text)
    if typ is float:
        try:
            return float(text)
        except ValueError:
            raise OptionError(f"{pass_name}: option '{option}' expects a number, "
                              f"got '{text}'") from None
    if isinstance(typ, type) and issubclass(typ, enum.Enum):
        for member in typ:
            if member.value == text:
                return member
        return text  # check_option reports it with the allowed values
    return text


def check_option(pass_name: str, option: str, typ, spec: Option, value) -> None:
    """Raises OptionError unless ``value`` is of ``typ`` and within ``spec``."""
    where = f"{pass_name}: option '{option}'"
    if typ is bool:
        if not isinstance(value, bool):
            raise OptionError(f"{where} expects true or false, got '{value}'")
        return
    if typ in (int, float):
        if typ is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise OptionError(f"{where} expects an integer, got '{value}'")
        if typ is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise OptionError(f"{where} expects a number, got '{value}'")
            if not math.isfinite(value):
                raise OptionError(f"{where} expects a finite number, got '{value}'")
        lo = spec.min if spec.min is not None else (INT64_MIN if typ is int else None)
        hi = spec.max if spec.max is not None else (INT64_MAX if typ is int else None)
        if lo is not None and value < lo:
            raise OptionError(f"{where} must be at least {lo}, got {value}")
        if hi is not None and value > hi:
            raise OptionError(f"{where} must be at most {hi}, got {value}")
        return
    text = value.value if isinstance(value, enum.Enum) else value
    if not isinstance(text, str):
        raise OptionError(f"{where} expects a string, got '{value}'")
    if spec.choices and text not in spec.choices:
        noun = spec.noun or option
        raise OptionError(f"{pass_name}: unknown {noun} '{text}' ({noun}s: "
                          f"{', '.join(spec.choices)})")
    if spec.pattern is not None and not re.fullmatch(spec.pattern, text):
        raise OptionError(f"{where} must look like {spec.form or spec.pattern}, got '{text}'")


def check_threads(pass_name: str, threads: int) -> None:
    """The ``threads`` option's check, for code outside a pass (same message as a pass's)."""
    check_option(pass_name, "threads", int, _spec(int, threads_option()), threads)


def option_help(cls) -> list[tuple[str, str, str, str, str]]:
    """``(flag, type, default, constraint, help)`` for each option of a pass class."""
    out = []
    for f in dataclasses.fields(cls):
        typ = _field_type(cls, f)
        default = f.default.value if isinstance(f.default, enum.Enum) else f.default
        if isinstance(default, bool):
            default = str(default).lower()
        spec = _spec(typ, f)
        out.append((f.name.replace("_", "-"), getattr(typ, "__name__", str(typ)), str(default),
                    spec.describe(), spec.help))
    return out


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class Options:
    """Something named by a flag, configured by typed options: a pass or a named pipeline.

    Subclasses are frozen dataclasses whose fields are the options; ``name`` is
    the flag; the first docstring line is what ``--list-passes`` shows. They are
    declared with ``eq=False, repr=False`` and share the comparison, hash and repr
    below: generating those three for each of ~40 classes took ~15 ms of every
    process that imports the pipelines (a cold compile, each strata-opt run).
    """

    name: ClassVar[str] = ""

    def _values(self) -> tuple:
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self))

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self):
        return hash((self.__class__, self._values()))

    def __repr__(self) -> str:
        return (f"{type(self).__qualname__}(" +
                ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self))
                + ")")

    @classmethod
    def summary(cls) -> str:
        return (cls.__doc__ or "").strip().splitlines()[0]

    @classmethod
    def display_name(cls) -> str:
        """The name MLIR shows in IR dumps and timing: ``strata-fuse`` -> ``StrataFuse``."""
        return "".join(part.capitalize() for part in cls.name.split("-"))

    def __post_init__(self):
        """Checks every option against its declaration (see :func:`option`)."""
        cls = type(self)
        for f in dataclasses.fields(cls):
            typ = _field_type(cls, f)
            check_option(cls.name, f.name.replace("_", "-"), typ, _spec(typ, f),
                         getattr(self, f.name))

    @classmethod
    def from_options(cls, text: str = ""):
        """Builds the pass from a ``key=value key2=value2`` option string.

        Raises OptionError for an unknown option or a bad value, and
        OptionSyntaxError (with the offset in ``text``) for malformed text.
        """
        values = parse_options(text) if text else {}
        fields = {f.name.replace("_", "-"): f for f in dataclasses.fields(cls)}
        kwargs = {}
        for key, value in values.items():
            f = fields.get(key)
            if f is None:
                known = ", ".join(fields) or "none"
                raise OptionError(f"{cls.name}: unknown option '{key}' (options: {known})")
            kwargs[f.name] = _convert(cls.name, key, _field_type(cls, f), value)
        return cls(**kwargs)

    def options_text(self) -> str:
        parts = []
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            v = v.value if isinstance(v, enum.Enum) else v
            parts.append(f"{f.name.replace('_', '-')}={str(v).lower() if isinstance(v, bool) else v}")
        return " ".join(parts)

    def __str__(self) -> str:
        opts = self.options_text()
        return f"{self.name}{{{opts}}}" if opts else self.name


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class Pass(Options):
    """A strata pass: ``run(module)`` on the ``builtin.module`` it is given."""

    # Subclasses implement run(); it reports problems with error()/remark().
    def run(self, module: ir.Operation) -> None:
        raise NotImplementedError

    def apply(self, module: ir.Operation) -> list[Diagnostic]:
        """Runs the pass; raises PassFailure if it reported errors. Returns its remarks."""
        object.__setattr__(self, "_diags", [])
        object.__setattr__(self, "_locs", [])
        self.run(module)
        diags = self._diags
        if any(d.severity == "error" for d in diags):
            raise PassFailure(diags, self._locs)
        return diags

    def _report(self, location, message: str, severity: str) -> None:
        self._diags.append(Diagnostic(format_location(location), message, severity))
        self._locs.append(location)

    def error(self, op, message: str) -> None:
        self._report(op.location, message, "error")

    def remark(self, op, message: str) -> None:
        self._report(op.location, message, "remark")

    def fail_at(self, location, message: str):
        """Reports an error at ``location`` and stops the pass."""
        self._report(location, message, "error")
        raise PassFailure(self._diags, self._locs)

    def fail(self, op, message: str):
        """Reports an error and stops the pass."""
        self.fail_at(op.location, message)


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class PassPipeline(Options):
    """A flag that stands for a sequence of passes (``strata-bufferize``, ``strata-cpu``).

    ``build(p)`` adds them, in order, to ``p``: anything with ``add(item)`` taking
    a strata pass, another PassPipeline or upstream passes as MLIR pipeline text
    (``strata.pipelines.Pipeline``).
    """

    def build(self, p) -> None:
        raise NotImplementedError


def drop_attributes(root: ir.Operation, names) -> None:
    """Removes the (marker) attributes ``names`` from every op nested in ``root``."""
    names = list(names)
    for op in collect_ops(root, lambda o: any(n in o.attributes for n in names)):
        for name in names:
            if name in op.attributes:
                del op.attributes[name]


def collect_ops(root: ir.Operation, predicate) -> list[ir.Operation]:
    """Every op nested in ``root`` (pre-order) for which ``predicate(op)`` holds."""
    found = []

    def visit(op):
        if predicate(op):
            found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return found


def in_loop(op) -> bool:
    """Whether ``op`` is inside an scf loop of its function (a tile of a fused kernel or of
    strata-fuse's output tiles)."""
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name in ("scf.for", "scf.forall", "scf.parallel"):
            return True
        parent = parent.parent
    return False


def zero_filled(value) -> bool:
    """Whether ``value`` is the result of a ``linalg.fill`` of the float constant 0 (a
    contraction's fresh accumulator)."""
    fill = value.owner
    if getattr(fill, "name", None) != "linalg.fill":
        return False
    scalar = fill.operands[0].owner
    if getattr(scalar, "name", None) != "arith.constant":
        return False
    attr = scalar.attributes["value"]
    return isinstance(attr, ir.FloatAttr) and ir.FloatAttr(attr).value == 0.0
