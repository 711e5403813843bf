"""Marks ``exp(x - max(x))`` as an exp of a non-positive argument (``strata.nonpositive``).

A softmax or log-softmax written from ops (``m = max(x, -1)``, ``exp(x - m)``)
reaches the fused level as a max reduction over the last dim and an elementwise
``linalg.generic`` that subtracts it from the same rows. Every ``x - m`` there is
<= 0 or NaN (a NaN in the row, or ``inf - inf``), whatever the reduction's init: the
max takes every element of the row. strata-expand-math then expands the exp
without its overflow bound and with 2^n in one factor (build_exp_nonpositive: a
third fewer ops, the same error). strata-row-fuse runs this before it copies
the bodies into its sweeps (discardable attributes travel with the copies):

    %m = linalg.reduce ins(%x : tensor<4096x4096xf32>) outs(%f) dimensions = [1]
           (%in, %init) { arith.maximumf %in, %init }
    %me = tensor.expand_shape %m [[0, 1]] : tensor<4096xf32> into tensor<4096x1xf32>
    linalg.generic ins(%x, %me) (maps (d0, d1) -> (d0, d1), (d0, d1) -> (d0, 0)) {
      %d = arith.subf %in, %in_0 : f32
      %e = math.exp %d : f32
  =>
      %e = math.exp %d {strata.nonpositive} : f32

The same holds for ``arith.maxnumf`` (it skips NaN: ``x - m`` is then <= 0 or NaN
too) and for a reduction written as a ``linalg.generic``.
"""

from __future__ import annotations

from mlir import ir

from .expand_math import NONPOSITIVE
from .layout_common import indexing_maps, producer

__all__ = ["mark_nonpositive_exps"]

_MAX = ("arith.maximumf", "arith.maxnumf")


def _owner(value):
    op = producer(value)
    return None if op is None else op.operation


def _is_row_max_of(value, x, rank: int) -> bool:
    """``value`` (seen through ``tensor.expand_shape``) is a max of ``x`` over its last
    dim: a ``linalg.reduce`` or a reduction ``linalg.generic`` whose body is one max."""
    op = _owner(value)
    while op is not None and op.name == "tensor.expand_shape":
        op = _owner(op.operands[0])
    if op is None or len(op.results) != 1:
        return False
    if op.name == "linalg.reduce":
        dims = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
        if dims != [rank - 1] or op.operands[0] != x:
            return False
    elif op.name == "linalg.generic":
        iterators = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
        maps = indexing_maps(op)
        if len(op.operands) != 2 or op.operands[0] != x or len(iterators) != rank or \
                "reduction" not in iterators[-1] or \
                any("reduction" in it for it in iterators[:-1]) or \
                maps[0] != ir.AffineMap.get_identity(rank):
            return False
    else:
        return False
    body = list(op.regions[0].blocks[0].operations)
    if len(body) != 2 or body[0].operation.name not in _MAX:
        return False
    args = set(op.regions[0].blocks[0].arguments)
    return all(v in args for v in body[0].operands) and \
        body[1].operands[0] == body[0].results[0]


def _per_row_map(amap: ir.AffineMap, rank: int) -> bool:
    """``(d0, ..., dr-1) -> (d0, ..., dr-2)`` or ``-> (d0, ..., dr-2, 0)``."""
    lead = [ir.AffineDimExpr.get(i) for i in range(rank - 1)]
    return amap in (ir.AffineMap.get(rank, 0, lead),
                    ir.AffineMap.get(rank, 0, lead + [ir.AffineConstantExpr.get(0)]))


def mark_nonpositive_exps(module: ir.Operation) -> int:
    """Marks every ``math.exp(x - rowmax(x))`` in an all-parallel ``linalg.generic``;
    returns how many."""
    marked = 0

    def visit(op):
        nonlocal marked
        op = op.operation
        if op.name == "linalg.generic":
            marked += _mark_in(op)
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    return marked


def _mark_in(op) -> int:
    iterators = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    if any("reduction" in it for it in iterators):
        return 0
    rank = len(iterators)
    n_in = len(op.operands) - len(op.results)
    block = op.regions[0].blocks[0]
    maps = indexing_maps(op)
    inputs = {block.arguments[i]: (op.operands[i], maps[i]) for i in range(n_in)}
    marked = 0
    for inner in block.operations:
        inner = inner.operation
        if inner.name != "math.exp" or NONPOSITIVE in inner.attributes:
            continue
        sub = _owner(inner.operands[0])
        if sub is None or sub.name != "arith.subf":
            continue
        a, b = sub.operands
        if a not in inputs or b not in inputs:
            continue
        (x, x_map), (m, m_map) = inputs[a], inputs[b]
        if x_map == ir.AffineMap.get_identity(rank) and _per_row_map(m_map, rank) and \
                _is_row_max_of(m, x, rank):
            inner.attributes[NONPOSITIVE] = ir.UnitAttr.get()
            marked += 1
    return marked
