"""strata-bufferize: tensors to buffers for the whole module, with caller-allocated results.

A named pipeline of upstream passes:

    strata-decompose                      aggregate ops (softmax) that do not bufferize
    strata-unique-results                 a copy for each repeated function result
    one-shot-bufferize{bufferize-function-boundaries
        function-boundary-type-conversion=identity-layout-map}
    canonicalize, cse                     folds loop iter_args so results hoist below
    buffer-results-to-out-params{hoist-static-allocs modify-public-functions}
    buffer-loop-hoisting                  a buffer allocated in a loop (a tile's scratch
                                          space, strata-vectorize's tiles of B) is
                                          allocated once, before the loop nest (not out
                                          of an scf.forall: each thread keeps its own)
    buffer-deallocation-pipeline          every alloc freed on every path
    canonicalize, cse

    func.func @f(%a: tensor<4xf32>) -> tensor<4xf32>
  =>
    func.func @f(%a: memref<4xf32>, %out: memref<4xf32>)    // results become out-params

Results are written into buffers the caller passes (numpy arrays in the
runtime), so nothing returned needs freeing by the caller; writes are in place
where the analysis proves it legal (no memref.copy).
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import PassPipeline
from .decompose import DecomposePass
from .unique_results import UniqueResultsPass

__all__ = ["BufferizePass"]


@dataclass(frozen=True, eq=False, repr=False)
class BufferizePass(PassPipeline):
    """Bufferize the module (function boundaries too), results to out-params, free every alloc."""

    name = "strata-bufferize"

    def build(self, p) -> None:
        p.add(DecomposePass())
        p.add(UniqueResultsPass())
        p.add("one-shot-bufferize{bufferize-function-boundaries "
              "function-boundary-type-conversion=identity-layout-map}, "
              "canonicalize, cse, "
              "buffer-results-to-out-params{hoist-static-allocs modify-public-functions}, "
              "func.func(buffer-loop-hoisting), "
              "buffer-deallocation-pipeline, canonicalize, cse")
