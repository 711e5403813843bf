"""strata-flatten-forall: one induction variable per ``scf.forall`` before it becomes threads.

MLIR 22's ``async-parallel-for`` splits a parallel loop into blocks of its
flattened iteration space. For a loop of two or more dims whose inner trip
counts are static, it "aligns" each block to a multiple of the inner trip count
but keeps the block *count* of the unaligned size, so the last blocks run past
the end of the iteration space: out-of-bounds loads and stores (a 1000 x 1000
matmul on 2 threads, M x N tiles (20, 8), returned garbage and wrote outside
its output). A one-dimensional loop never takes that path. This pass rewrites
each multi-dim ``scf.forall`` of the bufferized level (no shared outputs) into
a one-dimensional one over the product of its trip counts, recovering the
original induction variables with a division and a remainder:

    scf.forall (%i, %j) in (20, 8) {
      body(%i, %j)
    }
  =>
    scf.forall (%k) in (160) {
      %i = arith.divui %k, %c8 ; %j = arith.remui %k, %c8
      body(%i, %j)
    }

Lower bounds and steps other than 0 and 1 are folded in (``lb + iv * step``);
dynamic bounds are multiplied at run time. A forall with shared outputs (the
tensor level) is left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, scf

from .base import Pass, collect_ops

__all__ = ["FlattenForallPass"]


def _bounds(forall, kind: str):
    """The op's lower bounds / upper bounds / steps: ints where static, else Values."""
    static = list(ir.DenseI64ArrayAttr(forall.attributes[f"static{kind}"]))
    dynamic = list(getattr(forall, f"dynamic{kind}"))
    return [dynamic.pop(0) if s == ir.ShapedType.get_dynamic_size() else int(s)
            for s in static]


class _Builder:
    """Index arithmetic that folds what is static; constants go before ``anchor``."""

    def __init__(self, anchor):
        self.anchor = anchor
        self.constants: dict[int, ir.Value] = {}

    def value(self, v) -> ir.Value:
        if not isinstance(v, int):
            return v
        if v not in self.constants:
            with ir.InsertionPoint(self.anchor):
                self.constants[v] = arith.constant(ir.IndexType.get(), v)
        return self.constants[v]

    def mul(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if a == 1 or b == 1:
            return b if a == 1 else a
        return arith.muli(self.value(a), self.value(b))

    def add(self, a, b):
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if a == 0 or b == 0:
            return b if a == 0 else a
        return arith.addi(self.value(a), self.value(b))

    def trip_count(self, lb, ub, step):
        """``ceil((ub - lb) / step)``."""
        if all(isinstance(v, int) for v in (lb, ub, step)):
            return max(0, -(-(ub - lb) // step))
        span = ub if lb == 0 else arith.subi(self.value(ub), self.value(lb))
        return span if step == 1 else arith.ceildivui(self.value(span), self.value(step))


@dataclass(frozen=True, eq=False, repr=False)
class FlattenForallPass(Pass):
    """Rewrite multi-dim scf.forall loops on buffers into one-dim ones (see module doc)."""

    name = "strata-flatten-forall"

    def run(self, module: ir.Operation) -> None:
        for op in collect_ops(module, lambda o: o.name == "scf.forall"):
            forall = op.opview if hasattr(op, "opview") else op
            if forall.rank < 2 or len(forall.outputs) > 0:
                continue
            self._flatten(forall)

    def _flatten(self, forall) -> None:
        if "mapping" in forall.attributes:
            return  # a mapped (GPU) loop: its dims mean something; keep them
        b = _Builder(forall)
        with ir.InsertionPoint(forall), forall.location:
            lbs, ubs, steps = (_bounds(forall, k) for k in ("LowerBound", "UpperBound", "Step"))
            counts = [b.trip_count(lb, ub, st) for lb, ub, st in zip(lbs, ubs, steps,
                                                                       strict=True)]
            total = counts[0]
            for c in counts[1:]:
                total = b.mul(total, c)
            new = scf.ForallOp([0], [b.value(total) if not isinstance(total, int) else total],
                               [1], None)
        b.anchor = new  # constants made from here on go before the new loop
        old_block = forall.regions[0].blocks[0]
        new_block = new.regions[0].blocks[0]
        k = new_block.arguments[0]
        ivs = [None] * len(counts)
        with ir.InsertionPoint(new_block), forall.location:
            inner = 1  # the product of the trip counts after dim d
            for d in range(len(counts) - 1, -1, -1):
                idx = k if inner == 1 else arith.divui(k, b.value(inner))
                if d > 0:
                    idx = arith.remui(idx, b.value(counts[d]))
                    inner = b.mul(inner, counts[d])
                ivs[d] = b.add(lbs[d], b.mul(idx, steps[d]))
        for old_iv, iv in zip(old_block.arguments, ivs, strict=True):
            old_iv.replace_all_uses_with(b.value(iv))
        at_end = ir.InsertionPoint(new_block)
        for child in list(old_block.operations):  # the body, then its terminator
            at_end.insert(child.operation.detach_from_parent())
        forall.operation.erase()
