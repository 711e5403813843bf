"""Applying transform-dialect scripts to a payload module from Python."""

from __future__ import annotations

from mlir import ir
from mlir.dialects.transform import interpreter

from ..diagnostics import capture_diagnostics

__all__ = ["apply_script", "script"]


def script(body: str) -> str:
    """Wraps ``body`` (ops on ``%root``) in a module with a ``__transform_main`` sequence."""
    return (
        "module attributes {transform.with_named_sequence} {\n"
        "  transform.named_sequence @__transform_main(%root: !transform.any_op "
        "{transform.readonly}) {\n" + body + "\n    transform.yield\n  }\n}\n"
    )


class ScriptError(Exception):
    """A transform script did not parse or did not apply; the text holds MLIR's diagnostics."""


def apply_script(payload: ir.Operation, text: str) -> None:
    """Parses the transform module ``text`` and applies its ``__transform_main`` to ``payload``.

    Raises ScriptError (with the transform's diagnostics) if the script fails: the
    interpreter reports some failures as ``ir.MLIRError`` and others as ValueError.
    """
    with payload.context, ir.Location.unknown():
        try:
            transform_module = ir.Module.parse(text)
        except ir.MLIRError as e:
            raise ScriptError(f"the transform script does not parse: {e}") from None
        main = None
        for op in transform_module.body.operations:
            if "sym_name" in op.attributes and \
                    ir.StringAttr(op.attributes["sym_name"]).value == "__transform_main":
                main = op
        if main is None:
            raise ValueError("transform script has no @__transform_main")
        # The interpreter runs a pass manager of its own: its diagnostics are ours to take
        # (see strata.diagnostics), and an error it emitted means the script failed.
        with capture_diagnostics(payload.context) as diags:
            try:
                interpreter.apply_named_sequence(payload, main, transform_module)
                failed = None
            except (ir.MLIRError, ValueError) as e:
                failed = str(e)
        errors = [d for d in diags if d.severity == "error"]
        if failed is not None or errors:
            raise ScriptError("\n".join([failed or ""] + [str(d) for d in errors]).strip())
