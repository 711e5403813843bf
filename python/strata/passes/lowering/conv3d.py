"""strata.conv3d, max_pool3d and avg_pool3d (NCDHW) -> windowed linalg.generics.

Upstream linalg has no NCDHW pooling op and no grouped 3-D convolution, so all three
are one linalg.generic over the output and window loops, written the way the named
ops are (the window's sizes come from an operand of the kernel's shape):

    %0 = "strata.conv3d"(%x, %w) {strides = [sd, sh, sw], padding = [...], ...}
  =>
    %xp = tensor.insert_slice %x into (linalg.fill 0 of the padded shape)
    %xg = tensor.expand_shape %xp [N, G, C/G, D', H', W'];  %wg = [G, F/G, C/G, KD, KH, KW]
    %0 = linalg.generic (n, g, f, od, oh, ow, c, kd, kh, kw)
           x: (n, g, c, od * sd + kd * dd, oh * sh + kh * dh, ow * sw + kw * dw)
           w: (g, f, c, kd, kh, kw)   out: (n, g, f, od, oh, ow)   { out += x * w }
    tensor.collapse_shape -> [N, F, OD, OH, OW]

Pools read ``(n, c, od * sd + kd, ...)`` with a ``tensor.empty`` window
``[KD, KH, KW]``: a max pads with -inf (the lowest integer) and takes maximumf (NaN
propagates, as in PyTorch) or maxsi; an average sums with zero padding, then divides
by the number of real elements of each window (a constant when padded). f16 and bf16
accumulate in f32. Spatial dims must be static; N may be dynamic.
"""

from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith

from .common import (
    LoweringError,
    affine_map,
    collapse,
    compute_type,
    convert,
    d,
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
    generic,
    i64s,
    is_float,
    rtype,
    scalar,
    to_compute,
)

__all__ = ["lower_conv3d", "lower_pool3d"]


def _static_spatial(v, what):
    t = rtype(v)
    if any(t.is_dynamic_dim(i) for i in (2, 3, 4)):
        raise LoweringError(f"{what} needs static depth, height and width")
    return [t.get_dim_size(i) for i in (2, 3, 4)]


def _pad(x, padding, value):
    """``x`` with dims 2, 3, 4 padded by ``[front, back, top, bottom, left, right]``."""
    if not any(padding):
        return x
    sizes = dims(x)
    padded = list(sizes)
    for i in range(3):
        padded[2 + i] = sizes[2 + i] + padding[2 * i] + padding[2 * i + 1]
    return embed(x, sizes, padded, [0, 0, padding[0], padding[2], padding[4]], value)


def _window(out_dim, k_dim, stride, dilation):
    return d(out_dim) * stride + d(k_dim) * dilation


def _out_sizes(op, channels):
    r = rtype(op.result)
    return [dim(op.operands[0], 0) if r.is_dynamic_dim(0) else r.get_dim_size(0), channels,
            *(r.get_dim_size(i) for i in (2, 3, 4))]


def lower_conv3d(op):
    x, w = op.operands
    _static_spatial(x, "conv3d")
    _static_spatial(w, "conv3d")
    groups = ir.IntegerAttr(op.attributes["groups"]).value if "groups" in op.attributes else 1
    strides, dilations = i64s(op, "strides"), i64s(op, "dilations")
    elem = rtype(op.result).element_type
    acc = compute_type(elem)
    wt = rtype(w)
    f, cg = wt.get_dim_size(0), wt.get_dim_size(1)
    if ir.ShapedType.get_dynamic_size() in (f, cg):
        raise LoweringError("conv3d needs static channel counts")
    fg = f // groups
    xp = _pad(x, i64s(op, "padding"), scalar(rtype(x).element_type, 0))
    xs = dims(xp)
    xg = expand(xp, [[0], [1, 2], [3], [4], [5]], [xs[0], groups, cg, *xs[2:]])
    wg = expand(w, [[0, 1], [2], [3], [4], [5]], [groups, fg, cg, *wt.shape[2:]])
    n, _, od, oh, ow = _out_sizes(op, f)
    init = filled([n, groups, fg, od, oh, ow], acc, 0)
    # loops: n g f od oh ow | c kd kh kw
    x_map = affine_map(10, [d(0), d(1), d(6)] + [
        _window(3 + i, 7 + i, strides[i], dilations[i]) for i in range(3)])
    w_map = affine_map(10, [d(1), d(2), d(6), d(7), d(8), d(9)])
    o_map = affine_map(10, [d(i) for i in range(6)])

    def body(a, b, o):
        a, b = convert(a, acc), convert(b, acc)
        return arith.addf(o, arith.mulf(a, b))

    out = generic([xg, wg], [init], [x_map, w_map, o_map],
                  ["parallel"] * 6 + ["reduction"] * 4, body)[0]
    out = collapse(out, [[0], [1, 2], [3], [4], [5]], list(rtype(op.result).shape))
    return from_compute(out, elem)


def _counts(sizes, kernel, strides, padding, outs):
    """How many real (unpadded) input elements each output window covers."""
    per_dim = []
    for i in range(3):
        starts = np.arange(outs[i]) * strides[i] - padding[2 * i]
        per_dim.append(np.minimum(starts + kernel[i], sizes[i]) - np.maximum(starts, 0))
    return (per_dim[0][:, None, None] * per_dim[1][None, :, None] *
            per_dim[2][None, None, :]).astype(np.float32)


def lower_pool3d(op, name):
    x = op.operands[0]
    sizes = _static_spatial(x, name)
    kernel, strides, padding = i64s(op, "kernel"), i64s(op, "strides"), i64s(op, "padding")
    elem = rtype(op.result).element_type
    xc = to_compute(x)
    ct = rtype(xc).element_type
    if name == "max_pool3d":
        start = extreme(ct)
        combine = arith.maximumf if is_float(ct) else arith.maxsi
    else:
        start, combine = scalar(ct, 0), arith.addf
    xp = _pad(xc, padding, start)
    out_sizes = _out_sizes(op, dim(x, 1))
    init = fill(start, empty(out_sizes, ct))
    # loops: n c od oh ow | kd kh kw
    x_map = affine_map(8, [d(0), d(1)] + [_window(2 + i, 5 + i, strides[i], 1)
                                          for i in range(3)])
    k_map = affine_map(8, [d(5), d(6), d(7)])
    o_map = affine_map(8, [d(i) for i in range(5)])
    out = generic([xp, empty(kernel, ct)], [init], [x_map, k_map, o_map],
                  ["parallel"] * 5 + ["reduction"] * 3, lambda a, _k, o: combine(o, a))[0]
    if name == "avg_pool3d":
        out = _divide(out, sizes, kernel, strides, padding)
    return from_compute(out, elem)


def _divide(out, sizes, kernel, strides, padding):
    if not any(padding):
        return divide_by_counts(out, kernel[0] * kernel[1] * kernel[2], ())
    t = rtype(out)
    counts = _counts(sizes, kernel, strides, padding, [t.get_dim_size(i) for i in (2, 3, 4)])
    return divide_by_counts(out, counts, (2, 3, 4))
