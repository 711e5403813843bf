"""strata-unique-results: make every function result a distinct value before bufferization.

Bufferizing ``return %0, %0`` (and then turning results into out-params) breaks
one-shot bufferization; each repeated result gets its own copy instead:

    return %0, %0 : tensor<4xf32>, tensor<4xf32>
  =>
    %e = tensor.empty() : tensor<4xf32>
    %1 = linalg.copy ins(%0) outs(%e)
    return %0, %1
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from .base import Pass, collect_ops
from .linalg_ops import linalg
from .lowering.common import dims, empty

__all__ = ["UniqueResultsPass"]


@dataclass(frozen=True, eq=False, repr=False)
class UniqueResultsPass(Pass):
    """Give each repeated function result its own copy (bufferization needs distinct results)."""

    name = "strata-unique-results"

    def run(self, module: ir.Operation) -> None:
        for ret in collect_ops(module, lambda op: op.name == "func.return"):
            seen = []
            for i, value in enumerate(list(ret.operands)):
                if not isinstance(value.type, ir.RankedTensorType):
                    continue
                if any(value == v for v in seen):
                    with ir.InsertionPoint(ret), ret.location:
                        init = empty(dims(value), ir.RankedTensorType(value.type).element_type)
                        copy = linalg.copy(value, outs=[init])
                    ret.operands[i] = copy
                else:
                    seen.append(value)
