"""IR helpers shared by the strata-layout rules (transposes, conv layout, matmul packing).

Permutations follow ``linalg.transpose``: ``result.shape[i] == input.shape[perm[i]]``.
Constants are folded with numpy (:func:`fold_constant`), so a layout change of a
weight costs nothing at run time.

Limits: only ``arith.constant`` with a dense f32/f64/i32/i64 (or any splat)
value is folded; other constants keep a run-time op.
"""

from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, tensor

from .linalg_ops import linalg

__all__ = [
    "reads_loop_indices",
    "producer", "is_op", "perm_of", "compose", "inverse", "is_identity", "ops_in", "rtype",
    "transpose", "reorder_map", "substitute_map", "constant_array", "make_constant",
    "fold_constant", "move_body", "build_generic", "count_ops", "empty_like_init",
]

_NUMPY = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}


def rtype(v) -> ir.RankedTensorType:
    return ir.RankedTensorType(v.type)


def producer(v):
    """The op that defines ``v`` (an OpView), or None for a block argument."""
    owner = v.owner
    return None if isinstance(owner, ir.Block) else owner


def indexing_maps(op) -> list[ir.AffineMap]:
    """The ``indexing_maps`` of a linalg op that has them, as AffineMaps."""
    return [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]


def is_op(v, *names) -> bool:
    p = producer(v)
    return p is not None and p.operation.name in names


def perm_of(op) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))


def compose(first, second) -> list[int]:
    """The permutation of ``transpose(transpose(x, first), second)``."""
    return [first[s] for s in second]


def inverse(perm) -> list[int]:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return inv


def is_identity(perm) -> bool:
    return list(perm) == list(range(len(perm)))


def ops_in(func) -> list:
    """The ops of ``func``'s entry block, in order (a snapshot)."""
    return list(func.regions[0].blocks[0].operations)


def transpose(x, perm, ip=None, loc=None):
    """A ``linalg.transpose`` of ``x`` by ``perm`` into a fresh ``tensor.empty``."""
    t = rtype(x)
    with ip or ir.InsertionPoint.current, loc or ir.Location.unknown():
        init = tensor.empty([t.shape[p] for p in perm], t.element_type)
        return linalg.transpose(x, outs=[init], permutation=perm).results[0]


def reorder_map(m: ir.AffineMap, perm) -> ir.AffineMap:
    """The map reading ``x`` where ``m`` read ``transpose(x, perm)``."""
    exprs = list(m.results)
    inv = inverse(perm)
    return ir.AffineMap.get(m.n_dims, m.n_symbols, [exprs[inv[j]] for j in range(len(perm))])


def substitute_map(m: ir.AffineMap, old_in_new) -> ir.AffineMap:
    """``m`` with old loop dim ``j`` replaced by new loop dim ``old_in_new[j]``."""
    sub = ir.AffineMap.get(len(old_in_new), 0, [ir.AffineDimExpr.get(k) for k in old_in_new])
    return ir.AffineMap.get(len(old_in_new), 0, [e.compose(sub) for e in m.results])


def constant_array(v):
    """``(numpy array or None, attr)`` of an ``arith.constant`` tensor, else ``(None, None)``."""
    p = producer(v)
    if p is None or p.operation.name != "arith.constant":
        return None, None
    attr = p.attributes["value"]
    if not isinstance(attr, ir.DenseElementsAttr):
        try:
            attr = ir.DenseElementsAttr(attr)
        except ValueError:
            return None, None
    if attr.is_splat:
        return "splat", attr
    elem = str(rtype(v).element_type)
    if elem not in _NUMPY:
        return None, None
    return np.array(attr, copy=True).astype(_NUMPY[elem]).reshape(rtype(v).shape), attr


def make_constant(array, elem_type, ip=None, loc=None):
    t = ir.RankedTensorType.get(list(array.shape), elem_type)
    with ip or ir.InsertionPoint.current, loc or ir.Location.unknown():
        attr = ir.DenseElementsAttr.get(np.ascontiguousarray(array), type=elem_type,
                                        shape=list(array.shape))
        return arith.constant(t, attr)


def fold_constant(v, fn, new_shape, ip=None, loc=None):
    """A new constant ``fn(array of v)`` of ``new_shape``, or None if ``v`` is not foldable."""
    array, attr = constant_array(v)
    if array is None:
        return None
    elem = rtype(v).element_type
    t = ir.RankedTensorType.get(list(new_shape), elem)
    with ip or ir.InsertionPoint.current, loc or ir.Location.unknown():
        if isinstance(array, str):  # splat: the same value in any layout
            return arith.constant(t, ir.DenseElementsAttr.get_splat(t, attr.get_splat_value()))
    return make_constant(fn(array), elem, ip, loc)


def move_body(old_op, new_op):
    """Moves the single-block region of ``old_op`` into ``new_op`` (same block args)."""
    old_block = old_op.regions[0].blocks[0]
    block = new_op.regions[0].blocks.append(*[a.type for a in old_block.arguments])
    for a, b in zip(old_block.arguments, block.arguments, strict=True):
        a.replace_all_uses_with(b)
    ip = ir.InsertionPoint(block)
    for op in list(old_block.operations):
        op.operation.detach_from_parent()
        ip.insert(op.operation)


def build_generic(old_op, inputs, outputs, maps, iterators, result_types, ip, loc):
    """A ``linalg.generic`` taking ``old_op``'s body (moved, not copied)."""
    with ip, loc:
        new = linalg.GenericOp(
            result_types, inputs, outputs,
            ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
            ir.ArrayAttr.get([ir.Attribute.parse(f"#linalg.iterator_type<{k}>")
                              for k in iterators]))
    move_body(old_op, new)
    return new


def empty_like_init(init, shape, ip, loc):
    """``tensor.empty`` / ``linalg.fill(empty)`` of ``shape`` standing in for ``init``.

    Returns None when ``init`` is neither (its contents then matter)."""
    elem = rtype(init).element_type
    with ip, loc:
        if is_op(init, "tensor.empty"):
            return tensor.empty(list(shape), elem)
        p = producer(init)
        if p is not None and p.operation.name == "linalg.fill" and is_op(p.operands[1],
                                                                         "tensor.empty"):
            return linalg.fill(p.operands[0], outs=[tensor.empty(list(shape), elem)])
    return None


def reads_loop_indices(op) -> bool:
    """Whether a generic's body reads its loop indices (``linalg.index``): such a body
    computes with the iteration space's order, so its loops may not be permuted."""
    def walk(block):
        for inner in block.operations:
            if inner.operation.name == "linalg.index":
                return True
            for region in inner.operation.regions:
                for b in region.blocks:
                    if walk(b):
                        return True
        return False

    return walk(op.regions[0].blocks[0])


def count_ops(func, name) -> int:
    n = 0

    def visit(op):
        nonlocal n
        if op.name == name:
            n += 1
        return ir.WalkResult.ADVANCE

    func.operation.walk(visit)
    return n
