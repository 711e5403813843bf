"""Specialization of a strata function to concrete argument shapes (IR only).

A function with dynamic dims (``tensor<?x64xf32>``) is rewritten in place to take
the given static argument types, and every strata op's result type is re-inferred
with the dialect's shape rules, so the function is fully static. Used by the
runtime (one compile per shape set) and by strata-row-blocks (a static block
function per dynamic one).
"""

from __future__ import annotations

from mlir import ir

from ..errors import StrataError, format_location
from . import shapes as shape_rules
from .shapes import ShapeError, fmt_shape
from .types import shape_of, tensor_type
from .verifier import OpAttrs, _Operand, infer

__all__ = ["specialize_function", "find_function", "walk_specs"]


def find_function(module: ir.Operation, name: str):
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "func.func" and \
                ir.StringAttr(op.attributes["sym_name"]).value == name:
            return op.operation
    raise KeyError(name)


def _op_spec(op: ir.Operation, operands: list[_Operand]) -> tuple:
    """The (shape, dtype) of strata op ``op``'s result for operands of the given specs."""
    declared = shape_of(op.results[0].type)
    kind = op.name.split(".", 1)[1]
    if kind in ("reshape", "broadcast_to"):
        # Their target shape is the result type itself: keep its static dims, resolve the
        # dynamic ones from the operand, and check the operand fits the target (a variant
        # compiled with dynamic dims assumed it: 10 elements into ?x4 must fail, not drop 2).
        shape, dtype = declared
        if None in shape:
            shape, dtype = _resolve_target(kind, operands[0], declared,
                                           format_location(op.location))
        rule = shape_rules.reshape if kind == "reshape" else shape_rules.broadcast_to
        try:
            rule(operands[0].shape, dtype, shape)
        except ShapeError as e:
            raise StrataError(str(e), location=format_location(op.location)) from None
        return tuple(shape), dtype
    try:
        shape, dtype = infer(kind, operands, OpAttrs(op), op.results[0].type)
    except ShapeError as e:  # hand-written IR breaking a rule
        raise StrataError(str(e), location=format_location(op.location)) from None
    return tuple(shape), dtype


def walk_specs(fn: ir.Operation, specs, visit=None) -> list:
    """Infers every value's (shape, dtype) for argument ``specs``; returns the results'.

    ``visit(op, spec)`` is called for each strata op with its result's spec.
    """
    block = fn.regions[0].blocks[0]
    known = {arg: _Operand(tuple(shape), dtype)
             for arg, (shape, dtype) in zip(block.arguments, specs, strict=True)}

    def spec(value):
        got = known.get(value)
        return got if got is not None else _Operand(*shape_of(value.type))

    for op in block.operations:
        op = op.operation
        if op.name.startswith("strata.") and op.name != "strata.constant":
            shape, dtype = _op_spec(op, [spec(v) for v in op.operands])
            known[op.results[0]] = _Operand(shape, dtype)
            if visit is not None:
                visit(op, (shape, dtype))
        elif op.name == "func.return":
            return [(spec(v).shape, spec(v).dtype) for v in op.operands]
    return []


def specialize_function(module: ir.Operation, name: str, specs) -> None:
    """Rewrites function ``name`` of ``module`` in place to take ``specs`` (shape, dtype)."""
    fn = find_function(module, name)
    block = fn.regions[0].blocks[0]
    with module.context, ir.Location.unknown():
        # called through its C interface (hand-written IR may not ask for one)
        fn.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        retype = []
        results = walk_specs(fn, specs, lambda op, spec: retype.append((op, spec)))
        for arg, (shape, dtype) in zip(block.arguments, specs, strict=True):
            arg.set_type(tensor_type(shape, dtype))
        for op, (shape, dtype) in retype:
            op.results[0].set_type(tensor_type(shape, dtype))
        ftype = ir.FunctionType.get([a.type for a in block.arguments],
                                    [tensor_type(s, d) for s, d in results])
        fn.attributes["function_type"] = ir.TypeAttr.get(ftype)


def _resolve_target(kind, operand, declared, location):
    shape, dtype = declared
    if kind == "broadcast_to":
        lead = len(shape) - len(operand.shape)
        return tuple(operand.shape[i - lead] if d is None and i >= lead else d
                     for i, d in enumerate(shape)), dtype
    if None in operand.shape:  # a dynamic compile: the dim stays dynamic
        return shape, dtype
    total = 1
    for d in operand.shape:
        total *= d
    known = 1
    for d in shape:
        if d is not None:
            known *= d
    missing = [i for i, d in enumerate(shape) if d is None]
    if len(missing) == 1 and known and total % known == 0:
        out = list(shape)
        out[missing[0]] = total // known
        return tuple(out), dtype
    if len(missing) == 1:  # no size fits: the shape rule's message says so
        raise StrataError(f"reshape: cannot reshape {fmt_shape(operand.shape)} ({total} "
                          f"elements) into {fmt_shape(shape)}: {total} is not a multiple of "
                          f"{known}", location=location)
    return shape, dtype
