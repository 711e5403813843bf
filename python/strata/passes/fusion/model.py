"""The fusion cost model: what an edge producer -> consumer costs fused vs unfused.

Costs are in "byte-equivalents": a byte of intermediate buffer written or read
costs 1, a scalar arithmetic op per element costs ``FLOP_COST`` and a
transcendental (exp, log, tanh, erf, pow, rsqrt, sqrt, div) ``SLOW_OP_COST``.
Fusing saves the intermediate's write and read (when the consumer is its only
user) and costs any recomputation: the producer's body runs once per consumer
iteration instead of once per element, which matters when the consumer
broadcasts the producer into a larger iteration space or when the producer
has other users that still need it materialized.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

__all__ = ["EdgeCost", "body_cost", "loop_ranges", "numel", "edge_cost", "FLOP_COST",
           "SLOW_OP_COST"]

FLOP_COST = 0.25
SLOW_OP_COST = 4.0
_SLOW = {"math.exp", "math.log", "math.tanh", "math.erf", "math.powf", "math.rsqrt",
         "math.sqrt", "arith.divf", "math.ipowi", "arith.divsi"}


def body_cost(generic) -> float:
    """Per-element cost of a linalg.generic's body (yield and casts are free)."""
    cost = 0.0
    for op in generic.regions[0].blocks[0].operations:
        name = op.operation.name
        if name in ("linalg.yield", "arith.extf", "arith.truncf"):
            continue
        cost += SLOW_OP_COST if name in _SLOW else FLOP_COST
    return cost


def numel(t) -> int | None:
    t = ir.RankedTensorType(t)
    if not t.has_static_shape:
        return None
    n = 1
    for d in t.shape:
        n *= d
    return n


def loop_ranges(generic) -> list[int | None]:
    """Static trip counts of a linalg.generic's loops (None where not static)."""
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(generic.attributes["indexing_maps"])]
    n_loops = maps[0].n_dims
    ranges: list[int | None] = [None] * n_loops
    for value, amap in zip(list(generic.operands), maps, strict=True):
        t = ir.RankedTensorType(value.type)
        for pos, expr in enumerate(amap.results):
            if isinstance(expr, ir.AffineDimExpr) and not t.is_dynamic_dim(pos):
                ranges[expr.position] = t.get_dim_size(pos)
    return ranges


@dataclass
class EdgeCost:
    """The cost model's view of fusing ``producer`` into ``consumer``."""

    elements: int
    element_bytes: int
    users: int
    recompute_factor: float
    producer_cost: float
    saved_bytes: float
    extra_work: float

    @property
    def benefit(self) -> float:
        return self.saved_bytes - self.extra_work


def edge_cost(producer, consumer, users: int) -> EdgeCost | None:
    """The costs of fusing a producer generic into one consumer generic (None if unknown)."""
    out = producer.results[0]
    elements = numel(out.type)
    iters = 1
    for r in loop_ranges(consumer):
        if r is None:
            return None
        iters *= r
    if elements is None:
        return None
    width = ir.RankedTensorType(out.type).element_type
    element_bytes = max(1, getattr(width, "width", 32) // 8)
    factor = iters / elements if elements else 1.0
    pcost = body_cost(producer)
    # Bytes saved: this consumer no longer reads the intermediate; if it was the only
    # user, the intermediate is never written either.
    saved = elements * element_bytes * (2 if users == 1 else 1)
    # Work added: the producer's body per consumer iteration, minus the producer's own
    # run that fusion removes (only when this consumer was its only user).
    extra = iters * pcost - (elements * pcost if users == 1 else 0.0)
    return EdgeCost(elements, element_bytes, users, factor, pcost, saved, extra)
