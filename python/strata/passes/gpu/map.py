"""strata-gpu-map: tile linalg ops into scf.forall loops mapped to GPU blocks and threads.

Runs on linalg on tensors (or on buffers, for ops bufferization introduced) with
static shapes. Each linalg op becomes one future kernel, chosen by its shape:

* elementwise (all loops parallel; fills, transposes, broadcasts): blocks of
  up to 256 threads, ``#gpu.thread<x>`` along the output's contiguous dim, so
  consecutive threads touch consecutive addresses (coalesced)::

    %0 = linalg.generic {parallel, parallel} ins(%a, %b) outs(%e) -> tensor<1024x1024xf32>
  =>
    %0 = scf.forall (%i, %j) = (0, 0) to (1024, 1024) step (1, 256) shared_outs(%o = %e) {
      %1 = scf.forall (%ti, %tj) in (1, 256) shared_outs(...) {
        linalg.generic {strata.gpu = "elementwise"} ins(1x1 slices) ...
      } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}

* linalg.matmul: 64x64 output tiles per block (divisors of M, N), a K loop of
  16 (a divisor of K); strata-gpu-launch later stages the K tiles in shared
  memory and distributes the tile over 16x16 threads::

    scf.forall (%i, %j) ... step (64, 64) {
      scf.for %k step 16 { linalg.matmul {strata.gpu = "matmul"} } }
        {mapping = [#gpu.block<y>, #gpu.block<x>]}

* reductions over the innermost loop with a single combiner (sum, max, the
  generics of a decomposed softmax, layer_norm's mean/variance): one block per
  output element (row); strata-gpu-launch emits the strided loop + gpu.all_reduce::

    scf.forall (%r) in (1024) { linalg.generic {strata.gpu = "reduce"} ins(1x1024 slice) }
        {mapping = [#gpu.block<x>]}

* other ops with reductions (contractions produced by fusion, batch_matmul):
  one thread per output element, the reduction serial in the thread
  (``strata.gpu = "thread"``).

Named ops other than matmul/batch_matmul/fill are generalized first. Ops with
a 0-d result or dynamic shapes are left alone (strata-gpu-launch runs them in a
single-thread kernel). Limits: at most 3 mapped dims per op (leading dims of
rank>3 ops loop inside each thread); tile sizes are divisors of the dims, so a
prime-sized dim gets small tiles.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects.transform import structured

from ...codegen.transform import ScriptError, Tags, match_tagged
from ..base import Pass
from .common import (
    STRATEGY,
    collect,
    divisor_at_most,
    enclosing_forall,
    functions,
    inside_kernel,
    loop_info,
    output_order,
)

__all__ = ["GpuMapPass", "classify", "tile_ops", "reduction_combiners"]

_KEEP = {"linalg.generic", "linalg.fill", "linalg.matmul", "linalg.batch_matmul", "linalg.yield",
         "linalg.index", "linalg.softmax"}
_ID = "strata_gpu_id"
_GENERALIZE = "strata_gpu_generalize"
_SKIP = "strata_gpu_skip"
# combiner op -> gpu.all_reduce operation
COMBINERS = {
    "arith.addf": "add", "arith.addi": "add", "arith.mulf": "mul", "arith.muli": "mul",
    "arith.maximumf": "maximumf", "arith.minimumf": "minimumf", "arith.maxnumf": "maxnumf",
    "arith.minnumf": "minnumf", "arith.maxsi": "maxsi", "arith.minsi": "minsi",
    "arith.maxui": "maxui", "arith.minui": "minui", "arith.andi": "and", "arith.ori": "or",
    "arith.xori": "xor",
}
BLOCK_THREADS = 256
_DEFAULT_MAPS = {
    "[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, "
    "affine_map<(d0, d1, d2) -> (d0, d1)>]",
    "[affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, "
    "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]",
}


def _mapping(kind, dims) -> ir.ArrayAttr:
    """``[#gpu.block<y>, #gpu.block<x>]`` and the like (no Python builder for these)."""
    return ir.ArrayAttr.get([ir.Attribute.parse(f"#gpu.{kind}<{d}>") for d in dims])


def _static_shape(v):
    t = v.type
    if isinstance(t, (ir.RankedTensorType, ir.MemRefType)):
        s = ir.ShapedType(t)
        return list(s.shape) if s.has_static_shape else None
    return None


def _ranges(op):
    """(ranges, iterators, output-order) for the ops strata-gpu-map tiles, else None."""
    if op.name in ("linalg.matmul", "linalg.batch_matmul"):
        if "indexing_maps" in op.attributes and \
                str(op.attributes["indexing_maps"]) not in _DEFAULT_MAPS:
            return None
        a, b = (_static_shape(v) for v in op.operands[:2])
        if a is None or b is None:
            return None
        if op.name == "linalg.matmul":
            return [a[0], b[1], a[1]], ["parallel", "parallel", "reduction"], [0, 1]
        return [a[0], a[1], b[2], a[2]], ["parallel"] * 3 + ["reduction"], [0, 1, 2]
    info = loop_info(op)
    if info is None:
        return None
    ranges, iters, maps = info
    n_out = 1 if op.name == "linalg.fill" else len(op.results) or _num_dps_outs(op)
    return ranges, iters, output_order(maps, len(ranges), n_out)


def _num_dps_outs(op):
    seg = op.attributes["operandSegmentSizes"] if "operandSegmentSizes" in op.attributes else None
    if seg is None:
        return 1
    return list(ir.DenseI32ArrayAttr(seg))[1]


def reduction_combiners(op):
    """The combiner op of each output of an innermost-loop row reduction generic, else None.

    Each output ``i`` must be yielded as ``combiner_i(%out_i, f(inputs))`` (sum,
    max, ...; several outputs reduce the same row together, e.g. mean and
    variance), and only one input may be read along the reduced dim (otherwise
    it is a contraction, mapped one thread per output).
    """
    if op.name != "linalg.generic":
        return None
    info = loop_info(op)
    if info is None:
        return None
    _, iters, maps = info
    if iters.count("reduction") != 1 or iters[-1] != "reduction":
        return None
    if iters.count("parallel") > 3:
        return None
    n_out = _num_dps_outs(op)
    block = op.regions[0].blocks[0]
    args = list(block.arguments)
    outs = args[len(args) - n_out:]
    ops = [o.operation for o in block.operations]
    combs = []
    for out_arg, yielded in zip(outs, ops[-1].operands, strict=True):
        comb = getattr(yielded.owner, "operation", yielded.owner)
        if not isinstance(comb, ir.Operation) or comb.name not in COMBINERS:
            return None
        if len(comb.operands) != 2 or out_arg not in list(comb.operands):
            return None
        if comb.operands[0] == comb.operands[1]:
            return None
        if len(list(out_arg.uses)) != 1:
            return None
        if any(u.owner.name != "linalg.yield" for u in comb.results[0].uses):
            return None
        combs.append(comb)
    red = len(iters) - 1
    reading = [m for m in maps[:len(maps) - n_out]
               if any(isinstance(e, ir.AffineDimExpr) and e.position == red for e in m.results)]
    if len(reading) != 1:
        return None
    return combs


def classify(op) -> str | None:
    """The strategy for one linalg op: elementwise | matmul | reduce | thread | None."""
    info = _ranges(op)
    if info is None:
        return None
    ranges, iters, order = info
    if not [d for d in order if iters[d] == "parallel"]:
        return None
    if op.name == "linalg.matmul":
        return "matmul"
    if all(i == "parallel" for i in iters):
        return "elementwise"
    if reduction_combiners(op) is not None:
        return "reduce"
    return "thread"


def _tiles(ranges, iters, order, kind):
    """(block tiles, block mapping, thread tiles, thread mapping) for elementwise / thread."""
    par = [d for d in order if iters[d] == "parallel"]
    names = ["x", "y", "z"]
    picked = list(reversed(par))[:3]  # x = contiguous output dim
    block = [0] * len(ranges)
    thread = [0] * len(ranges)
    tx = divisor_at_most(ranges[picked[0]], BLOCK_THREADS)
    block[picked[0]], thread[picked[0]] = tx, 1
    if len(picked) > 1:
        block[picked[1]] = divisor_at_most(ranges[picked[1]], max(1, BLOCK_THREADS // tx))
        thread[picked[1]] = 1
    if len(picked) > 2:
        block[picked[2]] = 1
    dim_name = {d: names[i] for i, d in enumerate(picked)}
    bmap = [dim_name[d] for d in range(len(ranges)) if block[d]]
    tmap = [dim_name[d] for d in range(len(ranges)) if thread[d]]
    return block, bmap, thread, tmap


def strategy_schedule(kind, info, ident):
    """The schedule tiling the op tagged ``strata_gpu_id = ident`` with strategy ``kind``."""
    ranges, iters, order = info

    def body(root):
        op = match_tagged(root, _ID, ir.IntegerAttr.get(ir.IntegerType.get_signless(64), ident))
        if kind in ("elementwise", "thread"):
            block, bmap, thread, tmap = _tiles(ranges, iters, order, kind)
            blocks = structured.TileUsingForallOp(op, tile_sizes=block,
                                                  mapping=_mapping("block", bmap))
            structured.TileUsingForallOp(blocks.tiled_op, tile_sizes=thread,
                                         mapping=_mapping("thread", tmap))
        elif kind == "reduce":
            par = [d for d in order if iters[d] == "parallel"]
            names = {d: n for d, n in zip(reversed(par), ["x", "y", "z"], strict=False)}
            tiles = [1 if iters[d] == "parallel" else 0 for d in range(len(ranges))]
            bmap = [names[d] for d in range(len(ranges)) if tiles[d]]
            structured.TileUsingForallOp(op, tile_sizes=tiles, mapping=_mapping("block", bmap))
        else:
            m, n, k = ranges
            bm, bn, bk = divisor_at_most(m, 64), divisor_at_most(n, 64), divisor_at_most(k, 16)
            blocks = structured.TileUsingForallOp(op, tile_sizes=[bm, bn],
                                                  mapping=_mapping("block", ["y", "x"]))
            structured.TileUsingForOp(blocks.tiled_op, sizes=[0, 0, bk])

    return body


def _generalize(root):
    structured.GeneralizeOp(match_tagged(root, _GENERALIZE))


def _top_level_linalg(fn):
    """linalg ops of ``fn`` not yet inside an scf.forall or a kernel."""
    return collect(fn, lambda o: o.name.startswith("linalg.") and o.name not in
                   ("linalg.yield", "linalg.index") and not inside_kernel(o)
                   and enclosing_forall(o) is None and o.parent.name not in _linalg_parents())


def _linalg_parents():
    return {"linalg.generic", "linalg.reduce", "linalg.map", "linalg.fill", "linalg.matmul",
            "linalg.batch_matmul", "linalg.softmax"}




def _tag_next(module, tags, i64, ident):
    """Tags the first untiled top-level linalg op with an id; returns (kind, info) or None.

    No Python handle on a payload op may survive a schedule that erases it (the
    bindings would reuse the stale object), so every step walks afresh.
    """
    for fn in functions(module):
        for op in _top_level_linalg(fn):
            if STRATEGY in op.attributes or _SKIP in op.attributes:
                continue
            kind = classify(op)
            if kind is None:
                tags.add(op, _SKIP)
                continue
            tags.add(op, _ID, ir.IntegerAttr.get(i64, ident))
            op.attributes[STRATEGY] = ir.StringAttr.get(kind)  # kept for strata-gpu-launch
            return kind, _ranges(op), str(op.location), op.name
    return None


def tile_ops(module: ir.Operation, on_error) -> int:
    """Generalizes and tiles every top-level linalg op of the module's functions."""
    with module.context, ir.Location.unknown():
        with Tags(module) as tags:
            for fn in functions(module):
                for op in _top_level_linalg(fn):
                    if op.name not in _KEEP:
                        tags.add(op, _GENERALIZE)
            op = None  # noqa: F841 (drop the handle before the schedule erases the op)
            if tags.names:
                try:
                    tags.apply(_generalize)
                except ScriptError as e:
                    on_error(module, f"strata-gpu-map: cannot generalize: {e}")
        count = 0
        i64 = ir.IntegerType.get_signless(64)
        with Tags(module) as tags:
            while True:
                nxt = _tag_next(module, tags, i64, count)
                if nxt is None:
                    break
                kind, info, loc, name = nxt
                try:
                    tags.apply(strategy_schedule(kind, info, count))
                except ScriptError as e:
                    on_error(module, f"strata-gpu-map: cannot tile {name} at {loc} ({kind}): {e}")
                count += 1
        return count


@dataclass(frozen=True, eq=False, repr=False)
class GpuMapPass(Pass):
    """Tile linalg ops into scf.forall loops mapped to GPU blocks and threads."""

    name = "strata-gpu-map"

    def run(self, module: ir.Operation) -> None:
        tile_ops(module, self.fail)
