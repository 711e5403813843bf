"""Specialization of a strata function to concrete argument shapes.

A function with dynamic dims (``tensor<?x64xf32>``) is cloned with the given
static argument types, and every strata op's result type is re-inferred with
the dialect's shape rules, so the compiled code is fully static. The guards
(``check_args``) say whether a call's arrays fit a signature.
"""

from __future__ import annotations

from mlir import ir

from ..dialect.shapes import ShapeError
from ..dialect.types import shape_of, tensor_type
from ..dialect.verifier import OpAttrs, _Operand, infer
from ..errors import StrataError, format_location

__all__ = ["specialize_function"]


def _function(module: ir.Operation, name: str):
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "func.func" and \
                ir.StringAttr(op.attributes["sym_name"]).value == name:
            return op.operation
    raise KeyError(name)


def specialize_function(module: ir.Operation, name: str, specs) -> None:
    """Rewrites function ``name`` of ``module`` in place to take ``specs`` (shape, dtype)."""
    fn = _function(module, name)
    block = fn.regions[0].blocks[0]
    with module.context, ir.Location.unknown():
        # called through its C interface (hand-written IR may not ask for one)
        fn.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        for arg, (shape, dtype) in zip(block.arguments, specs, strict=True):
            arg.set_type(tensor_type(shape, dtype))
        for op in block.operations:
            op = op.operation
            if op.name.startswith("strata.") and op.name != "strata.constant":
                operands = [_Operand(*shape_of(v.type)) for v in op.operands]
                declared = shape_of(op.results[0].type)
                kind = op.name.split(".", 1)[1]
                if kind in ("reshape", "broadcast_to"):
                    # Their target shape is the result type itself: keep its static dims.
                    shape, dtype = declared
                    if None in shape:
                        shape, dtype = _resolve_target(kind, operands[0], declared)
                else:
                    try:
                        shape, dtype = infer(kind, operands, OpAttrs(op), op.results[0].type)
                    except ShapeError as e:  # hand-written IR breaking a rule
                        raise StrataError(str(e),
                                          location=format_location(op.location)) from None
                op.results[0].set_type(tensor_type(shape, dtype))
            elif op.name == "func.return":
                results = [v.type for v in op.operands]
                ftype = ir.FunctionType.get([a.type for a in block.arguments], results)
                fn.attributes["function_type"] = ir.TypeAttr.get(ftype)


def _resolve_target(kind, operand, declared):
    shape, dtype = declared
    if kind == "broadcast_to":
        lead = len(shape) - len(operand.shape)
        return tuple(operand.shape[i - lead] if d is None and i >= lead else d
                     for i, d in enumerate(shape)), dtype
    total = 1
    for d in operand.shape:
        total *= d
    known = 1
    for d in shape:
        if d is not None:
            known *= d
    missing = [i for i, d in enumerate(shape) if d is None]
    if len(missing) == 1 and known:
        out = list(shape)
        out[missing[0]] = total // known
        return tuple(out), dtype
    return shape, dtype
