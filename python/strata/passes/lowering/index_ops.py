"""strata-to-linalg lowerings of cumsum, reverse, pad, scatter and scatter_add.

    cumsum       -> an scf.for over the scanned axis carrying the running sum (one slice
                    of the other dims, f32 for f16/bf16) and the result; each step is
                    one linalg.generic over the other dims (linear in the input's size).
                    Along the last axis: loops over the rows, each carrying a scalar sum
                    along its contiguous elements (tensor.extract / tensor.insert).

        %r = "strata.cumsum"(%x) {axis = 1} : (tensor<4x9xf32>) -> tensor<4x9xf32>
      =>
        %acc0 = linalg.fill 0.0 -> tensor<4x1xf32>
        %r:2 = scf.for %k = 0 to 9 step 1 iter_args(%acc = %acc0, %out = tensor.empty()) {
          %xk = tensor.extract_slice %x[0, %k] [4, 1] [1, 1]
          %ok = tensor.extract_slice %out[0, %k] [4, 1] [1, 1]
          %s:2 = linalg.generic ins(%xk) outs(%acc, %ok) { %a + %x -> (%a', %a' rounded) }
          %o = tensor.insert_slice %s#1 into %out[0, %k] [4, 1] [1, 1]
          scf.yield %s#0, %o
        }

    reverse      -> a linalg.generic over the result whose body reads the input with
                    tensor.extract at the mirrored coordinates (n - 1 - i on each axis)
    pad          -> linalg.fill of the pad value + tensor.insert_slice of the input
    scatter(_add)-> scf.for loops over the indices carrying the result (a linalg.copy of
                    the input: the loops write in place); each step reads one index and one update and writes one
                    element (tensor.extract / tensor.insert). An index out of range after
                    wrapping writes the old value back to a clamped position (a no-op).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf, tensor

from ..linalg_ops import linalg
from .common import (
    as_index,
    compute_type,
    convert,
    dim,
    dims,
    empty,
    filled,
    generic,
    index,
    is_float,
    mixed,
    rtype,
    scalar,
)
from .shape_ops import empty_result

__all__ = ["lower_cumsum", "lower_reverse", "lower_pad", "lower_scatter"]


def _axis(op, rank):
    return ir.IntegerAttr(op.attributes["axis"]).value % rank


def _add(a, b):
    return arith.addf(a, b) if is_float(a.type) else arith.addi(a, b)


def _has_no_elements(t):
    return any(not t.is_dynamic_dim(i) and t.get_dim_size(i) == 0 for i in range(t.rank))


def lower_cumsum(op):
    x = op.operands[0]
    xt = rtype(x)
    elem = xt.element_type
    if _has_no_elements(xt):
        return empty_result(list(xt.shape), elem)
    rank = xt.rank
    axis = _axis(op, rank)
    acc_elem = compute_type(elem)
    sizes = dims(x)
    if axis == rank - 1:
        return _cumsum_rows(x, sizes, elem, acc_elem)
    slice_sizes = [1 if i == axis else s for i, s in enumerate(sizes)]
    dyn_sz, st_sz = mixed(slice_sizes)
    acc0 = filled(slice_sizes, acc_elem, 0)
    out0 = empty(sizes, elem)
    ident = ir.AffineMap.get_identity(rank)
    loop = scf.ForOp(index(0), as_index(sizes[axis]), index(1), [acc0, out0])
    with ir.InsertionPoint(loop.body):
        k = loop.induction_variable
        acc, out = loop.inner_iter_args
        offsets = [k if i == axis else 0 for i in range(rank)]
        dyn_off, st_off = mixed(offsets)
        slice_type = ir.RankedTensorType.get(st_sz, elem)
        xk = tensor.extract_slice(slice_type, x, dyn_off, dyn_sz, [], st_off, st_sz, [1] * rank)
        ok = tensor.extract_slice(slice_type, out, dyn_off, dyn_sz, [], st_off, st_sz,
                                  [1] * rank)

        def body(xv, a, _o):
            s = _add(a, convert(xv, acc_elem))
            return [s, convert(s, elem)]

        new_acc, new_ok = generic([xk], [acc, ok], [ident] * 3, ["parallel"] * rank, body)
        new_out = tensor.insert_slice(new_ok, out, dyn_off, dyn_sz, [], st_off, st_sz,
                                      [1] * rank)
        scf.YieldOp([new_acc, new_out])
    return loop.results[1]


def _cumsum_rows(x, sizes, elem, acc_elem):
    """A scan along the last axis: loops over the rows, each an scf.for carrying a scalar
    running sum along its contiguous elements (a slice per step would be a strided one)."""
    rank = len(sizes)
    out0 = empty(sizes, elem)

    def nest(level, coords, out):
        if level == rank - 1:
            loop = scf.ForOp(index(0), as_index(sizes[level]), index(1),
                             [scalar(acc_elem, 0), out])
            with ir.InsertionPoint(loop.body):
                acc, cur = loop.inner_iter_args
                at = coords + [loop.induction_variable]
                s = _add(acc, convert(tensor.extract(x, at), acc_elem))
                scf.YieldOp([s, tensor.insert(convert(s, elem), cur, at)])
            return loop.results[1]
        loop = scf.ForOp(index(0), as_index(sizes[level]), index(1), [out])
        with ir.InsertionPoint(loop.body):
            scf.YieldOp([nest(level + 1, coords + [loop.induction_variable],
                              loop.inner_iter_args[0])])
        return loop.results[0]

    return nest(0, [], out0)


def lower_reverse(op):
    x = op.operands[0]
    xt = rtype(x)
    if _has_no_elements(xt):
        return empty_result(list(xt.shape), xt.element_type)
    rank = xt.rank
    axes = {a % rank for a in ir.DenseI64ArrayAttr(op.attributes["axes"])} if rank else set()
    if not axes:
        return x
    sizes = dims(x)
    init = empty(sizes, xt.element_type)

    def body(_out):
        coords = []
        for i in range(rank):
            at = linalg.IndexOp(i).result
            if i in axes:  # n - 1 - i
                last = arith.subi(as_index(sizes[i]), index(1))
                at = arith.subi(last, at)
            coords.append(at)
        return tensor.extract(x, coords)

    return generic([], [init], [ir.AffineMap.get_identity(rank)], ["parallel"] * rank,
                   body)[0]


def lower_pad(op):
    x = op.operands[0]
    xt = rtype(x)
    result = rtype(op.result)
    low = list(ir.DenseI64ArrayAttr(op.attributes["low"]))
    high = list(ir.DenseI64ArrayAttr(op.attributes["high"]))
    value = ir.FloatAttr(op.attributes["pad_value"]).value if "pad_value" in op.attributes \
        else 0.0
    sizes = []
    for i, (lo, hi) in enumerate(zip(low, high, strict=True)):
        s = dim(x, i)
        sizes.append(lo + s + hi if isinstance(s, int) else
                     arith.addi(s, index(lo + hi)) if lo + hi else s)
    elem = result.element_type
    out = filled(sizes, elem, value)
    if _has_no_elements(xt) or _has_no_elements(result):
        return out
    dyn_sz, st_sz = mixed(dims(x))
    return tensor.insert_slice(x, out, [], dyn_sz, [], low, st_sz, [1] * xt.rank)


def lower_scatter(op, accumulate: bool):
    x, ids, upd = op.operands[0], op.operands[1], op.operands[2]
    it = rtype(ids)
    rank = it.rank
    axis = _axis(op, rank)
    i32 = it.element_type
    n = dim(x, axis)
    if _has_no_elements(it) or _has_no_elements(rtype(x)):
        return x if not _has_no_elements(rtype(x)) else empty_result(
            list(rtype(x).shape), rtype(x).element_type)
    bounds = [as_index(s) for s in dims(ids)]

    def nest(level, coords, carried):
        loop = scf.ForOp(index(0), bounds[level], index(1), [carried])
        with ir.InsertionPoint(loop.body):
            here = coords + [loop.induction_variable]
            (current,) = loop.inner_iter_args
            if level + 1 < rank:
                value = nest(level + 1, here, current)
            else:
                value = _scatter_one(current, ids, upd, here, axis, n, i32, accumulate)
            scf.YieldOp([value])
        return loop.results[0]

    # the loops write in place: into a copy (one-shot-bufferize would write into an
    # argument's buffer, which the caller owns)
    copy = linalg.copy(x, outs=[empty(dims(x), rtype(x).element_type)])
    return nest(0, [], copy)


def _scatter_one(out, ids, upd, coords, axis, n, i32, accumulate):
    """One update: ``out`` with the element at ``coords`` (axis coordinate from ``ids``)
    replaced or added to; an out-of-range index writes the old value back."""
    i = tensor.extract(ids, coords)
    size = arith.constant(i32, n) if isinstance(n, int) else arith.index_cast(i32, n)
    zero = arith.constant(i32, 0)
    wrapped = arith.select(arith.cmpi(arith.CmpIPredicate.slt, i, zero), arith.addi(i, size), i)
    inside = arith.andi(arith.cmpi(arith.CmpIPredicate.sge, wrapped, zero),
                        arith.cmpi(arith.CmpIPredicate.slt, wrapped, size))
    last = arith.subi(size, arith.constant(i32, 1))
    clamped = arith.minsi(arith.maxsi(wrapped, zero), last)
    at = list(coords)
    at[axis] = arith.index_cast(ir.IndexType.get(), clamped)
    old = tensor.extract(out, at)
    u = tensor.extract(upd, coords)
    if accumulate:
        ct = compute_type(old.type)
        u = convert(_add(convert(old, ct), convert(u, ct)), old.type)
    new = arith.select(inside, u, old)
    return tensor.insert(new, out, at)

