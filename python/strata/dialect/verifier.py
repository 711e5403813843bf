"""The strata verifier: every shape and dtype rule of every strata op.

IRDL checks only that operands are tensors and that required attributes have
the right base kind; this verifier checks the rest with the shared rules of
``strata.dialect.shapes`` and compares the inferred result type with the
declared one (a dynamic dim on either side is compatible with any size).
``infer`` needs no MLIR (the recorded traces of frontend/record.py use it), so
this module imports the bindings only where it reads an op.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the bindings are imported where they are used
    from mlir import ir

from dataclasses import dataclass

from ..errors import Diagnostic, StrataError, format_location
from . import shapes as S
from .types import shape_of

__all__ = ["verify_op", "verify_module", "OpAttrs", "infer", "strata_diagnostics", "check_module"]

# Attributes with defaults: name -> (kind, default).
DEFAULTS = {
    "keepdims": ("bool", False),
    "axis": ("int", -1),
    "epsilon": ("float", 1e-5),
    "approximate": ("str", "none"),
    "groups": ("int", 1),
    "pad_value": ("float", 0.0),
    "descending": ("bool", False),
}
KINDS = {
    "axes": "i64s", "permutation": "i64s", "starts": "i64s", "limits": "i64s",
    "steps": "i64s", "strides": "i64s", "padding": "i64s", "dilations": "i64s",
    "kernel": "i64s", "predicate": "str", "layout": "str", "low": "i64s", "high": "i64s",
    "output_padding": "i64s",
}


class OpAttrs:
    """Typed access to a strata op's attributes, with the ODS defaults applied."""

    def __init__(self, op: ir.Operation):
        self._attrs = op.attributes

    def get(self, name: str):
        kind, default = DEFAULTS.get(name, (KINDS.get(name), None))
        if name not in self._attrs:
            if default is None:
                raise S.ShapeError(f"attribute '{name}' is missing")
            return default
        attr = self._attrs[name]
        from mlir import ir

        try:
            if kind == "i64s":
                return list(ir.DenseI64ArrayAttr(attr))
            if kind == "bool":
                return ir.BoolAttr(attr).value
            if kind == "int":
                return ir.IntegerAttr(attr).value
            if kind == "float":
                return ir.FloatAttr(attr).value
            if kind == "str":
                return ir.StringAttr(attr).value
        except (ValueError, TypeError):  # TypeError: e.g. array<i8: ...> for an i64 array
            pass
        noun = {"i64s": "an array<i64: ...>", "bool": "a bool", "int": "an integer",
                "float": "a float", "str": "a string"}[kind]
        raise S.ShapeError(f"attribute '{name}' must be {noun}, got {attr}")


@dataclass
class _Operand:
    shape: tuple
    dtype: str


def _operands(op: ir.Operation) -> list[_Operand]:
    from mlir import ir

    out = []
    for i, v in enumerate(op.operands):
        if not isinstance(v.type, ir.RankedTensorType):
            raise S.ShapeError(f"operand {i} must be a ranked tensor, got {v.type}")
        out.append(_Operand(*shape_of(v.type)))
    return out


def infer(name: str, ops: list[_Operand], attrs: OpAttrs, result_type: ir.Type | None):
    """The result ``(shape, dtype)`` that the rules give for a strata op."""
    family = S.RULES[name]
    a = attrs.get
    if family == "binary":
        return S.elementwise(name, ops[0].shape, ops[1].shape, ops[0].dtype, ops[1].dtype)
    if family == "unary":
        return S.unary(name, ops[0].shape, ops[0].dtype,
                       a("approximate") if name == "gelu" else "none")
    if family == "reduce":
        return S.reduce(name, ops[0].shape, ops[0].dtype, a("axes"), a("keepdims"))
    if family == "pool":
        return S.pool2d(name, ops[0].shape, ops[0].dtype, a("kernel"), a("strides"),
                        a("padding"), a("layout"))
    if family == "compare":
        return S.compare(ops[0].shape, ops[1].shape, ops[0].dtype, ops[1].dtype, a("predicate"))
    if family == "select":
        return S.select(*(o.shape for o in ops), *(o.dtype for o in ops))
    if family == "matmul":
        return S.matmul(ops[0].shape, ops[1].shape, ops[0].dtype, ops[1].dtype)
    if family == "softmax":
        return S.softmax(ops[0].shape, ops[0].dtype, a("axis"))
    if family == "layer_norm":
        return S.layer_norm(ops[0].shape, ops[1].shape, ops[2].shape, [o.dtype for o in ops],
                            a("axis"), a("epsilon"))
    if family == "transpose":
        return S.transpose(ops[0].shape, ops[0].dtype, a("permutation"))
    if family == "concat":
        return S.concat([o.shape for o in ops], [o.dtype for o in ops], a("axis"))
    if family == "slice":
        return S.slice_(ops[0].shape, ops[0].dtype, a("starts"), a("limits"), a("steps"))
    if family == "arg_reduce":
        return S.arg_reduce(name, ops[0].shape, ops[0].dtype, a("axis"), a("keepdims"))
    if family == "conv3d":
        return S.conv3d(ops[0].shape, ops[1].shape, [o.dtype for o in ops], a("strides"),
                        a("padding"), a("dilations"), a("groups"))
    if family == "pool3d":
        return S.pool3d(name, ops[0].shape, ops[0].dtype, a("kernel"), a("strides"),
                        a("padding"))
    if family == "argsort":
        return S.argsort(ops[0].shape, ops[0].dtype, a("axis"))
    if family == "gather":
        return S.gather(ops[0].shape, ops[1].shape, ops[0].dtype, ops[1].dtype, a("axis"))
    if family == "conv2d":
        return S.conv2d(ops[0].shape, ops[1].shape, [o.dtype for o in ops], a("strides"),
                        a("padding"), a("dilations"), a("layout"), a("groups"))
    if family == "cumsum":
        return S.cumsum(ops[0].shape, ops[0].dtype, a("axis"))
    if family == "reverse":
        return S.reverse(ops[0].shape, ops[0].dtype, a("axes"))
    if family == "pad":
        return S.pad(ops[0].shape, ops[0].dtype, a("low"), a("high"), a("pad_value"))
    if family == "scatter":
        return S.scatter(name, ops[0].shape, ops[1].shape, ops[2].shape,
                         [o.dtype for o in ops], a("axis"))
    if family == "conv_transpose2d":
        return S.conv_transpose2d(ops[0].shape, ops[1].shape, [o.dtype for o in ops],
                                  a("strides"), a("padding"), a("output_padding"),
                                  a("dilations"), a("layout"), a("groups"))
    # The remaining ops take their result shape or dtype from the result type.
    target, target_dtype = shape_of(result_type)
    if family == "reshape":
        return S.reshape(ops[0].shape, ops[0].dtype, target)
    if family == "broadcast_to":
        return S.broadcast_to(ops[0].shape, ops[0].dtype, target)
    if family == "cast":
        return S.cast(ops[0].shape, ops[0].dtype, target_dtype)
    raise AssertionError(name)


def _compatible(inferred, declared) -> bool:
    return len(inferred) == len(declared) and all(
        a is None or b is None or a == b for a, b in zip(inferred, declared, strict=True))


def verify_op(op: ir.Operation) -> str | None:
    """The first broken rule of a strata op, as a message; ``None`` if it verifies."""
    from mlir import ir

    name = op.name.split(".", 1)[1]
    try:
        if len(op.results) != 1 or not isinstance(op.results[0].type, ir.RankedTensorType):
            raise S.ShapeError("result must be one ranked tensor")
        declared = shape_of(op.results[0].type)
        if name == "constant":
            value = op.attributes["value"]
            if value.type != op.results[0].type:
                raise S.ShapeError(f"value type {value.type} differs from the result type "
                                   f"{op.results[0].type}")
            return None
        if name == "concat" and len(op.operands) == 0:
            raise S.ShapeError("concat: needs at least one input")
        shape, dtype = infer(name, _operands(op), OpAttrs(op), op.results[0].type)
        if S.RULES.get(name) == "scatter":
            _check_constant_indices(op, name)
        if dtype != declared[1] or not _compatible(shape, declared[0]):
            raise S.ShapeError(
                f"{name}: result type {op.results[0].type} does not match the inferred "
                f"{S.fmt_shape(shape)}x{dtype}".replace("scalarx", ""))
    except S.ShapeError as e:
        msg = str(e)
        return msg if msg.startswith(name + ":") else f"{name}: {msg}"
    return None


def _check_constant_indices(op: ir.Operation, name: str) -> None:
    """A scatter's indices given by a strata.constant must lie within the axis (runtime
    indices out of range are skipped; constant ones are a mistake in the program)."""
    from mlir import ir

    owner = op.operands[1].owner
    owner = getattr(owner, "operation", owner)  # an OpView, or a block (an argument)
    if not isinstance(owner, ir.Operation) or owner.name != "strata.constant":
        return
    shape = shape_of(op.operands[0].type)[0]
    axis = S.normalize_axis(name, OpAttrs(op).get("axis"), len(shape))
    size = shape[axis]
    if size is None:
        return
    values = ir.DenseIntElementsAttr(owner.attributes["value"])
    for v in (values[i] for i in range(len(values))) if not values.is_splat else \
            [values.get_splat_value().value]:
        if not -size <= v < size:
            raise S.ShapeError(f"{name}: index {v} is out of range for axis {axis} of size "
                               f"{size}")


def verify_module(module_op: ir.Operation) -> list[tuple[ir.Operation, str]]:
    """Every strata op in ``module_op`` that breaks a rule, with its message."""
    from mlir import ir

    failures = []

    def visit(op):
        if op.name.startswith("strata."):
            msg = verify_op(op)
            if msg:
                failures.append((op, msg))
        return ir.WalkResult.ADVANCE

    module_op.walk(visit)
    return failures


def strata_diagnostics(module: ir.Operation) -> list[Diagnostic]:
    """Every broken rule in ``module``, as a diagnostic at its op's location."""
    return [Diagnostic(format_location(op.location), msg) for op, msg in verify_module(module)]


def check_module(module: ir.Operation) -> None:
    """Raises StrataError listing every broken rule in ``module``."""
    diags = strata_diagnostics(module)
    if diags:
        raise StrataError(diagnostics=diags)
