"""The strata dialect's Python op classes.

The classes are generated from dialects/StrataOps.td into ``_strata_ops_gen``.
This module extends them by subclassing, as upstream's ``mlir/dialects/*.py``
do: each op class here infers its result type with strata's shape rules
(``strata.dialect.shapes``, through the verifier's ``infer``) unless
``result=`` is given, and raises ``ShapeError`` when a rule is broken::

    strata.MatmulOp(lhs, rhs)                       # tensor<4x8xf32> x tensor<8x2xf32>
    strata.SumOp(x, [0, 1], keepdims=True)
    strata.ReshapeOp(x, [2, 6]); strata.CastOp(x, "f16"); strata.ConstantOp(dense)
    strata.matmul(lhs, rhs)                         # the result Value

The constructors take the generated builders' operands and attributes, in the
same order, without the leading result type; attributes are Python values or
MLIR attributes. Reshape and broadcast_to take the result shape, cast the
result dtype (the generated classes take them from the result type). Importing
this module also registers the ops in a context (:func:`load_dialect`).
"""

from __future__ import annotations

import inspect
from types import SimpleNamespace

from mlir import ir
from mlir.dialects import irdl

from ..dialect import shapes as S
from ..dialect.types import shape_of, tensor_type
from ..dialect.verifier import DEFAULTS, KINDS, OpAttrs, infer
from . import _strata_ops_gen as _gen
from ._ods_common import _cext
from ._strata_irdl import IRDL
from ._strata_ops_gen import *  # noqa: F401,F403
from ._strata_ops_gen import _Dialect

_cext.globals.append_dialect_search_prefix("strata.dialects")


def load_dialect(context: ir.Context) -> None:
    """Registers the strata ops in ``context``."""
    with context, ir.Location.unknown():
        irdl.load_dialects(ir.Module.parse(IRDL))


_ATTRIBUTES = set(KINDS) | set(DEFAULTS) | {"value"}


class _Given:
    """Attributes given to a builder, read as the verifier's rules read an op's
    (``OpAttrs.get``): Python values or MLIR attributes, with the ODS defaults."""

    def __init__(self, values: dict):
        self.values = values

    def get(self, name: str):
        value = self.values.get(name)
        if isinstance(value, ir.Attribute):
            return OpAttrs(SimpleNamespace(attributes={name: value})).get(name)
        if value is None:
            return OpAttrs(SimpleNamespace(attributes={})).get(name)  # default, or missing
        if isinstance(value, (list, tuple)):
            return [int(v) for v in value]
        return value


def _operand(value, i):
    if not isinstance(value.type, ir.RankedTensorType):
        raise S.ShapeError(f"operand {i} must be a ranked tensor, got {value.type}")
    shape, dtype = shape_of(value.type)
    return SimpleNamespace(shape=shape, dtype=dtype)


def infer_result_type(name: str, operands, attributes: dict) -> ir.RankedTensorType:
    """The result type the shape rules give to ``strata.<name>`` (raises ShapeError)."""
    shapes = [_operand(_value(v), i) for i, v in enumerate(operands)]
    shape, dtype = infer(name, shapes, _Given(attributes), None)
    return tensor_type(shape, dtype)


def _value(v) -> ir.Value:
    return v.result if isinstance(v, ir.OpView) else v


def _inferring(base: type) -> type:
    """A subclass of the generated ``base`` whose result type is inferred."""
    params = list(inspect.signature(base.__init__).parameters.values())[2:]  # self, result
    positional = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    optional = [p.name for p in params if p.kind is p.KEYWORD_ONLY and p.name not in
                ("loc", "ip")]
    operands = [n for n in positional if n not in _ATTRIBUTES]
    attributes = [n for n in positional if n in _ATTRIBUTES] + optional
    kind = base.OPERATION_NAME.split(".", 1)[1]

    def __init__(self, *args, result=None, loc=None, ip=None, **kwargs):
        if result is None:
            given = dict(zip(positional, args, strict=False)) | kwargs
            result = infer_result_type(kind, [given[n] for n in operands],
                                       {n: given.get(n) for n in attributes})
        super(cls, self).__init__(result, *args, loc=loc, ip=ip, **kwargs)

    signature = ", ".join(positional + [f"{n}=None" for n in optional])
    cls = type(base.__name__, (base,), {
        "__init__": __init__, "__module__": __name__,
        "__doc__": f"``{base.OPERATION_NAME}({signature})``; the result type is inferred "
                   f"unless ``result=`` is given.\n" + (base.__doc__ or "")})
    return _cext.register_operation(_Dialect, replace=True)(cls)


@_cext.register_operation(_Dialect, replace=True)
class ConstantOp(_gen.ConstantOp):
    """``strata.constant``: its result type is the type of ``value``."""

    def __init__(self, value: ir.Attribute, *, result=None, loc=None, ip=None):
        super().__init__(result or value.type, value, loc=loc, ip=ip)


@_cext.register_operation(_Dialect, replace=True)
class ReshapeOp(_gen.ReshapeOp):
    """``strata.reshape`` to ``shape`` (None for a dynamic dim), checked by the rules."""

    def __init__(self, input, shape=None, *, result=None, loc=None, ip=None):  # noqa: A002
        if result is None:
            x = _operand(_value(input), 0)
            result = tensor_type(*S.reshape(x.shape, x.dtype, tuple(shape)))
        super().__init__(result, input, loc=loc, ip=ip)


@_cext.register_operation(_Dialect, replace=True)
class BroadcastToOp(_gen.BroadcastToOp):
    """``strata.broadcast_to`` of ``shape``, with numpy's broadcasting rules."""

    def __init__(self, input, shape=None, *, result=None, loc=None, ip=None):  # noqa: A002
        if result is None:
            x = _operand(_value(input), 0)
            result = tensor_type(*S.broadcast_to(x.shape, x.dtype, tuple(shape)))
        super().__init__(result, input, loc=loc, ip=ip)


@_cext.register_operation(_Dialect, replace=True)
class CastOp(_gen.CastOp):
    """``strata.cast`` to the element type ``dtype`` ("f32", "f16", "bf16", "i32")."""

    def __init__(self, input, dtype: str | None = None, *, result=None, loc=None,  # noqa: A002
                 ip=None):
        if result is None:
            x = _operand(_value(input), 0)
            result = tensor_type(*S.cast(x.shape, x.dtype, dtype))
        super().__init__(result, input, loc=loc, ip=ip)


_EXPLICIT = {"ConstantOp": ConstantOp, "ReshapeOp": ReshapeOp, "BroadcastToOp": BroadcastToOp,
             "CastOp": CastOp}
_GENERATED = [cls for cls in vars(_gen).values()
              if isinstance(cls, type) and issubclass(cls, ir.OpView)
              and getattr(cls, "OPERATION_NAME", "").startswith("strata.")]

# Every strata op class: the generated ones, each extended here.
OP_CLASSES = tuple(_EXPLICIT.get(cls.__name__) or _inferring(cls) for cls in _GENERATED)
_BY_NAME = {cls.OPERATION_NAME: cls for cls in OP_CLASSES}
globals().update({cls.__name__: cls for cls in OP_CLASSES})


def op_class(name: str) -> type:
    """The op class of ``name`` (``"strata.add"`` -> AddOp)."""
    return _BY_NAME[name]


def _value_builder(cls):
    def build(*args, **kwargs) -> ir.Value:
        return cls(*args, **kwargs).result

    build.__name__ = build.__qualname__ = cls.OPERATION_NAME.split(".", 1)[1]
    build.__doc__ = f"The result of :class:`{cls.__name__}` (same arguments)."
    return build


# Value builders, as the generated module's but without the result type:
# strata.matmul(lhs, rhs), strata.sum(x, axes), ...
globals().update({cls.OPERATION_NAME.split(".", 1)[1]: _value_builder(cls)
                  for cls in OP_CLASSES})
