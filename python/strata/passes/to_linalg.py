"""strata-to-linalg: lower every strata op to linalg (and tensor/arith) on tensors.

Named linalg ops where upstream has them (matmul, batch_matmul, conv_2d_*,
pooling_*, reduce, transpose, broadcast, softmax), linalg.generic otherwise;
tensor ops for reshape, concat and slice, a linalg.generic of tensor.extract for gather. Numpy broadcasting becomes indexing
maps; dynamic dims become tensor.dim operands of tensor.empty. A sketch:

    func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
      %0 = "strata.matmul"(%x, %w) : (...) -> tensor<4x16xf32>
      %1 = "strata.relu"(%0) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  =>
      %z = linalg.fill ins(%cst_0) outs(tensor.empty() : tensor<4x16xf32>)
      %0 = linalg.matmul ins(%x, %w) outs(%z)
      %1 = linalg.generic {parallel, parallel} ins(%0) outs(tensor.empty()) { arith.maximumf }

Limits: dynamic dims are assumed not to broadcast at run time (as in most ML
compilers); a reshape may have at most one dynamic result dim; padding of
dynamic spatial dims is not supported. These are reported as errors at the
op's location.

Bool tensors are stored as i8 0/1 from here on (lowering/booleans.py): an i1
tensor argument or result of a function becomes tensor<...xi8>.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from .base import Pass, collect_ops
from .lowering import (
    bitwise,
    booleans,
    contraction,
    conv,
    conv3d,
    elementwise,
    index_ops,
    reduction,
    shape_ops,
    sort,
)
from .lowering.common import LoweringError
from .lowering.conv_transpose import lower_conv_transpose2d

__all__ = ["ToLinalgPass", "lower_op"]

_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "pow", "floor_div", "mod")
_UNARY = ("neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu", "erf",
          "sin", "cos", "floor", "ceil", "round", "sign")

_BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")

_TABLE = {
    **{n: (lambda op, n=n: elementwise.lower_binary(op, n)) for n in _BINARY},
    **{n: (lambda op, n=n: elementwise.lower_unary(op, n)) for n in _UNARY},
    "compare": elementwise.lower_compare,
    "select": elementwise.lower_select,
    "cast": elementwise.lower_cast,
    "matmul": contraction.lower_matmul,
    "sum": lambda op: reduction.lower_reduce(op, "sum"),
    "max": lambda op: reduction.lower_reduce(op, "max"),
    "mean": lambda op: reduction.lower_reduce(op, "mean"),
    "prod": lambda op: reduction.lower_reduce(op, "prod"),
    "min": lambda op: reduction.lower_reduce(op, "min"),
    "argmax": lambda op: reduction.lower_arg_reduce(op, "argmax"),
    "argmin": lambda op: reduction.lower_arg_reduce(op, "argmin"),
    "softmax": reduction.lower_softmax,
    "layer_norm": reduction.lower_layer_norm,
    "reshape": shape_ops.lower_reshape,
    "transpose": shape_ops.lower_transpose,
    "broadcast_to": shape_ops.lower_broadcast_to,
    "concat": shape_ops.lower_concat,
    "slice": shape_ops.lower_slice,
    "gather": shape_ops.lower_gather,
    "constant": shape_ops.lower_constant,
    "conv2d": conv.lower_conv2d,
    "max_pool2d": lambda op: conv.lower_pool(op, "max_pool2d"),
    "avg_pool2d": lambda op: conv.lower_pool(op, "avg_pool2d"),
    # issue 14 part A: lowering/index_ops.py
    "cumsum": index_ops.lower_cumsum,
    "reverse": index_ops.lower_reverse,
    "pad": index_ops.lower_pad,
    "scatter": lambda op: index_ops.lower_scatter(op, accumulate=False),
    "scatter_add": lambda op: index_ops.lower_scatter(op, accumulate=True),
    "conv_transpose2d": lower_conv_transpose2d,  # issue 14, part B (opsb)
    # issue 37: integer bitwise ops (lowering/bitwise.py)
    **{n: (lambda op, n=n: bitwise.lower_bitwise(op, n)) for n in _BITWISE},
    "bitwise_not": bitwise.lower_bitwise_not,
    "argsort": sort.lower_argsort,  # issue 37: lowering/sort.py
    "conv3d": conv3d.lower_conv3d,  # issue 37: lowering/conv3d.py
    "max_pool3d": lambda op: conv3d.lower_pool3d(op, "max_pool3d"),
    "avg_pool3d": lambda op: conv3d.lower_pool3d(op, "avg_pool3d"),
}


def lower_op(op: ir.Operation) -> ir.Value:
    """Builds the linalg form of one strata op before it and returns its result value."""
    name = op.name.split(".", 1)[1]
    with ir.InsertionPoint(op), op.location:
        value = _TABLE[name](op)
    want = op.result.type
    if booleans.is_bool_tensor(want) and not booleans.is_bool_tensor(value.type):
        with op.location:
            want = booleans.stored_type(want)  # a comparison comes stored already
    if value.type != want:
        from mlir.dialects import tensor

        with ir.InsertionPoint(op), op.location:
            value = tensor.cast(want, value)
    return value


@dataclass(frozen=True, eq=False, repr=False)
class ToLinalgPass(Pass):
    """Lower strata ops to linalg, tensor and arith ops on tensors."""

    name = "strata-to-linalg"

    def run(self, module: ir.Operation) -> None:
        functions = collect_ops(module, lambda op: op.name == "func.func")
        for fn in functions:
            with fn.location:
                booleans.store_arguments(fn)
        ops = collect_ops(module, lambda op: op.name.startswith("strata."))
        absorbed = [op for op in ops if op.name == "strata.concat" and
                    shape_ops.absorbed_concat(op)]
        for op in ops:
            if any(op == a for a in absorbed):
                continue
            if booleans.is_bool_tensor(op.result.type) and booleans.keeps_bool_semantics(op):
                with op.location:
                    op.result.set_type(booleans.stored_type(op.result.type))
            try:
                value = lower_op(op)
            except LoweringError as e:
                self.fail(op, f"strata-to-linalg: {e}")
            if booleans.is_bool_tensor(value.type):
                with ir.InsertionPoint(op), op.location:
                    value = booleans.widen(value)
            op.results[0].replace_all_uses_with(value)
            op.erase()
        for op in reversed(absorbed):  # inner concats of a chain, now unused
            op.erase()
        for fn in functions:
            booleans.sync_function_type(fn)
