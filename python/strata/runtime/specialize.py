"""Output shapes of a function compiled with dynamic dims, per call's input shapes.

Specialization itself (a function rewritten to static argument types, every strata
op's result re-inferred with the dialect's shape rules) is IR-only and lives in
dialect/specialize.py, where strata-row-blocks uses it too; it is re-exported here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mlir import ir

from ..dialect.specialize import find_function, specialize_function, walk_specs

__all__ = ["specialize_function", "ShapeFunction"]

_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "i32": 4, "i1": 1, "f64": 8, "i64": 8}


class ShapeFunction:
    """The result specs of a function for concrete argument specs, without compiling.

    Runs the dialect's shape rules over the function (kept alive with its module)
    once per distinct argument shapes, then answers from a table: what a variant
    compiled with dynamic dims uses to size its outputs on each call.
    """

    def __init__(self, module: ir.Module, name: str):
        self.module = module
        self.fn = find_function(module.operation, name)
        self._table: dict = {}

    def __call__(self, specs) -> list:
        return self._entry(specs)[0]

    def largest(self, specs) -> int:
        """Bytes of the largest value the function computes for ``specs``."""
        return self._entry(specs)[1]

    def _entry(self, specs):
        key = tuple((tuple(s), d) for s, d in specs)
        entry = self._table.get(key)
        if entry is None:
            sizes = [0]

            def visit(op, spec):
                shape, dtype = spec
                count = 1
                for d in shape:
                    count *= d or 0
                sizes.append(count * max(1, _BYTES.get(dtype, 8)))

            with self.module.context:
                entry = self._table[key] = (walk_specs(self.fn, specs, visit), max(sizes))
        return entry
