"""record_trace: a Python function traced into a Record (frontend/record.py), without MLIR.

    record_trace(lambda x, w: strata.relu(x @ w), x, w).digest()

It sits above the builders (frontend/ops.py, frontend/bitwise.py) because the
function it runs calls them through Tensor's operators.
"""

from __future__ import annotations

from . import bitwise, ops  # noqa: F401 - Tensor's operators call them (frontend/tensor.py)
from .record import Record, RecordingFunction
from .scopes import SCOPES, param_names, return_traced, spec_of

__all__ = ["record_trace"]


def record_trace(fn, *examples, name: str | None = None, scope: list | None = None) -> Record:
    """Runs ``fn`` over recording Tensor proxies shaped like ``examples`` (as ``trace``
    does, with the same errors) and returns its Record; MLIR is not imported."""
    names = param_names(fn, len(examples))
    specs = {n: spec_of(e, n) for n, e in zip(names, examples, strict=True)}
    f = RecordingFunction(name or getattr(fn, "__name__", "main").replace("<lambda>", "main"),
                          specs)
    if scope is not None:  # the caller keeps the recording function (its steps)
        scope.append(f)
    SCOPES.append(f)
    try:
        return_traced(f, fn(*f.args))
    finally:
        f.closed = True
        SCOPES.remove(f)
    return f.record
