"""strata-vectorize: tile and vectorize matmuls for the CPU's vector registers (on tensors).

Row reductions (option ``reductions``): an f32 ``linalg.generic`` (or
``linalg.reduce``) reducing its last, contiguous dim with one combiner gets
``reduction-width`` partial accumulators per row (``tile_reduction_using_for``),
vectorized and combined once per row — NaN-propagating max included, which
LLVM's loop vectorizer would leave scalar; also the i32 ``minsi`` index reduction of a
last-axis argmax (f32 data and best value, i32 indices from a constant input: a body
with ``linalg.index`` is left alone, as tiling it into partials would count within a
tile). Other float reductions get
``fastmath<reassoc,contract>`` on their combiners so LLVM may vectorize them.

Gathers (an all-parallel ``linalg.generic`` of static shape reading
``tensor.extract`` — strata.gather's rows, strata.reverse of a leading axis) whose
rows are at least a vector wide, and whose reads are whole rows (last coordinate
the innermost loop) or values fixed along it (the index): chunks of up to 4
vectors per row with MLIR's ``vectorize_nd_extract``, which makes a row read one
contiguous (masked, at a row's end) vector load, rows on threads past
``parallel-elements``:

    linalg.generic outs(tensor<512x1024xf32>) { %id = tensor.extract %ids[index 0]
                                                tensor.extract %x[clamp(%id), index 1] }
  =>
    scf.for %r ... scf.for %c step 64 ... { %row = vector.transfer_read %ids[%r] (broadcast)
      vector.transfer_read %x[%row, %c] : vector<1x64xf32> ... vector.transfer_write ... }

For every ``linalg.matmul`` / ``linalg.batch_matmul`` with static shapes, a
transform-dialect strategy tiles for cache (``cache-m/n/k``) and then for
registers (``register-m`` x ``register-n``: a vector<MxN> accumulator, K step
1), vectorizes with masks for partial tiles, turns the multiply-reduce into
``vector.contract`` and hoists the accumulator out of the K loop.
``register-n=0`` (the default) makes the accumulator 8 vector registers of the
host (8 f32 lanes with AVX2, 16 with AVX-512): one register per row for 8
rows, two for 4, so accumulators plus operands fit the register file (16 ymm
/ 32 zmm); 8x16 on AVX2 spills and runs at half the speed. With ``threads`` > 1, a matmul of at least ``parallel-flops`` flops
with more than one cache tile gets its M x N cache tiles as an ``scf.forall``
(run on threads by strata-lower-to-llvm), and a row reduction of at least
``parallel-elements`` input elements gets its rows as one. The example below is
the sequential form (8x16 tiles):

    %0 = linalg.matmul ins(%a, %b : tensor<64x256xf32>, tensor<256x512xf32>) outs(%c)
  =>
    scf.for %i ... scf.for %j ... {               // 64x128x128 cache tiles
      scf.for %ii step 8 ... scf.for %jj step 16 ... {
        %acc = vector.transfer_read ...            // hoisted out of the K loop
        %r = scf.for %k ... iter_args(%v = %acc) { vector.contract ... : vector<8x16xf32> }
        vector.transfer_write %r ...

A matmul of fewer than ``pack-min`` rows that streams a B larger than L2 (f32,
``register-n=0``, not an epilogue tile) gets passes/skinny_tiles.py's tiles instead: a
cache tile of all M rows x (N per thread) x 16 and a register tile of up to 7 rows x 4
vectors (2 with AVX2), so 16 rows of B are read across all columns at a time
(``7x4096 @ 4096x4096``, one thread: 12.9 -> 5.1 ms, numpy 11.2 ms).

Large f32 matmuls (rows and columns at least ``pack-min``, not inside strata-fuse's
epilogue tiles) run on packed panels instead (option ``pack``): A is copied into
zero-padded row panels ``[M/mr][K][mr]``, B into column panels ``[N/nr][K][nr]``,
and a micro-kernel of ``mr`` broadcasts x
``nr / lanes`` vector loads -> ``mr x nr / lanes`` FMAs per K step runs over
them, its ``mr x nr`` accumulator kept in registers across the K tile.
``mr x nr`` comes from the target's vector registers (``lanes``, default
codegen/host.py ``f32_lanes``): 8x32 with AVX-512 (16 of 32 zmm accumulate),
6x16 with AVX2 (12 of 16 ymm). Cache tiles ``pack-m x pack-n x pack-k``
(128x256x256) keep a B panel's K tile (32 KiB) in L1 while every A panel of the
cache tile streams past it from L2. Batch matmuls the same, per batch. An
operand that strata-layout reads through a folded transpose (B as N x K for
``x @ w.T``, PyTorch's ``nn.Linear``; A as K x M) packs into the same panels
straight from its rows (1024^3 ``x @ w.T``, 2 threads: 110 ms unpacked, 11 ms
packed, as fast as ``x @ w``). The packs are lowered by strata-decompose
(tensor.pad + expand_shape + transpose):

    %0 = linalg.matmul ins(%a, %b : tensor<100x33xf32>, tensor<33x70xf32>) outs(%c)
  =>                                                       (AVX-512: mr=8, nr=32)
    %pa = linalg.pack %a padding_value(0) inner_dims_pos = [0] inner_tiles = [8]  -> 13x33x8
    %pb = linalg.pack %b padding_value(0) outer_dims_perm = [1, 0] inner_dims_pos = [1]
                                                           inner_tiles = [32]      -> 3x33x32
    %pc = linalg.pack %c ... inner_tiles = [8, 32]                                 -> 13x3x8x32
    scf.for %np ... scf.for %mp ... {                      // B panel, then each A panel
      %acc = vector.transfer_read %pc[%mp, %np, 0, 0]      // hoisted out of the K loop
      %r = scf.for %k ... iter_args(%v = %acc) {
        vector.contract %pa[%mp, %k, :], %pb[%np, %k, :], %v   // vector<8> x vector<32>
      ...
    %0 = linalg.unpack %r ... into %c

A pack or unpack along dims that are whole panels (M a multiple of mr for A and
C; B and C may end in a partial panel of N, copied with masked vector reads and
writes where K has an even step) is instead copied by vector tiles: 8 K steps of an A
panel as one ``vector<8 x mr>`` transpose, 8 rows of a B panel, one ``mr x nr``
tile of C; C's zero fill then only feeds the product, as the copy writes all of
C. Where K is then one cache tile (``pack-k``), C's fill is tiled with each register
tile, so that its accumulator starts from a zero vector: no pass clears C's panels
before the product, no load of the zeros (256 x 768 x 256, 2 threads: 507 -> 494 us).
With threads these copies are ``scf.forall`` loops too (both packs in one,
C's by row blocks), and each thread clears the C panels it computes, so that no
copy runs on one thread while the others wait (LLVM leaves loops in the outlined
parallel functions scalar, hence the explicit vectors):

    %pa, %pb = scf.forall (%t) in (2) {               // A rows, B columns by halves
      vector.transpose (vector.transfer_read %a[..] : vector<8x8>) ...
      vector.transfer_read %b[..] : vector<8x32> ...
    %pc = scf.forall (%i, %j) in (..) { fill(0) of its C panels; the K loops above }
    %0 = scf.forall (%t) in (2) { vector.transfer_write (%pc tile : vector<8x32>), %c[..] }

Where K is more than one cache tile and N whole cache tiles (option ``stream-b``), B is
not packed whole ahead of the product but one ``pack-k x pack-n`` tile at a time inside
its loops, into a buffer of the tile's size, right before every M tile uses it: its
panels are written to and read from L2, not written out to memory and read back (MLP
256x1024x4096x1024, one thread: 34.7 -> 30.7 ms; 2 threads: 18.9 -> 15.7 ms; 1024^3:
14.9 -> 13.6 ms). On threads the N tiles form the ``scf.forall``, each thread packing
the tiles of B it uses:

    scf.for %n step pack-n { scf.for %k step pack-k {   // scf.forall over %n on threads
        %pb = <vector copies of B[%k.., %n..] into tensor<pack-n/nr x pack-k x nr>>
        scf.for %m step pack-m { <the K loops of outer products above, on %pb> } } }

A packed matmul whose only user is an elementwise op over C (the bias add strata-fuse
leaves apart from a packed matmul, an activation, a residual; option ``epilogue``) gets
that op computed in C's unpack instead: the op's tiles, on the unpack's chunks, each
unpack their own ``mr x nr`` tile of C and feed it to the op in registers
(passes/packed_epilogue.py), no loop over C of the op's own.

A matmul of at most ``stationary-rows`` rows that reads its B transposed (``x @ w.T``,
nn.Linear's N x K weight) runs weight-stationary where the weight's traffic dominates
(AVX-512, whole 16 x 16 tiles; passes/weight_stationary.py): ``(w @ x^T)^T``, the weight
read in place by unpacked register tiles, x and the result transposed by vector tiles,
instead of the weight copied into panels on every call (64 x 1024 x 512, 2 threads:
0.54 -> 0.39 ms):

    %c = linalg.matmul indexing_maps = [(m, k), (n, k), (m, n)] ins(%x, %w) outs(%zero)
  =>
    %xt = scf.for ... { vector.transpose (vector.transfer_read %x[..] : vector<16x16>) }
    %ct = scf.for ... { vector.contract %w[rows, k] : vector<8x1>, %xt[k, cols] : vector<1x16> }
    %c  = scf.for ... { vector.transpose (vector.transfer_read %ct[..] : vector<16x16>) }

The per-tile im2col copies strata-fuse makes for a conv (``strata.im2col_part``,
passes/fusion/im2col.py) are copied one vector per row of their last dim, masked
past its end (LLVM copied them a scalar at a time: a fifth of the ResNet 3x3 conv's
time; 2.63 -> 2.30 ms on 1 thread, 1.42 -> 1.23 ms on 2).

An f32 NCHW ``linalg.conv_2d_nchw_fchw`` that strata-conv-to-matmul kept direct because
its output rows are whole register tiles (width stride 1; 56 = 32 + 16 + 8 as three
column pieces) runs in register tiles of output channels x pixels of a row (8 x 32 with
AVX-512, 4 x 16 with AVX2), two input channels per step, the accumulator in registers
across the whole window (passes/direct_conv.py): no im2col copy; with threads, one not inside
strata-fuse's tiles gets its (image, rows) tiles as an ``scf.forall``. A module with such
convs asks for LLVM -O2 at most (``strata.max_opt_level``: -O3 spent 5.7 s on a ResNet
block's two, as fast):

    %o = linalg.conv_2d_nchw_fchw ins(%xp, %w : tensor<1x64x6x34xf32>, ...) outs(tensor<1x64x4x32xf32>)
  =>
    scf.for %f step 8, %oh, %ow step 32 { scf.for %c step 2, %kh, %kw {
      vector.contract %w[%f, %c, %kh, %kw] : vector<8x2>, %xp[0, %c, %oh + %kh, %ow + %kw] : vector<2x32>

The contractions are lowered to FMAs later by strata-lower-vectors (after
bufferization; passes/lower_vectors.py). Other linalg ops are left to LLVM's loop vectorizer.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import replace as dataclass_replace

import numpy as np
from mlir import ir
from mlir.dialects import transform
from mlir.dialects.transform import loop, structured, tensor, vector

from ..codegen.host import f32_lanes
from ..codegen.transform import (
    ScriptError,
    Tags,
    any_op,
    apply_patterns,
    match_ops,
    match_tagged,
)
from .base import OptionError, Pass, collect_ops, in_loop, option, threads_option
from .direct_conv import as_filter_first, direct_conv_strategy, plan, tile_rows
from .fusion.im2col import IM2COL_PART, OPT_LEVEL_CAP
from .packed_epilogue import elementwise_epilogue, fuse_epilogue
from .skinny_tiles import skinny_tiles
from .tuning import PATTERN as TUNED_PATTERN
from .tuning import knobs_of, matmul_signature, parse_tuned
from .unique_results import clone_fill
from .weight_stationary import IN_PLACE, swap_transposed_weights, transpose_strategy

__all__ = ["VectorizePass", "DOT_ROWS", "dot_rows", "matmul_signatures", "matmul_plans"]

_FOR = "scf.for"


def _strategy(tag, cache, reg, batch, parallel=False, peel=None, zero_init=False):
    """Tile-and-vectorize schedule for the one op carrying the attribute ``tag``.

    ``zero_init``: C is a fill that only this op reads (marked by ``_mark_zero_init``),
    the tiles divide the op and K fits one cache tile: each register tile's fill is
    fused into its loop (``_fill_tiles``), so its accumulators start from the fill's
    value in registers, and no pass writes and rereads C before the product (strata-
    attention's 64 x 256 score tile: a 64 KiB memset less per key tile).

    ``parallel``: the M x N cache tiles (and batch) form an ``scf.forall`` whose
    iterations may run on different threads; the K loop stays sequential.
    ``peel`` = (peel M, peel N), given when the cache tiles divide M and N: the
    register loops that do not divide their cache tile are peeled, so every
    register tile (remainders included) has a static shape and vectorizes
    without masks (masked tiles run about 10x slower). Without it, partial tiles
    are vectorized with masks."""
    lead = [1] if batch else []
    loops = 4 if batch else 3
    register = lead + [reg[0], reg[1], 1]

    def body(root):
        op = match_tagged(root, tag)
        if zero_init:
            _fill_tiles(root, op, lead, cache, reg)
        elif parallel:
            zero = [0] if batch else []
            forall = structured.TileUsingForallOp(op, tile_sizes=lead + [cache[0], cache[1]])
            cache_tiled = structured.TileUsingForOp(forall.tiled_op,
                                                    sizes=zero + [0, 0, cache[2]])
        else:
            cache_tiled = structured.TileUsingForOp(op, sizes=lead + list(cache))
        if not zero_init:
            _register_tiles(root, tag, cache_tiled, register, loops, peel)
        func = match_ops(root, ["func.func"])
        apply_patterns(func,
                       vector.ApplyVectorReductionToContractPatternsOp,
                       vector.ApplyTransferPermutationPatternsOp,
                       vector.ApplyLowerMaskedTransfersPatternsOp,
                       vector.ApplyLowerMasksPatternsOp,
                       transform.ApplyCanonicalizationPatternsOp)
        transform.ApplyCommonSubexpressionEliminationOp(func)

    return body


def _register_tiles(root, tag, cache_tiled, register, loops, peel):
    """``_strategy``'s register tiles of the cache tiles, vectorized (peeled first, see
    ``_strategy``)."""
    tiled = structured.TileUsingForOp(cache_tiled.tiled_linalg_op, sizes=register)
    if peel is None:
        structured.VectorizeOp(tiled.tiled_linalg_op, register)
        return
    m_loop, n_loop = loops - 3, loops - 2
    for_type = transform.OperationType.get(_FOR)
    for do_peel, n in ((peel[1], n_loop), (peel[0], m_loop)):
        if do_peel:
            loop_handle = transform.CastOp(for_type, tiled.loops[n])
            loop.LoopPeelOp(any_op(), any_op(), loop_handle)
    # the peeled tiles get static types once their constant sizes fold; every
    # tile still carries the tag
    apply_patterns(match_ops(root, ["func.func"]), transform.ApplyCanonicalizationPatternsOp)
    structured.VectorizeOp(match_tagged(root, tag))


def _packed_strategy(tag, reg, cache, batch, parallel=False, copies=None,
                     transposed=(False, False), epilogue=None, depth=None, stream_b=False):
    """The packed micro-kernel schedule for the one op carrying the attribute ``tag``.

    ``reg`` = (mr, nr): the register tile, rows x lanes (a multiple of the vector
    width). ``cache`` = (rows, columns, depth) of a cache tile, rows and columns
    multiples of mr and nr. A (M x K) is packed into row panels ``[M/mr][K][mr]``,
    B (K x N) into column panels ``[N/nr][K][nr]`` (zero-padded), the product runs
    on the panels, and C is unpacked. Loops: cache tiles (M panels, N panels, K),
    then per N panel per M panel a K loop whose body is one broadcast-FMA
    outer product ``vector<mr> x vector<nr>`` into an accumulator that stays in
    registers across K. ``parallel``: the cache tiles of the M and N panels (and
    the batch) form an ``scf.forall``; K stays sequential, so results do not
    depend on the thread count. ``copies``: tile sizes (``_copy_tiles``) that make
    the packs of A and B and the unpack of C ``scf.forall`` loops too (None where
    a copy stays whole), so that no copy runs on one thread while the others
    wait. ``transposed`` = (A read as K x M, B read as N x K), from ``_operand_order``:
    such an operand's pack is already panels-first, so it gets no outer transpose.
    ``depth``: K, where C is a fill (None where C is an operand to accumulate into): a
    product of one K tile then starts each register tile from the fill's value
    (``_zero_accumulators``). ``epilogue``: the tag of C's elementwise consumer, tiled
    as C's unpack would be with the unpack fused into its tiles
    (passes/packed_epilogue.py); C's unpack must then have a plan in ``copies``.
    ``stream_b`` (``_streams_b``): B is packed one cache tile at a time inside the
    loops, right before its panels are used (``_stream_b_tiles``), not whole ahead of
    the product. The packs are lowered by strata-decompose."""
    mr, nr = reg
    lead = [0] if batch else []
    one = [1] if batch else []

    def body(root):
        op = match_tagged(root, tag)
        packed = structured.PackOp(any_op(), op, [], static_packed_sizes=lead + [mr, nr, 0])
        gen = packed.packed_op
        # panels first: A (M x K) packs as [M/mr][K][mr] and B (N x K, transposed) as
        # [N/nr][K][nr] as they are; A (K x M) and B (K x N) as [K][panels][..], swapped
        outer = [0, 2, 1] if batch else [1, 0]
        for operand, needs_swap in ((0, transposed[0]), (1, not transposed[1])):
            if needs_swap:
                pack = transform.GetProducerOfOperand(any_op(), gen, operand)
                gen = structured.PackTransposeOp(any_op(), any_op(), any_op(), pack,
                                                 gen, outer_perm=outer).packed_op
        if copies is not None:
            a_pack = transform.GetProducerOfOperand(any_op(), gen, 0)
            b_pack = transform.GetProducerOfOperand(any_op(), gen, 1)
            unpack = transform.GetConsumersOfResult(any_op(), gen, 0)
            loops = []
            for handle, plan in zip((a_pack, b_pack, unpack), copies, strict=True):
                loops.append(None)
                if stream_b and handle is b_pack:
                    continue  # packed in the product's loops
                if plan is not None and handle is unpack and epilogue is not None:
                    fuse_epilogue(root, epilogue, unpack.result, plan, parallel)
                elif plan is not None:
                    # chunks on threads, each copied by small vector tiles: LLVM does
                    # not vectorize loops in the outlined parallel functions
                    chunks, tile, vector_sizes, count = plan
                    handle = handle.result
                    if parallel:
                        forall = structured.TileUsingForallOp(handle, tile_sizes=chunks)
                        handle = forall.tiled_op
                        loops[-1] = (forall.forall_op, count)
                    tiled = structured.TileUsingForOp(handle, sizes=tile)
                    structured.VectorizeOp(tiled.tiled_linalg_op, vector_sizes)
            if loops[0] and loops[1] and loops[0][1] == loops[1][1]:
                # both packs in one parallel loop: one start and join of the threads less
                loop.LoopFuseSiblingOp(any_op(), loops[0][0], loops[1][0])
        panels = [max(1, cache[0] // mr), max(1, cache[1] // nr)]
        # per N panel, every M panel: the B panel (K tile x nr) stays in L1
        interchange = [0, 2, 1, 3] if batch else [1, 0, 2]
        # (with A's and B's packs copied by loops of their own: transform.structured.fuse
        # would fuse a pack still whole into every register tile)
        one_k_tile = (depth is not None and depth <= cache[2] and copies is not None and
                      copies[0] is not None and copies[1] is not None)
        if parallel or one_k_tile:
            # C's zero fill: a pack of a fill, folded to a fill of the panels
            apply_patterns(match_ops(root, ["func.func"]),
                           transform.ApplyCanonicalizationPatternsOp)
        if one_k_tile:
            _zero_accumulators(root, gen, reg, one, panels, interchange, parallel)
        elif stream_b:
            _stream_b_tiles(gen, b_pack, copies[1], reg, panels, cache[2], parallel)
        else:
            if parallel:
                # the fill moves into the loop: each thread clears the tiles it computes,
                # as vector stores (LLVM leaves loops in parallel functions scalar)
                init = transform.GetProducerOfOperand(any_op(), gen, 2)
                forall = structured.TileUsingForallOp(gen, tile_sizes=one + panels)
                fill = structured.FuseIntoContainingOp(init, forall.forall_op).fused_op
                fill_tiles = structured.TileUsingForOp(fill, sizes=one + [1, 1])
                structured.VectorizeOp(fill_tiles.tiled_linalg_op, one + [1, 1, mr, nr])
                tiled = structured.TileUsingForOp(forall.tiled_op,
                                                  sizes=one + [0, 0, cache[2]])
            else:
                tiled = structured.TileUsingForOp(gen, sizes=one + panels + [cache[2]])
            micro = structured.TileUsingForOp(tiled.tiled_linalg_op, sizes=one + [1, 1, 1],
                                              interchange=interchange)
            structured.VectorizeOp(micro.tiled_linalg_op)
        func = match_ops(root, ["func.func"])
        # a partial panel's copy is a masked transfer: the mask becomes the transfer's
        # operand (a vector.mask region would collect buffer deallocation's ops later)
        apply_patterns(func,
                       vector.ApplyVectorReductionToContractPatternsOp,
                       vector.ApplyTransferPermutationPatternsOp,
                       vector.ApplyLowerMaskedTransfersPatternsOp,
                       vector.ApplyLowerMasksPatternsOp,
                       transform.ApplyCanonicalizationPatternsOp)
        # 1x1x1xmrxnr -> the outer product vector<1xmr> x vector<1xnr> into vector<mrxnr>
        apply_patterns(func,
                       vector.ApplyCastAwayVectorLeadingOneDimPatternsOp,
                       vector.ApplyDropUnitDimWithShapeCastPatternsOp,
                       transform.ApplyCanonicalizationPatternsOp)
        transform.ApplyCommonSubexpressionEliminationOp(func)

    return body


def _streams_b(m, n, k, batch, cache, copies, parallel, threads) -> bool:
    """Whether a packed matmul packs B one cache tile at a time (``_stream_b_tiles``):
    a plain matmul of more than one K tile whose B pack is copied in vector tiles
    (``copies``) and whose N and K are whole cache tiles; on threads, only where the
    N tiles share evenly among them (the threads split N: each packs its own tiles
    of B, none waits for another's)."""
    if batch or copies is None or copies[1] is None or k <= cache[2]:
        return False
    if n % cache[1] or k % cache[2]:
        return False
    tiles = n // cache[1]
    return not parallel or (tiles >= threads and (tiles % threads == 0 or tiles >= 4 * threads))


def _stream_b_tiles(gen, b_pack, plan, reg, panels, depth, parallel):
    """The product ``gen`` on packed panels with B packed one cache tile at a time: per
    N tile (an ``scf.forall`` on threads, each clearing its own tiles of C) and K tile,
    the ``depth x columns`` tile of B is copied into its panels by vector tiles
    (``plan``: B's ``_copy_tiles`` entry) and then used by every M tile, while it is
    still in L2. A whole-matrix pack wrote B's panels out to memory (16 MB for a 1024 x
    4096 weight) and read them back; here they are written to and read from L2 only,
    and on threads each thread packs the tiles it uses, with no join between the pack
    and the product.

        scf.for %n, %k {                        // (scf.forall over %n on threads)
          %pb = linalg.pack %b[%k.., %n..] ...  // depth x columns, in nr-wide panels
          scf.for %m { scf.for %np, %mp, %kk { vector.contract ... } } }
    """
    mr, nr = reg
    _, tile, vector_sizes, _ = plan
    if parallel:
        init = transform.GetProducerOfOperand(any_op(), gen, 2)
        forall = structured.TileUsingForallOp(gen, tile_sizes=[0, panels[1]])
        fill = structured.FuseIntoContainingOp(init, forall.forall_op).fused_op
        fill_tiles = structured.TileUsingForOp(fill, sizes=[1, 1])
        structured.VectorizeOp(fill_tiles.tiled_linalg_op, [1, 1, mr, nr])
        # B's N tile first (the K loop's slices are of the thread's slice)
        b_pack = structured.FuseIntoContainingOp(b_pack, forall.forall_op).fused_op
        k_tiles = structured.TileUsingForOp(forall.tiled_op, sizes=[0, 0, depth])
    else:
        k_tiles = structured.TileUsingForOp(gen, sizes=[0, panels[1], depth])
    b_tile = structured.FuseIntoContainingOp(b_pack, k_tiles.loops[-1]).fused_op
    if not parallel:
        # the tile is copied into a buffer of its own size (a slice of an empty tensor
        # is an empty tensor), the same bytes for every tile (bufferization allocates it
        # in the loop, buffer-loop-hoisting takes it out), not into slices of a
        # whole-size buffer: 1024^3, one thread, 14.3 -> 13.6 ms. (In an scf.forall the
        # buffer would be allocated per task, and malloc's time lost the gain.)
        apply_patterns(k_tiles.loops[0], tensor.ApplyFoldTensorEmptyPatternsOp)
    # B's rows in order, each across every panel of the tile (the panel loop outermost
    # read each row 8 times, 128 bytes each, 16 KB apart for a 4096-wide weight: a page
    # per row and no stream for the prefetcher; MLP, one thread: ~1.5% faster)
    copy = structured.TileUsingForOp(b_tile, sizes=tile, interchange=[1, 0])
    structured.VectorizeOp(copy.tiled_linalg_op, vector_sizes)
    rows = structured.TileUsingForOp(k_tiles.tiled_linalg_op, sizes=[panels[0], 0, 0])
    micro = structured.TileUsingForOp(rows.tiled_linalg_op, sizes=[1, 1, 1],
                                      interchange=[1, 0, 2])
    structured.VectorizeOp(micro.tiled_linalg_op)


_ZERO_TILE = "strata.zero_tile"
_DOT_ROWS = "strata.dot_rows"
DOT_ROWS = 4  # most rows of a matmul run as dot products (dot_rows)


def dot_rows(op, batch, lanes) -> bool:
    """Whether the static f32 matmul ``op`` runs as dot products of rows: at most
    ``DOT_ROWS`` rows, B read transposed (N x K, the folded ``k.T`` of a decode step's
    ``q @ k.T`` or nn.Linear's weight), K at least a vector. Each output is then a dot
    product of two contiguous rows, vectorized along K like a row reduction; register
    tiles would read B's columns a lane at a time (gathers): 32 heads x 1 query x 4096
    keys x 128, one thread, unfused: 21 ms with OpenBLAS, far less as dot products."""
    if _operand_order(op, batch) != (False, True) or not _all_f32(op):
        return False
    m, _, k = _mnk(op, batch)
    return m <= DOT_ROWS and k >= lanes


def _fill_tiles(root, op, lead, cache, reg):
    """``_strategy``'s tiles of ``op`` with C's fill fused into them: cache tiles of M and
    N (K whole), register tiles each with its own tile of the fill (through the loops'
    iter_args), a K loop of outer products; the register tiles' fills are vectorized,
    their zero vectors then start the accumulators."""
    init = transform.GetProducerOfOperand(any_op(), op, 2)
    transform.AnnotateOp(init, _ZERO_TILE)
    zero = [0] * len(lead)
    cache_tile = structured.FuseOp(op, tile_sizes=lead + [cache[0], cache[1], 0]).transformed
    fused = structured.FuseOp(cache_tile, tile_sizes=lead + [reg[0], reg[1], 0])
    micro = structured.TileUsingForOp(fused.transformed, sizes=zero + [0, 0, 1])
    structured.VectorizeOp(micro.tiled_linalg_op, lead + [reg[0], reg[1], 1])
    tile = ir.RankedTensorType.get(lead + list(reg), ir.F32Type.get())
    structured.VectorizeOp(structured.MatchOp(
        any_op(), root, ops=ir.ArrayAttr.get([ir.StringAttr.get("linalg.fill")]),
        op_attrs=ir.DictAttr.get({_ZERO_TILE: ir.UnitAttr.get()}),
        filter_result_type=tile).result)


def _zero_accumulators(root, gen, reg, one, panels, interchange, parallel):
    """The packed product ``gen`` of a single K tile, each ``mr x nr`` register tile with
    its own tile of C's zero fill fused into its loop (``transform.structured.fuse``,
    through the loops' iter_args): once vectorized, the accumulator starts from a zero
    vector, the fill's write and the first read of C fold away (loop-invariant subset
    hoisting, canonicalization), and no pass clears C's panels before the product.
    Cache tiles of ``panels`` (an ``scf.forall`` when ``parallel``), then register tiles
    ``reg`` in the order ``interchange``, then the K loop."""
    init = transform.GetProducerOfOperand(any_op(), gen, 2)
    transform.AnnotateOp(init, _ZERO_TILE)  # the fill's tiles keep it
    if parallel:
        forall = structured.TileUsingForallOp(gen, tile_sizes=one + panels)
        structured.FuseIntoContainingOp(init, forall.forall_op)
        cache_tile = forall.tiled_op
    else:
        cache_tile = structured.FuseOp(gen, tile_sizes=one + panels + [0]).transformed
    fused = structured.FuseOp(cache_tile, tile_sizes=one + [1, 1, 0],
                              tile_interchange=interchange)
    micro = structured.TileUsingForOp(fused.transformed, sizes=one + [0, 0, 1])
    structured.VectorizeOp(micro.tiled_linalg_op)
    # the register tiles' fills (those the fusion left behind in the cache tiles are dead,
    # their shapes dynamic where a cache tile is larger than C)
    tile = ir.RankedTensorType.get(one + [1, 1] + list(reg), ir.F32Type.get())
    structured.VectorizeOp(structured.MatchOp(
        any_op(), root, ops=ir.ArrayAttr.get([ir.StringAttr.get("linalg.fill")]),
        op_attrs=ir.DictAttr.get({_ZERO_TILE: ir.UnitAttr.get()}),
        filter_result_type=tile).result)


def register_accumulators(lanes: int) -> int:
    """Vector accumulators of an in-place register tile (``register-n=0``): 16 with
    AVX-512's 32 registers (8 rows x 2 vectors), 8 with AVX2's 16 (8 rows x 1), leaving
    room for the B vectors and a broadcast. With 8 on AVX-512 each K step issued 9 loads
    for 8 FMAs and the FMA chains had no slack (fused attention 8x512x64, one thread,
    Xeon AVX-512: 5.9 -> 5.0 ms with 16)."""
    return 16 if lanes >= 16 else 8


def packed_tiles(lanes: int, cache=(128, 256, 256), micro=(0, 0)):
    """((mr, nr), (rows, columns, depth)): the packed micro-kernel's register tile for
    f32 vectors of ``lanes`` lanes, and the cache tile rounded to whole panels.

    16 lanes (AVX-512, 32 zmm): 8 rows x 2 registers = 16 accumulators, 2 B loads
    and 8 broadcasts per 16 FMAs. 8 lanes (AVX2, 16 ymm): 6 x 2 = 12 accumulators
    plus 2 B registers and a broadcast (15 of 16). ``micro`` = (mr, nr) overrides
    either (0: this default; nr a multiple of ``lanes``, as the options check)."""
    mr, nr = (8, 2 * lanes) if lanes >= 16 else (6, 2 * lanes)
    mr, nr = micro[0] or mr, micro[1] or nr
    rows = max(mr, cache[0] // mr * mr)
    columns = max(nr, cache[1] // nr * nr)
    return (mr, nr), (rows, columns, cache[2])


UNEVEN_PANELS = 64  # fewer panels than this may split into unequal chunks


def _balanced_rows(cache, mr, m, columns, threads):
    """The packed cache tile with fewer rows where that shares its tiles evenly among
    ``threads`` threads: 256 rows in 6-row panels (AVX2) make 3 tiles of 126 rows, one
    thread computing two of them while the other waits; 4 tiles of 66 rows split
    2 + 2. ``columns``: tiles per row of tiles (batches included). Only a few tiles
    per thread are rebalanced: with more, the last round's imbalance is small."""
    panels = -(-m // mr)
    rows = -(-m // cache[0])
    if (rows * columns) % threads == 0 or rows * columns >= 4 * threads:
        return cache
    for target in range(rows + 1, min(panels, rows + threads) + 1):
        if (target * columns) % threads == 0:
            return (-(-panels // target) * mr, cache[1], cache[2])
    return cache


def _chunks(count: int, threads: int) -> int | None:
    """How many equal chunks ``count`` whole units split into for ``threads`` threads:
    a multiple of ``threads`` that divides ``count`` (at most 4 per thread), else a
    divisor of at least ``threads`` chunks, else None (too few units to share)."""
    if count < threads:
        return None
    for per_thread in range(1, 5):
        if count % (threads * per_thread) == 0:
            return threads * per_thread
    for chunks in range(threads + 1, min(count, 4 * threads) + 1):
        if count % chunks == 0:
            return chunks
    return None


def _copy_tiles(m, n, k, batches, reg, threads, batch):
    """How the packs of A and B and the unpack of C (``_packed_strategy``) split
    into chunks over ``threads`` threads: per copy (chunk tile sizes, vector tile
    sizes, vector sizes), or None for a copy that stays whole: one that has too few
    panels to share, or whose dim ends in a partial panel while K is odd. Chunks are
    equal where the panels divide evenly, else the last is shorter. (A partial last
    panel is a masked vector copy: 1000^3 on 2 threads ran 13.5 ms with B's pack and
    C's unpack whole, on one thread, and 10.8 ms with them in vector tiles.)

    A pack's loops are its destination's outer dims (panels, K; batch first), the
    unpack's are C's dims (M, N; batch first); the last item of a plan is its
    number of chunks. A batch splits by batches. A pack
    is copied 8 (or fewer, dividing K) K steps of one panel at a time (an 8 x mr
    transpose for A), the unpack one mr x nr tile at a time."""
    mr, nr = reg
    kt = next(t for t in (8, 4, 2, 1) if k % t == 0)
    if batch:
        chunk = _chunks(batches, threads)
        if chunk is None or m % mr or n % nr:
            return None
        step = batches // chunk
        return (([step, 0, 0], [1, 1, kt], [1, 1, kt, mr], chunk),
                ([step, 0, 0], [1, 1, kt], [1, 1, kt, nr], chunk),
                ([step, 0, 0], [1, mr, nr], [1, 1, 1, mr, nr], chunk))

    def chunk(dim, width, partial):
        if dim % width and not partial:
            return None
        panels = -(-dim // width)
        chunks = _chunks(panels, threads)
        if chunks is None and partial and threads <= panels < UNEVEN_PANELS:
            # no equal split (43 panels): the last chunk is shorter, its bounds dynamic,
            # so every panel's copy is masked. That pays only for small copies (AVX2
            # 256^3, 2 threads: 0.345 -> 0.204 ms); 1000^3's 167 panels of A ran 6%
            # slower so than copied whole on one thread.
            return -(-panels // threads)
        return None if chunks is None else panels // chunks

    def count(dim, width, per_chunk):  # chunks: ceil(panels / per_chunk)
        panels = -(-dim // width)
        return -(-panels // per_chunk)

    # A's, B's and C's last panel (or row or column of tiles) may be partial: masked
    # vector reads and writes, the padding read as zeros; not with an odd K (a unit K
    # step: strata-vectorize's unit-dim patterns would put a second op into the mask of
    # a vector<1 x nr> read, which then fails to verify)
    a, b = chunk(m, mr, kt > 1), chunk(n, nr, kt > 1)
    return (None if a is None else ([a, 0], [1, kt], [1, kt, mr], count(m, mr, a)),
            None if b is None else ([b, 0], [1, kt], [1, kt, nr], count(n, nr, b)),
            None if a is None or (n % nr and kt == 1) else
            ([a * mr, 0], [mr, nr], [1, 1, mr, nr], count(m, mr, a)))


_UNPACK_DEST = "strata.unpack_dest"


def _mark_zero_init(op):
    """Marks the ``linalg.fill`` that makes C (a packed matmul's output); returns it, or
    None. A fill that CSE shares with other ops (two 256x256 matmuls into one zero
    fill) is first cloned, with its ``tensor.empty``, for this matmul alone: the shared
    one would be copied into C's buffer before the unpack overwrites it."""
    index = len(op.operands) - 1
    c = op.operands[index]
    owner = c.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name != "linalg.fill":
        return None
    fill = owner.operation
    if len(list(c.uses)) != 1:
        fill = clone_fill(fill, op)
        op.operands[index] = fill.results[0]
    fill.attributes[_UNPACK_DEST] = ir.UnitAttr.get()
    return fill


def _drop_overwritten_fill(module) -> None:
    """The fill marked by ``_mark_zero_init``, now only the destination of C's unpack
    (the packed fill feeds the product), goes: the unpack writes every element of C,
    so it writes into the fill's empty tensor instead (a whole pass over C less). With
    the epilogue computed in the unpack (passes/packed_epilogue.py), the fill's users are
    the slices of it that the epilogue's tiles unpack into (where a masked tile's write
    and read did not fold away)."""
    for fill in collect_ops(module, lambda o: _UNPACK_DEST in o.attributes):
        del fill.attributes[_UNPACK_DEST]
        users = [u.owner for u in fill.results[0].uses]
        slices = bool(users) and all(u.name == "tensor.extract_slice" for u in users)
        if slices or (len(users) == 1 and
                      users[0].name in ("scf.forall", "scf.for", "linalg.unpack")):
            fill.results[0].replace_all_uses_with(fill.operands[1])
            fill.erase()


def _operand_order(op, batch) -> tuple[bool, bool] | None:
    """Which operands a matmul reads transposed, ``(A as (k, m), B as (n, k))``: both
    False for the standard order, B transposed for ``x @ w.T`` (PyTorch's ``nn.Linear``)
    once strata-layout has folded the transpose into the op; None for other maps."""
    if "indexing_maps" not in op.attributes:
        return (False, False)
    lead = [0] if batch else []
    m, n, k = (1, 2, 3) if batch else (0, 1, 2)

    def amap(*dims):
        return ir.AffineMap.get(k + 1, 0, [ir.AffineDimExpr.get(d) for d in lead + list(dims)])

    a, b, c = [ir.AffineMapAttr(x).value for x in ir.ArrayAttr(op.attributes["indexing_maps"])]
    if c != amap(m, n) or a not in (amap(m, k), amap(k, m)) or b not in (amap(k, n), amap(n, k)):
        return None
    return (a == amap(k, m), b == amap(n, k))


def _conv_flops(op) -> int:
    """2 x output elements x (C x KH x KW) of a linalg.conv_2d_nchw_fchw."""
    out = ir.RankedTensorType(op.results[0].type).shape
    w = ir.RankedTensorType(op.operands[1].type).shape
    return 2 * int(np.prod(out)) * int(np.prod(w[1:]))


def _all_f32(op) -> bool:
    return all(isinstance(ir.RankedTensorType(v.type).element_type, ir.F32Type)
               for v in list(op.operands) + list(op.results))


def _cache_tile(dim: int, preferred: int) -> int:
    """A cache tile for ``dim``: all of it when it fits, else a divisor of it no smaller
    than half the preferred size (so tiles stay static), else the preferred size."""
    if dim <= preferred:
        return max(1, dim)
    for t in range(preferred, preferred // 2 - 1, -1):
        if dim % t == 0:
            return t
    return preferred


def _row_copy_strategy(tag, rank, width):
    """An elementwise copy as one ``vector<width>`` transfer per row of its last dim."""
    def body(root):
        op = match_tagged(root, tag)
        tiled = structured.TileUsingForOp(op, sizes=[1] * (rank - 1) + [0])
        structured.VectorizeOp(tiled.tiled_linalg_op, [1] * (rank - 1) + [width])
        # a row shorter than the vector: masked transfers, not vector.mask regions (see
        # _packed_strategy)
        apply_patterns(match_ops(root, ["func.func"]),
                       vector.ApplyLowerMaskedTransfersPatternsOp,
                       vector.ApplyLowerMasksPatternsOp,
                       transform.ApplyCanonicalizationPatternsOp)

    return body


def _gather_strategy(tag, rank, chunk, parallel=False):
    """A gather (an elementwise generic reading ``tensor.extract`` of computed
    coordinates, e.g. rows picked by indices) as ``vector<chunk>`` loads along its last
    dim: MLIR's vectorizer turns an extract whose last coordinate is the innermost loop
    into a contiguous vector load (``vectorize_nd_extract``), masked past a row's end;
    the rows run on threads with ``parallel``."""
    def body(root):
        op = match_tagged(root, tag)
        rows = [1] * (rank - 1)
        if parallel:
            op = structured.TileUsingForallOp(op, tile_sizes=rows + [0]).tiled_op
        tiled = structured.TileUsingForOp(op, sizes=rows + [chunk])
        structured.VectorizeOp(tiled.tiled_linalg_op, rows + [chunk], vectorize_nd_extract=True)
        apply_patterns(match_ops(root, ["func.func"]),
                       vector.ApplyLowerMaskedTransfersPatternsOp,
                       vector.ApplyLowerMasksPatternsOp,
                       transform.ApplyCanonicalizationPatternsOp)

    return body


def _loop_index(value, dims) -> bool:
    """Whether ``value`` is ``linalg.index`` of one of ``dims``."""
    owner = value.owner
    return (not isinstance(owner, ir.Block) and owner.name == "linalg.index" and
            ir.IntegerAttr(owner.attributes["dim"]).value in dims)


def _gather(op) -> bool:
    """An all-parallel linalg.generic of static shape, rank >= 2, reading tensor.extract
    where each read is a contiguous row (its last coordinate the innermost loop's index)
    or a value fixed along that loop (all coordinates outer loops' indices): a gathered
    row, not an element-wise pick or a reversed row (vector.gather: slower than LLVM's
    own loop there)."""
    if op.name != "linalg.generic" or len(op.results) != 1:
        return False
    iterators = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    if len(iterators) < 2 or any("parallel" not in it for it in iterators):
        return False
    if not all(isinstance(v.type, ir.RankedTensorType) and
               ir.RankedTensorType(v.type).has_static_shape for v in op.operands):
        return False
    last, outer = len(iterators) - 1, set(range(len(iterators) - 1))
    extracts = [o.operation for o in op.regions[0].blocks[0].operations
                if o.operation.name == "tensor.extract"]
    for extract in extracts:
        coords = list(extract.operands)[1:]
        if not coords:
            continue
        row = _loop_index(coords[-1], {last}) and not any(
            _loop_index(c, {last}) for c in coords[:-1])
        fixed = all(_loop_index(c, outer) for c in coords)
        if not (row or fixed):
            return False
    return bool(extracts)


def _reduction_strategy(tag, n_parallel, width, n_results, parallel=False):
    """Row reductions: partial accumulators of ``width`` lanes, combined once per row.

    ``parallel``: the rows form an ``scf.forall`` (run on threads later)."""
    ones, zeros = [1] * n_parallel, [0] * n_parallel
    sizes = ones + [width]

    def body(root):
        op = match_tagged(root, tag)
        if parallel:
            rows = structured.TileUsingForallOp(op, tile_sizes=ones + [0]).tiled_op
        else:
            rows = structured.TileUsingForOp(op, sizes=ones + [0]).tiled_linalg_op
        # The op yields k fills, the split op, k combining ops and the loop (2k + 2
        # handles for k results), while its ODS declares only the fills variadic: the
        # handles are taken by position, not through the generated accessors.
        k = n_results
        split = structured.TileReductionUsingForOp(
            [any_op()] * (2 * k - 1), any_op(), any_op(), any_op(), rows,
            tile_sizes=zeros + [width]).results
        fills, partial, combining = split[:k], split[k], split[k + 1:2 * k + 1]
        for handle in [partial, *combining, *fills]:
            structured.VectorizeOp(handle, sizes)
        apply_patterns(match_ops(root, ["func.func"]),
                       vector.ApplyLowerMaskedTransfersPatternsOp,
                       vector.ApplyLowerMasksPatternsOp,
                       transform.ApplyCanonicalizationPatternsOp)

    return body


def _row_reduction(op, width):
    """Whether ``op`` is a linalg.generic reducing its last loop, contiguously, by one combiner."""
    if op.name != "linalg.generic" or not op.results:
        return False
    iterators = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    if len(iterators) < 2 or "reduction" not in iterators[-1] or \
            any("reduction" in it for it in iterators[:-1]):
        return False
    types = [v.type for v in op.operands]
    if not all(isinstance(t, ir.RankedTensorType) and ir.RankedTensorType(t).has_static_shape
               for t in types):
        return False
    # f32 throughout, or with i32 indices (the second half of a last-axis argmax /
    # argmin: strata-to-linalg's reduction.py), never f32 data alone
    i32 = ir.IntegerType.get_signless(32)
    elements = [ir.RankedTensorType(t).element_type for t in types]
    if not isinstance(elements[0], ir.F32Type) or not all(
            isinstance(e, ir.F32Type) or e == i32 for e in elements):
        return False
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])]
    last = len(iterators) - 1
    for amap in maps[:-1]:
        results = list(amap.results)
        uses = [i for i, e in enumerate(results)
                if isinstance(e, ir.AffineDimExpr) and e.position == last]
        if uses and uses != [len(results) - 1]:
            return False  # the reduction dim must be the contiguous one (or absent)
    for v, amap in zip(op.operands, maps, strict=True):
        results = list(amap.results)
        if results and isinstance(results[-1], ir.AffineDimExpr) and \
                results[-1].position == last and ir.RankedTensorType(v.type).shape[-1] < width:
            return False
    block = op.regions[0].blocks[0]
    if any(o.operation.name == "linalg.index" for o in block.operations):
        return False  # tiled into partial accumulators, it would count within a tile
    for acc in list(block.arguments)[-len(op.results):]:
        combiners = [o.operation for o in block.operations
                     if any(v == acc for v in o.operation.operands)]
        if not (len(combiners) == 1 and combiners[0].name in _COMBINERS and
                len(list(acc.uses)) == 1):
            return False
    return True


def _mnk(op, batch):
    """(M, N, K) of a static matmul / batch_matmul, from its indexing maps (a folded
    transpose swaps an operand's dims)."""
    if "indexing_maps" in op.attributes:
        sizes = {}
        for v, a in zip(op.operands, ir.ArrayAttr(op.attributes["indexing_maps"]), strict=True):
            shape = ir.RankedTensorType(v.type).shape
            for dim, expr in zip(shape, ir.AffineMapAttr(a).value.results, strict=True):
                if isinstance(expr, ir.AffineDimExpr):
                    sizes[expr.position] = dim
        first = 1 if batch else 0
        return (sizes[first], sizes[first + 1], sizes[first + 2])
    a = ir.RankedTensorType(op.operands[0].type).shape
    b = ir.RankedTensorType(op.operands[1].type).shape
    return (a[-2], b[-1], a[-1])


def _static_ops(module, name):
    """Matmuls of static shape whose element types vectorize well.

    bf16 operands are left to scalar code: LLVM 22's x86 backend aborts on some
    bf16 vector conversions (``SoftPromoteHalfOperand``) that these tiles produce.
    """
    def ok(op):
        types = [ir.RankedTensorType(v.type) for v in op.operands
                 if isinstance(v.type, ir.RankedTensorType)]
        return (op.name == name and len(types) == len(op.operands) and
                "strata.blas" not in op.attributes and  # a BLAS call (strata-fuse, strata-blas)
                all(t.has_static_shape for t in types) and
                not any(isinstance(t.element_type, ir.BF16Type) for t in types))

    return collect_ops(module, ok)


def matmul_signatures(module) -> list[str]:
    """The signatures (passes/tuning.py) of the matmuls this pass tiles in ``module``:
    what a ``tuned`` entry can name (strata.tune asks, at the ``layout`` level)."""
    return [matmul_signature(op, batch, _mnk(op, batch))
            for op_name, batch in (("linalg.matmul", False), ("linalg.batch_matmul", True))
            for op in _static_ops(module, op_name)]


def matmul_plans(module, configs, threads: int = 1) -> dict[str, list[tuple]]:
    """Per matmul signature in ``module``, the plan (VectorizePass.matmul_plan) that each
    of ``configs`` (option fields, as a ``tuned`` entry holds them) gives it."""
    lanes = f32_lanes()
    base = VectorizePass(threads=threads)
    out: dict[str, list[tuple]] = {}
    for op_name, batch in (("linalg.matmul", False), ("linalg.batch_matmul", True)):
        for op in _static_ops(module, op_name):
            mnk = _mnk(op, batch)
            signature = matmul_signature(op, batch, mnk)
            if signature not in out:
                out[signature] = [dataclass_replace(base, **knobs_of(c, base.name)
                                                    ).matmul_plan(op, batch, mnk, lanes)
                                  for c in configs]
    return out


_FLOAT_COMBINERS = ("arith.addf", "arith.mulf", "arith.maximumf", "arith.minimumf",
                    "arith.maxnumf", "arith.minnumf")
_COMBINERS = _FLOAT_COMBINERS + ("arith.minsi",)  # an argmax's first index


def mark_reassociable_reductions(module) -> int:
    """Lets LLVM reorder float reductions (``fastmath<reassoc>`` on each combiner).

    A combiner is a body op of a reduction (a ``linalg.reduce``, or a
    ``linalg.generic`` with a reduction loop) that reads the accumulator block
    argument. Reassociation lets the loop vectorizer keep vector partial sums;
    the result differs from the sequential order by rounding only (about
    sqrt(K) ulp for a length-K sum). Returns the number of ops marked.
    """
    marked = 0
    for op in collect_ops(module, lambda o: o.name in ("linalg.generic", "linalg.reduce")):
        if op.name == "linalg.generic":
            iterators = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
            if not any("reduction" in it for it in iterators):
                continue
        block = op.regions[0].blocks[0]
        n_out = len(op.results)
        accumulators = list(block.arguments)[-n_out:] if op.name == "linalg.generic" else \
            list(block.arguments)[len(block.arguments) // 2:]
        for inner in block.operations:
            inner = inner.operation
            if inner.name in _FLOAT_COMBINERS and any(v == a for v in inner.operands
                                                for a in accumulators):
                inner.attributes["fastmath"] = ir.Attribute.parse(
                    "#arith.fastmath<reassoc,contract>", op.context)
                marked += 1
    return marked


@dataclass(frozen=True, eq=False, repr=False)
class VectorizePass(Pass):
    """Tile and vectorize matmuls (for caches and registers; few-row x @ w.T weight-stationary), row reductions and gathered rows (on tensors)."""

    name = "strata-vectorize"
    cache_m: int = option(64, min=1, help="Rows of a matmul cache tile")
    cache_n: int = option(128, min=1, help="Columns of a matmul cache tile")
    cache_k: int = option(128, min=1, help="Depth (K) of a matmul cache tile")
    register_m: int = option(8, min=1, help="Rows of the register accumulator")
    register_n: int = option(0, min=0, help="Columns of the register accumulator (0: from the host's vector width)")
    lanes: int = option(0, min=0, help="f32 lanes of a vector register (0: the target's, see codegen/host.py)")
    pack: bool = option(True, help="Run large f32 matmuls on packed panels (micro-kernel)")
    pack_min: int = option(64, min=1, help="Fewest rows and columns of a matmul run on packed panels")
    pack_m: int = option(128, min=1, help="Rows of a packed matmul's cache tile")
    pack_n: int = option(256, min=1, help="Columns of a packed matmul's cache tile")
    pack_k: int = option(256, min=1, help="Depth (K) of a packed matmul's cache tile")
    micro_m: int = option(0, min=0, help="Rows of the packed micro-kernel (0: from the host's vector registers)")
    micro_n: int = option(0, min=0, help="Columns of the packed micro-kernel, a multiple of the vector lanes (0: two vectors)")
    reductions: bool = option(True, help="Vectorize row reductions too")
    reduction_width: int = option(16, min=1, help="Lanes of a row reduction's partial accumulators")
    threads: int = threads_option()
    parallel_flops: int = option(1 << 25, min=1, help="Fewest flops of a matmul run on threads")
    parallel_elements: int = option(1 << 20, min=1, help="Fewest input elements of a row reduction run on threads")
    epilogue: bool = option(True, help="Compute a packed matmul's elementwise epilogue in the copy that unpacks its result")
    stream_b: bool = option(True, help="Pack a packed matmul's B one cache tile at a time, inside its loops, rather than whole before the product")
    stationary_rows: int = option(256, min=0, help="Most rows of an A @ W^T matmul run weight-stationary, (W @ A^T)^T with W read in place (0: never; passes/weight_stationary.py)")
    tuned: str = option("", pattern=TUNED_PATTERN, form="SIG:KNOBS[,SIG:KNOBS] (passes/tuning.py)",
                        help="Per-matmul tiles chosen by autotuning, overriding the options above for that op")

    def run(self, module: ir.Operation) -> None:
        if self.reductions:
            with Tags(module) as tags:
                self._dot_rows(module, tags, self.lanes or f32_lanes())
            mark_reassociable_reductions(module)
            with Tags(module) as tags:
                _generalize_last_dim_reduces(module, tags, self.reduction_width)
            with Tags(module) as tags:
                self._vectorize_reductions(module, tags)
        with Tags(module) as tags:
            self._swap_weights(module, tags, self.lanes or f32_lanes())
        with Tags(module) as tags:
            self._vectorize_matmuls(module, tags)
        with Tags(module) as tags:
            self._vectorize_im2col_parts(module, tags, self.lanes or f32_lanes())
        with Tags(module) as tags:
            self._vectorize_direct_convs(module, tags, self.lanes or f32_lanes())
        with Tags(module) as tags:
            self._vectorize_gathers(module, tags, self.lanes or f32_lanes())

    def _dot_rows(self, module, tags, lanes):
        """Matmuls of at most ``DOT_ROWS`` rows that read B transposed (``dot_rows``)
        become linalg.generics, which the row reductions then vectorize: each output a
        dot product of A's row and B's row, in partial sums of ``reduction-width`` lanes."""
        found = False
        for op_name, batch in (("linalg.matmul", False), ("linalg.batch_matmul", True)):
            for op in _static_ops(module, op_name):
                if dot_rows(op, batch, lanes):
                    tags.add(op, _DOT_ROWS)
                    found = True
        if found:
            tags.apply(lambda root: structured.GeneralizeOp(match_tagged(root, _DOT_ROWS)))

    def _swap_weights(self, module, tags, lanes):
        """``A @ W^T`` matmuls of few rows (a tuned op keeps its own tiles) become
        weight-stationary (passes/weight_stationary.py); their transposes vector tiles."""
        if not self.stationary_rows or not self.pack:
            return
        try:
            tuned = parse_tuned(self.tuned)
        except ValueError:
            return  # _vectorize_matmuls reports it
        candidates = []
        for op in _static_ops(module, "linalg.matmul"):
            if in_loop(op) or not _all_f32(op) or _operand_order(op, False) != (False, True):
                continue
            mnk = _mnk(op, False)
            if matmul_signature(op, False, mnk) not in tuned:
                candidates.append((op, mnk))
        for i, op in enumerate(swap_transposed_weights(candidates, lanes, self.stationary_rows)):
            location = op.location
            try:
                tags.apply(transpose_strategy(tags.add(op, f"strata.vectorize_transpose_{i}"),
                                              lanes))
            except ScriptError as e:
                self.fail_at(location, f"strata-vectorize: {e}")

    def _vectorize_gathers(self, module, tags, lanes):
        for i, op in enumerate(collect_ops(module, _gather)):
            shape = ir.RankedTensorType(op.results[0].type).shape
            if shape[-1] < lanes:
                continue  # rows shorter than a vector: LLVM's scalar loop
            tag = tags.add(op, f"strata.vectorize_gather_{i}")
            chunk = min(-(-shape[-1] // lanes), 4) * lanes
            parallel = (self.threads > 1 and int(np.prod(shape)) >= self.parallel_elements
                        and int(np.prod(shape[:-1])) > 1)
            location = op.location
            try:
                tags.apply(_gather_strategy(tag, len(shape), chunk, parallel))
            except ScriptError as e:
                self.fail_at(location, f"strata-vectorize: {e}")

    def _vectorize_direct_convs(self, module, tags, lanes):
        """NCHW convs strata-conv-to-matmul kept direct, in register tiles
        (passes/direct_conv.py); one not inside strata-fuse's tiles gets its (image,
        rows) tiles on threads past ``parallel-flops``."""
        convs = []
        for op in collect_ops(module, lambda o: o.name == "linalg.conv_2d_nchw_fchw"):
            pieces = plan(op, lanes)
            if pieces is not None:
                convs.append((op, pieces))
        count = 0
        for op, pieces in convs:
            out = ir.RankedTensorType(op.results[0].type).shape
            rows = 0
            if self.threads > 1 and not in_loop(op) and _conv_flops(op) >= self.parallel_flops:
                rows = tile_rows(out[2], out[3])
                if out[0] * (out[2] // rows) < 2:
                    rows = 0
            location = op.location
            # every piece tagged before any is scheduled (a schedule's clean-up may rebuild
            # the other pieces' ops; their tags go with them)
            tagged = []
            for generic_op, piece in zip(as_filter_first(op, pieces), pieces, strict=True):
                tagged.append((tags.add(generic_op, f"strata.vectorize_conv_{count}"), piece))
                count += 1
            for tag, piece in tagged:
                try:
                    tags.apply(direct_conv_strategy(tag, piece, rows))
                except ScriptError as e:
                    self.fail_at(location, f"strata-vectorize: {e}")
        if convs:  # LLVM's -O3 took 5.7 s on a ResNet block's two (0.6 s at -O2, as fast)
            module.attributes[OPT_LEVEL_CAP] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(64), 2)

    def _vectorize_im2col_parts(self, module, tags, lanes):
        """strata-fuse's per-tile im2col copies (fusion/im2col.py), one vector per row of
        their last dim (OW with NCHW, C with NHWC; masked past its end)."""
        parts = collect_ops(module, lambda o: o.name in ("linalg.generic", "linalg.copy") and
                            IM2COL_PART in o.attributes)
        for i, op in enumerate(parts):
            shape = ir.RankedTensorType(op.results[0].type).shape
            if not all(ir.ShapedType.is_static_size(d) for d in shape):
                continue
            tag = tags.add(op, f"strata.vectorize_im2col_{i}")
            width = -(-shape[-1] // lanes) * lanes
            location = op.location
            try:
                tags.apply(_row_copy_strategy(tag, len(shape), width))
            except ScriptError as e:
                self.fail_at(location, f"strata-vectorize: {e}")

    def _vectorize_matmuls(self, module, tags):
        try:
            tuned = parse_tuned(self.tuned)
        except ValueError as e:
            self.fail(module, f"strata-vectorize: option 'tuned': {e}")
        lanes = self.lanes or f32_lanes()
        count = 0
        for op_name, batch in (("linalg.matmul", False), ("linalg.batch_matmul", True)):
            for op in _static_ops(module, op_name):
                m, n, k = _mnk(op, batch)
                signature = matmul_signature(op, batch, (m, n, k))
                config = knobs_of(tuned.get(signature, {}), self.name)
                # a tuned op's own tiles (runtime/tuning_record.py), else the options'
                try:
                    chosen = dataclass_replace(self, tuned="", **config) if config else self
                except OptionError as e:
                    self.fail_at(op.location, f"strata-vectorize: tuned tiles for {signature}: "
                                 f"{str(e).removeprefix('strata-vectorize: ')}")
                if chosen is not self:  # its diagnostics are this run's
                    object.__setattr__(chosen, "_diags", self._diags)
                    object.__setattr__(chosen, "_locs", self._locs)
                chosen._vectorize_matmul(module, op, batch, (m, n, k), lanes, count, tags)
                count += 1

    def _vectorize_matmul(self, module, op, batch, mnk, lanes, count, tags):
        try:
            plan = self.matmul_plan(op, batch, mnk, lanes)
        except OptionError as e:
            self.fail_at(op.location, f"strata-vectorize: {str(e).removeprefix('strata-vectorize: ')}")
        tag = tags.add(op, f"strata.vectorize_{count}")
        location = op.location
        try:
            if plan[0] == "packed":
                _, reg, pcache, parallel = plan
                m, n, k = mnk
                batches = ir.RankedTensorType(op.operands[0].type).shape[0] if batch else 1
                copies = _copy_tiles(m, n, k, batches, reg, self.threads, batch)
                zero_c = _mark_zero_init(op)
                epilogue = self._epilogue(op, copies, tags, count)
                depth = k if zero_c is not None else None
                stream_b = self.stream_b and _streams_b(
                    m, n, k, batch, pcache, copies, parallel, self.threads) and not (
                        depth is not None and depth <= pcache[2])
                tags.apply(_packed_strategy(tag, reg, pcache, batch, parallel, copies,
                                            _operand_order(op, batch), epilogue, depth,
                                            stream_b))
                if zero_c is not None:
                    _drop_overwritten_fill(module)
            else:
                _, op_cache, op_reg, parallel, peel = plan
                zero_c = None
                if not parallel and peel == (False, False) and mnk[2] <= op_cache[2] and \
                        all(c % r == 0 for c, r in zip(op_cache, op_reg, strict=False)) and \
                        _all_f32(op):
                    zero_c = _mark_zero_init(op)
                tags.apply(_strategy(tag, op_cache, op_reg, batch, parallel, peel,
                                     zero_init=zero_c is not None))
                if zero_c is not None:
                    _drop_overwritten_fill(module)
        except ScriptError as e:
            self.fail_at(location, f"strata-vectorize: {e}")

    def _epilogue(self, op, copies, tags, count):
        """The tag of the packed matmul ``op``'s elementwise epilogue, computed in
        C's unpack (passes/packed_epilogue.py), or None: no such consumer, option
        ``epilogue`` off, or C's unpack not copied in tiles."""
        if not self.epilogue or copies is None or copies[2] is None:
            return None
        consumer = elementwise_epilogue(op)
        if consumer is None:
            return None
        return tags.add(consumer, f"strata.vectorize_epilogue_{count}")

    def matmul_plan(self, op, batch, mnk, lanes) -> tuple:
        """The schedule of one static matmul under these options: ``("packed", (mr, nr),
        cache tile, parallel)`` or ``("tiled", cache tile, register tile, parallel, peel)``.
        Two option sets with the same plan make the same code (strata.tune skips one)."""
        cache = (self.cache_m, self.cache_n, self.cache_k)
        # Tiles no larger than the op, so small matmuls need no remainder masks.
        m, n, k = mnk
        batches = ir.RankedTensorType(op.operands[0].type).shape[0] if batch else 1
        if self._packs(op, batch, m, n, k, lanes):
            if self.micro_n % lanes:
                raise OptionError(f"{self.name}: option 'micro-n' must be a multiple of the "
                                  f"{lanes} vector lanes, got {self.micro_n}")
            reg, pcache = packed_tiles(lanes, (self.pack_m, self.pack_n, self.pack_k),
                                       (self.micro_m, self.micro_n))
            tiles = batches * -(-m // pcache[0]) * -(-n // pcache[1])
            parallel = (self.threads > 1 and tiles > 1 and
                        2 * batches * m * n * k >= self.parallel_flops)
            if parallel:
                pcache = _balanced_rows(pcache, reg[0], m, -(-n // pcache[1]) * batches,
                                        self.threads)
            return ("packed", reg, pcache, parallel)
        skinny = self._skinny(op, batch, m, n, k, lanes, batches)
        if skinny is not None:
            op_cache, op_reg = skinny
        else:
            op_cache = tuple(_cache_tile(dim, c) for c, dim in zip(cache, (m, n, k), strict=True))
            reg_m = max(1, min(self.register_m, op_cache[0]))
            reg_n = self.register_n or lanes * max(1, register_accumulators(lanes) // reg_m)
            op_reg = (reg_m, max(1, min(reg_n, op_cache[1])))
        tiles = batches * -(-m // op_cache[0]) * -(-n // op_cache[1])
        parallel = (self.threads > 1 and tiles > 1 and
                    2 * batches * m * n * k >= self.parallel_flops)
        peel = None
        if m % op_cache[0] == 0 and n % op_cache[1] == 0:
            peel = (op_cache[0] % op_reg[0] != 0, op_cache[1] % op_reg[1] != 0)
        return ("tiled", op_cache, op_reg, parallel, peel)

    def _packs(self, op, batch, m, n, k, lanes) -> bool:
        """Whether ``op`` runs on packed panels: f32, operands read as they are or
        transposed (``_operand_order``), a vector width of at least 8 lanes, and enough
        rows and columns to pay for the packing copies (a few rows against a large B,
        or a few columns, stream an operand once unpacked: packing it would add a full
        read and write)."""
        if not self.pack or lanes < 8 or IN_PLACE in op.attributes:
            return False
        if min(m, n) < self.pack_min or k < 8:
            return False
        # inside an output tile of strata-fuse's epilogue loop, packing would copy its
        # operand panels once per tile
        return not in_loop(op) and _all_f32(op) and _operand_order(op, batch) is not None

    def _skinny(self, op, batch, m, n, k, lanes, batches):
        """passes/skinny_tiles.py's tiles for an f32 matmul of fewer than ``pack-min``
        rows with its operands in standard order (B's rows along N), where the register
        tile is left to this pass (``register-n=0``) and the op is not one of
        strata-fuse's epilogue tiles."""
        if self.register_n or m >= self.pack_min or in_loop(op) or not _all_f32(op) or \
                _operand_order(op, batch) != (False, False):
            return None
        threads = self.threads if 2 * batches * m * n * k >= self.parallel_flops else 1
        return skinny_tiles(m, n, k, lanes, threads, batches)

    def _vectorize_reductions(self, module, tags):
        for i, op in enumerate(collect_ops(module,
                                           lambda o: _row_reduction(o, self.reduction_width))):
            tag = tags.add(op, f"strata.vectorize_reduction_{i}")
            n_parallel = len(ir.ArrayAttr(op.attributes["iterator_types"])) - 1
            location = op.location
            try:
                # the largest input (a dot-rows matmul's B, not its one row of A)
                inputs = list(op.operands)[:len(op.operands) - len(op.results)]
                elements = max(int(np.prod(ir.RankedTensorType(v.type).shape))
                               for v in inputs)
                rows = int(np.prod(ir.RankedTensorType(op.results[0].type).shape))
                parallel = (self.threads > 1 and elements >= self.parallel_elements and
                            rows > 1)
                tags.apply(_reduction_strategy(tag, n_parallel, self.reduction_width,
                                               len(op.results), parallel))
            except ScriptError as e:
                self.fail_at(location, f"strata-vectorize: {e}")


def _last_dim_reduce(op, width):
    """A linalg.reduce that, as a generic, would be a vectorizable row reduction."""
    if op.name != "linalg.reduce" or len(op.results) != 1:
        return False
    dims = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
    t = ir.RankedTensorType(op.operands[0].type)
    return (dims == [t.rank - 1] and t.rank >= 2 and t.has_static_shape and
            isinstance(t.element_type, ir.F32Type) and t.shape[-1] >= width)


def _generalize_last_dim_reduces(module, tags, width):
    """linalg.reduce over the last dim becomes the equivalent generic, so that
    strata-vectorize's row-reduction schedule matches it."""
    found = [tags.add(op, f"strata.generalize_{i}")
             for i, op in enumerate(collect_ops(module, lambda o: _last_dim_reduce(o, width)))]

    def body(root):
        for tag in found:
            structured.GeneralizeOp(match_tagged(root, tag))

    if found:
        tags.apply(body)
