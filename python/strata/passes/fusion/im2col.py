"""The im2col copy of a conv run as a matmul, and its tiles computed inside the tile loops.

strata-conv-to-matmul writes a conv's input windows into a matrix (``im2col_copy``,
marked ``strata.im2col``) that its matmul reads: B (``[C*KH*KW, pixels]``) with
NCHW, A (``[pixels, KH*KW*C]``) with NHWC. Materialized, that matrix is ``KH*KW``
times the input (6.9 MiB for a 3x3 conv of 64 channels at 56x56): written once and
read back from memory by every output tile. Once strata-fuse has tiled the matmul
with its epilogue, each tile reads only its own output pixels' part: ``localize``
makes each tile copy those windows itself, from the (padded) input, into a
tile-sized matrix that stays in cache (252 KiB for a tile of two 56-pixel rows).
NCHW:

    %col = linalg.generic {strata.im2col} ins(%xp) outs(tensor<1x64x3x3x56x56xf32>)
    %b = tensor.collapse_shape %col [[0, 1, 2, 3], [4, 5]] : tensor<576x3136xf32>
    scf.forall (%i, %j) in (1, 28) {
      %t = tensor.extract_slice %b[0, %j * 112] [576, 112]
      linalg.matmul ins(%w, %t) ...
  =>
    scf.forall (%i, %j) in (1, 28) {
      %rows = tensor.extract_slice %xp[0, 0, %j * 2, 0] [1, 64, 4, 58]    // 2 rows + halo
      %c = linalg.generic {strata.im2col} ins(%rows) outs(tensor<1x64x3x3x2x56xf32>)
      %t = tensor.collapse_shape %c [[0, 1, 2, 3], [4, 5]] : tensor<576x112xf32>
      linalg.matmul ins(%w, %t) ...

Measured (2 threads, 2-core AVX-512 machine): the NCHW conv above + relu 1.68 ->
1.42 ms; the NHWC 128-channel 28x28 one 1.9-2.2 -> 1.2-1.4 ms while another tenant
loaded the memory system (within 3% either way when it did not).

Only tiles of whole output rows of one image (a multiple of OW pixels) and all of K
are rewritten; others keep reading the materialized matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import affine, arith, tensor

from ..base import in_loop
from ..layout_common import producer, rtype
from ..linalg_ops import linalg

__all__ = ["IM2COL", "IM2COL_PART", "OPT_LEVEL_CAP", "im2col_copy", "localize", "row_width"]

IM2COL = "strata.im2col"  # array<i64: stride h, stride w, dilation h, dilation w, nhwc>
IM2COL_PART = "strata.im2col_part"  # one filter position's copy in a tile (_tile_copy)
# The module attribute that caps the LLVM optimization level its code is compiled with
# (runtime/engine.py capped_opt_level). Set by localize: LLVM's -O3 took 7 s on the
# 128-channel 28x28 NHWC conv's per-tile copies and 1.0 s on the 3x3/2 one (0.8 and
# 0.5 s at -O2, warm calls as fast); and by strata-vectorize for direct convs in
# register tiles (passes/direct_conv.py).
OPT_LEVEL_CAP = "strata.max_opt_level"
_DYNAMIC = ir.ShapedType.get_dynamic_size()


def _parallel(n):
    return ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<parallel>")] * n)


def im2col_copy(x, shape, in_map, elem, window=None) -> ir.Value:
    """A linalg.generic writing ``x`` read through ``in_map`` into a new f32 ``shape``
    tensor (widened with arith.extf when ``elem`` is f16/bf16). ``window`` = (stride h,
    stride w, dilation h, dilation w, nhwc) marks it as a conv's im2col copy
    (``[N, C, KH, KW, OH, OW]``, or ``[N, OH, OW, KH, KW, C]`` with nhwc = 1), which
    ``localize`` may move into tile loops."""
    f32 = ir.F32Type.get()
    init = tensor.empty(list(shape), f32)
    maps = [in_map, ir.AffineMap.get_identity(len(shape))]
    op = linalg.GenericOp([init.type], [x], [init],
                          ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
                          _parallel(len(shape)))
    if window is not None:
        op.operation.attributes[IM2COL] = ir.DenseI64ArrayAttr.get(list(window))
    block = op.regions[0].blocks.append(elem, f32)
    with ir.InsertionPoint(block):
        a = block.arguments[0]
        linalg.YieldOp([a if isinstance(elem, ir.F32Type) else arith.extf(f32, a)])
    return op.result


def _reassociation(op) -> list[list[int]]:
    return [[int(ir.IntegerAttr(i).value) for i in ir.ArrayAttr(g)]
            for g in ir.ArrayAttr(op.attributes["reassociation"])]


def _source(v):
    """``(im2col generic, groups)`` when ``v`` is collapse_shapes of a marked copy: the
    groups of the copy's dims that make ``v``'s dims; else None."""
    groups = [[i] for i in range(rtype(v).rank)]
    while True:
        p = producer(v)
        if p is None:
            return None
        name = p.operation.name
        if name == "linalg.generic" and IM2COL in p.operation.attributes:
            return p.operation, groups
        if name != "tensor.collapse_shape":
            return None
        inner = _reassociation(p.operation)
        groups = [[d for g in group for d in inner[g]] for group in groups]
        v = p.operands[0]


@dataclass(frozen=True)
class _Matrix:
    """A marked copy seen as the matrix a matmul reads, and where its dims are."""

    copy: object
    nhwc: bool
    n: int
    c: int
    kh: int
    kw: int
    oh: int
    ow: int
    window: tuple  # stride h, stride w, dilation h, dilation w
    batch: int | None  # the matrix's batch dim (NCHW, N > 1), else None
    pixels: int  # the matrix's dim of output pixels
    k: int  # the matrix's dim of C x KH x KW

    def tile_shape(self, rows: int) -> list[int]:
        if self.nhwc:
            return [1, rows, self.ow, self.kh, self.kw, self.c]
        return [1, self.c, self.kh, self.kw, rows, self.ow]


def _matrix(v) -> _Matrix | None:
    """``v`` as a conv's im2col matrix: NCHW ``[K, P]`` (one image) or ``[N, K, P]``;
    NHWC ``[N*P, K]``. None for anything else."""
    got = _source(v)
    if got is None:
        return None
    copy, groups = got
    window = tuple(ir.DenseI64ArrayAttr(copy.attributes[IM2COL]))
    if len(window) != 5:
        return None
    shape = rtype(copy.results[0]).shape
    if window[4]:
        n, oh, ow, kh, kw, c = shape
        if groups != [[0, 1, 2], [3, 4, 5]]:
            return None
        return _Matrix(copy, True, n, c, kh, kw, oh, ow, window[:4], None, 0, 1)
    n, c, kh, kw, oh, ow = shape
    if groups == [[0, 1, 2, 3], [4, 5]] and n == 1:
        return _Matrix(copy, False, n, c, kh, kw, oh, ow, window[:4], None, 1, 0)
    if groups == [[0], [1, 2, 3], [4, 5]]:
        return _Matrix(copy, False, n, c, kh, kw, oh, ow, window[:4], 0, 2, 1)
    return None


def row_width(contraction) -> tuple[int, int, int] | None:
    """``(dim, OW, OH*OW)`` when ``contraction`` (a matmul / batch_matmul) reads a conv's
    im2col matrix: its result's ``dim`` (counted from the end) runs over output
    pixels, OW per row. Output tiles of whole rows (multiples of OW pixels, within
    one image) let ``localize`` copy each tile's windows inside its loop."""
    if len(contraction.operands) < 3:
        return None
    b = _matrix(contraction.operands[1])
    if b is not None and not b.nhwc:  # NCHW: W @ col, pixels are the columns
        return -1, b.ow, b.oh * b.ow
    a = _matrix(contraction.operands[0])
    if a is not None and a.nhwc:  # NHWC: col @ W, pixels are the rows
        return -2, a.ow, a.oh * a.ow
    return None


def _mixed(op, name, dynamic):
    """A slice's offsets/sizes/strides: ints, or the Values of its dynamic ones."""
    values = iter(dynamic)
    return [next(values) if s == _DYNAMIC else s
            for s in ir.DenseI64ArrayAttr(op.attributes[f"static_{name}"])]


def _localize_one(slice_op):
    """The tile's own copy (and the whole matrix's shape), or None if left alone."""
    mat = _matrix(slice_op.operands[0])
    if mat is None:
        return None
    attrs = slice_op.attributes
    n_dyn_off = list(ir.DenseI64ArrayAttr(attrs["static_offsets"])).count(_DYNAMIC)
    offsets = _mixed(slice_op, "offsets", list(slice_op.operands)[1:1 + n_dyn_off])
    sizes = list(ir.DenseI64ArrayAttr(attrs["static_sizes"]))
    strides = list(ir.DenseI64ArrayAttr(attrs["static_strides"]))
    per_image = mat.oh * mat.ow
    if _DYNAMIC in sizes or any(s != 1 for s in strides):
        return None
    if mat.batch is not None and sizes[mat.batch] != 1:
        return None
    tile = sizes[mat.pixels]
    if offsets[mat.k] != 0 or sizes[mat.k] != mat.c * mat.kh * mat.kw or tile % mat.ow:
        return None
    # NHWC's pixel dim runs over every image: a tile must not cross from one to the next
    if mat.nhwc and mat.n > 1 and per_image % tile:
        return None
    sh, _, dh, _ = mat.window
    rows = tile // mat.ow
    x = mat.copy.operands[0]
    xt = rtype(x)
    height = (rows - 1) * sh + (mat.kh - 1) * dh + 1
    pixel = offsets[mat.pixels]
    d0 = ir.AffineDimExpr.get(0)
    # first output row of the tile x stride = the first input row it reads; the image
    in_image = ir.AffineExpr.get_mod(d0, per_image) if mat.nhwc and mat.n > 1 else d0
    row_expr = ir.AffineExpr.get_floor_div(in_image, mat.ow) * sh
    image_expr = ir.AffineExpr.get_floor_div(d0, per_image)
    with slice_op.location, ir.InsertionPoint(slice_op):
        if isinstance(pixel, int):
            if pixel % mat.ow:
                return None
            row0 = (pixel % per_image if mat.nhwc else pixel) // mat.ow * sh
            image = pixel // per_image if mat.nhwc else 0
        else:
            row0 = affine.apply(ir.AffineMap.get(1, 0, [row_expr]), [pixel])
            image = 0
            if mat.nhwc and mat.n > 1:
                image = affine.apply(ir.AffineMap.get(1, 0, [image_expr]), [pixel])
        if mat.batch is not None:
            image = offsets[mat.batch]
        if mat.nhwc:  # x [N, H, W, C]
            x_offsets, x_sizes = [image, row0, 0, 0], [1, height, xt.shape[2], xt.shape[3]]
        else:  # x [N, C, H, W]
            x_offsets, x_sizes = [image, 0, row0, 0], [1, xt.shape[1], height, xt.shape[3]]
        dynamic = [o for o in x_offsets if not isinstance(o, int)]
        static = [o if isinstance(o, int) else _DYNAMIC for o in x_offsets]
        part = ir.RankedTensorType.get(x_sizes, xt.element_type)
        window = tensor.extract_slice(part, x, dynamic, [], [], static, x_sizes, [1] * 4)
        copied, first = _tile_copy(window, mat, rows, xt.element_type)
        result = rtype(slice_op.results[0])
        if mat.nhwc:
            reassoc = [[0, 1, 2], [3, 4, 5]]
        else:
            reassoc = [[0, 1, 2, 3], [4, 5]] if result.rank == 2 else [[0], [1, 2, 3], [4, 5]]
        i64 = ir.IntegerType.get_signless(64)
        flat = tensor.collapse_shape(result, copied, ir.ArrayAttr.get(
            [ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in g]) for g in reassoc]))
    slice_op.results[0].replace_all_uses_with(flat)
    return first, mat.tile_shape(rows), rtype(mat.copy.results[0]).shape


def _tile_copy(window, mat: _Matrix, rows: int, elem):
    """The tile's matrix (``mat.tile_shape(rows)``, f32) copied from ``window`` (the input
    rows it reads): one copy per filter position (kh, kw) of a strided slice of the
    window into the matrix's (kh, kw) part. Each is a plain elementwise copy, marked
    ``strata.im2col_part`` where its last dim is contiguous (not NCHW with a column
    stride: a strided vector read is copied an element at a time, 5x slower), which
    strata-vectorize copies by vectors along that dim; the whole tile as one op would
    read through ``oh*s + kh*d`` maps, which the vectorizer does not take (LLVM then
    copied it a scalar at a time: a fifth of the ResNet conv's time). Returns the matrix
    and the first part's op."""
    f32 = ir.F32Type.get()
    shape = mat.tile_shape(rows)
    sh, sw, dh, dw = mat.window
    c = mat.c
    if mat.nhwc:  # window [1, H', W, C] -> part [1, rows, OW, C] at [0, 0, 0, kh, kw, 0]
        part = [1, rows, mat.ow, c]
        src_strides = [1, sh, sw, 1]
    else:  # window [1, C, H', W] -> part [1, C, rows, OW] at [0, 0, kh, kw, 0, 0]
        part = [1, c, rows, mat.ow]
        src_strides = [1, 1, sh, sw]
    ident = ir.AffineMap.get_identity(4)
    maps = ir.ArrayAttr.get([ir.AffineMapAttr.get(ident)] * 2)
    result = tensor.empty(shape, f32)
    first = None
    for i in range(mat.kh):
        for j in range(mat.kw):
            if mat.nhwc:
                src_off = [0, i * dh, j * dw, 0]
                dst_off = [0, 0, 0, i, j, 0]
                dst_sizes = [1, rows, mat.ow, 1, 1, c]
            else:
                src_off = [0, 0, i * dh, j * dw]
                dst_off = [0, 0, i, j, 0, 0]
                dst_sizes = [1, c, 1, 1, rows, mat.ow]
            src = tensor.extract_slice(ir.RankedTensorType.get(part, elem), window, [], [], [],
                                       src_off, part, src_strides)
            dst_type = ir.RankedTensorType.get(part, f32)
            dst = tensor.extract_slice(dst_type, result, [], [], [], dst_off, dst_sizes,
                                       [1] * 6)
            if isinstance(elem, ir.F32Type):  # (canonicalize folds an identity generic)
                copied = linalg.copy(src, outs=[dst])
                op = copied.owner
            else:
                op = linalg.GenericOp([dst_type], [src], [dst], maps, _parallel(4))
                block = op.regions[0].blocks.append(elem, f32)
                with ir.InsertionPoint(block):
                    linalg.YieldOp([arith.extf(f32, block.arguments[0])])
                copied = op.result
            if src_strides[-1] == 1:
                op.operation.attributes[IM2COL_PART] = ir.UnitAttr.get()
            result = tensor.insert_slice(copied, result, [], [], [], dst_off, dst_sizes,
                                         [1] * 6)
            first = first or op.operation
    return result, first


def _erase_dead(v):
    """Erases the collapse_shapes and the copy that made ``v`` once nothing reads them
    (the untiled matmul that tile-and-fuse left behind, unused, included)."""
    for use in list(v.uses):
        owner = use.owner
        owner = getattr(owner, "operation", owner)
        if owner.name in ("linalg.matmul", "linalg.batch_matmul") and \
                not any(list(r.uses) for r in owner.results):
            owner.erase()
    while True:
        p = producer(v)
        if p is None or list(p.results[0].uses):
            return
        op = p.operation
        if op.name != "tensor.collapse_shape":
            init = producer(op.operands[len(op.operands) - 1])
            op.erase()
            if init is not None and init.operation.name == "tensor.empty" and \
                    not list(init.results[0].uses):
                init.operation.erase()
            return
        v = op.operands[0]
        op.erase()


def localize(module) -> list:
    """Rewrites every slice of a materialized im2col matrix inside a tile loop as the copy
    of that tile's windows (see the module docstring); returns ``(its first copy op,
    the tile's shape, the whole matrix's shape)`` for each. A module with such copies
    asks for LLVM -O2 at most (``OPT_LEVEL_CAP``)."""
    slices = []

    def walk(op):
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    # (tile-and-fuse leaves unused slices behind: not copied for)
                    if inner.operation.name == "tensor.extract_slice" and \
                            list(inner.results[0].uses) and in_loop(inner.operation):
                        slices.append(inner.operation)
                    walk(inner.operation)

    walk(module)
    done = []
    for s in slices:
        source = s.operands[0]
        got = _localize_one(s)
        if got is not None:
            s.erase()
            _erase_dead(source)
            done.append(got)
    if done:
        module.attributes[OPT_LEVEL_CAP] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 2)
    return done
