"""strata-check-level: the contract check that ends each level of the pipeline.

Fails, at the first offending op, if the IR holds an op from a dialect the level
does not allow, or (from ``bufferized`` on) any value of tensor type:

    strata-check-level{level=linalg} on
      %0 = "strata.add"(%a, %b) ...
    error: level 'linalg' allows only linalg, tensor, arith, math ops; found 'strata.add'
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from .base import Pass, option

__all__ = ["CheckLevelPass", "LEVEL_NAMES", "ALLOWED"]

# The levels of the CPU pipeline, in order (strata.pipelines.levels says what runs to reach
# each), and the dialects whose ops each may hold (builtin.module and func are always allowed).
LEVEL_NAMES = ["strata", "linalg", "fused", "layout", "bufferized", "llvm"]
ALLOWED = {
    "strata": {"strata"},
    "linalg": {"linalg", "tensor", "arith", "math", "scf"},  # scf: strata-row-blocks
    "fused": {"linalg", "tensor", "arith", "math", "scf", "affine", "vector"},  # row kernels
    "layout": {"linalg", "tensor", "arith", "math", "scf", "affine", "vector"},
    "bufferized": {"memref", "linalg", "arith", "math", "scf", "vector", "affine", "cf", "ub"},
    "llvm": {"llvm", "omp"},  # omp: parallel loops on LLVM's OpenMP runtime
}

_ALWAYS = {"builtin.module", "func.func", "func.return", "func.call", "builtin.unrealized_conversion_cast"}


def _is_tensor(t) -> bool:
    return isinstance(t, (ir.RankedTensorType, ir.UnrankedTensorType))


@dataclass(frozen=True, eq=False, repr=False)
class CheckLevelPass(Pass):
    """Check that only the ops a pipeline level allows remain (a level's contract)."""

    name = "strata-check-level"
    level: str = option("strata", choices=LEVEL_NAMES, noun="level",
                        help="The level whose contract the IR must meet")

    def run(self, module: ir.Operation) -> None:
        allowed = ALLOWED[self.level]
        # At the llvm level the dialect check implies it (LLVM ops take no tensors), and
        # reading an llvm op's types would import mlir.dialects.llvm (~0.1 s) for nothing.
        no_tensors = self.level == "bufferized"
        always = set(_ALWAYS)
        if self.level == "llvm":
            always = {"builtin.module"}
        problems = []

        def visit(op):
            if problems:
                return ir.WalkResult.INTERRUPT
            name = op.name
            if name not in always and name.split(".", 1)[0] not in allowed:
                problems.append((op, f"level '{self.level}' allows only "
                                     f"{', '.join(sorted(allowed))} ops; found '{name}'"))
            elif no_tensors and any(isinstance(r.type, ir.RankedTensorType) or
                                    isinstance(r.type, ir.UnrankedTensorType)
                                    for r in op.results):
                problems.append((op, f"level '{self.level}' allows no tensor values; "
                                     f"'{name}' produces one"))
            elif no_tensors and any(_is_tensor(a.type) for region in op.regions
                                    for block in region.blocks for a in block.arguments):
                problems.append((op, f"level '{self.level}' allows no tensor values; "
                                     f"'{name}' has a tensor block argument"))
            return ir.WalkResult.ADVANCE

        module.walk(visit)
        for op, msg in problems:
            self.error(op, msg)
