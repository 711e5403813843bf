"""StrataPerformanceWarning: strata kept going a slower way, and says so.

Raised as a warning (never an error) by the jit past ``max_recompiles``
(runtime/jit.py), by the thread runtime's fallback (runtime/openmp.py) and by
the torch backend for ops it leaves to PyTorch (torch/backend.py).
"""

from __future__ import annotations

__all__ = ["StrataPerformanceWarning"]


class StrataPerformanceWarning(UserWarning):
    """strata chose a slower way to keep going (e.g. dynamic dims past max_recompiles)."""
