"""strata-verify: check every strata op against the dialect's shape and dtype rules."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from ..dialect.verifier import check_module, strata_diagnostics, verify_module
from .base import Pass

__all__ = ["VerifyPass", "check_module", "strata_diagnostics"]


@dataclass(frozen=True, eq=False, repr=False)
class VerifyPass(Pass):
    """Check strata ops against their shape and dtype rules (changes nothing).

    IRDL registration only checks that operands are tensors and that required
    attributes exist; this pass checks the rest: ranks, broadcastable shapes,
    matmul inner dims, axes, permutations, conv/pool windows, attribute kinds,
    and that each declared result type matches the inferred one.

        %0 = "strata.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
        // error: matmul: inner dimensions differ (8 vs 4)
    """

    name = "strata-verify"

    def run(self, module: ir.Operation) -> None:
        for op, msg in verify_module(module):
            self.error(op, msg)
