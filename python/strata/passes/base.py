"""The base of strata's Python passes: typed options, located diagnostics, failure."""

from __future__ import annotations

import dataclasses
import enum
import typing
from typing import ClassVar

from mlir import ir

from ..errors import Diagnostic, StrataError, format_location
from ..pipelines.text import parse_options

__all__ = ["Pass", "PassFailure", "OptionError", "option_help", "check_threads"]


class PassFailure(Exception):
    """A pass reported errors; ``diagnostics`` says where and why."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = diagnostics
        super().__init__("\n".join(str(d) for d in diagnostics))


class OptionError(ValueError):
    """A bad pass option: unknown name or a value of the wrong type."""


def _field_type(cls, f):
    hints = typing.get_type_hints(cls)
    return hints.get(f.name, str)


def _convert(pass_name, option, typ, text):
    try:
        if typ is bool:  # noqa: SIM114
            if text.lower() in ("true", "1", "on", "yes"):
                return True
            if text.lower() in ("false", "0", "off", "no"):
                return False
            raise ValueError
        if isinstance(typ, type) and issubclass(typ, enum.Enum):
            return typ(text)
        return typ(text)
    except ValueError:
        if isinstance(typ, type) and issubclass(typ, enum.Enum):
            allowed = ", ".join(m.value for m in typ)
            raise OptionError(f"{pass_name}: option '{option}' must be one of {allowed}, got "
                              f"'{text}'") from None
        noun = {"int": "an integer", "float": "a number", "str": "a string"}.get(
            getattr(typ, "__name__", ""), str(typ))
        raise OptionError(f"{pass_name}: option '{option}' expects {noun}, got '{text}'") from None


def check_threads(pass_name: str, threads: int) -> None:
    """The ``threads`` option: a positive integer (1 = sequential code)."""
    if threads < 1:
        raise OptionError(f"{pass_name}: option 'threads' must be at least 1, got {threads}")


def option_help(cls) -> list[tuple[str, str, str]]:
    """``(flag, type, default)`` for each option of a pass class."""
    out = []
    for f in dataclasses.fields(cls):
        typ = _field_type(cls, f)
        default = f.default.value if isinstance(f.default, enum.Enum) else f.default
        if isinstance(default, bool):
            default = str(default).lower()
        out.append((f.name.replace("_", "-"), getattr(typ, "__name__", str(typ)), str(default)))
    return out


@dataclasses.dataclass(frozen=True)
class Pass:
    """A strata pass. Subclasses are frozen dataclasses whose fields are the options.

    ``name`` is the pass flag; the first docstring line is what ``--list-passes`` shows.
    """

    name: ClassVar[str] = ""

    @classmethod
    def summary(cls) -> str:
        return (cls.__doc__ or "").strip().splitlines()[0]

    @classmethod
    def from_options(cls, text: str = ""):
        """Builds the pass from a ``key=value key2=value2`` option string."""
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

    # Subclasses implement run(); it reports problems with error()/remark().
    def run(self, module: ir.Operation) -> None:
        raise NotImplementedError

    def apply(self, module: ir.Operation) -> list[Diagnostic]:
        """Runs the pass; raises PassFailure if it reported errors. Returns its remarks."""
        object.__setattr__(self, "_diags", [])
        self.run(module)
        diags = self._diags
        errors = [d for d in diags if d.severity == "error"]
        if errors:
            raise PassFailure(diags)
        return diags

    def error(self, op, message: str) -> None:
        self._diags.append(Diagnostic(format_location(op.location), message, "error"))

    def remark(self, op, message: str) -> None:
        self._diags.append(Diagnostic(format_location(op.location), message, "remark"))

    def fail_at(self, location, message: str):
        """Reports an error at ``location`` and stops the pass."""
        self._diags.append(Diagnostic(format_location(location), message, "error"))
        raise PassFailure(self._diags)

    def fail(self, op, message: str):
        """Reports an error and stops the pass."""
        self.error(op, message)
        raise PassFailure(self._diags)


def raise_user_error(diagnostics: list[Diagnostic]):
    raise StrataError(diagnostics=diagnostics)


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
