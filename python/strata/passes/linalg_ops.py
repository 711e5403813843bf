"""The linalg op builders strata's passes use, without importing MLIR's opdsl.

Passes write ``from .linalg_ops import linalg`` where they would write
``from mlir.dialects import linalg``: the op classes (``linalg.GenericOp``,
``linalg.YieldOp``, ...) are the same ODS classes, and ``fill``, ``copy``,
``transpose``, ``broadcast``, ``matmul`` and ``batch_matmul`` build the same ops as
``mlir.dialects.linalg``'s functions of those names (same operands, attributes and
region; test/unit/test_linalg_ops.py compares them). Importing
``mlir.dialects.linalg`` also runs its opdsl definitions of every named op (~0.1 s,
a fifth of a demo MLP's cold compile); the builders here need none of it. Names not
defined here (the conv and pooling builders) come from ``mlir.dialects.linalg``,
imported the first time one is asked for.

Importing this module also makes the bindings take linalg's op views from
passes/dialect_views (the same classes, without opdsl) when they first wrap a linalg op.
"""

from __future__ import annotations

import types

from mlir import ir
from mlir._mlir_libs import _mlir
from mlir._mlir_libs._mlirDialectsLinalg import fill_builtin_region
from mlir.dialects import _linalg_ops_gen as _ods
from mlir.dialects._ods_common import get_op_result_or_value

__all__ = ["linalg"]

_VIEWS = __name__.rsplit(".", 1)[0] + ".dialect_views"
if _VIEWS not in _mlir.globals.dialect_search_modules:
    _mlir.globals.dialect_search_modules = [_VIEWS, *_mlir.globals.dialect_search_modules]


def _results(op):
    """As opdsl's builders return: the single result, else the op's results."""
    results = op.results
    return results[0] if len(results) == 1 else results


def _result_types(init) -> list:
    return [init.type] if isinstance(init.type, ir.RankedTensorType) else []


def _single(outs) -> ir.Value:
    if len(outs) != 1:
        raise ValueError(f"{outs=} must have length 1.")
    return get_op_result_or_value(outs[0])


def fill(value, *, outs):
    """``linalg.fill ins(value) outs(init)``: its result (none on a memref)."""
    init = _single(outs)
    op = _ods.FillOp(_result_types(init), [get_op_result_or_value(value)], [init])
    fill_builtin_region(op.operation)
    return _results(op)


def copy(source, *, outs):
    """``linalg.copy ins(source) outs(init)``: its result (none on a memref)."""
    init = _single(outs)
    op = _ods.CopyOp(_result_types(init), [get_op_result_or_value(source)], [init])
    op.operation.attributes["cast"] = ir.Attribute.parse("#linalg.type_fn<cast_signed>")
    fill_builtin_region(op.operation)
    return _results(op)


def transpose(input, *, outs, permutation):
    """``linalg.transpose``: the op."""
    init = _single(outs)
    op = _ods.TransposeOp(result=_result_types(init), input=get_op_result_or_value(input),
                          init=init, permutation=permutation)
    fill_builtin_region(op.operation)
    return op


def broadcast(input, *, outs, dimensions):
    """``linalg.broadcast``: the op."""
    init = _single(outs)
    op = _ods.BroadcastOp(result=_result_types(init), input=get_op_result_or_value(input),
                          init=init, dimensions=dimensions)
    fill_builtin_region(op.operation)
    return op


def _matmul_like(op_type, ins, outs, indexing_maps, cast):
    init = _single(outs)
    op = op_type(result_tensors=_result_types(init),
                 inputs=[get_op_result_or_value(x) for x in ins], outputs=[init],
                 indexing_maps=indexing_maps, cast=cast)
    fill_builtin_region(op.operation)
    return _results(op)


def matmul(*ins, outs, indexing_maps=None, cast=None):
    """``linalg.matmul``: its result (none on memrefs)."""
    return _matmul_like(_ods.MatmulOp, ins, outs, indexing_maps, cast)


def batch_matmul(*ins, outs, indexing_maps=None, cast=None):
    """``linalg.batch_matmul``: its result (none on memrefs)."""
    return _matmul_like(_ods.BatchMatmulOp, ins, outs, indexing_maps, cast)


class _Namespace(types.ModuleType):
    """``linalg``: the builders above, the ODS op classes, then mlir.dialects.linalg.

    Only the ODS module's classes are taken from it: its functions of the named ops'
    names (``conv_2d_nhwc_hwcf(result_tensors, inputs, outputs)``) are not the
    package's builders of those names (opdsl's, ``conv_2d_nhwc_hwcf(*ins, outs=...)``)."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(_ods, name, None)
        if not isinstance(value, type):
            import mlir.dialects.linalg as full  # opdsl: only for what is not here

            value = getattr(full, name)
        setattr(self, name, value)
        return value


linalg = _Namespace("strata.passes.linalg_ops.linalg")
for _f in (fill, copy, transpose, broadcast, matmul, batch_matmul):
    setattr(linalg, _f.__name__, _f)
