"""The im2col copy of a conv run as a matmul, and its tiles computed inside the tile loops.

strata-conv-to-matmul writes an NCHW conv's input windows into a matrix
(``im2col_copy``, marked ``strata.im2col``) that its matmul reads as B. Materialized,
that matrix is ``KH*KW`` times the input (6.9 MiB for a 3x3 conv of 64 channels at
56x56): written once and read back from memory by every output tile. Once
strata-fuse has tiled the matmul with its epilogue, each tile reads only the columns
of its output pixels: ``localize`` makes each tile copy those windows itself, from
the (padded) input, into a tile-sized matrix that stays in cache
(``[C*KH*KW, T]``: 252 KiB for a tile of two 56-pixel rows):

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

Only tiles of whole output rows (a tile width that is a multiple of OW) and all of
K are rewritten; others keep reading the materialized matrix.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import affine, arith, tensor

from ..layout_common import producer, rtype
from ..linalg_ops import linalg

__all__ = ["IM2COL", "im2col_copy", "localize", "row_width"]

IM2COL = "strata.im2col"  # on the copy: array<i64: stride h, stride w, dilation h, dilation w>
_DYNAMIC = ir.ShapedType.get_dynamic_size() if hasattr(ir.ShapedType, "get_dynamic_size") \
    else -(1 << 63)


def _parallel(n):
    return ir.ArrayAttr.get([ir.Attribute.parse("#linalg.iterator_type<parallel>")] * n)


def im2col_copy(x, shape, in_map, elem, window=None) -> ir.Value:
    """A linalg.generic writing ``x`` read through ``in_map`` into a new f32 ``shape``
    tensor (widened with arith.extf when ``elem`` is f16/bf16). ``window`` = (stride h,
    stride w, dilation h, dilation w) marks it as an NCHW conv's im2col copy
    (``[N, C, KH, KW, OH, OW]``), which ``localize`` may move into tile loops."""
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


def _layout(v):
    """``(copy, batch dim or None)`` when ``v`` is a marked copy collapsed to ``[K, P]``
    (one image) or ``[N, K, P]``; else None."""
    got = _source(v)
    if got is None:
        return None
    copy, groups = got
    n = rtype(copy.results[0]).shape[0]
    if groups == [[0, 1, 2, 3], [4, 5]] and n == 1:
        return copy, None
    if groups == [[0], [1, 2, 3], [4, 5]]:
        return copy, 0
    return None


def row_width(contraction) -> int | None:
    """OW when ``contraction`` (a matmul / batch_matmul) reads an NCHW conv's im2col
    matrix as B: output tiles of whole rows (multiples of OW pixels) let ``localize``
    copy each tile's windows inside its loop."""
    if len(contraction.operands) < 2:
        return None
    got = _layout(contraction.operands[1])
    return None if got is None else rtype(got[0].results[0]).shape[5]


def _mixed(op, name, dynamic):
    """A slice's offsets/sizes/strides: ints, or the Values of its dynamic ones."""
    values = iter(dynamic)
    return [next(values) if s == _DYNAMIC else s
            for s in ir.DenseI64ArrayAttr(op.attributes[f"static_{name}"])]


def _in_loop(op) -> bool:
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name in ("scf.forall", "scf.for"):
            return True
        parent = parent.parent
    return False


def _localize_one(slice_op):
    """The tile's own copy (and the whole matrix's shape), or None if left alone."""
    got = _layout(slice_op.operands[0])
    if got is None:
        return None
    copy, batch_dim = got
    _, c, kh, kw, _, ow = rtype(copy.results[0]).shape
    attrs = slice_op.attributes
    n_dyn_off = list(ir.DenseI64ArrayAttr(attrs["static_offsets"])).count(_DYNAMIC)
    operands = list(slice_op.operands)[1:]
    offsets = _mixed(slice_op, "offsets", operands[:n_dyn_off])
    sizes = list(ir.DenseI64ArrayAttr(attrs["static_sizes"]))
    strides = list(ir.DenseI64ArrayAttr(attrs["static_strides"]))
    k = c * kh * kw
    lead = 0 if batch_dim is None else 1
    if _DYNAMIC in sizes or any(s != 1 for s in strides):
        return None
    if lead and sizes[0] != 1:
        return None
    if offsets[lead] != 0 or sizes[lead] != k or sizes[lead + 1] % ow:
        return None
    sh, sw, dh, dw = ir.DenseI64ArrayAttr(copy.attributes[IM2COL])
    del sw, dw  # whole rows: the columns' windows are the same in every tile
    rows = sizes[lead + 1] // ow
    x = copy.operands[0]
    xt = rtype(x)
    height = (rows - 1) * sh + (kh - 1) * dh + 1
    in_map = ir.AffineMapAttr(ir.ArrayAttr(copy.attributes["indexing_maps"])[0]).value
    pixel = offsets[lead + 1]
    with slice_op.location, ir.InsertionPoint(slice_op):
        if isinstance(pixel, int):
            if pixel % ow:
                return None
            row0 = [pixel // ow * sh]
            dyn = []
        else:
            first = ir.AffineMap.get(1, 0, [ir.AffineExpr.get_floor_div(
                ir.AffineDimExpr.get(0), ow) * sh])
            row0 = [_DYNAMIC]
            dyn = [affine.apply(first, [pixel])]
        b = offsets[0] if lead else 0
        if isinstance(b, int):
            x_offsets, b_dyn = [b], []
        else:
            x_offsets, b_dyn = [_DYNAMIC], [b]
        part = ir.RankedTensorType.get([1, c, height, xt.shape[3]], xt.element_type)
        window = tensor.extract_slice(part, x, b_dyn + dyn, [], [],
                                      x_offsets + [0] + row0 + [0],
                                      [1, c, height, xt.shape[3]], [1, 1, 1, 1])
        tile = im2col_copy(window, [1, c, kh, kw, rows, ow], in_map, xt.element_type,
                           window=list(ir.DenseI64ArrayAttr(copy.attributes[IM2COL])))
        result = rtype(slice_op.results[0])
        reassoc = [[0, 1, 2, 3], [4, 5]] if result.rank == 2 else [[0], [1, 2, 3], [4, 5]]
        i64 = ir.IntegerType.get_signless(64)
        flat = tensor.collapse_shape(result, tile, ir.ArrayAttr.get(
            [ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in g]) for g in reassoc]))
    slice_op.results[0].replace_all_uses_with(flat)
    return tile.owner, rtype(copy.results[0]).shape


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
    of that tile's windows (see the module docstring); returns ``(tile copy, shape of
    the whole matrix)`` for each."""
    slices = []

    def walk(op):
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    # (tile-and-fuse leaves unused slices behind: not copied for)
                    if inner.operation.name == "tensor.extract_slice" and \
                            list(inner.results[0].uses) and _in_loop(inner.operation):
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
    return done
