"""strata-unique-results: make every function result, and every padded buffer, a distinct
value before bufferization.

Bufferizing ``return %0, %0`` (and then turning results into out-params) breaks
one-shot bufferization; each repeated result gets its own copy instead:

    return %0, %0 : tensor<4xf32>, tensor<4xf32>
  =>
    %e = tensor.empty() : tensor<4xf32>
    %1 = linalg.copy ins(%0) outs(%e)
    return %0, %1

Two pads of the same shape (the inputs of a ResNet block's two convs) fill the same
zeros, and CSE merges their fills: both interiors are then written into one filled
tensor, and bufferization, to keep the first pad intact for its reader, copies the
whole padded buffer and the interior again before the second pad writes (2.2 MB of
serial copies per call for 4x64x32x32 inputs). Every insert into a shared fill but one
gets a fill of its own, so each pad is one fill and one copy into its own buffer:

    %f = linalg.fill 0 -> tensor<4x64x34x34xf32>
    %p1 = tensor.insert_slice (linalg.copy %x into extract_slice %f) into %f
    %p2 = tensor.insert_slice (linalg.copy %y into extract_slice %f) into %f
  =>
    %p2 = tensor.insert_slice (linalg.copy %y into extract_slice %f2) into %f2
          // %f2: another linalg.fill 0 of a tensor.empty, made before the copy (which
          // of the inserts keeps %f follows the use list: %p1 in the lit test)
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from .base import Pass, collect_ops
from .linalg_ops import linalg
from .lowering.common import dims, empty

__all__ = ["UniqueResultsPass", "clone_fill", "split_shared_fills"]


@dataclass(frozen=True, eq=False, repr=False)
class UniqueResultsPass(Pass):
    """Give each repeated function result its own copy, each pad into a shared fill its own fill (bufferization copies otherwise)."""

    name = "strata-unique-results"

    def run(self, module: ir.Operation) -> None:
        split_shared_fills(module)
        for ret in collect_ops(module, lambda op: op.name == "func.return"):
            seen = []
            for i, value in enumerate(list(ret.operands)):
                if not isinstance(value.type, ir.RankedTensorType):
                    continue
                if any(value == v for v in seen):
                    with ir.InsertionPoint(ret), ret.location:
                        init = empty(dims(value), ir.RankedTensorType(value.type).element_type)
                        copy = linalg.copy(value, outs=[init])
                    ret.operands[i] = copy
                else:
                    seen.append(value)


def split_shared_fills(module: ir.Operation) -> None:
    """Gives every tensor.insert_slice into a shared linalg.fill but the first a fill of
    its own (own_fill)."""
    for fill in collect_ops(module, lambda op: op.name == "linalg.fill"):
        inserts = [use.owner for use in fill.results[0].uses
                   if use.owner.name == "tensor.insert_slice" and use.operand_number == 1]
        for insert in inserts[1:]:
            own_fill(fill, insert)


def clone_fill(fill, before):
    """A clone of ``fill`` (and of its ``tensor.empty``, so that the two are not one
    buffer) made before the op ``before``; returns the new fill."""
    init = fill.operands[len(fill.operands) - 1]
    with ir.InsertionPoint(before):
        empty = init.owner.clone() if getattr(init.owner, "name", None) == "tensor.empty" \
            else None
        own = fill.clone()
        if empty is not None:
            own.operands[len(own.operands) - 1] = empty.results[0]
    return own


def own_fill(fill, insert) -> None:
    """Gives ``insert`` (a tensor.insert_slice into ``fill``'s result) a clone of the fill
    (and of its tensor.empty), made before the linalg.copy that writes its source into an
    extract_slice of the same fill, if it is that (a pad), and that copy a clone of the
    extract_slice of the new fill."""
    source = insert.operands[0].owner
    copy = source if getattr(source, "name", None) == "linalg.copy" else None
    dest = copy.operands[len(copy.operands) - 1].owner if copy is not None else None
    pad = (dest is not None and getattr(dest, "name", None) == "tensor.extract_slice"
           and dest.operands[0] == fill.results[0])
    own = clone_fill(fill, copy if pad else insert)
    if pad:
        with ir.InsertionPoint(copy):
            slice_op = dest.clone()
            slice_op.operands[0] = own.results[0]
            copy.operands[len(copy.operands) - 1] = slice_op.results[0]
    insert.operands[1] = own.results[0]
