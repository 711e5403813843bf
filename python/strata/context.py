"""MLIR contexts with the strata dialect loaded."""

from mlir import ir

__all__ = ["new_context", "ensure_dialect"]


def ensure_dialect(context: ir.Context) -> None:
    """Registers the strata ops in ``context`` if they are not there yet."""
    if not context.is_registered_operation("strata.add"):
        from .dialects.strata import load_dialect

        load_dialect(context)


def new_context() -> ir.Context:
    """A fresh context with every upstream dialect and the strata dialect."""
    context = ir.Context()
    ensure_dialect(context)
    return context
