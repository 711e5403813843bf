"""strata's error type and the MLIR-style rendering of diagnostics."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["StrataError", "StrataMemoryError", "Diagnostic", "format_location"]


def format_location(loc) -> str:
    """Renders an ``ir.Location`` as ``file:line:col`` (or best effort for other kinds)."""
    if loc is None:
        return "<unknown>"
    try:
        if loc.is_a_file():
            return f"{loc.filename}:{loc.start_line}:{loc.start_col}"
        if loc.is_a_name():
            return format_location(loc.child_loc)
        if loc.is_a_callsite():
            return format_location(loc.callee)
        if loc.is_a_fused():
            for child in loc.locations:
                text = format_location(child)
                if text != "<unknown>":
                    return text
    except Exception:  # pragma: no cover - exotic location kinds
        pass
    text = str(loc)
    return "<unknown>" if text == "loc(unknown)" else text


@dataclass
class Diagnostic:
    """One located message: ``file:line:col: error: message``."""

    location: str
    message: str
    severity: str = "error"
    notes: list[Diagnostic] = field(default_factory=list)

    def __str__(self) -> str:
        text = f"{self.location}: {self.severity}: {self.message}"
        for note in self.notes:
            text += "\n" + str(note)
        return text

    @classmethod
    def from_mlir(cls, diag) -> Diagnostic:
        severity = str(diag.severity).rsplit(".", 1)[-1].lower()
        severity = {"remark": "remark", "warning": "warning", "note": "note"}.get(severity, "error")
        return cls(
            format_location(diag.location),
            diag.message,
            severity,
            [cls.from_mlir(n) for n in diag.notes],
        )


class StrataError(Exception):
    """A user-facing error: one or more located diagnostics.

    ``str(err)`` is the diagnostics in MLIR's ``file:line:col: error: msg`` form.
    """

    def __init__(self, message: str | None = None, *, location: str = "<unknown>",
                 diagnostics: list[Diagnostic] | None = None, hint: str | None = None):
        self.diagnostics = diagnostics or [Diagnostic(location, message or "")]
        self.hint = hint
        super().__init__(self._render())

    def _render(self) -> str:
        text = "\n".join(str(d) for d in self.diagnostics)
        if self.hint:
            text += "\n" + self.hint
        return text

    @property
    def message(self) -> str:
        return self.diagnostics[0].message

    @property
    def location(self) -> str:
        return self.diagnostics[0].location

    @classmethod
    def from_mlir_error(cls, err, hint: str | None = None) -> StrataError:
        diags = [Diagnostic.from_mlir(d) for d in getattr(err, "error_diagnostics", [])]
        if not diags:
            diags = [Diagnostic("<unknown>", str(err).strip())]
        return cls(diagnostics=diags, hint=hint)


class StrataMemoryError(StrataError, MemoryError):
    """A compiled function needs a buffer larger than this process can allocate."""
