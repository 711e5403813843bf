"""strata.conv2d and pooling -> linalg named convolution / pooling ops.

    %0 = "strata.conv2d"(%x, %w) {layout = "NCHW", padding = array<i64: 1, 1, 1, 1>, ...}
  =>
    %p = tensor.insert_slice %x into (linalg.fill 0 of the padded shape)
    %0 = linalg.conv_2d_nchw_fchw {strides, dilations} ins(%p, %w) outs(linalg.fill 0)

NHWC uses linalg.conv_2d_nhwc_hwcf. Grouped convs (``groups = G > 1``) reshape
their operands (views) onto the grouped named ops:

    depthwise (G = C = F)  NCHW: linalg.depthwise_conv_2d_nchw_chw   filter [C, KH, KW]
                           NHWC: linalg.depthwise_conv_2d_nhwc_hwc   filter [KH, KW, C]
    depthwise, F = C * m   NHWC: linalg.depthwise_conv_2d_nhwc_hwcm  filter [KH, KW, C, m]
    otherwise              NCHW: linalg.conv_2d_ngchw_gfchw  x [N, G, C/G, H, W],
                                 filter [G, F/G, C/G, KH, KW], result [N, G, F/G, OH, OW]
                           NHWC: linalg.conv_2d_nhwgc_gfhwc  x [N, H, W, G, C/G], filter
                                 [G, F/G, KH, KW, C/G] (the one filter transpose), result
                                 [N, OH, OW, G, F/G]

and collapse the result back to ``[N, F, OH, OW]`` / ``[N, OH, OW, F]``. Max pooling pads with -inf (padding never
wins); average pooling sums with zero padding and divides by the number of real
elements in each window (a compile-time constant map when padded). f16/bf16
accumulate in f32.
"""

from __future__ import annotations

import math

import numpy as np
from mlir import ir
from mlir.dialects import arith

from ..linalg_ops import linalg
from .common import (
    DYN,
    LoweringError,
    collapse,
    compute_type,
    dim,
    dims,
    divide_by_counts,
    embed,
    empty,
    expand,
    extreme,
    fill,
    filled,
    from_compute,
    i64s,
    index,
    rtype,
    scalar,
    to_compute,
)


def _spatial(layout):
    return (2, 3) if layout == "NCHW" else (1, 2)


def pad(x, layout, padding, value):
    """``x`` with its spatial dims padded by ``[top, bottom, left, right]`` of ``value``."""
    if not any(padding):
        return x
    hd, wd = _spatial(layout)
    t = rtype(x)
    for i in (hd, wd):
        if t.is_dynamic_dim(i):
            raise LoweringError("padding a dynamic spatial dim is not supported")
    sizes = dims(x)
    padded = list(sizes)
    padded[hd] = sizes[hd] + padding[0] + padding[1]
    padded[wd] = sizes[wd] + padding[2] + padding[3]
    offsets = [0] * t.rank
    offsets[hd], offsets[wd] = padding[0], padding[2]
    return embed(x, sizes, padded, offsets, value)


def _out_sizes(op, kernel=None):
    """Result sizes; a dynamic one from the input (batch, pool channels), the filter (conv
    channels) or ``(H + top + bottom - dh * (KH - 1) - 1) / sh + 1`` (spatial dims)."""
    r = rtype(op.result)
    x = op.operands[0]
    layout = ir.StringAttr(op.attributes["layout"]).value
    hd, wd = _spatial(layout)
    strides, padding = i64s(op, "strides"), i64s(op, "padding")
    if kernel is None:  # conv2d: the filter gives the window and the output channels
        w = op.operands[1]
        fk = (2, 3) if layout == "NCHW" else (0, 1)
        dil = i64s(op, "dilations")
        window = [dim(w, fk[0]), dim(w, fk[1])]
        channels = dim(w, 0 if layout == "NCHW" else 3)
    else:
        dil, window, channels = [1, 1], list(kernel), None
    cd = 1 if layout == "NCHW" else 3
    sizes = []
    for i in range(r.rank):
        if not r.is_dynamic_dim(i):
            sizes.append(r.get_dim_size(i))
        elif i == cd and channels is not None:
            sizes.append(channels)
        elif i in (hd, wd):
            k = 0 if i == hd else 1
            size, kk = dim(x, i), window[k]
            kk = index(kk) if isinstance(kk, int) else kk
            size = index(size) if isinstance(size, int) else size
            pads = index(padding[2 * k] + padding[2 * k + 1] - 1)
            span = arith.muli(index(dil[k]), arith.subi(kk, index(1)))
            n = arith.subi(arith.addi(size, pads), span)
            sizes.append(arith.addi(arith.divui(n, index(strides[k])), index(1)))
        else:
            sizes.append(dim(x, i))
    return sizes


def _groups(op) -> int:
    return ir.IntegerAttr(op.attributes["groups"]).value if "groups" in op.attributes else 1


def lower_conv2d(op):
    x, w = op.operands
    layout = ir.StringAttr(op.attributes["layout"]).value
    strides, dilations = i64s(op, "strides"), i64s(op, "dilations")
    elem = rtype(op.result).element_type
    acc = compute_type(elem)
    xp = pad(x, layout, i64s(op, "padding"), scalar(rtype(x).element_type, 0))
    groups = _groups(op)
    if groups > 1:
        out = _grouped(xp, w, layout, groups, _out_sizes(op), acc, strides, dilations)
        return from_compute(out, elem)
    init = fill(scalar(acc, 0), empty(_out_sizes(op), acc))  # the zero before the sizes' ops
    conv = linalg.conv_2d_nchw_fchw if layout == "NCHW" else linalg.conv_2d_nhwc_hwcf
    out = conv(xp, w, outs=[init], strides=strides, dilations=dilations)
    return from_compute(out, elem)


def _collapse(v, groups):
    t = rtype(v)
    shape = []
    for g in groups:
        sizes = [t.shape[i] for i in g]
        shape.append(DYN if any(s == DYN for s in sizes) else math.prod(sizes))
    return collapse(v, groups, shape)


def _grouped(xp, w, layout, groups, sizes, acc, strides, dilations):
    """The grouped conv of the padded ``xp`` and ``w`` as a grouped or depthwise named op
    (operands reshaped as views, the result collapsed back to 4-D)."""
    nchw = layout == "NCHW"
    c = rtype(xp).shape[1 if nchw else 3]
    f = rtype(w).shape[0 if nchw else 3]
    if DYN in (c, f):
        raise LoweringError("a grouped conv2d needs static channel counts")
    cg, fg = c // groups, f // groups
    kw = dict(strides=strides, dilations=dilations)

    def init(shape):
        return filled(shape, acc, 0)

    n, s1, s2, s3 = sizes  # [N, F, OH, OW] or [N, OH, OW, F]
    if cg == 1 and nchw and fg == 1:
        w3 = _collapse(w, [[0, 1], [2], [3]])
        return linalg.depthwise_conv_2d_nchw_chw(xp, w3, outs=[init(sizes)], **kw)
    if cg == 1 and not nchw:
        w3 = _collapse(w, [[0], [1], [2, 3]])  # [KH, KW, C * m]
        if fg == 1:
            return linalg.depthwise_conv_2d_nhwc_hwc(xp, w3, outs=[init(sizes)], **kw)
        kh, kwd = rtype(w).shape[:2]
        w4 = expand(w3, [[0], [1], [2, 3]], [kh, kwd, c, fg])
        out = linalg.depthwise_conv_2d_nhwc_hwcm(xp, w4, outs=[init([n, s1, s2, c, fg])], **kw)
        return _collapse(out, [[0], [1], [2], [3, 4]])
    xs = dims(xp)
    if nchw:
        xg = expand(xp, [[0], [1, 2], [3], [4]], [xs[0], groups, cg, xs[2], xs[3]])
        kh, kwd = rtype(w).shape[2:]
        wg = expand(w, [[0, 1], [2], [3], [4]], [groups, fg, cg, kh, kwd])
        out = linalg.conv_2d_ngchw_gfchw(xg, wg, outs=[init([n, groups, fg, s2, s3])], **kw)
        return _collapse(out, [[0], [1, 2], [3], [4]])
    xg = expand(xp, [[0], [1], [2], [3, 4]], [xs[0], xs[1], xs[2], groups, cg])
    kh, kwd = rtype(w).shape[:2]
    w5 = expand(w, [[0], [1], [2], [3, 4]], [kh, kwd, cg, groups, fg])  # [KH, KW, C/G, G, F/G]
    wt = linalg.transpose(w5, outs=[empty([groups, fg, kh, kwd, cg], rtype(w).element_type)],
                          permutation=[3, 4, 0, 1, 2])
    out = linalg.conv_2d_nhwgc_gfhwc(xg, wt, outs=[init([n, s1, s2, groups, fg])], **kw)
    return _collapse(out, [[0], [1], [2], [3, 4]])


def _window_counts(h, w, kernel, strides, padding, oh, ow):
    """How many real (unpadded) input elements each output window covers."""
    counts = np.zeros((oh, ow), np.float64)
    for i in range(oh):
        top = i * strides[0] - padding[0]
        rows = min(top + kernel[0], h) - max(top, 0)
        for j in range(ow):
            left = j * strides[1] - padding[2]
            cols = min(left + kernel[1], w) - max(left, 0)
            counts[i, j] = rows * cols
    return counts


def lower_pool(op, name):
    x = op.operands[0]
    layout = ir.StringAttr(op.attributes["layout"]).value
    kernel, strides = i64s(op, "kernel"), i64s(op, "strides")
    padding = i64s(op, "padding")
    elem = rtype(op.result).element_type
    xc = to_compute(x)
    ct = rtype(xc).element_type
    if name == "max_pool2d":
        lowest = extreme(ct)
        xp = pad(xc, layout, padding, lowest)
        init = fill(lowest, empty(_out_sizes(op, kernel), ct))
        pool = linalg.pooling_nchw_max if layout == "NCHW" else linalg.pooling_nhwc_max
    else:
        xp = pad(xc, layout, padding, scalar(ct, 0))
        init = fill(scalar(ct, 0), empty(_out_sizes(op, kernel), ct))
        pool = linalg.pooling_nchw_sum if layout == "NCHW" else linalg.pooling_nhwc_sum
    window = empty(kernel, ct)
    out = pool(xp, window, outs=[init], strides=strides, dilations=[1, 1])
    if name == "avg_pool2d":
        out = _divide_by_counts(out, rtype(x), layout, kernel, strides, padding)
    return from_compute(out, elem)


def _divide_by_counts(out, in_type, layout, kernel, strides, padding):
    t = rtype(out)
    if not any(padding):
        return divide_by_counts(out, kernel[0] * kernel[1], ())
    hd, wd = _spatial(layout)
    if in_type.is_dynamic_dim(hd) or in_type.is_dynamic_dim(wd):
        raise LoweringError("padded average pooling of dynamic spatial dims is not supported")
    counts = _window_counts(in_type.get_dim_size(hd), in_type.get_dim_size(wd), kernel, strides,
                            padding, t.get_dim_size(hd), t.get_dim_size(wd))
    if not isinstance(t.element_type, ir.F32Type):
        raise LoweringError("average pooling of integer tensors is not supported")
    return divide_by_counts(out, counts, (hd, wd))
