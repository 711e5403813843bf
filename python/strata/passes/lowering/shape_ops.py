"""strata shape ops and constants -> tensor dialect ops and linalg.transpose.

    reshape        -> tensor.collapse_shape / tensor.expand_shape (a direct regrouping when
                      one exists, else collapse to 1-D and expand)
    transpose      -> linalg.transpose
    broadcast_to   -> linalg.broadcast when only leading dims are added, else a linalg.generic
    concat         -> tensor.empty + one tensor.insert_slice per input
    slice          -> tensor.extract_slice
    gather         -> a linalg.generic over the result with no inputs: each element reads
                      its index (tensor.extract at the axis' loop indices, so that MLIR's
                      vectorizer sees it fixed along the last loop and loads picked rows
                      contiguously), wraps and clamps it, and extracts the input there;
                      several static index dims are gathered as one flat list:

        %r = "strata.gather"(%t, %ids) {axis = 0} : (tensor<50x8xf32>, tensor<2x3xi32>) -> tensor<2x3x8xf32>
      =>
        %flat = tensor.collapse_shape %ids [[0, 1]] : tensor<2x3xi32> into tensor<6xi32>
        %g = linalg.generic {maps = [(p, k) -> (p, k)]} outs(tensor.empty() : tensor<6x8xf32>) {
        ^bb0(%out: f32):
          %id = tensor.extract %flat[linalg.index 0]
          %n = (%id < 0 ? %id + 50 : %id) clamped to [0, 49], as index
          %v = tensor.extract %t[%n, linalg.index 1]
          linalg.yield %v
        }
        %r = tensor.expand_shape %g [[0, 1], [2]] : tensor<6x8xf32> into tensor<2x3x8xf32>
    constant       -> arith.constant
"""

from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, tensor

from ..linalg_ops import linalg
from .common import (
    DYN,
    LoweringError,
    collapse,
    dim,
    dims,
    empty,
    expand,
    fill,
    generic,
    mixed,
    rtype,
    scalar,
)
from .elementwise import lower_broadcast_to as _generic_broadcast


def _regroup(src, dst):
    """Groups of consecutive ``src`` dims whose products are the ``dst`` dims, or None."""
    groups, i = [], 0
    for size in dst:
        if i >= len(src):
            return None
        group, prod = [i], src[i]
        i += 1
        while prod < size and i < len(src):
            prod *= src[i]
            group.append(i)
            i += 1
        if prod != size:
            return None
        groups.append(group)
    while i < len(src):  # trailing unit dims join the last group
        if src[i] != 1 or not groups:
            return None
        groups[-1].append(i)
        i += 1
    return groups


def lower_reshape(op):
    x = op.operands[0]
    src, dst = rtype(x), rtype(op.result)
    if src.rank == 0 or dst.rank == 0:
        if src.rank == 0 and dst.rank == 0:
            return x
        if src.rank == 0:
            return expand(x, [], [1] * dst.rank)
        return collapse(x, [], [])
    if src.has_static_shape and dst.has_static_shape:
        s, t = list(src.shape), list(dst.shape)
        if len(t) < len(s):
            groups = _regroup(s, t)
            if groups is not None:
                return collapse(x, groups, t)
        elif len(t) > len(s):
            groups = _regroup(t, s)
            if groups is not None:
                return expand(x, groups, t)
        elif s == t:
            return x
        n = 1
        for v in s:
            n *= v
        flat = collapse(x, [list(range(len(s)))], [n])
        return expand(flat, [list(range(len(t)))], t)
    if any(not src.is_dynamic_dim(i) and src.get_dim_size(i) == 0 for i in range(src.rank)):
        # No elements (a dynamic dim of the result is then 0: the front end refuses an
        # ambiguous -1). Not collapsed: bufferization folds the collapse of a static 0 and
        # a dynamic dim to a static 0, which memref.collapse_shape rejects.
        zero = arith.constant(ir.IndexType.get(), 0)
        return empty_result([zero if dst.is_dynamic_dim(i) else dst.get_dim_size(i)
                             for i in range(dst.rank)], dst.element_type)
    dyn = [i for i in range(dst.rank) if dst.is_dynamic_dim(i)]
    if not dyn:  # dynamic source, static result: flatten, cast to the static size, expand
        n = 1
        for v in dst.shape:
            n *= v
        flat = collapse(x, [list(range(src.rank))], [DYN])
        flat = tensor.cast(ir.RankedTensorType.get([n], dst.element_type), flat)
        return flat if dst.rank == 1 else expand(flat, [list(range(dst.rank))], list(dst.shape))
    if len(dyn) != 1:
        raise LoweringError("reshape to a shape with more than one dynamic dim is not supported")
    total = None
    for v in dims(x):
        v = arith.constant(ir.IndexType.get(), v) if isinstance(v, int) else v
        total = v if total is None else arith.muli(total, v)
    known = 1
    for i in range(dst.rank):
        if i not in dyn:
            known *= dst.get_dim_size(i)
    missing = arith.divui(total, arith.constant(ir.IndexType.get(), known))
    flat = collapse(x, [list(range(src.rank))], [DYN])
    sizes = [missing if i in dyn else dst.get_dim_size(i) for i in range(dst.rank)]
    return expand(flat, [list(range(dst.rank))], sizes)


def lower_transpose(op):
    x = op.operands[0]
    perm = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
    sizes = dims(x)
    init = empty([sizes[p] for p in perm], rtype(x).element_type)
    return linalg.transpose(x, outs=[init], permutation=perm).results[0]


def lower_broadcast_to(op):
    x = op.operands[0]
    src, dst = rtype(x), rtype(op.result)
    lead = dst.rank - src.rank
    stretched = any(not src.is_dynamic_dim(i) and src.get_dim_size(i) == 1 and
                    (dst.is_dynamic_dim(lead + i) or dst.get_dim_size(lead + i) != 1)
                    for i in range(src.rank))
    if stretched or any(dst.is_dynamic_dim(i) for i in range(lead)):
        return _generic_broadcast(op)
    sizes = [dst.get_dim_size(i) if i < lead else dim(x, i - lead) for i in range(dst.rank)]
    init = empty(sizes, dst.element_type)
    return linalg.broadcast(x, outs=[init], dimensions=list(range(lead))).results[0]


def absorbed_concat(op) -> bool:
    """A concat that is the lhs of its only user, a concat along the same axis.

    strata.concat is binary; a chain ``concat(concat(a, b), c)`` lowers as one
    concat of ``a, b, c``, so the inner op is skipped and absorbed by the outer.
    """
    users = list(op.results[0].uses)
    if len(users) != 1:
        return False
    user = users[0].owner
    user = user.operation if hasattr(user, "operation") else user
    return (user.name == "strata.concat" and user.operands[0] == op.results[0] and
            ir.IntegerAttr(user.attributes["axis"]).value ==
            ir.IntegerAttr(op.attributes["axis"]).value)


def _concat_inputs(op):
    lhs = op.operands[0].owner
    lhs = lhs.operation if hasattr(lhs, "operation") else None
    if lhs is not None and lhs.name == "strata.concat" and absorbed_concat(lhs):
        return _concat_inputs(lhs) + [op.operands[1]]
    return list(op.operands)


def lower_concat(op):
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    inputs = _concat_inputs(op)
    rank = rtype(inputs[0]).rank
    axis %= rank
    result = rtype(op.result)
    sizes = []
    for i in range(rank):
        if i == axis:
            total = None
            for v in inputs:
                s = dim(v, axis)
                s = arith.constant(ir.IndexType.get(), s) if isinstance(s, int) else s
                total = s if total is None else arith.addi(total, s)
            sizes.append(result.get_dim_size(i) if not result.is_dynamic_dim(i) else total)
        else:
            sizes.append(result.get_dim_size(i) if not result.is_dynamic_dim(i) else
                         next(dim(v, i) for v in inputs if rtype(v).is_dynamic_dim(i)))
    if 0 in sizes:  # no element to insert (and tensor.insert_slice rejects offsets there)
        return empty_result(sizes, result.element_type)
    out = empty(sizes, result.element_type)
    offset = 0
    for v in inputs:
        t = rtype(v)
        if not t.is_dynamic_dim(axis) and t.get_dim_size(axis) == 0:
            continue  # nothing to insert (and its offset may be the result's size)
        offsets = [0] * rank
        offsets[axis] = offset
        dyn_off, st_off = mixed(offsets)
        dyn_sz, st_sz = mixed(dims(v))
        out = tensor.insert_slice(v, out, dyn_off, dyn_sz, [], st_off, st_sz, [1] * rank)
        step = dim(v, axis)
        if isinstance(offset, int) and isinstance(step, int):
            offset += step
        else:
            a = arith.constant(ir.IndexType.get(), offset) if isinstance(offset, int) else offset
            b = arith.constant(ir.IndexType.get(), step) if isinstance(step, int) else step
            offset = arith.addi(a, b)
    return out


def empty_result(sizes, elem):
    """An op's result with no elements: a filled tensor.empty, not a bare one.

    A bare tensor.empty has undefined contents, so bufferization may give it the
    buffer another result writes in place into (CSE merges equal tensor.empty ops);
    the function then returns one buffer twice, and buffer-results-to-out-params
    crashes on that. The fill (of nothing) makes the contents defined.
    """
    return fill(scalar(elem, 0), empty(sizes, elem))


def lower_slice(op):
    x = op.operands[0]
    starts = list(ir.DenseI64ArrayAttr(op.attributes["starts"]))
    steps = list(ir.DenseI64ArrayAttr(op.attributes["steps"]))
    result = rtype(op.result)
    sizes = list(result.shape)
    if 0 in sizes:
        # An empty slice (numpy's x[n:] of a size-n dim) has no element to read; its start
        # may be the dim's size, which tensor.extract_slice rejects as out of bounds.
        return empty_result(sizes, result.element_type)
    return tensor.extract_slice(result, x, [], [], [], starts, sizes, steps)


def lower_constant(op):
    return arith.constant(op.result.type, op.attributes["value"])


def lower_gather(op):
    x, ids = op.operands[0], op.operands[1]
    xt, it, result = rtype(x), rtype(ids), rtype(op.result)
    axis = ir.IntegerAttr(op.attributes["axis"]).value % xt.rank
    k = it.rank
    if k > 1 and it.has_static_shape:
        # several index dims: gathered as one (a flat index list), the result expanded
        # back; the gather generic then reads its index with one coordinate (MLIR's
        # vectorizer mis-types the mask of a contiguous load otherwise)
        count = int(np.prod(it.shape))
        flat_ids = collapse(ids, [list(range(k))], [count])
        flat_sizes = [dim(x, i) if xt.is_dynamic_dim(i) else xt.get_dim_size(i)
                      for i in range(xt.rank)]
        flat_sizes[axis] = count
        flat_type = ir.RankedTensorType.get(
            [s if isinstance(s, int) else DYN for s in flat_sizes], result.element_type)
        flat = _gather(x, flat_ids, axis, flat_type, flat_sizes)
        groups = [[i] for i in range(axis)] + [list(range(axis, axis + k))] + \
            [[axis + k + i] for i in range(xt.rank - axis - 1)]
        out_sizes = flat_sizes[:axis] + list(it.shape) + flat_sizes[axis + 1:]
        return expand(flat, groups, out_sizes)
    sizes = []
    for i in range(result.rank):  # input dims before the axis, the indices', the rest
        if not result.is_dynamic_dim(i):
            sizes.append(result.get_dim_size(i))
        elif i < axis:
            sizes.append(dim(x, i))
        elif i < axis + k:
            sizes.append(dim(ids, i - axis))
        else:
            sizes.append(dim(x, i - k + 1))
    return _gather(x, ids, axis, result, sizes)


def _gather(x, ids, axis, result, sizes):
    """The gather generic: ``result[..., p..., ...] = x[..., clamp(ids[p...]), ...]``."""
    xt, it = rtype(x), rtype(ids)
    k = it.rank
    init = empty(sizes, result.element_type)
    index_type = ir.IndexType.get()
    i32 = it.element_type
    n = dim(x, axis)

    def body(_out):
        # the index read inside the body, not as an input: its coordinates are the
        # output's leading loops, so MLIR's vectorizer sees it invariant along the last
        # one and loads the picked row contiguously (a block argument is never invariant)
        i = tensor.extract(ids, [linalg.IndexOp(axis + j).result for j in range(k)])
        size = (arith.constant(i32, n) if isinstance(n, int) else
                arith.index_cast(i32, n))
        zero = arith.constant(i32, 0)
        wrapped = arith.select(arith.cmpi(arith.CmpIPredicate.slt, i, zero),
                               arith.addi(i, size), i)
        last = arith.subi(size, arith.constant(i32, 1))
        clamped = arith.minsi(arith.maxsi(wrapped, zero), last)
        coords = []
        for j in range(xt.rank):
            if j == axis:
                coords.append(arith.index_cast(index_type, clamped))
            else:
                coords.append(linalg.IndexOp(j if j < axis else j + k - 1).result)
        return tensor.extract(x, coords)

    return generic([], [init], [ir.AffineMap.get_identity(result.rank)],
                   ["parallel"] * result.rank, body)[0]
