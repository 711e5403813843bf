"""strata-conv-to-matmul: run convolutions as matmuls (im2col) where the cost model says it pays.

strata-to-linalg lowers ``strata.conv2d`` to ``linalg.conv_2d_nchw_fchw`` /
``linalg.conv_2d_nhwc_hwcf``, which later passes only turn into scalar loops.
This pass rewrites each static, floating-point one as a copy of the input
windows into a matrix (im2col: a ``linalg.generic`` that reads the padded input
at ``(oh*s + kh*d, ow*s + kw*d)``) and a ``linalg.matmul`` (``batch_matmul``
for NCHW with N > 1), so the matmul path applies to it: strata-fuse's choice
between generated code and OpenBLAS, its epilogue tiling, strata-vectorize's
register tiles. It runs before strata-fuse. NCHW, N = 1:

    %c = linalg.conv_2d_nchw_fchw {strides = dense<1>, dilations = dense<1>}
           ins(%xp, %w : tensor<1x64x58x58xf32>, tensor<64x64x3x3xf32>) outs(%zero)
    %r = linalg.generic {parallel} ins(%c, %bias : tensor<1x64x56x56xf32>, ...) { addf; maximumf }
  =>
    %col = linalg.generic {parallel x 6} ins(%xp) outs(tensor<1x64x3x3x56x56xf32>)
             // (n, c, kh, kw, oh, ow) -> xp(n, c, oh + kh, ow + kw)
    %a = tensor.collapse_shape %w [[0], [1, 2, 3]] : tensor<64x576xf32>       (a view)
    %b = tensor.collapse_shape %col [[0, 1, 2, 3], [4, 5]] : tensor<576x3136xf32>
    %m = linalg.matmul ins(%a, %b) outs(fill(0) : tensor<64x3136xf32>)
    %r2 = linalg.generic {parallel x 2} ins(%m, %bias) { addf; maximumf }  // the epilogue, 2-D
    %r = tensor.expand_shape %r2 [[0, 1], [2, 3]] : tensor<1x64x56x56xf32>

* NCHW: ``out[n] = W[F, C*KH*KW] @ col[n][C*KH*KW, OH*OW]`` (for N > 1 a
  ``linalg.batch_matmul`` whose filter map has no batch dim); NHWC:
  ``col[N*OH*OW, KH*KW*C] @ W[KH*KW*C, F]``. Both filter layouts (FCHW, HWCF)
  are already the matrices these need: the filter is reshaped, never copied.
* The copy is marked ``strata.im2col`` (strides, dilations, layout): strata-fuse, when it
  tiles the matmul with its epilogue, has each output tile copy its own windows
  (passes/fusion/im2col.py) instead of reading a materialized matrix.
* A 1x1 stride-1 convolution needs no copy: the input itself, reshaped, is the
  matrix.
* f16/bf16 inputs are widened to f32 while they are copied (and the filter
  once), so the matmul is f32 (products and sums in f32, as the direct conv
  does it) and may run as an OpenBLAS call.
* The elementwise ops that read the result (bias, relu, residual, the cast
  back to f16) are rewritten over the matmul's 2-D (3-D) iteration space, so
  strata-fuse merges them and tiles them into the matmul like any epilogue;
  only the last one's result is reshaped back to 4-D.

The cost model: the direct conv runs at ``DIRECT_RATE``; the im2col path
costs the copy (``KH*KW`` x the input, written at ``IM2COL_BW``) plus the
matmul as passes/fusion/blas.py predicts it (the faster of generated code
and, with ``blas`` auto/always, BLAS). Convs where the copy costs more than the
matmul saves stay direct (a single output channel, tiny shapes). An f32 NCHW conv
whose output rows are whole register tiles (width stride 1, OW a sum of power-of-two
widths from 8 up to two vectors, an even number of input channels; not 1x1 stride 1)
runs direct in register tiles
(passes/direct_conv.py, strata-vectorize), predicted as the generated matmul on cached
windows without the copy (times ``VECTORIZED_DIRECT_FACTOR``): it stays a conv unless
BLAS is predicted faster by more than the copy, and its zero padding becomes a
``linalg.copy`` into the padded buffer (as the im2col path makes it). The ResNet block
at 4x64x32x32 (two such 3x3 convs, 2 threads): 3.2-3.4 ms as im2col tiles, 2.9-3.0 ms
direct; the conv alone 1.58 vs 1.51 ms, the rest from what the im2col path adds around
it (its tiles' copies; an epilogue over 2-D tiles, so the result is copied into the next
conv's padded buffer, where the direct conv's whole-row tiles write in place).
``mode=always|never`` forces the choice. With ``report=true`` each decision is
a remark at the conv's location, with both predictions (the runtime's fusion
report shows them).

strata-layout runs after this pass: converted convs are matmuls by then, not
layout ops, so its conv-chain rule only sees the convs kept direct (and pools
and elementwise ops around them). Both matmul forms read their layout without
any conversion; transposes the program itself makes at a chain's boundary
(NHWC data into an NCHW conv) are no longer removed by choosing NHWC for the
chain, they stay one copy each.

Measured (1 thread, bench/conv_bench.py, torch 2.13 eager = oneDNN, noisy shared
2-core AVX-512 machine): the ResNet 3x3 64-channel 56x56 conv + bias + relu
runs 2.9-3.3 ms (torch 2.3-2.6 ms; 51 ms as a direct conv), its 1x1 0.28 ms
(torch 0.30 ms).

Grouped convs (``linalg.conv_2d_ngchw_gfchw`` / ``conv_2d_nhwgc_gfhwc``, from
``strata.conv2d`` with ``groups`` > 1) become one ``linalg.batch_matmul`` over the
groups: NCHW ``W[G, F/G, K] @ col[G, K, OH*OW]`` (N = 1; with N > 1 the filter
would need a batch dim per image, so those stay direct), NHWC
``col[G, N*OH*OW, K] @ W^T[G, K, F/G]`` (the filter transposed once) whose
``[G, M, F/G]`` result is transposed to the output's ``[M, G, F/G]``. Depthwise
convs (one channel per group) are no matmuls: strata-vectorize-depthwise runs them.

Limits: static shapes, float element types with an f32 result; i32 convs and
convs with dynamic dims stay direct.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, tensor

from ..errors import format_location
from .base import Pass, collect_ops, option, threads_option
from .direct_conv import plan
from .fusion.blas import estimate as matmul_estimate
from .fusion.im2col import im2col_copy
from .layout_common import build_generic, indexing_maps, is_op, producer, rtype
from .linalg_ops import linalg

__all__ = ["ConvToMatmulPass", "ConvEstimate", "copy_padding", "estimate", "DIRECT_RATE",
           "GROUPED_NCHW_DIRECT_RATE", "IM2COL_BW"]

MODES = ("auto", "always", "never")
BLAS_MODES = ("auto", "always", "never")
CONVS = ("linalg.conv_2d_nchw_fchw", "linalg.conv_2d_nhwc_hwcf")
GROUPED = ("linalg.conv_2d_ngchw_gfchw", "linalg.conv_2d_nhwgc_gfhwc")

DIRECT_RATE = 4.5e3   # flop/us: linalg.conv as LLVM-vectorized loops (3x3, 64 channels)
# flop/us: linalg.conv_2d_ngchw_gfchw as loops (ResNeXt 3x3, 32 groups of 4 channels at
# 56x56: 0.91 ms, 1 thread; its NHWC twin runs at DIRECT_RATE)
GROUPED_NCHW_DIRECT_RATE = 30e3
IM2COL_BW = 12e3      # bytes/us written into the im2col matrix (reads hit the cache)
CALL_US = 2.0         # fixed cost of the extra ops (a fill, a copy loop nest)
# a conv strata-vectorize runs direct in register tiles (passes/direct_conv.py), relative
# to the generated matmul on windows in cache that its im2col path would run
VECTORIZED_DIRECT_FACTOR = 1.0


@dataclass(frozen=True)
class ConvEstimate:
    """Predicted microseconds of a conv run directly and as im2col + matmul."""

    direct_us: float
    copy_us: float
    matmul_us: float
    blas: bool  # the matmul part is predicted as a BLAS call
    vectorized: bool = False  # direct in register tiles (passes/direct_conv.py)

    @property
    def im2col_us(self) -> float:
        return self.copy_us + self.matmul_us + CALL_US

    @property
    def im2col_wins(self) -> bool:
        return self.im2col_us < self.direct_us


@dataclass(frozen=True)
class _Conv:
    """The sizes of one linalg.conv (NCHW or NHWC), in the same names for both."""

    nhwc: bool
    n: int
    c: int
    h: int  # padded input
    w: int
    f: int
    kh: int
    kw: int
    oh: int
    ow: int
    strides: tuple
    dilations: tuple
    groups: int = 1  # c and f count all groups' channels

    @property
    def no_copy(self) -> bool:
        """A 1x1 stride-1 conv over the whole input: the input is the matrix."""
        return (self.groups == 1 and self.kh == self.kw == 1 and self.strides == (1, 1) and
                (self.oh, self.ow) == (self.h, self.w))

    @property
    def flops(self) -> int:
        return (2 * self.n * self.f * self.oh * self.ow * (self.c // self.groups) * self.kh *
                self.kw)

    def matmul(self):
        """``(batch, M, N, K)`` of the matmul that replaces it (grouped: one per group)."""
        g = self.groups
        k = self.c // g * self.kh * self.kw
        if g > 1:
            if self.nhwc:
                return g, self.n * self.oh * self.ow, self.f // g, k
            return g, self.f // g, self.oh * self.ow, k
        if self.nhwc:
            return 1, self.n * self.oh * self.ow, self.f, k
        return self.n, self.f, self.oh * self.ow, k

    @property
    def col_elements(self) -> int:
        """Elements of the im2col matrix (its rows are output pixels with NHWC, its
        columns with NCHW)."""
        batch, m, n, k = self.matmul()
        return batch * k * (m if self.nhwc else n)

    def text(self) -> str:
        x = (self.n, self.h, self.w, self.c) if self.nhwc else (self.n, self.c, self.h, self.w)
        y = (self.n, self.oh, self.ow, self.f) if self.nhwc else (self.n, self.f, self.oh, self.ow)
        s = "" if self.strides == (1, 1) else f", stride {self.strides[0]}x{self.strides[1]}"
        d = "" if self.dilations == (1, 1) else \
            f", dilation {self.dilations[0]}x{self.dilations[1]}"
        layout = "NHWC" if self.nhwc else "NCHW"
        g = f", {self.groups} groups" if self.groups > 1 else ""
        return (f"{layout} {'x'.join(map(str, x))} -> {'x'.join(map(str, y))}, "
                f"{self.kh}x{self.kw}{s}{d}{g}")


def estimate(conv: _Conv, *, elem_bytes: int = 4, epilogue: bool = False, threads: int = 1,
             blas: str = "never", lanes: int = 16, vectorized: bool = False) -> ConvEstimate:
    """The cost model's prediction for ``conv`` direct and as im2col + matmul.
    ``vectorized``: strata-vectorize runs it direct in register tiles
    (passes/direct_conv.py), as fast as the generated matmul on windows in cache
    without the copy."""
    rate = GROUPED_NCHW_DIRECT_RATE if conv.groups > 1 and not conv.nhwc else DIRECT_RATE
    direct = conv.flops / rate
    batch, m, n, k = conv.matmul()
    if vectorized:
        direct = VECTORIZED_DIRECT_FACTOR * matmul_estimate(
            batch, m, n, k, epilogue=epilogue, threads=threads, lanes=lanes, packable=False,
            im2col=True).generated_us
    col = conv.col_elements
    copy = 0.0
    if not conv.no_copy or elem_bytes != 4:
        copy = 4.0 * col / IM2COL_BW
    # with an epilogue, each output tile copies its own windows (fusion/im2col.py)
    cost = matmul_estimate(batch, m, n, k, epilogue=epilogue, threads=threads, lanes=lanes,
                           im2col=epilogue and not conv.no_copy and conv.groups == 1)
    use_blas = blas == "always" or (blas == "auto" and cost.blas_wins)
    matmul = cost.blas_us if use_blas else cost.generated_us
    return ConvEstimate(direct, copy, matmul, use_blas, vectorized)


def _us(t: float) -> str:
    return f"{t / 1000:.3g} ms" if t >= 1000 else f"{t:.3g} us"


def _ints(op, name):
    if name not in op.attributes:
        return (1, 1)
    return tuple(int(v) for v in ir.DenseIntElementsAttr(op.attributes[name]))


def _sizes(op) -> _Conv | None:
    """The conv's sizes, or None if this pass leaves it alone (dynamic, integer...)."""
    x, w, out = (rtype(v) for v in op.operands[:3])
    grouped = op.name in GROUPED
    if not all(t.has_static_shape and t.rank == (5 if grouped else 4) for t in (x, w, out)):
        return None
    if not all(isinstance(t.element_type, (ir.F32Type, ir.F16Type, ir.BF16Type))
               for t in (x, w)) or not isinstance(out.element_type, ir.F32Type):
        return None
    if 0 in x.shape or 0 in w.shape or 0 in out.shape:
        return None
    nhwc = op.name in ("linalg.conv_2d_nhwc_hwcf", "linalg.conv_2d_nhwgc_gfhwc")
    if grouped:
        if nhwc:  # x [N, H, W, G, C/G], w [G, F/G, KH, KW, C/G], out [N, OH, OW, G, F/G]
            (n, h, wd, g, cg), (_, fg, kh, kw, _), (_, oh, ow, _, _) = x.shape, w.shape, \
                out.shape
        else:  # x [N, G, C/G, H, W], w [G, F/G, C/G, KH, KW], out [N, G, F/G, OH, OW]
            (n, g, cg, h, wd), (_, fg, _, kh, kw), (_, _, _, oh, ow) = x.shape, w.shape, \
                out.shape
            if n != 1:  # the filter has no batch dim to share: one batch_matmul per image
                return None
        return _Conv(nhwc, n, g * cg, h, wd, g * fg, kh, kw, oh, ow, _ints(op, "strides"),
                     _ints(op, "dilations"), g)
    if nhwc:
        (n, h, wd, c), (kh, kw, _, f), (_, oh, ow, _) = x.shape, w.shape, out.shape
    else:
        (n, c, h, wd), (f, _, kh, kw), (_, _, oh, ow) = x.shape, w.shape, out.shape
    return _Conv(nhwc, n, c, h, wd, f, kh, kw, oh, ow, _ints(op, "strides"),
                 _ints(op, "dilations"))


def _collapse(v, groups):
    t = rtype(v)
    shape = [math.prod(t.shape[i] for i in g) for g in groups]
    out = ir.RankedTensorType.get(shape, t.element_type)
    return tensor.collapse_shape(out, v, _reassociation(groups))


def _expand(v, groups, shape):
    out = ir.RankedTensorType.get(list(shape), rtype(v).element_type)
    return tensor.expand_shape(out, v, _reassociation(groups), [], list(shape))


def _reassociation(groups):
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, i) for i in g])
                             for g in groups])


def _parallel(n):
    return ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<parallel>")] * n)


def _copy(x, shape, in_map, elem):
    return im2col_copy(x, shape, in_map, elem)


def _widened(v):
    """``v`` as f32 (a copy loop when it is f16/bf16)."""
    t = rtype(v)
    if isinstance(t.element_type, ir.F32Type):
        return v
    ident = ir.AffineMap.get_identity(t.rank)
    return _copy(v, t.shape, ident, t.element_type)


def _init(op, groups):
    """The conv's init (output) tensor as the matmul's: a zero fill of the new shape, or a
    reshaped view of whatever the conv accumulated into."""
    init = op.operands[2]
    p = producer(init)
    if p is not None and p.operation.name == "linalg.fill" and is_op(p.operands[1],
                                                                    "tensor.empty"):
        t = rtype(init)
        shape = [math.prod(t.shape[i] for i in g) for g in groups]
        return linalg.fill(p.operands[0], outs=[tensor.empty(shape, t.element_type)])
    return _collapse(init, groups)


def padded_as_copy(x):
    """``x``, or, if it is the zero padding ``tensor.insert_slice %v into fill(0)`` that
    strata-to-linalg emits, the same as a ``linalg.copy`` into the slice: it bufferizes
    to a vectorizable loop into a subview instead of a strided ``memref.copy`` (a
    runtime call that moves one element at a time)."""
    p = producer(x)
    if p is None or p.operation.name != "tensor.insert_slice" or len(p.operands) != 2 or \
            not is_op(p.operands[1], "linalg.fill"):
        return x
    src, dst = p.operands[0], p.operands[1]
    attrs = p.operation.attributes
    offsets = list(ir.DenseI64ArrayAttr(attrs["static_offsets"]))
    sizes = list(ir.DenseI64ArrayAttr(attrs["static_sizes"]))
    strides = list(ir.DenseI64ArrayAttr(attrs["static_strides"]))
    t = ir.RankedTensorType.get(sizes, rtype(dst).element_type)
    if list(rtype(src).shape) != sizes:
        return x
    part = tensor.extract_slice(t, dst, [], [], [], offsets, sizes, strides)
    copied = linalg.copy(src, outs=[part])
    return tensor.insert_slice(copied, dst, [], [], [], offsets, sizes, strides)


def copy_padding(op):
    """Makes the conv ``op`` read its zero-padded input as padded_as_copy makes it (a
    ``linalg.copy`` into the padded buffer, not a strided ``memref.copy`` once
    bufferized); returns that linalg.copy (None if the input is not padded)."""
    old = producer(op.operands[0])
    with op.location, ir.InsertionPoint(op):
        new = padded_as_copy(op.operands[0])
    if new == op.operands[0]:
        return None
    op.operands[0] = new
    if old is not None and not list(old.results[0].uses):
        old.operation.erase()
    return new.owner.operands[0].owner


def _grouped_input(x):
    """The grouped conv's input ``x`` (an expand_shape of the padded input) with the
    padding as padded_as_copy makes it."""
    p = producer(x)
    if p is None or p.operation.name != "tensor.expand_shape":
        return x
    src = padded_as_copy(p.operands[0])
    if src == p.operands[0]:
        return x
    attrs = p.operation.attributes
    return tensor.expand_shape(x.type, src, attrs["reassociation"], [],
                               ir.DenseI64ArrayAttr(attrs["static_output_shape"]))


def _rewrite_grouped(op, conv: _Conv) -> tuple[ir.Value, list]:
    """im2col + one batch_matmul over the groups (see _rewrite)."""
    x, w = _grouped_input(op.operands[0]), op.operands[1]
    elem = rtype(x).element_type
    sh, sw = conv.strides
    dh, dw = conv.dilations
    g, cg, fg = conv.groups, conv.c // conv.groups, conv.f // conv.groups
    d = [ir.AffineDimExpr.get(i) for i in range(7)]
    f32 = ir.F32Type.get()
    if conv.nhwc:
        # (g, n, oh, ow, kh, kw, c) -> x(n, oh*s + kh*d, ow*s + kw*d, g, c): [G, N*OH*OW, K]
        shape = [g, conv.n, conv.oh, conv.ow, conv.kh, conv.kw, cg]
        in_map = ir.AffineMap.get(7, 0, [d[1], d[2] * sh + d[4] * dh, d[3] * sw + d[5] * dw,
                                         d[0], d[6]])
        col = _collapse(_copy(x, shape, in_map, elem), [[0], [1, 2, 3], [4, 5, 6]])
        # w [G, F/G, KH, KW, C/G] -> [G, K, F/G] (the filter's one copy)
        filt = _widened(_collapse(w, [[0], [1], [2, 3, 4]]))
        k = conv.kh * conv.kw * cg
        filt = linalg.transpose(filt, outs=[tensor.empty([g, k, fg], f32)],
                                permutation=[0, 2, 1])
        filt = filt if isinstance(filt, ir.Value) else filt.results[0]
        m = conv.n * conv.oh * conv.ow
        init = linalg.fill(_zero(f32), outs=[tensor.empty([g, m, fg], f32)])
        per_group = linalg.batch_matmul(col, filt, outs=[init])
        # [G, M, F/G] -> [M, G, F/G], the result's order
        result = linalg.transpose(per_group, outs=[tensor.empty([m, g, fg], f32)],
                                  permutation=[1, 0, 2])
        result = result if isinstance(result, ir.Value) else result.results[0]
        return result, [[0, 1, 2], [3], [4]]
    # (n, g, c, kh, kw, oh, ow) -> x(n, g, c, oh*s + kh*d, ow*s + kw*d): [G, K, OH*OW]
    shape = [conv.n, g, cg, conv.kh, conv.kw, conv.oh, conv.ow]
    in_map = ir.AffineMap.get(7, 0, [d[0], d[1], d[2], d[5] * sh + d[3] * dh,
                                     d[6] * sw + d[4] * dw])
    col = _collapse(_copy(x, shape, in_map, elem), [[0, 1], [2, 3, 4], [5, 6]])
    filt = _widened(_collapse(w, [[0], [1], [2, 3, 4]]))  # [G, F/G, K]
    out_groups = [[0, 1], [2], [3, 4]]
    return linalg.batch_matmul(filt, col, outs=[_init(op, out_groups)]), out_groups


def _zero(t):
    return arith.constant(t, 0.0)


def _patches(x, conv: _Conv):
    """The im2col matrix of a conv whose windows tile the input (kernel = stride, no
    dilation, no padding: ViT's 16x16/16 patch embedding) as a transpose of the input seen
    as patches, or None: [N, C, OH*KH, OW*KW] -> [N, C, OH, KH, OW, KW] (a view) ->
    [N, C, KH, KW, OH, OW] (NHWC: [N, OH, OW, KH, KW, C]). One copy that reads each input
    element once; the im2col copy generic would be a window loop per output tile, KH*KW
    windows each (a 16x16/16 conv: 1,300 ops at the fused level and 147 s of
    bufferization and LLVM, against one transpose)."""
    if (conv.kh, conv.kw) != tuple(conv.strides) or tuple(conv.dilations) != (1, 1) or \
            (conv.kh, conv.kw) == (1, 1):
        return None
    t = rtype(x)
    hw = t.shape[1:3] if conv.nhwc else t.shape[2:4]
    if list(hw) != [conv.oh * conv.kh, conv.ow * conv.kw]:
        return None
    if conv.nhwc:
        groups, shape = [[0], [1, 2], [3, 4], [5]], [conv.n, conv.oh, conv.kh, conv.ow,
                                                     conv.kw, conv.c]
        perm, out = [0, 1, 3, 2, 4, 5], [conv.n, conv.oh, conv.ow, conv.kh, conv.kw, conv.c]
    else:
        groups, shape = [[0], [1], [2, 3], [4, 5]], [conv.n, conv.c, conv.oh, conv.kh,
                                                     conv.ow, conv.kw]
        perm, out = [0, 1, 3, 5, 2, 4], [conv.n, conv.c, conv.kh, conv.kw, conv.oh, conv.ow]
    col = linalg.transpose(_expand(x, groups, shape),
                           outs=[tensor.empty(out, t.element_type)], permutation=perm)
    return col if isinstance(col, ir.Value) else col.results[0]


def _rewrite(op, conv: _Conv) -> tuple[ir.Value, list]:
    """Builds im2col + matmul before ``op``; returns the 4-D result and the reassociation
    of the 4-D result into the matmul's result."""
    if conv.groups > 1:
        return _rewrite_grouped(op, conv)
    x, w = padded_as_copy(op.operands[0]), op.operands[1]
    elem = rtype(x).element_type
    sh, sw = conv.strides
    dh, dw = conv.dilations
    d = [ir.AffineDimExpr.get(i) for i in range(6)]
    if conv.nhwc:
        out_groups = [[0, 1, 2], [3]]
        if conv.no_copy:
            col = _widened(_collapse(x, [[0, 1, 2], [3]]))
        elif (patches := _patches(x, conv)) is not None:
            col = _widened(_collapse(patches, [[0, 1, 2], [3, 4, 5]]))
        else:
            # (n, oh, ow, kh, kw, c) -> x(n, oh*s + kh*d, ow*s + kw*d, c)
            shape = [conv.n, conv.oh, conv.ow, conv.kh, conv.kw, conv.c]
            in_map = ir.AffineMap.get(6, 0, [d[0], d[1] * sh + d[3] * dh,
                                             d[2] * sw + d[4] * dw, d[5]])
            col = _collapse(im2col_copy(x, shape, in_map, elem, window=(sh, sw, dh, dw, 1)),
                            [[0, 1, 2], [3, 4, 5]])
        filt = _widened(_collapse(w, [[0, 1, 2], [3]]))
        result = linalg.matmul(col, filt, outs=[_init(op, out_groups)])
        return result, out_groups
    if conv.no_copy:
        col = _collapse(x, [[0], [1], [2, 3]])
    elif (patches := _patches(x, conv)) is not None:
        col = _collapse(patches, [[0], [1, 2, 3], [4, 5]])
    else:
        # (n, c, kh, kw, oh, ow) -> x(n, c, oh*s + kh*d, ow*s + kw*d)
        shape = [conv.n, conv.c, conv.kh, conv.kw, conv.oh, conv.ow]
        in_map = ir.AffineMap.get(6, 0, [d[0], d[1], d[4] * sh + d[2] * dh,
                                         d[5] * sw + d[3] * dw])
        # marked: strata-fuse may copy each output tile's windows inside its tile loop
        col = _collapse(im2col_copy(x, shape, in_map, elem, window=(sh, sw, dh, dw, 0)),
                        [[0], [1, 2, 3], [4, 5]])
    col = _widened(col)
    filt = _widened(_collapse(w, [[0], [1, 2, 3]]))
    if conv.n == 1:
        out_groups = [[0, 1], [2, 3]]
        col = _collapse(col, [[0, 1], [2]])
        return linalg.matmul(filt, col, outs=[_init(op, out_groups)]), out_groups
    out_groups = [[0], [1], [2, 3]]
    b, m, n, k = (ir.AffineDimExpr.get(i) for i in range(4))
    maps = [ir.AffineMap.get(4, 0, e)
            for e in ([m, k], [b, k, n], [b, m, n])]
    return linalg.batch_matmul(filt, col, outs=[_init(op, out_groups)],
                               indexing_maps=maps), out_groups


# -- the elementwise ops that read the result, over the matmul's iteration space ------------

def _collapsible(op, operand, groups, shape):
    """Whether the elementwise ``op`` reads ``operand`` (a reshape by ``groups`` of a
    ``shape`` tensor) through its identity map and could run on the collapsed space."""
    if op.name != "linalg.generic" or len(op.results) != 1:
        return False
    iters = [str(a) for a in ir.ArrayAttr(op.attributes["iterator_types"])]
    maps = indexing_maps(op)
    rank = len(shape)
    ident = ir.AffineMap.get_identity(rank)
    if len(iters) != rank or any("parallel" not in it for it in iters) or maps[-1] != ident:
        return False
    if list(rtype(op.results[0]).shape) != list(shape):
        return False
    n_in = len(op.operands) - 1
    if not any(op.operands[i] == operand and maps[i] == ident for i in range(n_in)):
        return False
    block = op.regions[0].blocks[0]
    if list(block.arguments[-1].uses):
        return False
    return not any(inner.operation.name == "linalg.index" for inner in block.operations)


def _collapse_operand(v, amap, groups, shape):
    """``(value, map)`` reading ``v`` in the collapsed space, or None if it cannot.

    A unit iteration dim reads index 0; the other dims of a group must appear in the
    map in order and next to each other (then the operand's dims are merged), or
    not at all (a broadcast)."""
    group_of = {dim: gi for gi, g in enumerate(groups) for dim in g}
    big = [[dim for dim in g if shape[dim] != 1] for g in groups]
    t = rtype(v)
    results = list(amap.results)
    exprs, reassoc, i = [], [], 0
    zero = ir.AffineConstantExpr.get(0)
    while i < len(results):
        e = results[i]
        if not isinstance(e, ir.AffineDimExpr):
            if not isinstance(e, ir.AffineConstantExpr):
                return None
            exprs.append(e)
            reassoc.append([i])
            i += 1
            continue
        dim = e.position
        if shape[dim] == 1:
            exprs.append(zero)
            reassoc.append([i])
            i += 1
            continue
        g = group_of[dim]
        run = big[g]
        window = results[i:i + len(run)]
        if [getattr(x, "position", None) if isinstance(x, ir.AffineDimExpr) else None
                for x in window] != run:
            return None
        if [t.shape[i + j] for j in range(len(run))] != [shape[r] for r in run]:
            return None
        exprs.append(ir.AffineDimExpr.get(g))
        reassoc.append(list(range(i, i + len(run))))
        i += len(run)
    if any(len(r) > 1 for r in reassoc):
        v = _collapse(v, reassoc)
    return v, ir.AffineMap.get(len(groups), 0, exprs)


def _collapse_generic(op, source, reshaped, groups, shape):
    """Rewrites the elementwise ``op`` over the collapsed space; ``reshaped`` (the expand
    of ``source``) is read as ``source``. Returns the new 4-D result or None."""
    n_in = len(op.operands) - 1
    maps = indexing_maps(op)
    with op.location, ir.InsertionPoint(op):
        new_ins, new_maps = [], []
        for i in range(n_in):
            v = op.operands[i]
            if v == reshaped and maps[i] == ir.AffineMap.get_identity(len(shape)):
                new_ins.append(source)
                new_maps.append(ir.AffineMap.get_identity(len(groups)))
                continue
            got = _collapse_operand(v, maps[i], groups, shape)
            if got is None:
                return None
            new_ins.append(got[0])
            new_maps.append(got[1])
        init = op.operands[n_in]
        p = producer(init)
        if p is not None and p.operation.name == "tensor.empty":
            flat = [math.prod(shape[i] for i in g) for g in groups]
            new_init = tensor.empty(flat, rtype(init).element_type)
        else:
            new_init = _collapse(init, groups)
        new_maps.append(ir.AffineMap.get_identity(len(groups)))
        new = build_generic(op, new_ins, [new_init], new_maps, ["parallel"] * len(groups),
                            [new_init.type], ir.InsertionPoint(op), op.location)
        return _expand(new.result, groups, shape)


def _collapse_users(expanded, source, groups, shape):
    """Moves the elementwise users of ``expanded`` (a 4-D reshape of ``source``) onto
    ``source``'s space, and theirs in turn. Returns how many were rewritten."""
    work, done = [(expanded, source)], 0
    while work:
        value, flat = work.pop()
        users = []
        for use in value.uses:
            owner = use.owner
            owner = owner.operation if hasattr(owner, "operation") else owner
            if owner not in users:
                users.append(owner)
        for user in users:
            if not _collapsible(user, value, groups, shape):
                continue
            got = _collapse_generic(user, flat, value, groups, shape)
            if got is None:
                continue
            # the new generic's own result, before its expand, continues the chain
            new_flat = got.owner.operands[0]
            user.results[0].replace_all_uses_with(got)
            user.erase()
            work.append((got, new_flat))
            done += 1
        if not list(value.uses):
            value.owner.operation.erase()
    return done


@dataclass(frozen=True, eq=False, repr=False)
class ConvToMatmulPass(Pass):
    """Rewrite convolutions as im2col + matmul (reshaped views for 1x1) where it pays."""

    name = "strata-conv-to-matmul"
    mode: str = option("auto", choices=MODES,
                       help="im2col + matmul: auto (the cost model), always, never")
    report: bool = option(False, help="Report every decision as a remark")
    threads: int = threads_option()
    blas: str = option("never", choices=BLAS_MODES,
                       help="What strata-fuse will allow for the matmuls (for the cost model)")

    def run(self, module: ir.Operation) -> None:
        if self.mode == "never":
            return
        from ..codegen.host import f32_lanes

        lanes = f32_lanes()
        for op in collect_ops(module, lambda o: o.name in CONVS + GROUPED):
            conv = _sizes(op)
            where = f"{op.name} at {format_location(op.location)}"
            if conv is None:
                if self.report:
                    why = ("a grouped NCHW conv of several images (one filter for all "
                           "of them has no batch_matmul form)"
                           if op.name == GROUPED[0] and rtype(op.operands[0]).shape[0] > 1
                           else "dynamic shapes, an integer type or an empty tensor")
                    self.remark(op, f"strata-conv-to-matmul: kept {where} direct: {why}")
                continue
            elem = rtype(op.operands[0]).element_type
            users = [u.owner for u in op.results[0].uses]
            vectorized = plan(op, lanes) is not None
            cost = estimate(conv, elem_bytes=2 if not isinstance(elem, ir.F32Type) else 4,
                            epilogue=len(users) == 1, threads=self.threads, blas=self.blas,
                            lanes=lanes, vectorized=vectorized)
            use = self.mode == "always" or cost.im2col_wins
            batch, m, n, k = conv.matmul()
            mm = (f"{batch}x{m}x{n}x{k} batch_matmul" if batch > 1 else f"{m}x{n}x{k} matmul")
            how = "a reshaped view" if conv.no_copy and isinstance(elem, ir.F32Type) else \
                f"an im2col copy of {4 * conv.col_elements / 2 ** 20:.3g} MiB"
            predicted = (f"predicted {_us(cost.im2col_us)} (copy {_us(cost.copy_us)} + "
                         f"{'BLAS' if cost.blas else 'generated'} matmul "
                         f"{_us(cost.matmul_us)}), direct "
                         f"{'in register tiles ' if vectorized else ''}{_us(cost.direct_us)}")
            why = "mode=always" if self.mode == "always" else "the cost model"
            if not use:
                if self.report:
                    self.remark(op, f"strata-conv-to-matmul: kept {where} direct ({conv.text()}; "
                                    f"{why}): {predicted}")
                if vectorized:
                    copy_padding(op)
                continue
            if self.report:
                self.remark(op, f"strata-conv-to-matmul: {where} as {how} + {mm} "
                                f"({conv.text()}; {why}): {predicted}")
            shape = list(rtype(op.results[0]).shape)
            old_input = producer(op.operands[0])
            with op.location, ir.InsertionPoint(op):
                result, groups = _rewrite(op, conv)
                expanded = _expand(result, groups, shape)
            op.results[0].replace_all_uses_with(expanded)
            op.erase()
            if old_input is not None and old_input.operation.name == "tensor.insert_slice" \
                    and not list(old_input.results[0].uses):
                old_input.operation.erase()  # the padding, now a linalg.copy
            _collapse_users(expanded, result, groups, shape)

