"""strata.conv_transpose2d -> zero insertion + flipped filter + the conv2d lowering.

A transposed convolution is a stride-1 convolution, with the filter flipped and its
channel dims swapped, of the input with ``stride - 1`` zeros between its elements and
``dilation * (K - 1) - pad`` zeros around them (``+ output_padding`` at the bottom /
right). Both are built here, so the convolution is the named linalg conv op that
strata-layout and strata-conv-to-matmul already handle (NHWC, im2col + packed matmul).
NCHW, stride 2, 3x3, padding 1:

    %0 = "strata.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>,
           padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>, ...}
         : (tensor<1x8x5x5xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x10x10xf32>
  =>
    %z = linalg.fill 0 -> tensor<1x8x12x12xf32>
    %p = tensor.insert_slice %x into %z[0, 0, 1, 1] [1, 8, 5, 5] [1, 1, 2, 2]
    %f = linalg.generic outs(tensor<4x8x3x3xf32>) { tensor.extract %w[c, f, 2 - kh, 2 - kw] }
    %0 = linalg.conv_2d_nchw_fchw {strides = 1, dilations = 1} ins(%p, %f) outs(fill 0)

A padding larger than ``dilation * (K - 1)`` crops the zero-inserted input
(``tensor.extract_slice``) instead. Grouped ones (``groups = G``) flip the filter per
group and take conv2d's grouped path. NHWC filters are ``[KH, KW, F/G, C]`` and
become conv2d's ``[KH, KW, C/G, F]``. f16/bf16 accumulate in f32, as conv2d does.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tensor

from ..linalg_ops import linalg
from .common import (
    LoweringError,
    collapse,
    compute_type,
    dims,
    embed,
    empty,
    expand,
    filled,
    from_compute,
    generic,
    i64s,
    index,
    mixed,
    rtype,
    scalar,
)
from .conv import _grouped, _groups

__all__ = ["lower_conv_transpose2d"]


def _flip(src, out_shape, inv, flips):
    """``out[i...] = src[j...]`` with ``j[k] = i[inv[k]]``, read as ``K - 1 - i`` on the
    flipped source dims: a linalg.generic that extracts from ``src`` (a reversed index in
    an indexing map would be a negative coefficient, which linalg's tiling rejects)."""
    elem = rtype(src).element_type

    def body(_out):
        coords = []
        for k, i in enumerate(inv):
            idx = linalg.IndexOp(i).result
            if k in flips:
                idx = arith.subi(index(flips[k] - 1), idx)
            coords.append(idx)
        return tensor.extract(src, coords)

    rank = len(out_shape)
    return generic([], [empty(out_shape, elem)], [ir.AffineMap.get_identity(rank)],
                   ["parallel"] * rank, body)[0]


def _flipped_filter(w, layout, groups):
    """conv2d's filter (``[F, C/G, KH, KW]`` / ``[KH, KW, C/G, F]``) from the transposed
    conv's (``[C, F/G, KH, KW]`` / ``[KH, KW, F/G, C]``)."""
    t = rtype(w)
    if any(t.is_dynamic_dim(i) for i in range(4)):
        raise LoweringError("conv_transpose2d needs a static filter")
    g = groups
    if layout == "NCHW":
        c, fg, kh, kw = t.shape
        cg = c // g
        src = expand(w, [[0, 1], [2], [3], [4]], [g, cg, fg, kh, kw])
        # out (g, f, c, kh, kw) reads src (g, c, f, KH-1-kh, KW-1-kw)
        inv = [0, 2, 1, 3, 4]
        flips = {3: kh, 4: kw}
        out_shape = [g, fg, cg, kh, kw]
        regroup = [[0, 1], [2], [3], [4]]
        final = [g * fg, cg, kh, kw]
    else:
        kh, kw, fg, c = t.shape
        cg = c // g
        src = expand(w, [[0], [1], [2], [3, 4]], [kh, kw, fg, g, cg])
        # out (kh, kw, c, g, f) reads src (KH-1-kh, KW-1-kw, f, g, c)
        inv = [0, 1, 4, 3, 2]
        flips = {0: kh, 1: kw}
        out_shape = [kh, kw, cg, g, fg]
        regroup = [[0], [1], [2], [3, 4]]
        final = [kh, kw, cg, g * fg]
    return collapse(_flip(src, out_shape, inv, flips), regroup, final)


def _dilated_input(x, layout, strides, lo, hi):
    """``x`` with ``stride - 1`` zeros between elements and ``lo`` / ``hi`` zeros before /
    after (negative: that many rows or columns cropped) along the spatial dims."""
    t = rtype(x)
    hd, wd = (2, 3) if layout == "NCHW" else (1, 2)
    for i in (hd, wd):
        if t.is_dynamic_dim(i):
            raise LoweringError("conv_transpose2d needs static spatial dims")
    sizes = dims(x)
    zero = scalar(t.element_type, 0)
    full = list(sizes)
    offsets = [0] * 4
    step = [1] * 4
    for k, i in enumerate((hd, wd)):
        full[i] = (t.shape[i] - 1) * strides[k] + 1 + max(lo[k], 0) + max(hi[k], 0)
        offsets[i] = max(lo[k], 0)
        step[i] = strides[k]
    if full == list(sizes):
        out = x
    else:
        out = embed(x, sizes, full, offsets, zero, step)
    if min(lo) >= 0 and min(hi) >= 0:
        return out
    start = [0] * 4
    crop = list(full)
    for k, i in enumerate((hd, wd)):
        start[i] = -min(lo[k], 0)
        crop[i] = full[i] - start[i] + min(hi[k], 0)
    dyn_sz, st_sz = mixed(crop)
    res = ir.RankedTensorType.get(st_sz, t.element_type)
    return tensor.extract_slice(res, out, [], dyn_sz, [], start, st_sz, [1] * 4)


def lower_conv_transpose2d(op):
    x, w = op.operands
    layout = ir.StringAttr(op.attributes["layout"]).value
    strides, dilations = i64s(op, "strides"), i64s(op, "dilations")
    padding, out_pad = i64s(op, "padding"), i64s(op, "output_padding")
    groups = _groups(op)
    wt = rtype(w)
    kernel = wt.shape[2:] if layout == "NCHW" else wt.shape[:2]
    lo = [dilations[k] * (kernel[k] - 1) - padding[2 * k] for k in range(2)]
    hi = [dilations[k] * (kernel[k] - 1) - padding[2 * k + 1] + out_pad[k] for k in range(2)]
    xp = _dilated_input(x, layout, strides, lo, hi)
    wf = _flipped_filter(w, layout, groups)
    result = rtype(op.result)
    elem = result.element_type
    acc = compute_type(elem)
    sizes = [dims(x)[0] if result.is_dynamic_dim(0) else result.shape[0]] + list(
        result.shape[1:])
    if groups > 1:
        out = _grouped(xp, wf, layout, groups, sizes, acc, [1, 1], dilations)
        return from_compute(out, elem)
    init = filled(sizes, acc, 0)
    conv = linalg.conv_2d_nchw_fchw if layout == "NCHW" else linalg.conv_2d_nhwc_hwcf
    out = conv(xp, wf, outs=[init], strides=[1, 1], dilations=dilations)
    return from_compute(out, elem)
