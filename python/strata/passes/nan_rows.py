"""Which row results a NaN spreads to: lets a row max skip NaN where the row is NaN anyway.

``arith.maximumf`` propagates NaN, which costs x86 a compare, an unordered
compare and two blends per step; ``x > m ? x : m`` is one ``vmaxps`` but skips
a NaN ``x``. The two give the same kernel result whenever a NaN in row ``i`` of
the max's input makes every element of row ``i`` of the result NaN by another
path, as in a log-softmax written from ops:

    %m = linalg.reduce ins(%x) dimensions = [1] { arith.maximumf }       // row max
    %e = linalg.generic ins(%x, %m) { math.exp(%in - %m) }              // NaN where x is
    %s = linalg.reduce ins(%e) dimensions = [1] { arith.addf }           // NaN for the row
    %y = linalg.generic ins(%x, %m, log(%s)) { %in - %m - %log }        // NaN for the row

``spreads_nan(%y, %x)`` is True there: ``%s`` sums an element that is NaN
wherever ``%x`` is, and ``%y`` takes ``%s`` through NaN-propagating arithmetic.
strata-row-fuse then sweeps that max with the cheaper form. With a plain
``%y = %x - %m`` it is False (one NaN would leave the rest of the row finite
with one max, NaN with the other), and the max keeps its NaN-propagating form.
The analysis works on the fused level's tensors (``linalg.reduce``,
``linalg.generic``, ``tensor.expand_shape``/``collapse_shape``) and answers
False for anything else. (Where ``x`` holds both -0 and +0 the two maxes may
pick different zeros; ``x - m`` then differs only in the sign of a zero, which
changes no result of the kernels above.)
"""

from __future__ import annotations

from mlir import ir

from .layout_common import indexing_maps, producer

__all__ = ["spreads_nan"]

# Ops whose result is NaN when any operand is (strata-expand-math's exp, log and tanh
# keep this: NaN in, NaN out).
_PROPAGATING = {"arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.negf",
                "arith.maximumf", "arith.minimumf", "math.exp", "math.log", "math.sqrt",
                "math.rsqrt", "math.absf", "math.tanh"}
# Reductions counted on to spread a NaN. Not max/min: strata-row-fuse may sweep those
# with the NaN-skipping form this analysis licenses.
_COMBINERS = {"arith.addf", "arith.mulf"}


def _carries(block, index: int) -> bool:
    """True when the block's (single) yielded value is NaN whenever argument ``index`` is."""
    nan = {block.arguments[index]}
    for op in block.operations:
        op = op.operation
        if op.name == "linalg.yield":
            return len(op.operands) == 1 and op.operands[0] in nan
        if op.name in _PROPAGATING and any(v in nan for v in op.operands):
            nan.update(op.results)
    return False


def _map_results(amap) -> list:
    return [str(e) for e in amap.results]


def _parallel_generic(op) -> bool:
    its = [str(a) for a in op.attributes["iterator_types"]]
    return op.name == "linalg.generic" and len(op.results) == 1 and \
        all("parallel" in it for it in its)


def _elementwise_nan(value, x, depth: int) -> bool:
    """Element (i, j) of ``value`` is NaN wherever x[i, j] is."""
    if value == x:
        return True
    op = producer(value)
    if op is None or depth == 0 or not _parallel_generic(op):
        return False
    maps = indexing_maps(op)
    if maps[-1] != ir.AffineMap.get_identity(maps[-1].n_dims):
        return False
    block = op.regions[0].blocks[0]
    n_in = len(op.operands) - 1
    return any(maps[k] == maps[-1] and _elementwise_nan(op.operands[k], x, depth - 1)
               and _carries(block, k) for k in range(n_in))


def spreads_nan(value, x, depth: int = 8) -> bool:
    """True when a NaN anywhere in row i (the last dim) of ``x`` makes every element of row
    i of ``value`` NaN: ``value`` is a row result (R x N) or a per-row one (R, or R x 1)."""
    op = producer(value)
    if op is None or depth == 0:
        return False
    if op.name in ("tensor.expand_shape", "tensor.collapse_shape"):
        return spreads_nan(op.operands[0], x, depth - 1)
    if op.name == "linalg.reduce":
        block = op.regions[0].blocks[0]
        ops = [o.operation for o in block.operations]
        src = op.operands[0]
        rank = ir.RankedTensorType(src.type).rank
        return (len(op.results) == 1 and len(ops) == 2 and ops[0].name in _COMBINERS and
                list(ir.DenseI64ArrayAttr(op.attributes["dimensions"])) == [rank - 1] and
                _carries(block, 0) and
                (_elementwise_nan(src, x, depth - 1) or spreads_nan(src, x, depth - 1)))
    if not _parallel_generic(op):
        return False
    maps = indexing_maps(op)
    out = _map_results(maps[-1])
    # the dims that index rows: all but the last of a row result, all of a per-row one (R)
    per_row = ir.RankedTensorType(value.type).rank < ir.RankedTensorType(x.type).rank
    lead = out if per_row else out[:-1]
    block = op.regions[0].blocks[0]
    for k in range(len(op.operands) - 1):
        if _map_results(maps[k])[:len(lead)] != lead or not _carries(block, k):
            continue  # the input does not keep rows as rows, or does not reach the result
        if spreads_nan(op.operands[k], x, depth - 1):
            return True
    return False
