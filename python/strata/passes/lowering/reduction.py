"""strata reductions and normalizations -> linalg.reduce / linalg.softmax / linalg.generic.

    %0 = "strata.sum"(%x) {axes = array<i64: 1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  =>
    %init = linalg.fill ins(%zero) outs(tensor.empty() : tensor<4xf32>)
    %r = linalg.reduce ins(%x) outs(%init) dimensions = [1] (addf)
    %0 = tensor.expand_shape %r [[0, 1]] : tensor<4xf32> into tensor<4x1xf32>

Adjacent reduced axes of static size are collapsed into one dim first (a sum over H, W
reduces one dim of H*W, a row strata-vectorize vectorizes when it is the last).
max starts from -inf (floats) or INT32_MIN, min from +inf or INT32_MAX, prod from 1
(i32 products wrap, as numpy's int32 does); mean divides the sum by the reduced
element count. layer_norm is mean, biased variance and one normalizing
linalg.generic. f16/bf16 are extended to f32 first and rounded at the end.
"""

from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, math

from ..linalg_ops import linalg
from .common import (
    affine_map,
    collapse,
    d,
    dims,
    empty,
    expand,
    extreme,
    fill,
    filled,
    from_compute,
    generic,
    is_float,
    rtype,
    scalar,
    to_compute,
)


def _axes(op, name="axes"):
    rank = rtype(op.operands[0]).rank
    return sorted(a % rank if rank else a for a in ir.DenseI64ArrayAttr(op.attributes[name]))


def _keepdims(op):
    return "keepdims" in op.attributes and ir.BoolAttr(op.attributes["keepdims"]).value


def _merge_runs(x, axes):
    """``x`` with each run of adjacent reduced axes collapsed into one dim (static
    sizes), and the axes of the result: a reduction over trailing dims (a global
    average pool's H, W) becomes one over the last dim, which strata-vectorize
    vectorizes, instead of a two-dim reduction left to scalar loops."""
    t = rtype(x)
    groups, new_axes = [], []
    i = 0
    while i < t.rank:
        j = i
        while j + 1 < t.rank and i in axes and j + 1 in axes and not t.is_dynamic_dim(j + 1) \
                and not t.is_dynamic_dim(i):
            j += 1
        if i in axes:
            new_axes.append(len(groups))
        groups.append(list(range(i, j + 1)))
        i = j + 1
    if len(groups) == t.rank:
        return x, axes
    shape = [int(np.prod([t.shape[k] for k in g])) if len(g) > 1 else t.shape[g[0]]
             for g in groups]
    return collapse(x, groups, shape), new_axes


def reduce_values(x, axes, kind):
    """linalg.reduce of ``x`` over ``axes`` (sorted, distinct) with ``kind`` in
    sum/max/min/prod."""
    x, axes = _merge_runs(x, axes)
    t = rtype(x)
    elem = t.element_type
    kept = [s for i, s in enumerate(dims(x)) if i not in axes]
    if kind in ("sum", "prod"):
        identity = scalar(elem, 0 if kind == "sum" else 1)
    else:
        identity = extreme(elem, highest=kind != "max")
    init = fill(identity, empty(kept, elem))
    out_type = rtype(init)
    op = linalg.ReduceOp([out_type], [x], [init], axes)
    block = op.regions[0].blocks.append(elem, elem)
    with ir.InsertionPoint(block):
        a, b = block.arguments
        if kind == "sum":
            r = arith.addf(a, b) if is_float(elem) else arith.addi(a, b)
        elif kind == "prod":
            r = arith.mulf(a, b) if is_float(elem) else arith.muli(a, b)
        elif kind == "min":
            r = arith.minimumf(a, b) if is_float(elem) else arith.minsi(a, b)
        else:
            r = arith.maximumf(a, b) if is_float(elem) else arith.maxsi(a, b)
        linalg.YieldOp([r])
    return op.results[0]


def _count(x, axes, elem):
    """The number of reduced elements, as a scalar of ``elem``."""
    sizes = [dims(x)[a] for a in axes]
    if all(isinstance(s, int) for s in sizes):
        n = 1
        for s in sizes:
            n *= s
        return scalar(elem, n)
    total = None
    for s in sizes:
        v = arith.constant(ir.IndexType.get(), s) if isinstance(s, int) else s
        total = v if total is None else arith.muli(total, v)
    as_int = arith.index_cast(ir.IntegerType.get_signless(64), total)
    return arith.sitofp(elem, as_int)


def _scale(v, factor, divide=True):
    t = rtype(v)
    init = empty(dims(v), t.element_type)
    ident = ir.AffineMap.get_identity(t.rank)
    return generic([v], [init], [ident, ident], ["parallel"] * t.rank,
                   lambda a, _o: arith.divf(a, factor) if divide else arith.mulf(a, factor))[0]


def keep_dims(v, axes, rank):
    """Re-inserts the reduced ``axes`` as size-1 dims (numpy keepdims=True)."""
    if not axes:
        return v
    kept = [i for i in range(rank) if i not in axes]
    sizes = dims(v)
    out_sizes, groups = [], []
    j = 0
    for i in range(rank):
        out_sizes.append(1 if i in axes else sizes[kept.index(i)])
    if not kept:
        return expand(v, [], out_sizes)
    for k, i in enumerate(kept):
        lo = 0 if k == 0 else kept[k - 1] + 1
        hi = rank if k == len(kept) - 1 else i + 1
        groups.append(list(range(lo, hi)))
        j += 1
    return expand(v, groups, out_sizes)


def lower_reduce(op, name):
    x = op.operands[0]
    elem = rtype(x).element_type
    axes = _axes(op)
    xc = to_compute(x)
    r = reduce_values(xc, axes, "sum" if name == "mean" else name)
    if name == "mean":
        r = _scale(r, _count(xc, axes, rtype(xc).element_type))
    if _keepdims(op):
        r = keep_dims(r, axes, rtype(x).rank)
    return from_compute(r, elem)


def lower_arg_reduce(op, name):
    """argmax / argmin: one linalg.generic reducing ``axis`` into (best value, its index),
    replacing the pair when the element beats the best (strictly: ties keep the first
    index) or is the first NaN; the values are compared in f32 for f16 / bf16.

        %v, %i = linalg.generic {parallel..., reduction} ins(%x) outs(%fill_-inf, %fill_0) {
          ^bb0(%x, %best, %idx):  %take = !isnan(%best) && (%x >u %best)   // ugt: NaN too
                                  yield select(%take, %x, %best), select(%take, k, %idx)
        }
    """
    x = op.operands[0]
    t = rtype(x)
    axis = ir.IntegerAttr(op.attributes["axis"]).value % t.rank
    xc = to_compute(x)
    elem = rtype(xc).element_type
    i32 = ir.IntegerType.get_signless(32)
    kept = [s for i, s in enumerate(dims(xc)) if i != axis]
    is_max = name == "argmax"
    if axis == t.rank - 1 and t.rank > 1 and is_float(elem):
        index = _last_axis_arg_reduce(xc, kept, is_max)
        return keep_dims(index, [axis], t.rank) if _keepdims(op) else index
    if is_float(elem):
        start = arith.constant(elem, float("-inf") if is_max else float("inf"))
    else:
        start = scalar(elem, -(2 ** 31) if is_max else 2 ** 31 - 1)
    best0 = fill(start, empty(kept, elem))
    index0 = filled(kept, i32, 0)
    rank = t.rank
    out_map = affine_map(rank, [d(i) for i in range(rank) if i != axis])

    def body(v, best, idx):
        if is_float(elem):
            pred = arith.CmpFPredicate.UGT if is_max else arith.CmpFPredicate.ULT
            beats = arith.cmpf(pred, v, best)
            best_is_number = arith.cmpf(arith.CmpFPredicate.ORD, best, best)
            take = arith.andi(beats, best_is_number)
        else:
            pred = arith.CmpIPredicate.sgt if is_max else arith.CmpIPredicate.slt
            take = arith.cmpi(pred, v, best)
        k = arith.index_cast(i32, linalg.IndexOp(axis).result)
        return [arith.select(take, v, best), arith.select(take, k, idx)]

    iterators = ["reduction" if i == axis else "parallel" for i in range(rank)]
    _, index = generic([xc], [best0, index0], [ir.AffineMap.get_identity(rank), out_map,
                                                 out_map], iterators, body)
    if _keepdims(op):
        index = keep_dims(index, [axis], rank)
    return index


def _last_axis_arg_reduce(xc, kept, is_max):
    """argmax / argmin along the last (contiguous) axis of a float tensor as two row
    reductions that strata-vectorize vectorizes: the best value (``maximumf`` /
    ``minimumf``: NaN when the row has one), then the least index that holds it (or, in
    a row with a NaN, the first NaN). The single select-pair reduction above runs as
    scalar loops along a row (~70x numpy's time for 1024 x 1024).

        %best = linalg.generic {parallel..., reduction} ins(%x) outs(%fill_-inf) { maximumf }
        %idx  = linalg.generic {parallel..., reduction} ins(%x, %best, %iota) outs(%fill_K) {
          ^bb0(%v, %b, %k, %i):  %hit = (%v == %b) || isnan(%v)
                                 yield minsi(%i, select(%hit, %k, K))
        }

    (``%iota`` the constant 0..K-1; with a dynamic K, ``linalg.index`` instead.)
    """
    t = rtype(xc)
    elem, rank = t.element_type, t.rank
    i32 = ir.IntegerType.get_signless(32)
    full = ir.AffineMap.get_identity(rank)
    rows = affine_map(rank, [d(i) for i in range(rank - 1)])
    start = arith.constant(elem, float("-inf") if is_max else float("inf"))
    best0 = fill(start, empty(kept, elem))
    pick = arith.maximumf if is_max else arith.minimumf
    best = generic([xc], [best0], [full, rows], ["parallel"] * (rank - 1) + ["reduction"],
                   lambda v, acc: pick(v, acc))[0]
    length = dims(xc)[-1]
    past = (scalar(i32, length) if isinstance(length, int) else
            arith.index_cast(i32, length))
    index0 = fill(past, empty(kept, i32))
    inputs, maps = [xc, best], [full, rows]
    if isinstance(length, int):
        # the indices as a constant input: a row reduction tiled into partial
        # accumulators (strata-vectorize) would see linalg.index count within its tile
        iota = ir.DenseElementsAttr.get(np.arange(length, dtype=np.int32),
                                        type=ir.RankedTensorType.get([length], i32))
        inputs.append(arith.constant(iota.type, iota))
        maps.append(affine_map(rank, [d(rank - 1)]))

    def body(v, b, *rest):
        hit = arith.ori(arith.cmpf(arith.CmpFPredicate.OEQ, v, b),
                        arith.cmpf(arith.CmpFPredicate.UNO, v, v))
        k = rest[0] if len(rest) == 2 else arith.index_cast(
            i32, linalg.IndexOp(rank - 1).result)
        return arith.minsi(rest[-1], arith.select(hit, k, past))

    return generic(inputs, [index0], maps + [rows],
                   ["parallel"] * (rank - 1) + ["reduction"], body)[0]


def lower_softmax(op):
    x = op.operands[0]
    t = rtype(x)
    axis = ir.IntegerAttr(op.attributes["axis"]).value if "axis" in op.attributes else -1
    axis %= t.rank
    xc = to_compute(x)
    out = empty(dims(xc), rtype(xc).element_type)
    sm = linalg.SoftmaxOp([rtype(xc)], xc, out, axis).results[0]
    return from_compute(sm, t.element_type)


def _shifted_moments(xc, axis):
    """One pass over ``xc``: per row of the normalized dims, ``(x0, Σ(x-x0), Σ(x-x0)²)``.

    Shifting by the row's first element ``x0`` keeps the one-pass variance
    ``Σ(x-x0)²/n - (Σ(x-x0)/n)²`` accurate when the mean is large against the spread.
    """
    t = rtype(xc)
    ct = t.element_type
    rank = t.rank
    kept = dims(xc)[:axis]
    full = ir.AffineMap.get_identity(rank)
    first = affine_map(rank, [d(i) for i in range(axis)] +
                       [ir.AffineConstantExpr.get(0)] * (rank - axis))
    stat = affine_map(rank, [d(i) for i in range(axis)])
    zero = scalar(ct, 0)
    s1 = fill(zero, empty(kept, ct))
    s2 = fill(zero, empty(kept, ct))

    def body(a, a0, acc1, acc2):
        c = arith.subf(a, a0)
        return [arith.addf(acc1, c), arith.addf(acc2, arith.mulf(c, c))]

    iters = ["parallel"] * axis + ["reduction"] * (rank - axis)
    return generic([xc, xc], [s1, s2], [full, first, stat, stat], iters, body), first, stat


def lower_layer_norm(op):
    x, scale, bias = op.operands
    t = rtype(x)
    axis = ir.IntegerAttr(op.attributes["axis"]).value if "axis" in op.attributes else -1
    axis %= t.rank
    eps = ir.FloatAttr(op.attributes["epsilon"]).value if "epsilon" in op.attributes else 1e-5
    xc, sc, bc = to_compute(x), to_compute(scale), to_compute(bias)
    ct = rtype(xc).element_type
    rank = t.rank
    n = _count(xc, list(range(axis, rank)), ct)
    (s1, s2), first, stat = _shifted_moments(xc, axis)
    full = ir.AffineMap.get_identity(rank)
    tail = affine_map(rank, [d(i) for i in range(axis, rank)])
    epsilon = scalar(ct, eps)
    # Per row: mean and 1/sqrt(var + eps), once (not per element).
    rows = affine_map(axis, [d(i) for i in range(axis)])
    kept = dims(xc)[:axis]

    def stats(m1, m2, _mean, _inv):
        mean_c = arith.divf(m1, n)                       # mean of (x - x0)
        var = arith.subf(arith.divf(m2, n), arith.mulf(mean_c, mean_c))
        var = arith.maximumf(var, scalar(ct, 0))
        return [mean_c, math.rsqrt(arith.addf(var, epsilon))]

    mean_c, inv = generic([s1, s2], [empty(kept, ct), empty(kept, ct)],
                          [rows, rows, rows, rows], ["parallel"] * axis, stats)

    def body(a, a0, m, r, s, b, _o):
        centered = arith.subf(arith.subf(a, a0), m)      # (x - x0) - mean(x - x0)
        return arith.addf(arith.mulf(arith.mulf(centered, r), s), b)

    out = generic([xc, xc, mean_c, inv, sc, bc], [empty(dims(xc), ct)],
                  [full, first, stat, stat, tail, tail, full], ["parallel"] * rank, body)[0]
    return from_compute(out, t.element_type)
