"""strata-parallelize: split large elementwise ops across threads (on tensors).

strata-vectorize already makes large matmuls and row reductions parallel; this
pass does the same for the ops it leaves alone: an all-parallel
``linalg.generic`` of static shape, with no 0-d operand, at the top level of a
function whose
arithmetic, elements x per-element body cost (passes/fusion/model.py: 0.25 per
simple op, 4 per exp/div/...), is at least ``parallel-work``. Its outermost loop is
split into ``threads`` chunks of an ``scf.forall`` (run on threads by
strata-lower-to-llvm); the inner loops stay whole, so LLVM still vectorizes
them. With ``threads=1`` (the default) the pass does nothing::

    %0 = linalg.generic {parallel, parallel} ins(%x : tensor<1024x1024xf32>) ...
  =>
    %0 = scf.forall (%i) in (2) shared_outs(%o = %init) -> (tensor<1024x1024xf32>) {
      %1 = linalg.generic {parallel, parallel} ins(512x1024 slice of %x) ...
      scf.forall.in_parallel { tensor.parallel_insert_slice %1 into %o[...] }
    }

Below the threshold waking a worker (50-100 us on the 2-core machines) costs
more than the split saves. Memory-bound ops (copies, adds, transposes) are
left alone whatever their size: their output is a fresh buffer, and two
threads first-touching its pages contend in the kernel and run slower than one
(measured: 2048x1024 add, 431 us on one thread, 833 us on two).
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects.transform import structured

from ..codegen.transform import ScriptError, Tags, match_tagged
from .base import Pass, collect_ops, option, threads_option
from .fusion.model import body_cost

__all__ = ["ParallelizePass"]


def _elements(op) -> int | None:
    t = op.results[0].type if len(op.results) == 1 else None
    if t is None or not isinstance(t, ir.RankedTensorType):
        return None
    t = ir.RankedTensorType(t)
    if not t.has_static_shape or t.rank == 0:
        return None
    n = 1
    for d in t.shape:
        n *= d
    return n


def _candidate(op) -> float:
    """The work of ``op`` if it may be split (0 otherwise)."""
    if op.parent is None or op.parent.name != "func.func":
        return 0.0
    if op.name == "linalg.generic":
        iterators = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
        if any("reduction" in it for it in iterators):
            return 0.0
        # A 0-d operand (a scalar constant like the 0.5 of ``gelu(x) * 0.5``) becomes a
        # pointer argument of the outlined parallel function, which LLVM then
        # reloads on every element: measured 3.5x slower than one thread.
        if any(isinstance(v.type, ir.RankedTensorType) and ir.RankedTensorType(v.type).rank == 0
               for v in op.operands):
            return 0.0
        per_element = body_cost(op)
    else:
        return 0.0
    n = _elements(op)
    if n is None or ir.RankedTensorType(op.results[0].type).shape[0] < 2:
        return 0.0
    return n * per_element


@dataclass(frozen=True)
class ParallelizePass(Pass):
    """Split large elementwise ops into an scf.forall of ``threads`` chunks."""

    name = "strata-parallelize"
    threads: int = threads_option()
    parallel_work: int = option(1 << 21, min=1, help="Fewest cost units of an op split across threads")

    def run(self, module: ir.Operation) -> None:
        if self.threads == 1:
            return
        with Tags(module) as tags:
            plans = []
            for i, op in enumerate(collect_ops(module,
                                               lambda o: _candidate(o) >= self.parallel_work)):
                rank = ir.RankedTensorType(op.results[0].type).rank
                plans.append((tags.add(op, f"strata.parallelize_{i}"),
                              [self.threads] + [0] * (rank - 1), op.location))
            op = None  # no handle on a payload op outlives the schedules
            for tag, counts, location in plans:
                try:
                    tags.apply(_split(tag, counts))
                except ScriptError as e:
                    self.fail_at(location, f"strata-parallelize: {e}")


def _split(tag, counts):
    """The schedule: the tagged op as an scf.forall of ``counts`` chunks."""
    def body(root):
        structured.TileUsingForallOp(match_tagged(root, tag), num_threads=counts)

    return body
