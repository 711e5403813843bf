"""strata-vectorize-depthwise: depthwise convs as FMAs over channel vectors (on tensors).

A depthwise conv (``groups = C``) has no reduction over channels, so it is no
matmul: strata-conv-to-matmul leaves it alone and, as a named op, it would
become scalar loops. This pass gives every static NHWC
``linalg.depthwise_conv_2d_nhwc_hwc`` with an f32 result a transform-dialect
schedule. The last op of its elementwise epilogue (bias, relu: a chain of
single-use all-parallel generics) is tiled -- output rows on threads
(``scf.forall``, threads > 1), then register tiles of one row x ``ow`` columns x
``c`` channels (register_tile: up to 8 vector accumulators, sized for 32 zmm or
16 ymm) -- and the conv, its zero init and the epilogue are fused into each tile
(upstream ``transform.structured.fuse``). The conv tile loops over the window's
rows, is decomposed into a 1-D depthwise conv (``transform.structured.decompose``)
and vectorized by upstream's 1-D conv vectorizer: per window column one
``vector.fma`` of an input row slice by the filter's channel vector. Tile slices
are folded into the transfers and the accumulator hoisted out of the row loop,
so it stays in registers and the epilogue runs on it before the one store:

    %0 = linalg.depthwise_conv_2d_nhwc_hwc {strides = dense<1>, dilations = dense<1>}
           ins(%xp, %w : tensor<1x114x114x32xf32>, tensor<3x3x32xf32>) outs(%zero)
    %1 = linalg.generic {relu} ins(%0) outs(%e)
  =>
    scf.forall (%oh0) = (0) to (112) step (14) ...        // threads > 1
      scf.for %oh ... scf.for %ow step 4 ...              // register tiles: 4 x 32
        %acc = scf.for %kh = 0 to 3 iter_args(%a = dense<0> : vector<1x4x32xf32>) {
          %in = vector.transfer_read %xp[0, %oh + %kh, %ow, 0] : vector<6x32xf32>
          %f = vector.transfer_read %w[%kh, 0, 0] : vector<3x32xf32>
          vector.fma ... : vector<4x32xf32>               // x3, one per window column
        }
        %r = arith.maximumf %acc, 0
        vector.transfer_write %r, %out[0, %oh, %ow, 0]

The zero padding's ``tensor.insert_slice`` becomes a copy into the padded
buffer (strata-conv-to-matmul's padded_as_copy) in vector tiles, rows on threads.
NCHW depthwise convs (``linalg.depthwise_conv_2d_nchw_chw``) run the same way
between transposes (input to NHWC, filter to ``[KH, KW, C]``, result back to
NCHW), each tiled and vectorized first so that the fusion above does not pull
them into every conv tile. Tiles divide their dims (no masks: masked tiles run
far slower); a channel count that is no multiple of the vector width is one
tile when at most two vectors wide. bf16 inputs (which LLVM 22's x86 backend
cannot always vectorize, see strata-vectorize) and dynamic shapes are left to
scalar loops. With ``report=true`` each decision is a remark at the conv's
location.

Limits: the padding is still materialized (a fill + copy of the input, which
dominates stride-2 layers); NCHW pays two transposes.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import tensor, transform
from mlir.dialects.transform import loop, structured, vector
from mlir.dialects.transform import tensor as tensor_t

from ..codegen.host import f32_lanes
from ..codegen.transform import ScriptError, Tags, apply_patterns, match_ops, match_tagged
from ..errors import format_location
from .base import Pass, collect_ops, option, threads_option
from .conv_to_matmul import copy_padding
from .layout_common import producer
from .linalg_ops import linalg

__all__ = ["VectorizeDepthwisePass", "register_tile"]

NHWC = "linalg.depthwise_conv_2d_nhwc_hwc"
NCHW = "linalg.depthwise_conv_2d_nchw_chw"


def register_tile(ow: int, c: int, kw: int, stride: int, lanes: int) -> tuple[int, int]:
    """``(ow_tile, c_tile)``: output columns x channels of one register tile.

    ``c_tile`` is one vector of channels, or two with AVX-512 when C has them, or all
    of C when C is no multiple of the vector width and at most two vectors.
    ``ow_tile`` columns bring the accumulators to at most 8 vectors (enough
    independent FMAs to hide their latency); with the input slice
    (``(ow_tile - 1) * stride + kw`` columns) and ``kw`` filter vectors the tile stays
    within the register file (32 zmm with AVX-512, 16 ymm with AVX2). ``ow_tile``
    divides OW (the largest divisor no larger), so that no tile needs masks (masked
    tiles run far slower); of the channel widths, the one with more accumulators
    wins (ties: the wider)."""
    regs = 32 if lanes >= 16 else 16
    if c % lanes == 0:
        widths = [2 * lanes, lanes] if lanes >= 16 and c % (2 * lanes) == 0 else [lanes]
    else:
        widths = [c] if c <= 2 * lanes else [lanes]
    best = None
    for c_tile in widths:
        vecs = -(-c_tile // lanes)
        most = 1
        for cols in range(1, 17):
            live = vecs * (cols + (cols - 1) * stride + kw + kw)
            if live <= regs - 2 and vecs * cols <= 8:
                most = cols
        cols = _divisor(ow, min(most, ow))
        if best is None or vecs * cols > best[0]:
            best = (vecs * cols, cols, c_tile)
    return best[1], best[2]


def _divisor(n: int, most: int) -> int:
    """The largest divisor of ``n`` no larger than ``most``."""
    return max(t for t in range(1, most + 1) if n % t == 0)


def _schedule(tag, tile, parallel_rows, root_tag, extra_tag):
    """The schedule for the NHWC depthwise conv tagged ``tag`` (dims n, oh, ow, c, kh, kw).

    ``root_tag`` names the last op of its elementwise epilogue (the conv itself when it
    has none): that op is tiled (rows on threads, then register tiles) and the conv,
    its zero init and the epilogue are fused into its tiles; ``extra_tag`` marks the
    epilogue ops and the init, vectorized in their tiles."""
    ow_t, c_t = tile

    def body(root):
        op = match_tagged(root, root_tag)
        if parallel_rows:
            op = structured.FuseOp(op, tile_sizes=[1, parallel_rows], use_forall=True,
                                   apply_cleanup=True).transformed
        structured.FuseOp(op, tile_sizes=[1, 1, ow_t, c_t], apply_cleanup=True)
        # the whole-tensor originals are dead now: erase them before matching the tiles
        func = match_ops(root, ["func.func"])
        apply_patterns(func, transform.ApplyCanonicalizationPatternsOp)
        transform.ApplyCommonSubexpressionEliminationOp(func)
        conv = match_tagged(root, tag)
        rows = structured.TileUsingForOp(conv, sizes=[0, 0, 0, 0, 1])
        one_d = structured.DecomposeOp(rows.tiled_linalg_op)
        structured.VectorizeOp(one_d)
        if extra_tag:
            structured.VectorizeOp(match_tagged(root, extra_tag))
        func = match_ops(root, ["func.func"])
        # tile slices folded into the transfers, so that strata's later
        # loop-invariant-subset-hoisting keeps the accumulator in registers across the
        # window rows and the epilogue reads it without a round trip through memory
        apply_patterns(func, tensor_t.ApplyFoldTensorSubsetOpsIntoVectorTransfersPatternsOp)
        loop.HoistLoopInvariantSubsetsOp(rows.loops[0])
        apply_patterns(func, vector.ApplyCastAwayVectorLeadingOneDimPatternsOp,
                       transform.ApplyCanonicalizationPatternsOp)
        apply_patterns(func,
                       vector.ApplyTransferPermutationPatternsOp,
                       vector.ApplyLowerMaskedTransfersPatternsOp,
                       vector.ApplyLowerMasksPatternsOp,
                       transform.ApplyCanonicalizationPatternsOp)
        transform.ApplyCommonSubexpressionEliminationOp(func)

    return body


def _epilogue(op) -> list:
    """The chain of elementwise ops that read ``op``'s result (each the only user of the
    one before, all-parallel, identity maps on the chained value and the result)."""
    chain, value = [], op.results[0]
    shape = list(ir.RankedTensorType(value.type).shape)
    while True:
        users = list(value.uses)
        if len(users) != 1:
            return chain
        user = users[0].owner
        user = user.operation if hasattr(user, "operation") else user
        if user.name != "linalg.generic" or len(user.results) != 1:
            return chain
        iters = [str(a) for a in ir.ArrayAttr(user.attributes["iterator_types"])]
        maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(user.attributes["indexing_maps"])]
        ident = ir.AffineMap.get_identity(len(shape))
        n_in = len(user.operands) - 1
        reads = [i for i in range(n_in) if user.operands[i] == value]
        if (len(iters) != len(shape) or any("parallel" not in it for it in iters) or
                maps[-1] != ident or len(reads) != 1 or maps[reads[0]] != ident or
                list(ir.RankedTensorType(user.results[0].type).shape) != shape or
                list(user.regions[0].blocks[0].arguments[-1].uses)):
            return chain
        chain.append(user)
        value = user.results[0]


def _static(op) -> bool:
    types = [ir.RankedTensorType(v.type) for v in op.operands]
    return (all(t.has_static_shape for t in types) and
            isinstance(types[2].element_type, ir.F32Type) and
            not any(isinstance(t.element_type, ir.BF16Type) for t in types))


def _ints(op, name):
    if name not in op.attributes:
        return (1, 1)
    return tuple(int(v) for v in ir.DenseIntElementsAttr(op.attributes[name]))


def _value(built) -> ir.Value:
    """The one result of what a value builder returned (a Value, a result list or an op)."""
    if isinstance(built, ir.Value):
        return built
    if isinstance(built, ir.OpResultList):
        return built[0]
    return built.results[0]


def _to_nhwc(op):
    """Rewrites the NCHW depthwise ``op`` as transposes around an NHWC one; returns it and
    the transposes (the init's is a new zero fill when the init is one)."""
    x, w, init = op.operands
    xt, wt, it = (ir.RankedTensorType(v.type) for v in (x, w, init))
    made = []

    def transpose(v, t, perm):
        shape = [t.shape[p] for p in perm]
        out = _value(linalg.transpose(v, outs=[tensor.empty(shape, t.element_type)],
                                      permutation=perm))
        made.append(out.owner)
        return out

    with op.location, ir.InsertionPoint(op):
        xh = transpose(x, xt, [0, 2, 3, 1])
        wh = transpose(w, wt, [1, 2, 0])
        fill = producer(init)
        shape = [it.shape[p] for p in (0, 2, 3, 1)]
        if fill is not None and fill.operation.name == "linalg.fill":
            ih = _value(linalg.fill(fill.operands[0],
                                    outs=[tensor.empty(shape, it.element_type)]))
        else:
            ih = transpose(init, it, [0, 2, 3, 1])
        conv = _value(linalg.depthwise_conv_2d_nhwc_hwc(
            xh, wh, outs=[ih], strides=list(_ints(op, "strides")),
            dilations=list(_ints(op, "dilations"))))
        back = transpose(conv, ir.RankedTensorType(conv.type), [0, 3, 1, 2])
    op.results[0].replace_all_uses_with(back)
    new = conv.owner
    op.erase()
    return new, made


def _tile_schedule(tag, sizes):
    """The op tagged ``tag`` (a transpose) in vector tiles of ``sizes``: vector code, and no
    longer an op that the conv schedule's greedy producer fusion would pull (and
    recompute) into each conv tile."""

    def body(root):
        tiles = structured.TileUsingForOp(match_tagged(root, tag), sizes=sizes)
        structured.VectorizeOp(tiles.tiled_linalg_op, sizes)

    return body


def _copy_schedule(tag, cols, c_t, parallel_rows):
    """The padded input's copy (dims n, h, w, c) in vector tiles of ``cols`` columns x
    ``c_t`` channels, rows on threads when the conv's are."""

    def body(root):
        op = match_tagged(root, tag)
        if parallel_rows:
            op = structured.TileUsingForallOp(op, tile_sizes=[1, parallel_rows]).tiled_op
        tiles = structured.TileUsingForOp(op, sizes=[1, 1, cols, c_t])
        structured.VectorizeOp(tiles.tiled_linalg_op, [1, 1, cols, c_t])
        func = match_ops(root, ["func.func"])
        apply_patterns(func,
                       vector.ApplyLowerMaskedTransfersPatternsOp,
                       vector.ApplyLowerMasksPatternsOp,
                       transform.ApplyCanonicalizationPatternsOp)

    return body


@dataclass(frozen=True, eq=False, repr=False)
class VectorizeDepthwisePass(Pass):
    """Tile and vectorize depthwise convs over channel vectors (on tensors)."""

    name = "strata-vectorize-depthwise"
    lanes: int = option(0, min=0, help="f32 lanes of a vector register (0: the target's, see codegen/host.py)")
    nchw: bool = option(True, help="Run NCHW depthwise convs as NHWC between transposes")
    threads: int = threads_option()
    parallel_flops: int = option(1 << 20, min=1, help="Fewest flops of a depthwise conv run on threads")
    report: bool = option(False, help="Report every decision as a remark")

    def _tile_transposes(self, tags, transposes, i):
        for j, t in enumerate(transposes):
            shape = ir.RankedTensorType(t.results[0].type).shape
            sizes = [1] * (len(shape) - 2) + [_divisor(shape[-2], 8), _divisor(shape[-1], 16)]
            tag = tags.add(t, f"strata.depthwise_transpose_{i}_{j}")
            try:
                tags.apply(_tile_schedule(tag, sizes))
            except ScriptError as e:
                self.fail_at(t.location, f"strata-vectorize-depthwise: {e}")

    def run(self, module: ir.Operation) -> None:
        lanes = self.lanes or f32_lanes()
        for op in collect_ops(module, lambda o: o.name in (NHWC, NCHW)):
            if not all(isinstance(v.type, ir.RankedTensorType) for v in op.operands):
                self.fail(op, f"strata-vectorize-depthwise: {op.name} has memref operands: "
                              "run strata-vectorize-depthwise before bufferization")
        ops = collect_ops(module, lambda o: o.name in (NHWC, NCHW) and _static(o))
        with Tags(module) as tags:
            for i, op in enumerate(ops):
                where = f"{op.name} at {format_location(op.location)}"
                if op.name == NCHW:
                    if not self.nchw:
                        continue
                    op, transposes = _to_nhwc(op)
                    self._tile_transposes(tags, transposes, i)
                copy = copy_padding(op)
                n, oh, ow, c = ir.RankedTensorType(op.operands[2].type).shape
                kh, kw, _ = ir.RankedTensorType(op.operands[1].type).shape
                stride = _ints(op, "strides")[1]
                tile = register_tile(ow, c, kw, stride, lanes)
                flops = 2 * n * oh * ow * c * kh * kw
                rows = 0
                if self.threads > 1 and flops >= self.parallel_flops and n * oh > 1:
                    rows = max(1, -(-oh // (4 * self.threads)))
                if self.report:
                    par = f", {rows} output rows per thread task" if rows else ""
                    self.remark(op, f"strata-vectorize-depthwise: {where} in register tiles of "
                                    f"{tile[0]} columns x {tile[1]} channels{par}")
                tag = tags.add(op, f"strata.depthwise_{i}")
                chain = _epilogue(op)
                root_tag = tags.add(chain[-1], f"strata.depthwise_root_{i}") if chain else tag
                extra = [*chain]
                init = producer(op.operands[2])
                if init is not None and init.operation.name == "linalg.fill":
                    extra.append(init.operation)
                extra_tag = None
                for e in extra:
                    extra_tag = tags.add(e, f"strata.depthwise_fused_{i}")
                location = op.location
                try:
                    if copy is not None:
                        copy_tag = tags.add(copy, f"strata.depthwise_copy_{i}")
                        w = ir.RankedTensorType(copy.operands[0].type).shape[2]
                        tags.apply(_copy_schedule(copy_tag, _divisor(w, 8), tile[1], rows))
                    tags.apply(_schedule(tag, tile, rows, root_tag, extra_tag))
                except ScriptError as e:
                    self.fail_at(location, f"strata-vectorize-depthwise: {e}")
