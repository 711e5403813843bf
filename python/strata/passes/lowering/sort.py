"""strata.argsort -> a stable bottom-up merge sort of each row, in scf.for loops on tensors.

Upstream linalg has no sort, so each row along the axis (every coordinate of the other
dims, one scf.for per dim) is copied into a 1-D tensor of values (f16 / bf16 widened
to f32) beside an i32 iota of their positions, sorted by ceil(log2(n)) merge passes,
and its index row inserted into the result:

    %r = "strata.argsort"(%x) {axis = 1 : i64} : (tensor<4x9xf32>) -> tensor<4x9xi32>
  =>
    scf.for %b = 0 to 4 iter_args(%out = tensor.empty() : tensor<4x9xi32>)
      %v = tensor.extract_slice %x[%b, 0] [1, 9] [1, 1] : tensor<4x9xf32> to tensor<9xf32>
      %i = linalg.generic ... { linalg.index 0; arith.index_cast }       (0, 1, ..., 8)
      scf.for %p = 0 to 4 iter_args(%sv = %v, %si = %i, %tv, %ti)        (width = 1 << p)
        scf.for %lo = 0 to 9 step 2 * width iter_args(%tv, %ti)          (the scratch pair)
          scf.for %k = lo to hi iter_args(%l = lo, %r = mid, %tv, %ti)   (one merge)
            take right = %l == mid or (%r < hi and before(%sv[%r], %sv[%l]))
        %sv, %si = linalg.copy %tv, %ti                                  (back in place)
      tensor.insert_slice %si into %out[%b, 0] [1, 9] [1, 1]

``before(a, b)`` is strict, so equal elements keep their order (stable): ascending
``a < b`` with NaN largest (``olt(a, b) or (b is NaN and a is not)``), descending
``a > b`` with NaN first. Reads of a run that is used up are clamped into the row.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, tensor
from mlir.dialects import math as mmath

from ..linalg_ops import linalg
from .common import (
    as_index,
    compute_type,
    convert,
    dims,
    empty,
    filled,
    generic,
    index,
    is_float,
    mixed,
    rtype,
)
from .shape_ops import empty_result

__all__ = ["lower_argsort"]


def _cmpf(pred, a, b):
    return arith.cmpf(getattr(arith.CmpFPredicate, pred), a, b)


def _before(a, b, descending: bool):
    """Whether ``a`` sorts strictly before ``b`` (NaN is the largest value)."""
    if not is_float(a.type):
        return arith.cmpi(arith.CmpIPredicate.sgt if descending else arith.CmpIPredicate.slt,
                          a, b)
    if descending:
        return arith.ori(_cmpf("OGT", a, b), arith.andi(_cmpf("UNO", a, a), _cmpf("ORD", b, b)))
    return arith.ori(_cmpf("OLT", a, b), arith.andi(_cmpf("UNO", b, b), _cmpf("ORD", a, a)))


def _passes(n):
    """ceil(log2(n)) merge passes (0 for n <= 1), as an index."""
    if isinstance(n, int):
        return index(max(n - 1, 0).bit_length())
    i64 = ir.IntegerType.get_signless(64)
    m = arith.index_cast(i64, arith.subi(n, index(1)))  # n >= 1 here (no empty rows)
    bits = arith.subi(arith.constant(i64, 64), mmath.ctlz(m))
    return arith.index_cast(ir.IndexType.get(), bits)


def _merge(src_v, src_i, dst_v, dst_i, lo, mid, hi, last, descending):
    """Merges the runs [lo, mid) and [mid, hi) of (src_v, src_i) into dst; stable."""
    loop = scf.ForOp(lo, hi, index(1), [lo, mid, dst_v, dst_i])
    with ir.InsertionPoint(loop.body):
        k = loop.induction_variable
        left, right, out_v, out_i = loop.inner_iter_args
        l_at, r_at = arith.minui(left, last), arith.minui(right, last)
        lv, rv = tensor.extract(src_v, [l_at]), tensor.extract(src_v, [r_at])
        left_done = arith.cmpi(arith.CmpIPredicate.uge, left, mid)
        right_left = arith.cmpi(arith.CmpIPredicate.ult, right, hi)
        take_right = arith.ori(left_done, arith.andi(right_left, _before(rv, lv, descending)))
        v = arith.select(take_right, rv, lv)
        i = arith.select(take_right, tensor.extract(src_i, [r_at]), tensor.extract(src_i, [l_at]))
        one, zero = index(1), index(0)
        step_r = arith.select(take_right, one, zero)
        scf.YieldOp([arith.subi(arith.addi(left, one), step_r), arith.addi(right, step_r),
                     tensor.insert(v, out_v, [k]), tensor.insert(i, out_i, [k])])
    return loop.results[2], loop.results[3]


def _merge_pass(src_v, src_i, dst_v, dst_i, width, n, last, descending):
    """One pass: every pair of runs of ``width`` in src merged into (dst_v, dst_i)."""
    span = arith.shli(width, index(1))
    runs = scf.ForOp(index(0), n, span, [dst_v, dst_i])
    with ir.InsertionPoint(runs.body):
        lo = runs.induction_variable
        mid = arith.minui(arith.addi(lo, width), n)
        hi = arith.minui(arith.addi(lo, span), n)
        merged = _merge(src_v, src_i, *runs.inner_iter_args, lo, mid, hi, last, descending)
        scf.YieldOp(list(merged))
    return runs.results[0], runs.results[1]


def _scratch(sizes, elem, i32, mark):
    """A fresh (values, indices) pair. Filled with ``mark`` and ``-1 - mark``: CSE would
    merge bare tensor.empty ops of one type, and a loop would carry one buffer twice."""
    return filled(sizes, elem, mark), filled(sizes, i32, -1 - mark)


def _sort_row(values, size, descending):
    """The i32 positions that sort the 1-D tensor ``values`` of length ``size`` (an int, or
    an index Value when dynamic). ``values`` is never written (it may be an argument's
    buffer): the first pass reads it and the iota, the others ping-pong between two
    scratch pairs, copying the merged pair back so each loop yields what it carries
    (one-shot bufferization keeps them in place)."""
    n = as_index(size)
    i32 = ir.IntegerType.get_signless(32)
    elem = rtype(values).element_type
    sizes = [size]
    iota = generic([], [empty(sizes, i32)], [ir.AffineMap.get_identity(1)], ["parallel"],
                   lambda _o: arith.index_cast(i32, linalg.IndexOp(0).result))[0]
    last = arith.subi(n, index(1))
    first = _merge_pass(values, iota, *_scratch(sizes, elem, i32, 0), index(1), n, last,
                        descending)
    passes = scf.ForOp(index(1), _passes(size), index(1),
                       [*first, *_scratch(sizes, elem, i32, 1)])
    with ir.InsertionPoint(passes.body):
        src_v, src_i, tmp_v, tmp_i = passes.inner_iter_args
        width = arith.shli(index(1), passes.induction_variable)
        tmp_v, tmp_i = _merge_pass(src_v, src_i, tmp_v, tmp_i, width, n, last, descending)
        src_v = linalg.copy(tmp_v, outs=[src_v])
        src_i = linalg.copy(tmp_i, outs=[src_i])
        scf.YieldOp([src_v, src_i, tmp_v, tmp_i])
    return passes.results[1]


def lower_argsort(op):
    x = op.operands[0]
    xt = rtype(x)
    rank = xt.rank
    axis = ir.IntegerAttr(op.attributes["axis"]).value % rank
    descending = "descending" in op.attributes and ir.BoolAttr(op.attributes["descending"]).value
    i32 = ir.IntegerType.get_signless(32)
    if any(not xt.is_dynamic_dim(i) and xt.get_dim_size(i) == 0 for i in range(rank)):
        return empty_result(list(xt.shape), i32)
    sizes = dims(x)
    ct = compute_type(xt.element_type)
    row_shape = [xt.get_dim_size(axis) if not xt.is_dynamic_dim(axis) else ir.ShapedType
                 .get_dynamic_size()]
    slice_sizes = [sizes[axis] if i == axis else 1 for i in range(rank)]
    dyn_sz, st_sz = mixed(slice_sizes)
    others = [i for i in range(rank) if i != axis]

    def row(coords, out):
        offsets = [0 if i == axis else coords[others.index(i)] for i in range(rank)]
        dyn_off, st_off = mixed(offsets)
        values = tensor.extract_slice(ir.RankedTensorType.get(row_shape, xt.element_type), x,
                                      dyn_off, dyn_sz, [], st_off, st_sz, [1] * rank)
        if ct != xt.element_type:
            values = generic([values], [empty([sizes[axis]], ct)],
                             [ir.AffineMap.get_identity(1)] * 2, ["parallel"],
                             lambda a, _o: convert(a, ct))[0]
        order = _sort_row(values, sizes[axis], descending)
        return tensor.insert_slice(order, out, dyn_off, dyn_sz, [], st_off, st_sz, [1] * rank)

    def nest(level, coords, out):
        if level == len(others):
            return row(coords, out)
        loop = scf.ForOp(index(0), as_index(sizes[others[level]]), index(1), [out])
        with ir.InsertionPoint(loop.body):
            scf.YieldOp([nest(level + 1, coords + [loop.induction_variable],
                              loop.inner_iter_args[0])])
        return loop.results[0]

    return nest(0, [], empty(sizes, i32))
