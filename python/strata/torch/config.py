"""``strata.torch.config``: what the ``strata`` backend does with a part it leaves to eager.

    strata.torch.config.strict = True      # or STRATA_TORCH_STRICT=1 in the environment

The backend runs in eager PyTorch whatever strata cannot run (an op with no strata op)
or fails to compile (any exception while importing, lowering or building a subgraph), and
says so with one ``StrataPerformanceWarning`` per graph. ``strict`` makes any such fallback
an error instead, for CI: the compiled model raises a ``StrataError`` naming the op, its
source line and the cause when called.

``strict``: True or False decide; None (the default) leaves it to the environment variable
``STRATA_TORCH_STRICT`` (``1``, ``true``, ``yes`` or ``on``: strict). It is read when
Dynamo hands the backend a graph (a model already compiled keeps its behaviour; call
``torch._dynamo.reset()`` to recompile). ``torch.compile(..., options={"strict": True})``
sets it for one model.

This module does not import torch.
"""

from __future__ import annotations

from .. import settings

__all__ = ["strict", "is_strict"]

strict: bool | None = None


def is_strict() -> bool:
    """Whether a fallback to eager PyTorch is an error: ``strict``, else the environment."""
    if strict is not None:
        return bool(strict)
    return settings.get("STRATA_TORCH_STRICT")
