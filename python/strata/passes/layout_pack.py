"""strata-layout rule 3: data tiling of matmuls into packed blocks (``pack-matmul``).

Runs upstream ``linalg-block-pack-matmul{block-factors=bm,bn,bk allow-padding}``
on every static ``linalg.matmul``, then folds at compile time what does not
need to run: a ``linalg.pack`` of an ``arith.constant`` becomes the packed
constant (computed with numpy, padding included), and the pack of the
zero-filled accumulator becomes a fill of the packed shape. The unpack is
kept only where a consumer needs the plain ``MxN`` layout.

    %w = arith.constant dense<...> : tensor<37x29xf32>
    %0 = linalg.matmul ins(%a, %w) outs(fill(0) : tensor<13x29xf32>)
  =>                                          (block 8 x 16 x 1)
    %pa = linalg.pack %a padding_value(0) inner_dims_pos = [0, 1] inner_tiles = [8, 1]
            : tensor<13x37xf32> -> tensor<2x37x8x1xf32>
    %pw = arith.constant dense<...> : tensor<2x37x16x1xf32>     // packed by numpy
    %r = linalg.generic {6-D mmt4d-like contraction} ins(%pa, %pw)
           outs(fill(0) : tensor<2x2x8x16xf32>)
    %0 = linalg.unpack %r inner_dims_pos = [0, 1] inner_tiles = [8, 16] into %init

strata-decompose lowers pack/unpack to pad + expand_shape + transpose (and the
inverse) before bufferization.

Limits: slower than strata-vectorize's 8x16 register-tiled linalg.matmul here
(the packed contraction is a 6-D linalg.generic that strata-vectorize does not
match, so LLVM vectorizes only its innermost loop), hence off by default;
batch_matmul is not packed; dynamic shapes are left alone.
"""

from __future__ import annotations

import numpy as np
from mlir import ir, passmanager
from mlir.dialects import tensor

from ..diagnostics import run_pass_manager
from .layout_common import constant_array, is_op, make_constant, ops_in, producer, rtype
from .linalg_ops import linalg

__all__ = ["pack_matmuls", "pack_array", "PackingError"]


class PackingError(Exception):
    """linalg-block-pack-matmul failed; the text holds MLIR's errors."""


def pack_array(a, inner_dims_pos, inner_tiles, outer_dims_perm=None, padding=0.0):
    """numpy ``linalg.pack``: pads, splits the tiled dims, orders outer then inner dims."""
    rank = a.ndim
    pads = [(0, 0)] * rank
    for d, t in zip(inner_dims_pos, inner_tiles, strict=True):
        pads[d] = (0, -(-a.shape[d] // t) * t - a.shape[d])
    a = np.pad(a, pads, constant_values=padding)
    shape, outer_axis, inner_axis = [], {}, {}
    tiles = dict(zip(inner_dims_pos, inner_tiles, strict=True))
    for d in range(rank):
        outer_axis[d] = len(shape)
        if d in tiles:
            shape += [a.shape[d] // tiles[d], tiles[d]]
            inner_axis[d] = len(shape) - 1
        else:
            shape.append(a.shape[d])
    perm = list(outer_dims_perm) if outer_dims_perm is not None else list(range(rank))
    axes = [outer_axis[perm[j]] for j in range(rank)] + [inner_axis[d] for d in inner_dims_pos]
    return np.ascontiguousarray(a.reshape(shape).transpose(axes))


def _attr(op, name):
    return list(ir.DenseI64ArrayAttr(op.attributes[name])) if name in op.attributes else None


def _scalar_constant(v):
    p = producer(v) if v is not None else None
    if p is None or p.operation.name != "arith.constant":
        return None
    a = p.attributes["value"]
    if isinstance(a, ir.FloatAttr):
        return a.value
    if isinstance(a, ir.IntegerAttr):
        return a.value
    return None


def _fold_packs(func) -> None:
    for op in ops_in(func):
        if op.operation.name != "linalg.pack":
            continue
        src = op.operands[0]
        pad_value = op.operands[2] if len(op.operands) > 2 else None
        pad = _scalar_constant(pad_value)
        pad = 0.0 if pad is None and pad_value is None else pad
        inner, tiles = _attr(op, "inner_dims_pos"), _attr(op, "static_inner_tiles")
        outer = _attr(op, "outer_dims_perm")
        out_type = rtype(op.results[0])
        array, attr = constant_array(src)
        new = None
        with ir.InsertionPoint(op), op.location:
            if array is not None and pad is not None and not isinstance(array, str):
                new = make_constant(pack_array(array, inner, tiles, outer, pad),
                                    out_type.element_type)
            elif is_op(src, "linalg.fill") and is_op(producer(src).operands[1], "tensor.empty"):
                fill_value = _scalar_constant(producer(src).operands[0])
                exact = all(rtype(src).shape[d] % t == 0 for d, t in zip(inner, tiles,
                                                                          strict=True))
                if exact or (fill_value is not None and fill_value == pad):
                    new = linalg.fill(producer(src).operands[0], outs=[tensor.empty(
                        list(out_type.shape), out_type.element_type)])
        if new is not None:
            op.results[0].replace_all_uses_with(new)
            op.operation.erase()


def pack_matmuls(func, blocks) -> None:
    """Packs ``func``'s static matmuls with ``blocks = (bm, bn, bk)``; folds constant packs."""
    has = False
    for op in ops_in(func):
        if op.operation.name == "linalg.matmul" and all(
                rtype(v).has_static_shape for v in op.operands):
            has = True
    if not has:
        return
    bm, bn, bk = blocks
    text = f"linalg-block-pack-matmul{{block-factors={bm},{bn},{bk} allow-padding}}"
    pm = passmanager.PassManager.parse(f"func.func({text})", context=func.context)
    ok, diags = run_pass_manager(pm, func.operation)
    if not ok:
        raise PackingError("; ".join(d.message for d in diags if d.severity == "error") or
                           "linalg-block-pack-matmul failed")
    _fold_packs(func)
