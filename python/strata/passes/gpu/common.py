"""Helpers shared by the GPU passes: IR walks, static loop ranges, tile-size choices."""

from __future__ import annotations

from mlir import ir

__all__ = ["walk", "functions", "enclosing", "inside_kernel", "loop_info", "divisor_at_most",
           "STRATEGY", "set_attr", "drop_attr"]

# Discardable attribute naming the strategy chosen by strata-gpu-map for a (tiled) linalg op.
STRATEGY = "strata.gpu"


def walk(op: ir.Operation, fn) -> None:
    """Pre-order walk (the callback may not erase the op it is given)."""
    fn(op)
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                walk(child.operation, fn)


def collect(op: ir.Operation, pred) -> list:
    found = []
    walk(op, lambda o: found.append(o) if pred(o) else None)
    return found


def functions(module: ir.Operation) -> list:
    return [op.operation for op in module.regions[0].blocks[0].operations
            if op.operation.name == "func.func"]


def enclosing(op: ir.Operation, names) -> ir.Operation | None:
    p = op.parent
    while p is not None:
        if p.name in names:
            return p
        if p.name in ("func.func", "builtin.module"):
            return None
        p = p.parent
    return None


def inside_kernel(op: ir.Operation) -> bool:
    return enclosing(op, ("gpu.launch", "gpu.func")) is not None


def set_attr(op, name, value) -> None:
    op.attributes[name] = value


def drop_attr(op, name) -> None:
    if name in op.attributes:
        del op.attributes[name]


def _shaped(v):
    t = v.type
    if isinstance(t, (ir.RankedTensorType, ir.MemRefType)):
        return ir.ShapedType(t)
    return None


def loop_info(op: ir.Operation):
    """``(ranges, iterators, maps)`` of a linalg.generic / linalg.fill with static shapes.

    ranges: static loop sizes; iterators: "parallel"/"reduction"; maps: one
    AffineMap per operand. Returns None for anything else or dynamic shapes.
    """
    if op.name == "linalg.fill":
        out = _shaped(op.operands[1])
        if out is None or not out.has_static_shape:
            return None
        rank = out.rank
        ident = ir.AffineMap.get_identity(rank)
        scalar = ir.AffineMap.get(rank, 0, [])
        return list(out.shape), ["parallel"] * rank, [scalar, ident]
    if op.name != "linalg.generic":
        return None
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    iters = [str(a).split("<")[-1].rstrip(">")
             for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    ranges = [None] * len(iters)
    for v, m in zip(op.operands, maps, strict=False):
        st = _shaped(v)
        if st is None:
            continue
        if not st.has_static_shape:
            return None
        for i, e in enumerate(m.results):
            if isinstance(e, ir.AffineDimExpr):
                ranges[ir.AffineDimExpr(e).position] = st.shape[i]
    if any(r is None for r in ranges):
        return None
    return ranges, iters, maps


def output_order(maps, n_loops: int, n_outputs: int = 1) -> list[int]:
    """Loop dims in the order of the (first) output's dims: last = contiguous in memory."""
    out = maps[len(maps) - n_outputs]
    order = []
    for e in out.results:
        if isinstance(e, ir.AffineDimExpr):
            order.append(ir.AffineDimExpr(e).position)
    return order


def divisor_at_most(n: int, limit: int) -> int:
    """The largest divisor of ``n`` that is <= ``limit``, preferring powers of two."""
    limit = max(1, min(n, limit))
    p = 1
    while p * 2 <= limit and n % (p * 2) == 0:
        p *= 2
    best = max(d for d in range(1, limit + 1) if n % d == 0)
    # a power of two is as good unless the other divisor is at least twice as large
    return best if best >= 2 * p else p


def enclosing_forall(op):
    """The nearest scf.forall around ``op`` within its function, or None."""
    p = op.parent
    while p is not None and p.name not in ("func.func", "builtin.module"):
        if p.name == "scf.forall":
            return p
        p = p.parent
    return None
