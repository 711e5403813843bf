"""strata-fill-borders: a padded tensor fills its border only, not the interior that the
padded value overwrites.

A pad is ``tensor.insert_slice %x into linalg.fill(c, tensor.empty)`` (strata-to-linalg),
often with the interior written by a ``linalg.copy`` into an ``extract_slice`` of the
same fill (conv_to_matmul.padded_as_copy). Bufferized, the fill is a memset of the
whole padded buffer, and the interior is written twice: for a ResNet block's
4x64x34x34 conv inputs, 1.2 MB per pad set by one thread while the others wait.
Each pad's fill becomes fills of the border slabs that the insert leaves uncovered:

    %f = linalg.fill ins(%c) outs(tensor.empty() : tensor<2x6x6xf32>)
    %s = tensor.extract_slice %f[0, 1, 1] [2, 4, 4] [1, 1, 1]
    %p = tensor.insert_slice (linalg.copy ins(%x) outs(%s)) into %f[0, 1, 1] [2, 4, 4] [1, 1, 1]
  =>
    %e = tensor.empty() : tensor<2x6x6xf32>
    %b = fill %c into each slab of %e outside [0:2, 1:5, 1:5] (extract_slice,
         linalg.fill, insert_slice: rows 0 and 5, then columns 0 and 5 of rows 1-4)
    %s = tensor.extract_slice %b[0, 1, 1] [2, 4, 4] [1, 1, 1]
    %p = tensor.insert_slice (linalg.copy ins(%x) outs(%s)) into %b[0, 1, 1] [2, 4, 4] [1, 1, 1]

The slabs cover the complement of the interior exactly once: for each dim d in turn,
the part below and above the interior's range in d, over the interior's range in the
dims before d and the whole of the dims after. A fill is rewritten only when every use
of it is the one insert (static offsets and sizes, unit strides) or an extract_slice of
that same interior that serves only as the output of ops that overwrite it without
reading it (linalg.copy; an all-parallel linalg.generic with a permutation output map
whose body never reads the output), so no element of the old interior is ever read.
Pads that share a fill (CSE merges equal fills) first get a fill each, as
strata-unique-results gives them. The CPU pipeline runs this pass before
``eliminate-empty-tensors``, so a conv whose epilogue tiles write into the next conv's
padded input (the empty tensor of its result replaced by the pad's interior) leaves the
border fills alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import tensor

from .base import Pass, collect_ops
from .layout_common import indexing_maps, is_op
from .linalg_ops import linalg
from .unique_results import split_shared_fills

__all__ = ["FillBordersPass"]


@dataclass(frozen=True, eq=False, repr=False)
class FillBordersPass(Pass):
    """Fill only the border of a padded tensor whose interior an insert overwrites."""

    name = "strata-fill-borders"

    def run(self, module: ir.Operation) -> None:
        split_shared_fills(module)  # pads sharing a fill (CSE): each its own
        for fill in collect_ops(module, lambda op: op.name == "linalg.fill"):
            box = _overwritten_interior(fill)
            if box is not None:
                _fill_border(fill, *box)


def _static_box(op):
    """(offsets, sizes) of a slice op with static offsets and sizes and unit strides."""
    attrs = op.attributes
    offsets = list(ir.DenseI64ArrayAttr(attrs["static_offsets"]))
    sizes = list(ir.DenseI64ArrayAttr(attrs["static_sizes"]))
    strides = list(ir.DenseI64ArrayAttr(attrs["static_strides"]))
    dynamic = ir.ShapedType.get_dynamic_size()
    if dynamic in offsets or dynamic in sizes or any(s != 1 for s in strides):
        return None
    if len(op.operands) != (2 if op.name == "tensor.insert_slice" else 1):
        return None  # dynamic offsets, sizes or strides as operands
    return offsets, sizes


def _overwrites(op, operand_number: int) -> bool:
    """Whether ``op`` writes every element of its output operand ``operand_number``
    without reading what was there."""
    if op.name == "linalg.copy":
        return operand_number == len(op.operands) - 1
    if op.name != "linalg.generic":
        return False
    n_inputs = len(op.operands) - len(op.results)
    if len(op.results) != 1 or operand_number != n_inputs:
        return False
    kinds = [str(ir.Attribute(k)) for k in ir.ArrayAttr(op.attributes["iterator_types"])]
    if any("parallel" not in k for k in kinds):
        return False
    if not indexing_maps(op)[n_inputs].is_permutation:
        return False
    body = op.regions[0].blocks[0]
    return not list(body.arguments[n_inputs].uses)


def _overwritten_interior(fill):
    """(offsets, sizes) of the box that the fill's one insert overwrites, if every other
    use of the fill only writes that box without reading it; else None."""
    if len(fill.results) != 1 or not is_op(fill.operands[1], "tensor.empty"):
        return None
    t = ir.RankedTensorType(fill.results[0].type)
    if not t.has_static_shape:
        return None
    inserts, slices = [], []
    for use in fill.results[0].uses:
        user = use.owner
        if user.name == "tensor.insert_slice" and use.operand_number == 1:
            inserts.append(user)
        elif user.name == "tensor.extract_slice":
            slices.append(user)
        else:
            return None
    if len(inserts) != 1:
        return None
    box = _static_box(inserts[0])
    if box is None or box[1] == list(t.shape) or 0 in box[1]:
        return None
    for s in slices:
        if _static_box(s) != box:
            return None
        if not all(_overwrites(u.owner, u.operand_number) for u in s.results[0].uses):
            return None
    return box


def _slabs(shape, offsets, sizes):
    """The boxes (offsets, sizes) that cover ``shape`` less the box ``offsets, sizes``,
    each element once."""
    out = []
    for d in range(len(shape)):
        head_o, head_s = offsets[:d], sizes[:d]
        tail_o, tail_s = [0] * (len(shape) - d - 1), list(shape[d + 1:])
        below = offsets[d]
        above = shape[d] - offsets[d] - sizes[d]
        if below:
            out.append((head_o + [0] + tail_o, head_s + [below] + tail_s))
        if above:
            out.append((head_o + [offsets[d] + sizes[d]] + tail_o,
                        head_s + [above] + tail_s))
    return out


def _fill_border(fill, offsets, sizes) -> None:
    value, init = fill.operands[0], fill.operands[1]
    t = ir.RankedTensorType(fill.results[0].type)
    with ir.InsertionPoint(fill), fill.location:
        acc = init
        for at, size in _slabs(list(t.shape), offsets, sizes):
            part_t = ir.RankedTensorType.get(size, t.element_type)
            ones = [1] * t.rank
            part = tensor.extract_slice(part_t, acc, [], [], [], at, size, ones)
            filled = linalg.fill(value, outs=[part])
            acc = tensor.insert_slice(filled, acc, [], [], [], at, size, ones)
    fill.results[0].replace_all_uses_with(acc)
    fill.erase()
