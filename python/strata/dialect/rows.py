"""Row independence: whether a strata function computes each row of a batch dim on its own.

A function whose dynamic dims are one *batch* dim (dim 0 of ``x: tensor<?x256xf32>``,
say) is row-independent when row ``i`` of every result depends only on row ``i`` of
the batch arguments (and on the other, static arguments): elementwise ops, a matmul's
M (or N) dim, reductions, softmax and norms over other axes, transposes and reshapes
that keep the dim, convs and pools over the batch (N) dim. Such a function can be
computed block by block with a static number of rows (strata-row-blocks), and its
inputs can be padded with rows that cannot change any real row (shape buckets).

``row_plan(fn, arg_axes)`` follows the batch dim through the function: which axis of
each value carries it, or why the function is not row-independent.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from .types import shape_of
from .verifier import OpAttrs

__all__ = ["RowPlan", "row_plan", "dynamic_arg_axes"]

_ELEMENTWISE = ("binary", "compare", "select")
_SAME_AXIS = ("unary", "cast", "constant")


@dataclass
class RowPlan:
    """The batch axis of each argument and result (None: it has none), or ``reason``."""

    args: list
    results: list
    reason: str = ""

    @property
    def ok(self) -> bool:
        return not self.reason


def dynamic_arg_axes(fn: ir.Operation) -> list | None:
    """The dynamic dim of each argument of ``fn`` (None for a static argument), or
    None when an argument has more than one dynamic dim."""
    axes = []
    for arg in fn.regions[0].blocks[0].arguments:
        if not isinstance(arg.type, ir.RankedTensorType):
            axes.append(None)
            continue
        shape, _ = shape_of(arg.type)
        dyn = [i for i, d in enumerate(shape) if d is None]
        if len(dyn) > 1:
            return None
        axes.append(dyn[0] if dyn else None)
    return axes


class _NotRows(Exception):
    pass


def _product(dims) -> int | None:
    total = 1
    for d in dims:
        if d is None:
            return None
        total *= d
    return total


def _aligned(rank_out: int, operand, axis, what):
    """The result axis an operand's batch axis lands on under numpy broadcasting."""
    shape = shape_of(operand.type)[0]
    return axis + rank_out - len(shape), shape


def _elementwise(op, axes, out_rank):
    carried = [(i, a) for i, a in enumerate(axes) if a is not None]
    if not carried:
        return None
    positions = {_aligned(out_rank, op.operands[i], a, "operand")[0] for i, a in carried}
    if len(positions) != 1:
        raise _NotRows("its operands carry the batch dim at different positions")
    pos = positions.pop()
    for i, a in enumerate(axes):
        if a is None:
            shape = shape_of(op.operands[i].type)[0]
            at = pos - (out_rank - len(shape))
            if at >= 0 and shape[at] != 1:
                raise _NotRows(f"operand {i} has no batch dim but a dim of "
                               f"{shape[at]} where the batch dim broadcasts")
    return pos


def _matmul(op, axes):
    a, b = axes
    la = len(shape_of(op.operands[0].type)[0])
    lb = len(shape_of(op.operands[1].type)[0])
    rank = len(shape_of(op.results[0].type)[0])
    if la < 2 or lb < 2:
        raise _NotRows("a matmul of a vector")
    if a is not None and a == la - 1:
        raise _NotRows("the batch dim is the matmul's reduction (K) dim")
    if b is not None and b == lb - 2:
        raise _NotRows("the batch dim is the matmul's reduction (K) dim")
    if a is not None and b is not None:
        pa, pb = a + rank - la, b + rank - lb
        if a >= la - 2 or b >= lb - 2 or pa != pb:
            raise _NotRows("both matmul operands carry the batch dim, not as a shared "
                           "leading dim")
        return pa
    if a is not None:
        pos = a + rank - la
        if a < la - 2:  # a leading (batch-matmul) dim: the other operand must broadcast
            at = pos - (rank - lb)
            if at >= 0 and shape_of(op.operands[1].type)[0][at] != 1:
                raise _NotRows("the matmul's other operand has a batch dim of its own")
        return pos
    if b is not None:
        if b != lb - 1:
            raise _NotRows("the batch dim is a leading dim of the matmul's right operand")
        return rank - 1
    return None


def _reshape(op, axis):
    in_shape = shape_of(op.operands[0].type)[0]
    out_shape = shape_of(op.results[0].type)[0]
    dyn = [i for i, d in enumerate(out_shape) if d is None]
    if len(dyn) != 1:
        raise _NotRows("a reshape whose result does not keep the batch dim as one dim")
    pos = dyn[0]
    if (_product(in_shape[:axis]) != _product(out_shape[:pos]) or
            _product(in_shape[axis + 1:]) != _product(out_shape[pos + 1:])):
        raise _NotRows("a reshape that mixes the batch dim with other dims")
    return pos


def _norm_axis(axis: int, rank: int) -> int:
    return axis + rank if axis < 0 else axis


def _follow(op, axes):
    """The result's batch axis given the operands' (None where none carries it)."""
    from .shapes import RULES

    kind = op.name.split(".", 1)[1]
    family = RULES.get(kind)
    if all(a is None for a in axes):
        return None
    attrs = OpAttrs(op).get
    out_rank = len(shape_of(op.results[0].type)[0])
    if family in _ELEMENTWISE:
        return _elementwise(op, axes, out_rank)
    if family in _SAME_AXIS or kind == "gelu":
        return axes[0]
    if family == "matmul":
        return _matmul(op, axes)
    a = axes[0]
    rank = len(shape_of(op.operands[0].type)[0])
    if any(x is not None for x in axes[1:]):
        raise _NotRows(f"strata.{kind} has the batch dim on an operand other than its input")
    if family == "reduce":
        reduced = {_norm_axis(x, rank) for x in attrs("axes")}
        if a in reduced:
            raise _NotRows("a reduction over the batch dim")
        return a if attrs("keepdims") else a - sum(1 for x in reduced if x < a)
    if family == "softmax":
        if _norm_axis(attrs("axis"), rank) == a:
            raise _NotRows("a softmax over the batch dim")
        return a
    if family == "layer_norm":
        if a >= _norm_axis(attrs("axis"), rank):
            raise _NotRows("a norm over the batch dim")
        return a
    if family == "transpose":
        return list(attrs("permutation")).index(a)
    if family == "reshape":
        return _reshape(op, a)
    if family == "broadcast_to":
        pos = a + out_rank - rank
        if shape_of(op.results[0].type)[0][pos] is not None:
            raise _NotRows("a broadcast_to whose target fixes the batch dim")
        return pos
    if family == "concat":
        if _norm_axis(attrs("axis"), rank) == a:
            raise _NotRows("a concat along the batch dim")
        if axes[1] != a:
            raise _NotRows("a concat of a value without the batch dim")
        return a
    if family == "slice":
        starts, steps = list(attrs("starts")), list(attrs("steps"))
        if starts[a] != 0 or steps[a] != 1 or shape_of(op.results[0].type)[0][a] is not None:
            raise _NotRows("a slice of the batch dim")
        return a
    if family == "cumsum":
        if _norm_axis(attrs("axis"), rank) == a:
            raise _NotRows("a cumsum along the batch dim")
        return a
    if family == "argsort":
        if _norm_axis(attrs("axis"), rank) == a:
            raise _NotRows("an argsort along the batch dim")
        return a
    if family == "reverse":
        if a in {_norm_axis(x, rank) for x in attrs("axes")}:
            raise _NotRows("a reverse of the batch dim")
        return a
    if family == "pad":
        if attrs("low")[a] or attrs("high")[a]:
            raise _NotRows("a pad of the batch dim")
        return a
    if family in ("conv2d", "pool", "conv3d", "pool3d"):
        if a != 0:
            raise _NotRows(f"strata.{kind} over a batch dim other than N")
        return 0
    raise _NotRows(f"strata.{kind} is not known to be row-independent")


def row_plan(fn: ir.Operation, arg_axes: list) -> RowPlan:
    """Follows the batch dim (``arg_axes[i]``: its axis in argument i, or None) through
    function ``fn`` (strata ops); every result must carry it, and every argument that
    carries it must meet another one in some op (they are then one size)."""
    block = fn.regions[0].blocks[0]
    axis: dict = {}
    group: dict = {}  # union-find over the batch arguments (do they share one size?)

    def find(i):
        while group[i] != i:
            i = group[i]
        return i

    origin: dict = {}
    for i, (arg, a) in enumerate(zip(block.arguments, arg_axes, strict=True)):
        if a is not None:
            axis[arg] = a
            group[i] = i
            origin[arg] = i
    results = []
    try:
        if not group:
            raise _NotRows("no argument has a batch dim")
        for op in block.operations:
            op = op.operation
            if op.name == "func.return":
                results = [axis.get(v) for v in op.operands]
                if any(r is None for r in results):
                    raise _NotRows("a result does not depend on the batch rows")
                break
            if not op.name.startswith("strata."):
                raise _NotRows(f"{op.name} is not a strata op")
            operand_axes = [axis.get(v) for v in op.operands]
            out = _follow(op, operand_axes)
            if out is not None:
                axis[op.results[0]] = out
                roots = {find(origin[v]) for v in op.operands if v in origin}
                for r in roots:
                    group[r] = min(roots)
                if roots:
                    origin[op.results[0]] = min(roots)
        if len({find(i) for i in group}) != 1:
            raise _NotRows("arguments with dynamic dims that never meet (they may differ)")
    except _NotRows as e:
        return RowPlan(list(arg_axes), [], reason=str(e))
    return RowPlan(list(arg_axes), results)
