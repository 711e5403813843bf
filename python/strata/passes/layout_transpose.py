"""strata-layout rule 1: fold, push and cancel ``linalg.transpose`` ops.

Rewrites, applied to a fixpoint on each function's entry block:

    transpose(transpose(x, p), q)          -> transpose(x, p∘q), or x when p∘q is the identity
    transpose(arith.constant)              -> arith.constant (numpy transposes the data)
    transpose(linalg.fill(c, empty))       -> linalg.fill(c, empty) of the transposed shape
    generic(..., transpose(x, p), ...)     -> generic(..., x, ...) with that operand's map
                                              reordered (any generic: elementwise or reduction)
    linalg.matmul / batch_matmul(transpose(x), ...)
                                           -> the same op with explicit indexing_maps
    linalg.reduce(transpose(x, p))         -> linalg.generic reading x through a permuted map
    transpose(generic(...), p)             -> generic computing the transposed result directly
                                              (all-parallel generic with one use, output arg
                                              unused in the body)

so ``transpose -> elementwise -> inverse transpose`` becomes one elementwise op on
``x``. A sketch:

    %t = linalg.transpose ins(%x : tensor<8x4xf32>) outs(%e) permutation = [1, 0]
    %r = linalg.generic {maps = [id, id]} ins(%t) outs(%e2) { relu }
    %u = linalg.transpose ins(%r) outs(%e3) permutation = [1, 0]
  =>
    %u = linalg.generic {maps = [id, id]} ins(%x) outs(%e3) { relu }

Limits: only ops in the function's entry block; transposes feeding other ops
(convolutions, tensor ops, returns) stay; a generic whose output block argument
is read is not pushed through.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import linalg

from .layout_common import (
    build_generic,
    compose,
    constant_array,
    fold_constant,
    inverse,
    is_identity,
    is_op,
    ops_in,
    perm_of,
    producer,
    reorder_map,
    rtype,
    substitute_map,
)

__all__ = ["propagate_transposes", "fold_constant_transposes"]

_CONTRACTIONS = ("linalg.matmul", "linalg.batch_matmul")


def _default_contraction_maps(op):
    d = ir.AffineDimExpr.get
    if op.operation.name == "linalg.matmul":
        m, n, k = d(0), d(1), d(2)
        return [ir.AffineMap.get(3, 0, e) for e in ([m, k], [k, n], [m, n])]
    b, m, n, k = d(0), d(1), d(2), d(3)
    return [ir.AffineMap.get(4, 0, e) for e in ([b, m, k], [b, k, n], [b, m, n])]


def _maps(op):
    if "indexing_maps" not in op.attributes:
        return _default_contraction_maps(op)
    return [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]


def _set_maps(op, maps):
    op.attributes["indexing_maps"] = ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps])


def _iterators(op):
    kinds = ir.ArrayAttr(op.attributes["iterator_types"])
    return [str(a).split("<")[-1].rstrip(">") for a in kinds]


def _n_inputs(op):
    return len(op.operands) - len(op.results)


def _out_arg_unused(op):
    block = op.regions[0].blocks[0]
    return all(not list(a.uses) for a in list(block.arguments)[_n_inputs(op):])


def fold_constant_transposes(func) -> int:
    """``transpose(constant)`` -> constant folded with numpy. Returns how many were folded."""
    n = 0
    for op in ops_in(func):
        if op.operation.name != "linalg.transpose":
            continue
        x, perm = op.operands[0], perm_of(op)
        array, _ = constant_array(x)
        if array is None:
            continue
        shape = list(rtype(op.results[0]).shape)
        new = fold_constant(x, lambda a, perm=perm: a.transpose(perm), shape,
                            ir.InsertionPoint(op), op.location)
        op.results[0].replace_all_uses_with(new)
        op.operation.erase()
        n += 1
    return n


def _step(func, fold_matmul) -> bool:
    for op in ops_in(func):
        name = op.operation.name
        if name == "linalg.transpose":
            x, perm = op.operands[0], perm_of(op)
            src = producer(x)
            if not list(op.results[0].uses):
                op.operation.erase()
                return True
            if is_identity(perm):
                op.results[0].replace_all_uses_with(x)
                op.operation.erase()
                return True
            if src is not None and src.operation.name == "linalg.transpose":
                total = compose(perm_of(src), perm)
                if is_identity(total):
                    op.results[0].replace_all_uses_with(src.operands[0])
                    op.operation.erase()
                else:
                    op.operands[0] = src.operands[0]
                    op.attributes["permutation"] = ir.DenseI64ArrayAttr.get(total)
                return True
            if src is not None and src.operation.name == "linalg.fill" and is_op(
                    src.operands[1], "tensor.empty"):
                with ir.InsertionPoint(op), op.location:
                    new = linalg.fill(src.operands[0], outs=[op.operands[1]])
                op.results[0].replace_all_uses_with(new)
                op.operation.erase()
                return True
            if constant_array(x)[0] is not None:
                fold_constant_transposes(func)
                return True
            if _push_into_producer(op):
                return True
            continue
        if name == "linalg.generic" or (fold_matmul and name in _CONTRACTIONS):
            maps = _maps(op)
            for i in range(_n_inputs(op)):
                v = op.operands[i]
                t = producer(v)
                if t is None or t.operation.name != "linalg.transpose":
                    continue
                if name in _CONTRACTIONS:
                    perm, r = perm_of(t), len(perm_of(t))
                    if perm != list(range(r - 2)) + [r - 1, r - 2]:
                        continue  # contractions only take transposed matrix operands
                    if constant_array(t.operands[0])[0] is not None:
                        continue  # folded at compile time instead
                maps[i] = reorder_map(maps[i], perm_of(t))
                op.operands[i] = t.operands[0]
                _set_maps(op, maps)
                return True
        if name == "linalg.reduce" and _n_inputs(op) == 1:
            t = producer(op.operands[0])
            if t is not None and t.operation.name == "linalg.transpose":
                _reduce_to_generic(op, t)
                return True
    return False


def _push_into_producer(t) -> bool:
    g = producer(t.operands[0])
    if g is None or g.operation.name != "linalg.generic" or len(g.results) != 1:
        return False
    if len(list(g.results[0].uses)) != 1 or not _out_arg_unused(g):
        return False
    if any(k != "parallel" for k in _iterators(g)):
        return False
    maps = _maps(g)
    rank = rtype(g.results[0]).rank
    if maps[-1] != ir.AffineMap.get_identity(rank):
        return False
    old_in_new = inverse(perm_of(t))
    n_in = _n_inputs(g)
    new_maps = [substitute_map(m, old_in_new) for m in maps[:n_in]]
    new_maps.append(ir.AffineMap.get_identity(rank))
    new = build_generic(g, list(g.operands)[:n_in], [t.operands[1]], new_maps,
                        ["parallel"] * rank, [t.results[0].type], ir.InsertionPoint(t),
                        g.location)
    t.results[0].replace_all_uses_with(new.results[0])
    t.operation.erase()
    g.operation.erase()
    return True


def _reduce_to_generic(red, t):
    x, perm = t.operands[0], perm_of(t)
    rank = len(perm)
    dims = list(ir.DenseI64ArrayAttr(red.attributes["dimensions"]))
    in_map = reorder_map(ir.AffineMap.get_identity(rank), perm)
    out_map = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(i) for i in range(rank)
                                         if i not in dims])
    iters = ["reduction" if i in dims else "parallel" for i in range(rank)]
    new = build_generic(red, [x], [red.operands[1]], [in_map, out_map], iters,
                        [red.results[0].type], ir.InsertionPoint(red), red.location)
    red.results[0].replace_all_uses_with(new.results[0])
    red.operation.erase()


def propagate_transposes(func, fold_matmul: bool = True) -> None:
    """Applies the rewrites above until none applies (dead transposes are left for DCE)."""
    for _ in range(10000):
        if not _step(func, fold_matmul):
            return
