"""strata-strided-copies: copies between strided buffers become loops LLVM vectorizes.

Bufferization copies into and out of views with ``memref.copy`` (a padded
packing buffer's interior, a slice of a padded result). Between two contiguous
buffers that lowers to a ``memcpy``; when either side is strided it lowers to a
call of the C runner's ``memrefCopy``, which moves one element at a time (a
1000x1000 copy into a 1000x1024 padded panel took about 3 ms, 12% of a
1000^3 matmul). This pass turns those copies into ``linalg.copy``, which
convert-linalg-to-loops makes plain loops over the static shape that LLVM
vectorizes along the contiguous last dim. Contiguous copies, copies of
dynamic shape and rank-0 copies are left to ``memrefCopy``/``memcpy``:

    memref.copy %a, %sub : memref<1000x1000xf32> to memref<1000x1000xf32, strided<[1024, 1]>>
  =>
    linalg.copy ins(%a : memref<1000x1000xf32>) outs(%sub : memref<1000x1000xf32, strided<[1024, 1]>>)
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from .base import Pass, collect_ops
from .linalg_ops import linalg

__all__ = ["StridedCopiesPass"]


def _strided_static_copy(op) -> bool:
    if op.name != "memref.copy":
        return False
    types = [v.type for v in op.operands]
    if not all(isinstance(t, ir.MemRefType) for t in types):
        return False
    types = [ir.MemRefType(t) for t in types]
    if not all(t.has_static_shape and t.rank >= 1 for t in types):
        return False
    return any(not _contiguous(t) for t in types)


def _contiguous(t: ir.MemRefType) -> bool:
    """Row-major strides of its shape (what memref.copy's lowering copies with memcpy)."""
    strides, _ = t.get_strides_and_offset()
    expected, stride = [], 1
    for size in reversed(t.shape):
        expected.append(stride)
        stride *= size
    return all(s == e for s, e, size in zip(strides, reversed(expected), t.shape, strict=True)
               if size != 1)


@dataclass(frozen=True, eq=False, repr=False)
class StridedCopiesPass(Pass):
    """Turn memref.copy between strided static buffers into linalg.copy (vectorizable loops)."""

    name = "strata-strided-copies"

    def run(self, module: ir.Operation) -> None:
        for op in collect_ops(module, _strided_static_copy):
            source, target = op.operands
            with ir.InsertionPoint(op), op.location:
                linalg.copy(source, outs=[target])
            op.erase()
