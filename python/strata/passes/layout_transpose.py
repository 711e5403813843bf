"""strata-layout rule 1: fold, push and cancel ``linalg.transpose`` ops.

Rewrites, as ``mlir.rewrite`` patterns applied by upstream's greedy driver until
none matches, on the ops of each function's entry block:

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
is read is not pushed through. Dead ops of the function (any dialect, without
effects) are erased on the way by the greedy driver.
"""

from __future__ import annotations

from mlir import ir

from .layout_common import (
    build_generic,
    compose,
    constant_array,
    fold_constant,
    inverse,
    is_identity,
    is_op,
    perm_of,
    producer,
    reads_loop_indices,
    reorder_map,
    rtype,
    substitute_map,
)
from .linalg_ops import linalg
from .patterns import apply_greedily

__all__ = ["propagate_transposes", "fold_constant_transposes"]

_CONTRACTIONS = ("linalg.matmul", "linalg.batch_matmul")
_MAX_SWEEPS = 100  # the greedy driver's bound; each sweep rewrites until its worklist is empty


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


def _in_entry_block(op) -> bool:
    parent = op.operation.parent
    return parent is not None and parent.name == "func.func"


# Patterns: fn(op, rewriter) -> True when it rewrote op (see patterns.py). Each
# looks at ops of the function's entry block only.

def _fold_constant_transpose(op, rewriter) -> bool:
    """``transpose(constant)`` -> the constant transposed with numpy."""
    if not _in_entry_block(op):
        return False
    x, perm = op.operands[0], perm_of(op)
    if constant_array(x)[0] is None:
        return False
    shape = list(rtype(op.results[0]).shape)
    new = fold_constant(x, lambda a: a.transpose(perm), shape, rewriter.ip, op.location)
    rewriter.replace_op(op, [new])
    return True


def _fold_transpose(op, rewriter) -> bool:
    """Identity transposes, transpose pairs and transposes of fills."""
    if not _in_entry_block(op):
        return False
    x, perm = op.operands[0], perm_of(op)
    if is_identity(perm):
        rewriter.replace_op(op, [x])
        return True
    src = producer(x)
    if src is not None and src.operation.name == "linalg.transpose":
        total = compose(perm_of(src), perm)
        if is_identity(total):
            rewriter.replace_op(op, [src.operands[0]])
        else:  # in place: the driver sweeps again after a success
            op.operands[0] = src.operands[0]
            op.attributes["permutation"] = ir.DenseI64ArrayAttr.get(total)
        return True
    if src is not None and src.operation.name == "linalg.fill" and is_op(
            src.operands[1], "tensor.empty"):
        with rewriter.ip, op.location:
            new = linalg.fill(src.operands[0], outs=[op.operands[1]])
        rewriter.replace_op(op, [new])
        return True
    return False


def _fold_into_reader(contraction: bool):
    """A transposed input of a generic (or of a matmul / batch_matmul) read through a
    reordered indexing map instead."""
    def pattern(op, rewriter) -> bool:
        if not _in_entry_block(op):
            return False
        maps = _maps(op)
        changed = False
        for i in range(_n_inputs(op)):
            t = producer(op.operands[i])
            if t is None or t.operation.name != "linalg.transpose":
                continue
            perm = perm_of(t)
            if contraction:
                r = len(perm)
                if perm != list(range(r - 2)) + [r - 1, r - 2]:
                    continue  # contractions only take transposed matrix operands
                if constant_array(t.operands[0])[0] is not None:
                    continue  # folded at compile time instead
            maps[i] = reorder_map(maps[i], perm)
            op.operands[i] = t.operands[0]  # in place, as above
            changed = True
        if changed:
            _set_maps(op, maps)
        return changed

    return pattern


def _reduce_of_transpose(op, rewriter) -> bool:
    """``linalg.reduce(transpose(x, p))`` -> a generic reading ``x`` through a permuted map."""
    if not _in_entry_block(op) or _n_inputs(op) != 1:
        return False
    t = producer(op.operands[0])
    if t is None or t.operation.name != "linalg.transpose":
        return False
    x, perm = t.operands[0], perm_of(t)
    rank = len(perm)
    dims = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
    in_map = reorder_map(ir.AffineMap.get_identity(rank), perm)
    out_map = ir.AffineMap.get(rank, 0, [ir.AffineDimExpr.get(i) for i in range(rank)
                                         if i not in dims])
    iters = ["reduction" if i in dims else "parallel" for i in range(rank)]
    new = build_generic(op, [x], [op.operands[1]], [in_map, out_map], iters,
                        [op.results[0].type], rewriter.ip, op.location)
    rewriter.replace_op(op, new)
    return True


def _push_into_producer(t, rewriter) -> bool:
    """``transpose(generic(...), p)`` -> a generic computing the transposed result."""
    if not _in_entry_block(t):
        return False
    g = producer(t.operands[0])
    if g is None or g.operation.name != "linalg.generic" or len(g.results) != 1:
        return False
    if len(list(g.results[0].uses)) != 1 or not _out_arg_unused(g):
        return False
    if reads_loop_indices(g):  # linalg.index would read the permuted loops
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
                        ["parallel"] * rank, [t.results[0].type], rewriter.ip, g.location)
    rewriter.replace_op(t, new)
    rewriter.erase_op(g.operation)
    return True


def fold_constant_transposes(func) -> None:
    """``transpose(constant)`` -> constant folded with numpy, in ``func``'s entry block."""
    apply_greedily(func, [("linalg.transpose", _fold_constant_transpose)])


def propagate_transposes(func, fold_matmul: bool = True) -> None:
    """Applies the rewrites above until none applies; dead ops go on the way."""
    patterns = [("linalg.transpose", _fold_transpose, 3),
                ("linalg.transpose", _fold_constant_transpose, 2),
                ("linalg.transpose", _push_into_producer, 1),
                ("linalg.generic", _fold_into_reader(contraction=False)),
                ("linalg.reduce", _reduce_of_transpose)]
    if fold_matmul:
        patterns += [(name, _fold_into_reader(contraction=True)) for name in _CONTRACTIONS]
    apply_greedily(func, patterns, max_iterations=_MAX_SWEEPS)
