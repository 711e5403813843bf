"""Applying transform-dialect scripts to a payload module from Python."""

from __future__ import annotations

from mlir import ir
from mlir.dialects.transform import interpreter

__all__ = ["apply_script", "script"]


def script(body: str) -> str:
    """Wraps ``body`` (ops on ``%root``) in a module with a ``__transform_main`` sequence."""
    return (
        "module attributes {transform.with_named_sequence} {\n"
        "  transform.named_sequence @__transform_main(%root: !transform.any_op "
        "{transform.readonly}) {\n" + body + "\n    transform.yield\n  }\n}\n"
    )


def apply_script(payload: ir.Operation, text: str) -> None:
    """Parses the transform module ``text`` and applies its ``__transform_main`` to ``payload``.

    Raises ``ir.MLIRError`` (with the transform's diagnostics) if the script fails.
    """
    with payload.context, ir.Location.unknown():
        transform_module = ir.Module.parse(text)
        main = None
        for op in transform_module.body.operations:
            if "sym_name" in op.attributes and \
                    ir.StringAttr(op.attributes["sym_name"]).value == "__transform_main":
                main = op
        if main is None:
            raise ValueError("transform script has no @__transform_main")
        interpreter.apply_named_sequence(payload, main, transform_module)
