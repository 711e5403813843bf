"""Merging an elementwise producer linalg.generic into a consumer linalg.generic.

    %p = linalg.generic {maps = [(i, j) -> (j), (i, j) -> (i, j)]} ins(%b) { f(b) }
    %c = linalg.generic {maps = [(i, j) -> (i, j), (i, j) -> (i, j), ...]} ins(%a, %p) { g(a, p) }
  =>
    %c = linalg.generic {maps = [(i, j) -> (i, j), (i, j) -> (j), ...]} ins(%a, %b) { g(a, f(b)) }

The producer must have only parallel loops, one result with a permutation
output map, and a body that does not read its output. Each producer input's
map is composed with the consumer's map of the fused operand.
"""

from __future__ import annotations

from mlir import ir

from ..layout_common import indexing_maps
from ..linalg_ops import linalg

__all__ = ["is_elementwise_producer", "merge_into"]


def _iterators(op):
    return [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]


def n_inputs(op) -> int:
    return len(op.operands) - len(op.results)


def is_elementwise_producer(op) -> bool:
    if op.name != "linalg.generic" or len(op.results) != 1:
        return False
    if any("parallel" not in it for it in _iterators(op)):
        return False
    out_map = indexing_maps(op)[-1]
    if not out_map.is_permutation or out_map != ir.AffineMap.get_identity(out_map.n_dims):
        return False
    block = op.regions[0].blocks[0]
    return len(list(block.arguments[-1].uses)) == 0


def _clone_body(src_block, dst_block, mapping):
    """Clones ``src_block``'s ops (but the terminator) into ``dst_block``; returns the yields."""
    yielded = None
    for inner in src_block.operations:
        inner = inner.operation
        if inner.name == "linalg.yield":
            yielded = [mapping.get(v, v) for v in inner.operands]
            continue
        with ir.InsertionPoint(dst_block):
            new = inner.clone().operation
        for v in list(new.operands):
            if v in mapping:
                new.replace_uses_of_with(v, mapping[v])
        for old_r, new_r in zip(inner.results, new.results, strict=True):
            mapping[old_r] = new_r
    return yielded


def merge_into(producer, consumer):
    """Builds the fused generic before ``consumer`` and returns it (nothing is erased)."""
    p_result = producer.results[0]
    c_maps = indexing_maps(consumer)
    c_nin = n_inputs(consumer)
    c_ins = list(consumer.operands)[:c_nin]
    c_outs = list(consumer.operands)[c_nin:]
    fused_positions = [i for i, v in enumerate(c_ins) if v == p_result]
    fused_map = c_maps[fused_positions[0]]
    kept = [i for i in range(c_nin) if i not in fused_positions]
    p_maps = indexing_maps(producer)
    p_nin = n_inputs(producer)
    p_ins = list(producer.operands)[:p_nin]
    n_loops = fused_map.n_dims
    composed = [ir.AffineMap.get(n_loops, 0, [e.compose(fused_map) for e in m.results])
                for m in p_maps[:p_nin]]
    new_ins = [c_ins[i] for i in kept] + p_ins
    new_maps = [c_maps[i] for i in kept] + composed + c_maps[c_nin:]
    with consumer.location, ir.InsertionPoint(consumer):
        fused = linalg.GenericOp(
            [r.type for r in consumer.results], new_ins, c_outs,
            ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in new_maps]),
            consumer.attributes["iterator_types"])
        elem = [ir.RankedTensorType(v.type).element_type for v in new_ins + c_outs]
        block = fused.regions[0].blocks.append(*elem)
    args = list(block.arguments)
    p_block = producer.regions[0].blocks[0]
    c_block = consumer.regions[0].blocks[0]
    mapping = {}
    for i, a in enumerate(list(p_block.arguments)[:p_nin]):
        mapping[a] = args[len(kept) + i]
    with consumer.location:
        p_value = _clone_body(p_block, block, mapping)[0]
    c_args = list(c_block.arguments)
    for j, i in enumerate(kept):
        mapping[c_args[i]] = args[j]
    for i in fused_positions:
        mapping[c_args[i]] = p_value
    for k in range(len(c_outs)):
        mapping[c_args[c_nin + k]] = args[len(new_ins) + k]
    with consumer.location:
        yields = _clone_body(c_block, block, mapping)
        with ir.InsertionPoint(block):
            linalg.YieldOp(yields)
    return fused.operation


def same_fused_maps(producer, consumer) -> bool:
    p_result = producer.results[0]
    c_maps = indexing_maps(consumer)
    maps = {str(c_maps[i]) for i, v in enumerate(list(consumer.operands)[:n_inputs(consumer)])
            if v == p_result}
    if len(maps) != 1:
        return False
    if not _loops_stay_sized(producer, consumer):
        return False
    # a body that reads its loop indices (linalg.index: a gather) keeps them only when
    # the consumer's loops are the producer's
    if _reads_indices(producer):
        (text,) = maps
        identity = ir.AffineMap.get_identity(len(_iterators(producer)))
        return text == str(identity) and len(_iterators(consumer)) == len(_iterators(producer))
    return True


def _loops_stay_sized(producer, consumer) -> bool:
    """Every loop of the merged op is still read by some operand, which gives its size: a
    gather (no inputs) merged into a reduction over its rows (argmax) would leave the
    reduced loop sized by nothing ('invalid indexing maps are non-invertible')."""
    p_result = producer.results[0]
    c_maps = indexing_maps(consumer)
    c_nin = n_inputs(consumer)
    fused = [i for i, v in enumerate(list(consumer.operands)[:c_nin]) if v == p_result]
    maps = [m for i, m in enumerate(c_maps) if i not in fused]
    composed = [ir.AffineMap.get(c_maps[fused[0]].n_dims, 0,
                                 [e.compose(c_maps[fused[0]]) for e in m.results])
                for m in indexing_maps(producer)[:n_inputs(producer)]]
    used = set()
    for m in maps + composed:
        for e in m.results:
            if isinstance(e, ir.AffineDimExpr):
                used.add(e.position)
    return used >= set(range(c_maps[fused[0]].n_dims))


def _reads_indices(op) -> bool:
    return any(inner.operation.name == "linalg.index"
               for inner in op.regions[0].blocks[0].operations)
