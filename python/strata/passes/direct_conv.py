"""Direct NCHW convolutions in vector registers, for strata-vectorize (and the tiles
strata-fuse and the cost of strata-conv-to-matmul that go with them).

An f32 ``linalg.conv_2d_nchw_fchw`` with width stride 1 whose output rows are covered by
register tiles of power-of-two widths (2 vectors, 1, half of one, at least 8 pixels: 32
with 16 lanes, 56 = 32 + 16 + 8 as three column pieces, each a conv on its slices; not 28
= 16 + 8 + 4) runs without an im2col copy: each register tile is
``reg_m`` output channels x ``reg_n`` pixels of one output row, and its accumulator
stays in registers for the whole reduction over (input channel, kh, kw). A step of
``kc`` input channels reads ``kc`` rows of the padded input at the window's shift
(one unaligned vector load per row and vector) and ``reg_m x kc`` filter values:

    %o = linalg.conv_2d_nchw_fchw {strides = [1, 1]}
           ins(%xp, %w : tensor<1x64x6x34xf32>, tensor<64x64x3x3xf32>) outs(%acc : tensor<1x64x4x32xf32>)
  =>
    scf.for %f step 8, %oh, %ow step 32 {                 // reg_m x reg_n = 8 x 32
      %a0 = vector.transfer_read %acc[...] : vector<8x32xf32>
      %a = scf.for %c step 2 iter_args(%a1 = %a0) {       // hoisted out of c, kh, kw
        scf.for %kh, %kw iter_args(...) {
          %x = vector.transfer_read %xp[0, %c, %oh + %kh, %ow + %kw] : vector<2x32xf32>
          %w = vector.transfer_read %w[%f, %c, %kh, %kw] : vector<8x2xf32>
          vector.contract %w, %x, %acc : vector<8x2xf32>, vector<2x32xf32> into vector<8x32xf32>
      vector.transfer_write %a, %acc[...]

The schedule (transform dialect): the conv as a ``linalg.generic`` that reads the filter
first (so the contraction is filter x input, the form MLIR lowers to broadcast FMAs), tiled
to ``[1, reg_m, 1, reg_n, kc, 1, 1]``; unit dims folded away
(``fold_unit_extent_dims_via_slices``: the window maps ``oh + kh``, ``ow + kw`` become a
plain slice offset), which leaves an ``(f, ow, c)`` contraction MLIR vectorizes; the
accumulator is hoisted by the pipeline's ``loop-invariant-subset-hoisting``.

The ResNet block's 3x3 64-channel conv at 4x64x32x32 (2 threads, AVX-512): 1.51-1.60 ms,
the im2col path 1.58 ms, oneDNN through torch 1.47-1.50 ms; the win is what it removes
around the conv: no im2col copies, and an epilogue tile of whole rows that writes into
the next conv's padded buffer (eliminate-empty-tensors), no copy of the output. The
ImageNet ResNet's 1x64x56x56 one + bias + relu: 1.11-1.12 ms in three pieces, 1.16-1.18
ms as im2col tiles, torch 1.13-1.15 ms (a 24-wide piece ran 5.9 ms: LLVM scalarizes
vectors of 24).
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, tensor, transform
from mlir.dialects.transform import structured, vector

from ..codegen.transform import apply_patterns, match_ops, match_tagged
from .lowering.common import affine_map, d, generic

__all__ = ["CHANNEL_STEP", "Piece", "as_filter_first", "direct_conv_strategy", "plan",
           "tile_rows"]

CHANNEL_STEP = 2   # input channels per step (kc): 1 would fold the reduction away
TILE_PIXELS = 128  # output pixels of a cache tile (whole rows), as the im2col tiles
MIN_ROWS = 2       # fewest output channels of a register tile
MIN_COLUMNS = 8    # fewest pixels of a register tile's row


@dataclass(frozen=True)
class Piece:
    """Output columns ``[start, start + columns)`` of a direct conv, in register tiles of
    ``reg_m`` output channels x ``reg_n`` pixels."""

    start: int
    columns: int
    reg_m: int
    reg_n: int


def _ints(op, name) -> list[int]:
    return [int(v) for v in ir.DenseIntElementsAttr(op.attributes[name])]


def plan(op, lanes: int) -> list[Piece] | None:
    """How a direct conv ``op`` runs in register tiles: its output columns in pieces of
    whole register tiles of power-of-two widths (_columns: one piece when OW is a multiple
    of two vectors; 56 = 32 + 16 + 8 with 16 lanes), or None if it does not run this way:
    not an f32 NCHW conv of static shape, width stride > 1, columns left over by tiles of
    at least MIN_COLUMNS, an odd number of input channels, output
    channels with no register tile of at least MIN_ROWS rows, or a 1x1 stride-1 conv
    (the matmul path reads its input in place)."""
    if op.name != "linalg.conv_2d_nchw_fchw":
        return None
    types = [ir.RankedTensorType(v.type) for v in (*op.operands, op.results[0])]
    if not all(t.has_static_shape and isinstance(t.element_type, ir.F32Type) for t in types):
        return None
    x, w, out = (t.shape for t in (types[0], types[1], types[3]))
    strides = _ints(op, "strides")
    if strides[1] != 1 or x[1] % CHANNEL_STEP:
        return None
    if w[2] == w[3] == 1 and strides == [1, 1] and list(x[2:]) == list(out[2:]):
        return None
    pieces = []
    for start, columns, reg_n in _columns(out[3], lanes) or ():
        # accumulators: half the vector registers (32 zmm: 8 x 2, 16 ymm: 4 x 2), fewer
        # rows where the output channels do not divide
        reg_m = (16 if lanes >= 16 else 8) // -(-reg_n // lanes)
        while out[1] % reg_m:
            reg_m //= 2
        if reg_m < MIN_ROWS:
            return None
        pieces.append(Piece(start, columns, reg_m, reg_n))
    return pieces or None


def _columns(ow: int, lanes: int) -> list[tuple[int, int, int]] | None:
    """``(first column, columns, reg_n)`` pieces covering ``ow`` output columns: as many
    tiles of 2 vectors as fit, then of 1, then of half a vector down to MIN_COLUMNS
    (power-of-two widths: LLVM splits a 24-wide vector into scalar code; 56 = 32 + 16 + 8
    with 16 lanes); None if that leaves columns over."""
    pieces, start, width = [], 0, 2 * lanes
    while width >= MIN_COLUMNS:
        count = (ow - start) // width
        if count:
            pieces.append((start, count * width, width))
            start += count * width
        width //= 2
    return pieces if start == ow else None


def tile_rows(oh: int, ow: int) -> int:
    """Output rows of a cache tile: the most rows dividing OH with at most TILE_PIXELS
    pixels (at least one)."""
    best = 1
    for r in range(1, oh + 1):
        if oh % r == 0 and r * ow <= TILE_PIXELS:
            best = r
    return best


def as_filter_first(op, pieces: list[Piece]) -> list:
    """``op`` (a linalg.conv_2d_nchw_fchw) as equivalent linalg.generics over
    (n, f, oh, ow, c, kh, kw) that read the filter first, one per column piece (on
    slices of the input and of the output, inserted back); returns the generics."""
    strides, dilations = _ints(op, "strides"), _ints(op, "dilations")
    x, w, init = op.operands[0], op.operands[1], op.operands[2]
    kw = ir.RankedTensorType(w.type).shape[3]
    n, c, h, _ = ir.RankedTensorType(x.type).shape
    _, f, oh, _ = ir.RankedTensorType(init.type).shape
    generics, result = [], init
    with ir.InsertionPoint(op), op.location:
        for piece in pieces:  # (one piece: whole-tensor slices, folded by canonicalize)
            reach = piece.columns + (kw - 1) * dilations[1]
            xs = _slice(x, [n, c, h, reach], piece.start)
            part = _slice(result, [n, f, oh, piece.columns], piece.start)
            done = _filter_first(xs, w, part, strides, dilations)
            generics.append(done.owner)
            result = tensor.insert_slice(done, result, [], [], [], [0, 0, 0, piece.start],
                                         [n, f, oh, piece.columns], [1] * 4)
    op.results[0].replace_all_uses_with(result)
    op.erase()
    return generics


def _slice(v, sizes, column):
    t = ir.RankedTensorType.get(sizes, ir.RankedTensorType(v.type).element_type)
    return tensor.extract_slice(t, v, [], [], [], [0, 0, 0, column], sizes, [1] * 4)


def _filter_first(x, w, init, strides, dilations):
    (sh, sw), (dh, dw) = strides, dilations
    maps = [affine_map(7, [d(1), d(4), d(5), d(6)]),
            affine_map(7, [d(0), d(4), d(2) * sh + d(5) * dh, d(3) * sw + d(6) * dw]),
            affine_map(7, [d(0), d(1), d(2), d(3)])]
    kinds = ["parallel"] * 4 + ["reduction"] * 3

    def body(wv, xv, acc):
        return arith.addf(acc, arith.mulf(wv, xv))

    (result,) = generic([w, x], [init], maps, kinds, body)
    return result


def direct_conv_strategy(tag: str, piece: Piece, parallel_rows: int = 0):
    """The schedule of the filter-first conv generic tagged ``tag`` (one column piece).
    ``parallel_rows``: first split its (image, block of that many output rows) tiles over
    an ``scf.forall`` (a conv not inside strata-fuse's tiles, on threads)."""
    reg_m, reg_n = piece.reg_m, piece.reg_n

    def body(root):
        op = match_tagged(root, tag)
        if parallel_rows:
            op = structured.TileUsingForallOp(op, tile_sizes=[1, 0, parallel_rows]).tiled_op
        tiled = structured.TileUsingForOp(op, sizes=[1, reg_m, 1, reg_n, CHANNEL_STEP, 1, 1])
        func = match_ops(root, ["func.func"])
        # (only inside the tile loops: the other ops keep their unit dims, and their tags)
        apply_patterns(tiled.loops[0], structured.ApplyFoldUnitExtentDimsViaSlicesPatternsOp)
        # the folded (f, ow, c) contraction, in the innermost (kw) loop
        structured.VectorizeOp(match_ops(tiled.loops[-1], ["linalg.generic"]))
        apply_patterns(func,
                       vector.ApplyVectorReductionToContractPatternsOp,
                       vector.ApplyTransferPermutationPatternsOp,
                       transform.ApplyCanonicalizationPatternsOp)
        transform.ApplyCommonSubexpressionEliminationOp(func)

    return body
