"""The symbols a module defines at its top level, read without loading dialect modules."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the bindings are imported where they are used
    from mlir import ir

__all__ = ["top_level_symbols"]


def top_level_symbols(module: ir.Module) -> list[tuple[str, str]]:
    """``(op name, symbol name)`` of the module's top-level ops that have a symbol.

    Walks ``ir.Operation``s rather than iterating the body: the body's op views (and
    the results' types) make the bindings import the ops' dialect modules, and
    ``mlir.dialects.llvm`` alone takes ~0.1 s to import."""
    from mlir import ir

    found = []

    def visit(op):
        if op.name == "builtin.module":
            return ir.WalkResult.ADVANCE
        if "sym_name" in op.attributes:
            found.append((op.name, ir.StringAttr(op.attributes["sym_name"]).value))
        return ir.WalkResult.SKIP

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found
