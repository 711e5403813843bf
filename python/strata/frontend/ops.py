"""Op builders over Tensor proxies: each emits strata ops through their op classes.

The classes (generated from dialects/StrataOps.td, extended in dialects/strata.py)
infer each result type with strata's shape rules. Each op is also written down in
its function's record (frontend/record.py); in a recorded trace it is only
written down, and MLIR is not imported.

Every builder records the user's source line as the op's location, and a
broken shape or dtype rule raises :class:`strata.StrataError` located there,
e.g. ``model.py:12:9: error: matmul: inner dimensions differ (64 vs 32)``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the bindings are imported where they are used
    from mlir import ir

import builtins
import functools
from collections.abc import Sequence

import numpy as np

from ..dialect import shapes as S
from ..dialect.types import dtype_name, dtype_of_numpy, numpy_dtype, tensor_type
from ..errors import StrataError
from .captures import warn_if_writable
from .locations import location_text, user_location
from .record import ATTRIBUTES
from .record import DIALECT as strata  # op classes by name: resolved when MLIR is built
from .record import infer as _infer
from .tensor import Tensor, install_builders

__all__ = [
    "add", "sub", "mul", "div", "floor_divide", "remainder", "mod", "maximum", "minimum", "pow",
    "neg", "abs", "exp", "log",
    "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu", "where", "equal", "not_equal", "less",
    "less_equal", "greater", "greater_equal", "matmul", "sum", "max", "mean", "prod", "min",
    "softmax",
    "layer_norm", "reshape", "transpose", "broadcast_to", "concat", "slice", "conv2d",
    "max_pool2d", "avg_pool2d", "constant", "cast", "dense_attr", "erf", "sin", "cos", "floor",
    "ceil", "round", "sign", "take", "argmax", "argmin", "logical_and", "logical_or",
    "logical_xor", "logical_not",
    "conv_transpose2d",
]


def _user_errors(fn):
    """Turns a broken rule into a StrataError at the user's line."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except S.ShapeError as e:
            err = StrataError(str(e), location=location_text())
        raise err

    return wrapper


class Node:
    """A recorded value by number, in a recording function's steps."""

    __slots__ = ("n",)

    def __init__(self, n: int):
        self.n = n


def _scope_of(values):
    scopes = {id(v.scope): v.scope for v in values if isinstance(v, Tensor)}
    if not scopes:
        raise S.ShapeError(
            "strata ops build a traced program: call them on the tensors of a function "
            "compiled with @strata.jit / strata.compile (or of a strata.Module function), "
            "not on " + (", ".join(sorted({type(v).__name__ for v in values})) or "nothing")
            + " (to run one op on numpy arrays: strata.jit(lambda x: strata.softmax(x))(a))")
    if len(scopes) > 1:
        raise S.ShapeError("operands belong to different functions")
    scope = next(iter(scopes.values()))
    scope.check_open()
    return scope


def _emit(scope, op_class, *args, **attrs) -> Tensor:
    """One strata op, built by its op class (dialects/strata.py: the generated class, whose
    result type the shape rules infer) at the scope's insertion point and the user's line,
    and written down in the scope's record (a recording scope only writes it down).

    ``args`` are the class's operands (Tensors) and attributes in order; a broken rule
    raises ShapeError, which the public builders turn into a located StrataError."""
    operands = [a for a in args if isinstance(a, Tensor)]
    named = dict(zip(ATTRIBUTES.get(op_class.kind, ()), args[len(operands):], strict=True))
    named.update(attrs)
    if scope.recording:
        shape, dtype = _infer(op_class.kind, operands, named)
        node = scope.record.add(op_class.kind, [t.node for t in operands], named, shape, dtype)
        scope.step("op", op_class, [Node(a.node) if isinstance(a, Tensor) else a for a in args],
                   attrs)
        return Tensor(None, scope, shape, dtype, node=node)
    args = [a.value if isinstance(a, Tensor) else a for a in args]
    with scope.context, scope.insertion_point, user_location():
        op = op_class.resolve()(*args, **attrs)
    out = Tensor(op.result, scope)
    out.node = scope.record.add(op_class.kind, [t.node for t in operands], named, out.shape,
                                out.dtype)
    return out


def _splat(scope, value, dtype: str) -> Tensor:
    """A rank-0 constant of ``dtype`` holding a Python scalar."""
    if dtype.startswith("i"):
        if isinstance(value, (float, np.floating)) and not float(value).is_integer():
            raise S.ShapeError(f"cannot use the non-integer {value} with an {dtype} tensor")
        bits = 64 if dtype == "i64" else 32
        if not -2**(bits - 1) <= int(value) < 2**(bits - 1):
            raise S.ShapeError(f"the scalar {value} is out of range for an {dtype} tensor")
        value = int(value)
    else:
        try:
            value = float(value)
        except OverflowError:
            raise S.ShapeError(f"the scalar {value} is out of range for an {dtype} "
                               "tensor") from None
    if scope.recording:
        scope.step("splat", value, dtype)
        return Tensor(None, scope, (), dtype, node=scope.record.add_splat(value, dtype))
    from mlir import ir

    with scope.context, user_location():
        t = tensor_type((), dtype)
        elem = t.element_type
        if dtype.startswith("i"):
            attr = ir.IntegerAttr.get(elem, value)
        else:
            attr = ir.FloatAttr.get(elem, value)
        dense = ir.DenseElementsAttr.get_splat(t, attr)
        op = strata.ConstantOp.resolve()(dense, ip=scope.insertion_point)
    out = Tensor(op.result, scope)
    out.node = scope.record.add_splat(value, dtype)
    return out


_SCALARS = (int, float, np.integer, np.floating, bool)


def _as_tensors(*values, scope=None, dtype=None):
    """Tensors for ``values``: Python/numpy scalars become rank-0 constants of ``dtype``
    (default: the first tensor's), numpy arrays constants of their own dtype."""
    scope = scope or _scope_of(values)
    if dtype is None:
        dtype = next(v.dtype for v in values if isinstance(v, Tensor))
    out = []
    for v in values:
        if isinstance(v, Tensor):
            out.append(v)
        elif isinstance(v, _SCALARS):
            out.append(_splat(scope, v, dtype))
        elif isinstance(v, np.ndarray):
            out.append(_captured(scope, v, dtype))
        else:
            raise S.ShapeError(f"cannot use a {type(v).__name__} as a tensor operand")
    return scope, out


def _captured(scope, array: np.ndarray, beside: str | None = None) -> Tensor:
    """A numpy operand as a constant (f64 -> f32, i64 -> i32, as constant(), except beside
    a tensor of the wide type: an f64 array next to an f64 tensor stays f64): its values
    are frozen into the trace, with a warning if the array is writable."""
    warn_if_writable(array)
    own = dtype_of_numpy(array.dtype)
    return _constant_in(scope, array, own if own in ("f64", "i64") and own == beside else None)


def _scalar_dtype(values) -> str:
    """The dtype of scalars used with no tensor beside them: numpy's, with float64 -> f32
    and int64 -> i32; else f32 if any is a Python float, i32 if all are ints."""
    dtypes = set()
    for v in values:
        if isinstance(v, np.generic):
            dtype = dtype_of_numpy(v.dtype)
            dtypes.add({"f64": "f32", "i64": "i32"}.get(dtype, dtype))
        else:
            dtypes.add("f32" if isinstance(v, (float, np.floating)) else "i32")
    floats = dtypes & set(S.FLOAT_DTYPES)
    if len(floats) == 1:
        return floats.pop()
    return "f32" if floats else "i32"


def _binary(name, lhs, rhs):
    scope, (a, b) = _as_tensors(lhs, rhs)
    if {a.dtype, b.dtype} == {"i32", "i64"}:  # numpy's promotion: the i32 side widens
        a, b = (_cast(scope, t, "i64") if t.dtype == "i32" else t for t in (a, b))
    elif "f64" in (a.dtype, b.dtype) and {a.dtype, b.dtype} <= set(S.FLOAT_DTYPES):
        a, b = (_cast(scope, t, "f64") if t.dtype != "f64" else t for t in (a, b))
    return _emit(scope, strata.op_class(f"strata.{name}"), a, b)


@_user_errors
def add(lhs, rhs):
    """``lhs + rhs`` with numpy broadcasting."""
    return _binary("add", lhs, rhs)


@_user_errors
def sub(lhs, rhs):
    """``lhs - rhs`` with numpy broadcasting."""
    return _binary("sub", lhs, rhs)


@_user_errors
def mul(lhs, rhs):
    """``lhs * rhs`` with numpy broadcasting."""
    return _binary("mul", lhs, rhs)


@_user_errors
def div(lhs, rhs):
    """``lhs / rhs``: numpy's true division, with numpy broadcasting.

    Integer (and bool) operands are converted to f32 first and the result is f32
    (numpy's is float64): ``x / 0`` is +-inf or NaN, never a trap.
    """
    if builtins.any(isinstance(v, Tensor) and v.dtype in S.FLOAT_DTYPES for v in (lhs, rhs)):
        return _binary("div", lhs, rhs)
    scope, operands = _as_tensors(lhs, rhs, dtype="f32")
    a, b = (t if t.dtype in S.FLOAT_DTYPES else _cast(scope, t, "f32") for t in operands)
    return _emit(scope, strata.DivOp, a, b)


@_user_errors
def floor_divide(lhs, rhs):
    """numpy's ``floor_divide`` (``lhs // rhs``): the quotient rounded toward -inf.

    Never traps: integer ``x // 0`` is 0 and ``INT_MIN // -1`` wraps to ``INT_MIN``;
    float results match numpy bit for bit (``x // 0.0`` is +-inf or NaN).
    """
    return _binary("floor_div", lhs, rhs)


@_user_errors
def remainder(lhs, rhs):
    """numpy's ``remainder``/``mod`` (``lhs % rhs``): the sign of ``rhs``, as Python's ``%``.

    Never traps: integer ``x % 0`` and ``INT_MIN % -1`` are 0; float ``x % 0.0`` is NaN.
    """
    return _binary("mod", lhs, rhs)


mod = remainder


@_user_errors
def maximum(lhs, rhs):
    """Elementwise maximum with numpy broadcasting."""
    return _binary("maximum", lhs, rhs)


@_user_errors
def minimum(lhs, rhs):
    """Elementwise minimum with numpy broadcasting."""
    return _binary("minimum", lhs, rhs)


@_user_errors
def pow(lhs, rhs):  # noqa: A001 - numpy's name
    """``lhs ** rhs`` with numpy broadcasting."""
    return _binary("pow", lhs, rhs)


def _unary(name, x, **attrs):
    scope, (x,) = _as_tensors(x)
    return _emit(scope, strata.op_class(f"strata.{name}"), x, **attrs)


def _make_unary(name, doc):
    @_user_errors
    def fn(x):
        return _unary(name, x)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


neg = _make_unary("neg", "Elementwise ``-x``.")
abs = _make_unary("abs", "Elementwise ``|x|``.")  # noqa: A001 - numpy's name
exp = _make_unary("exp", "Elementwise ``e ** x``.")
log = _make_unary("log", "Elementwise natural logarithm.")
sqrt = _make_unary("sqrt", "Elementwise square root.")
rsqrt = _make_unary("rsqrt", "Elementwise ``1 / sqrt(x)``.")
tanh = _make_unary("tanh", "Elementwise hyperbolic tangent.")
sigmoid = _make_unary("sigmoid", "Elementwise ``1 / (1 + e ** -x)``.")
relu = _make_unary("relu", "Elementwise ``max(x, 0)``.")
erf = _make_unary("erf", "Elementwise error function.")
sin = _make_unary("sin", "Elementwise sine.")
cos = _make_unary("cos", "Elementwise cosine.")
floor = _make_unary("floor", "Elementwise floor (floats only).")
ceil = _make_unary("ceil", "Elementwise ceiling (floats only).")
round = _make_unary("round", "Elementwise rounding, halves to even as numpy (floats only).")  # noqa: A001
sign = _make_unary("sign", "Elementwise -1, 0 or 1 (NaN stays NaN).")


@_user_errors
def gelu(x, approximate: str = "none"):
    """GELU; ``approximate="tanh"`` for the tanh form, ``"none"`` for the exact erf form."""
    if approximate == "none":
        return _unary("gelu", x)
    return _unary("gelu", x, approximate=approximate)


def _compare(predicate, lhs, rhs):
    scope, (a, b) = _as_tensors(lhs, rhs)
    return _emit(scope, strata.CompareOp, a, b, predicate)


def _make_compare(name, predicate):
    @_user_errors
    def fn(lhs, rhs):
        return _compare(predicate, lhs, rhs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise comparison ``{predicate}`` with broadcasting; an i1 result."
    return fn


equal = _make_compare("equal", "eq")
not_equal = _make_compare("not_equal", "ne")
less = _make_compare("less", "lt")
less_equal = _make_compare("less_equal", "le")
greater = _make_compare("greater", "gt")
greater_equal = _make_compare("greater_equal", "ge")


@_user_errors
def where(condition, true_value, false_value):
    """numpy's ``where``: ``condition`` is an i1 tensor (a comparison's result).

    With a tensor among the values, scalars take its dtype. With two scalars the
    result is f32 if either is a float (numpy would give float64), i32 if both are
    ints, or the numpy scalars' own dtype (``np.float16(1)``).
    """
    if not isinstance(condition, Tensor):
        raise S.ShapeError("where: condition must be a tensor (the result of a comparison)")
    scope = _scope_of([condition, true_value, false_value])
    values = [_captured(scope, v) if isinstance(v, np.ndarray) else v
              for v in (true_value, false_value)]
    dtype = None
    if not builtins.any(isinstance(v, Tensor) for v in values):
        for v in values:
            if not isinstance(v, _SCALARS):
                raise S.ShapeError(f"cannot use a {type(v).__name__} as a tensor operand")
        dtype = _scalar_dtype(values)
    _, (t, f) = _as_tensors(*values, scope=scope, dtype=dtype)
    return _emit(scope, strata.SelectOp, condition, t, f)


@_user_errors
def matmul(lhs, rhs):
    """numpy ``@``: 1-D, 2-D and batched with broadcast batch dims."""
    scope, (a, b) = _as_tensors(lhs, rhs)
    return _emit(scope, strata.MatmulOp, a, b)


def _axes(x, axis):
    if axis is None:
        return list(range(x.ndim))
    if isinstance(axis, (int, np.integer)):
        return [int(axis)]
    return [int(a) for a in axis]


def _reduce(name, x, axis, keepdims):
    scope, (x,) = _as_tensors(x)
    return _emit(scope, strata.op_class(f"strata.{name}"), x, _axes(x, axis),
                 keepdims=True if keepdims else None)


@_user_errors
def sum(x, axis=None, keepdims=False):  # noqa: A001 - numpy's name
    """Sum over ``axis`` (an int, a sequence, or None for all axes)."""
    return _reduce("sum", x, axis, keepdims)


@_user_errors
def max(x, axis=None, keepdims=False):  # noqa: A001 - numpy's name
    """Maximum over ``axis`` (an int, a sequence, or None for all axes)."""
    return _reduce("max", x, axis, keepdims)


@_user_errors
def mean(x, axis=None, keepdims=False):
    """Arithmetic mean over ``axis`` (an int, a sequence, or None for all axes)."""
    return _reduce("mean", x, axis, keepdims)


@_user_errors
def prod(x, axis=None, keepdims=False):
    """Product over ``axis`` (an int, a sequence, or None for all axes); i32 wraps."""
    return _reduce("prod", x, axis, keepdims)


@_user_errors
def min(x, axis=None, keepdims=False):  # noqa: A001 - numpy's name
    """Minimum over ``axis`` (an int, a sequence, or None for all axes)."""
    return _reduce("min", x, axis, keepdims)


def _truth(scope, x):
    """0 / 1 as i32: a bool tensor cast, any other tensor compared with 0."""
    if x.dtype != "i1":
        x = _emit(scope, strata.CompareOp, *_as_tensors(x, 0, scope=scope)[1], "ne")
    return _emit(scope, strata.CastOp, x, "i32")


def _logical(name, a, b):
    scope, (a, b) = _as_tensors(a, b, dtype="i32") if any(
        isinstance(v, Tensor) for v in (a, b)) else (None, (a, b))
    if scope is None:
        raise S.ShapeError(f"{name}: at least one operand must be a strata tensor")
    x, y = _truth(scope, a), _truth(scope, b)
    if name == "logical_and":
        z = _emit(scope, strata.MulOp, x, y)
    elif name == "logical_or":
        z = _emit(scope, strata.MaximumOp, x, y)
    else:
        z = _emit(scope, strata.SubOp, x, y)
    return _emit(scope, strata.CompareOp, *_as_tensors(z, 0, scope=scope)[1], "ne")


@_user_errors
def logical_and(a, b):
    """numpy ``logical_and``: a bool tensor; operands are bool tensors (comparison results,
    bool arrays) or numbers, read as true when non-zero. Broadcasts."""
    return _logical("logical_and", a, b)


@_user_errors
def logical_or(a, b):
    """numpy ``logical_or`` (see :func:`logical_and`)."""
    return _logical("logical_or", a, b)


@_user_errors
def logical_xor(a, b):
    """numpy ``logical_xor`` (see :func:`logical_and`)."""
    return _logical("logical_xor", a, b)


@_user_errors
def logical_not(x):
    """numpy ``logical_not``: a bool tensor, true where ``x`` is false (or zero)."""
    scope, (x,) = _as_tensors(x)
    return _emit(scope, strata.CompareOp, *_as_tensors(_truth(scope, x), 0, scope=scope)[1],
                 "eq")


def _arg_reduce(name, x, axis, keepdims):
    scope, (x,) = _as_tensors(x)
    if axis is None:  # numpy: the index into the flattened array
        x = _emit(scope, strata.ReshapeOp, x, [None if None in x.shape else
                                               int(np.prod(x.shape, dtype=np.int64))])
        axis = 0
        if keepdims:
            raise S.ShapeError(f"{name}: keepdims needs an axis")
    return _emit(scope, strata.op_class(f"strata.{name}"), x, int(axis),
                 keepdims=True if keepdims else None)


@_user_errors
def argmax(x, axis: int | None = None, keepdims: bool = False):
    """numpy ``argmax``: the i32 index of the first maximum along ``axis`` (a NaN wins)."""
    return _arg_reduce("argmax", x, axis, keepdims)


@_user_errors
def argmin(x, axis: int | None = None, keepdims: bool = False):
    """numpy ``argmin``: the i32 index of the first minimum along ``axis`` (a NaN wins)."""
    return _arg_reduce("argmin", x, axis, keepdims)


@_user_errors
def softmax(x, axis: int = -1):
    """Softmax along ``axis``, in the numerically stable form."""
    scope, (x,) = _as_tensors(x)
    return _emit(scope, strata.SoftmaxOp, x, axis=None if axis == -1 else int(axis))


@_user_errors
def layer_norm(x, scale=None, bias=None, axis: int = -1, epsilon: float = 1e-5):
    """Layer normalization over dims ``[axis, rank)``; ``scale``/``bias`` default to 1/0."""
    scope, (x,) = _as_tensors(x)
    if x.ndim == 0:
        raise S.ShapeError("layer_norm: input must have rank >= 1")
    normalized = x.shape[S.normalize_axis("layer_norm", axis, x.ndim):]
    if (scale is None or bias is None) and builtins.any(d is None for d in normalized):
        raise S.ShapeError("layer_norm: scale and bias must be given when the normalized "
                           "dims are dynamic")
    np_dtype = numpy_dtype(x.dtype)
    if scale is None:
        scale = _constant_in(scope, np.ones(normalized, np_dtype), x.dtype)
    if bias is None:
        bias = _constant_in(scope, np.zeros(normalized, np_dtype), x.dtype)
    _, (_, scale, bias) = _as_tensors(x, scale, bias)
    return _emit(scope, strata.LayerNormOp, x, scale, bias,
                 axis=None if axis == -1 else int(axis),
                 epsilon=None if epsilon == 1e-5 else float(epsilon))


@_user_errors
def reshape(x, shape: Sequence[int]):
    """numpy ``reshape``; one entry may be -1 (inferred from the element count)."""
    scope, (x,) = _as_tensors(x)
    shape = [None if d is None else int(d) for d in shape]
    if shape.count(-1) > 1:
        raise S.ShapeError(f"reshape: at most one dim may be -1, got {shape}")
    if -1 in shape:
        known = 1
        for d in shape:
            if d not in (-1, None):
                known *= d
        total = 1
        for d in x.shape:
            total = None if d is None or total is None else total * d
        if total is None or None in shape:
            shape[shape.index(-1)] = None
        elif known == 0 or total % known:
            raise S.ShapeError(f"reshape: cannot reshape {S.fmt_shape(x.shape)} ({total} "
                               f"elements) into {shape}")
        else:
            shape[shape.index(-1)] = total // known
    return _emit(scope, strata.ReshapeOp, x, shape)


@_user_errors
def transpose(x, permutation: Sequence[int] | None = None):
    """numpy ``transpose``: reverses the dims when ``permutation`` is None."""
    scope, (x,) = _as_tensors(x)
    perm = list(range(x.ndim))[::-1] if permutation is None else [int(p) for p in permutation]
    perm = [p + x.ndim if p < 0 else p for p in perm]
    return _emit(scope, strata.TransposeOp, x, perm)


@_user_errors
def broadcast_to(x, shape: Sequence[int]):
    """numpy ``broadcast_to``."""
    scope, (x,) = _as_tensors(x)
    return _emit(scope, strata.BroadcastToOp, x, shape)


@_user_errors
def concat(values: Sequence, axis: int = 0):
    """numpy ``concatenate`` along an existing axis."""
    values = list(values)
    if not values:
        raise S.ShapeError("concat: needs at least one input")
    scope, tensors = _as_tensors(*values)
    S.concat([t.shape for t in tensors], [t.dtype for t in tensors], axis)  # all-input check
    out = tensors[0]
    for t in tensors[1:]:  # strata.concat is binary: a left-to-right chain
        out = _emit(scope, strata.ConcatOp, out, t, int(axis))
    return out


def _slice(scope, x, starts, limits, steps):
    return _emit(scope, strata.SliceOp, x, starts, limits, steps)


@_user_errors
def slice(x, starts: Sequence[int], limits: Sequence[int], steps: Sequence[int] | None = None):  # noqa: A001
    """``x[starts[0]:limits[0]:steps[0], ...]`` with normalized, non-negative bounds."""
    scope, (x,) = _as_tensors(x)
    steps = [1] * x.ndim if steps is None else list(steps)
    return _slice(scope, x, list(starts), list(limits), steps)


@_user_errors
def take(x, indices, axis: int | None = None):
    """numpy ``take(x, indices, axis)``: slices of ``x`` picked along ``axis`` by i32
    ``indices`` (a strata tensor, a Python list or a numpy array); ``axis=None`` picks
    from the flattened ``x``. Negative indices count from the end; an index still out of
    range is clamped (numpy's ``mode="clip"``), so the op never reads out of bounds; an
    index is never wrapped (int64 indices beyond i32 stay i64 and clamp).
    ``take(table, ids, axis=0)`` is an embedding lookup."""
    if isinstance(indices, (list, tuple)):  # our own copy: nothing can write to it
        indices = np.asarray(indices, dtype=np.int64)
        indices = indices.astype(np.int32) if fits_i32(indices) else indices
        indices.setflags(write=False)
    elif isinstance(indices, np.ndarray) and indices.dtype.kind in "iu" and \
            indices.dtype != np.int32 and fits_i32(indices):
        writable = indices.flags.writeable
        indices = indices.astype(np.int32)
        indices.setflags(write=writable)
    scope, (x, idx) = _as_tensors(x, indices)
    if axis is None:
        x = _emit(scope, strata.ReshapeOp, x, [None if None in x.shape else
                                               int(np.prod(x.shape, dtype=np.int64))])
        axis = 0
    return _emit(scope, strata.GatherOp, x, idx, int(axis))


def _index_entry(item, size, dim):
    """``(start, limit, step, keeps_dim)`` of one numpy basic index entry."""
    if isinstance(item, (bool, np.bool_)):  # numpy reads these as masks, not as 0 / 1
        raise S.ShapeError(f"unsupported index {item!r}: boolean indices are not supported")
    if isinstance(item, (int, np.integer)):
        i = int(item)
        if size is None:
            if i < 0:
                raise S.ShapeError(f"negative index {i} into dynamic dim {dim}")
        elif not -size <= i < size:
            raise S.ShapeError(f"index {i} is out of bounds for dim {dim} of size {size}")
        i = i + size if i < 0 else i
        return i, i + 1, 1, False
    if isinstance(item, builtins.slice):
        if item.step == 0:
            raise S.ShapeError("slice step cannot be zero")
        if item.step is not None and item.step < 0:  # read from the reversed dim
            if size is None:
                raise S.ShapeError(f"a negative slice step on dynamic dim {dim} is not "
                                   "supported")
            lo, hi, st = item.indices(size)
            n = len(range(lo, hi, st))
            if n <= 1:  # nothing to reverse: [lo] or nothing
                return (lo, lo + 1, 1, True) if n else (0, 0, 1, True)
            start = size - 1 - lo  # in the reversed dim; the negative step says so
            return start, start + (n - 1) * -st + 1, st, True
        if size is None:
            if item.stop is None or (item.start or 0) < 0 or item.stop < 0:
                raise S.ShapeError(f"slicing dynamic dim {dim} needs explicit non-negative bounds")
            return item.start or 0, item.stop, item.step or 1, True
        lo, hi, st = item.indices(size)
        return lo, builtins.max(hi, lo), st, True
    raise S.ShapeError(f"unsupported index {item!r}: only ints, slices, None and ... are "
                       "supported")


@_user_errors
def getitem(x, index):
    """numpy basic indexing: ints, slices (negative steps read a reversed dim), ``None``
    and ``...``."""
    scope, (x,) = _as_tensors(x)
    if not isinstance(index, tuple):
        index = (index,)
    if builtins.sum(1 for i in index if i is Ellipsis) > 1:
        raise S.ShapeError("an index can only have a single ellipsis ('...')")
    consumed = builtins.sum(1 for i in index if i is not None and i is not Ellipsis)
    if consumed > x.ndim:
        raise S.ShapeError(f"too many indices for a rank-{x.ndim} tensor: {consumed}")
    fill = (builtins.slice(None),) * (x.ndim - consumed)
    if Ellipsis in index:
        at = index.index(Ellipsis)
        index = index[:at] + fill + index[at + 1:]
    else:
        index = index + fill
    starts, limits, steps, out_shape, flipped = [], [], [], [], []
    dim = 0
    for item in index:
        if item is None:
            out_shape.append(1)
            continue
        lo, hi, st, keep = _index_entry(item, x.shape[dim], dim)
        if st < 0:  # a negative step: a positive one on the reversed dim
            flipped.append(dim)
            st = -st
        starts.append(lo)
        limits.append(hi)
        steps.append(st)
        if keep:
            out_shape.append(-(-(hi - lo) // st))
        dim += 1
    if flipped:  # dims read backwards (two or more elements) are reversed first
        x = _emit(scope, strata.ReverseOp, x, flipped)
    y = x
    if any(lo != 0 or st != 1 or x.shape[d] != hi
           for d, (lo, hi, st) in enumerate(zip(starts, limits, steps, strict=True))):
        y = _slice(scope, x, starts, limits, steps)
    if tuple(out_shape) != y.shape:
        y = _emit(scope, strata.ReshapeOp, y, out_shape)
    return y


def _padding4(padding):
    if isinstance(padding, (int, np.integer)):
        return [int(padding)] * 4
    padding = [int(p) for p in padding]
    if len(padding) == 2:
        return [padding[0], padding[0], padding[1], padding[1]]
    return padding


def _pair(v):
    return [int(v)] * 2 if isinstance(v, (int, np.integer)) else [int(x) for x in v]


@_user_errors
def conv2d(x, filter, stride=1, padding=0, dilation=1, layout: str = "NCHW",  # noqa: A002
           groups: int = 1):
    """2-D convolution. NCHW: filter ``[F, C/groups, KH, KW]``; NHWC: filter
    ``[KH, KW, C/groups, F]``.

    ``padding`` is an int, ``(ph, pw)`` or ``(top, bottom, left, right)``. ``groups``
    splits the channels as PyTorch's does (``groups=C``: a depthwise convolution).
    """
    scope, (x, w) = _as_tensors(x, filter)
    strides, pad, dil = _pair(stride), _padding4(padding), _pair(dilation)
    if isinstance(groups, (int, np.integer)) and not isinstance(groups, bool):
        groups = int(groups)
    extra = {} if groups == 1 else {"groups": groups}
    return _emit(scope, strata.Conv2dOp, x, w, strides, pad, dil, layout, **extra)


def _pool(name, x, kernel, stride, padding, layout):
    scope, (x,) = _as_tensors(x)
    kernel = _pair(kernel)
    strides = kernel if stride is None else _pair(stride)
    return _emit(scope, strata.op_class(f"strata.{name}"), x, kernel, strides,
                 _padding4(padding), layout)


@_user_errors
def max_pool2d(x, kernel, stride=None, padding=0, layout: str = "NCHW"):
    """Max pooling; ``stride`` defaults to the kernel size, padded positions never win."""
    return _pool("max_pool2d", x, kernel, stride, padding, layout)


@_user_errors
def avg_pool2d(x, kernel, stride=None, padding=0, layout: str = "NCHW"):
    """Average pooling over the real (unpadded) elements of each window."""
    return _pool("avg_pool2d", x, kernel, stride, padding, layout)


def dense_attr(array: np.ndarray, dtype: str) -> ir.DenseElementsAttr:
    """A dense elements attribute of ``dtype`` holding ``array`` (in the current context)."""
    from mlir import ir

    t = tensor_type(array.shape, dtype)
    data = np.asarray(array).astype(numpy_dtype(dtype), order="C")  # keeps rank 0
    if dtype in ("bf16", "f16"):
        data = data.view(np.uint16)
    return ir.DenseElementsAttr.get(data, signless=True, type=t.element_type)


def fits_i32(array: np.ndarray) -> bool:
    """Every value of an integer array is an i32 value."""
    return not array.size or (int(array.min()) >= -2**31 and int(array.max()) < 2**31)


def _outside_i32(array: np.ndarray) -> int:
    return int(array.max()) if int(array.max()) >= 2**31 else int(array.min())


def _constant_in(scope, value, dtype):
    array = np.asarray(value)
    if dtype is not None:
        dtype = _dtype_arg(dtype)
    if dtype is None:
        dtype = dtype_of_numpy(array.dtype)
        if dtype == "i64" and not fits_i32(array):
            pass  # values need 64 bits: an i64 constant (never wrapped)
        else:
            dtype = {"f64": "f32", "i64": "i32"}.get(dtype, dtype)
    elif dtype == "i32" and array.dtype.kind in "iu" and not fits_i32(array):
        raise S.ShapeError(f"constant: value {_outside_i32(array)} does not fit in i32 "
                           "(use dtype 'i64')")
    if dtype not in S.DTYPES:
        raise S.ShapeError(f"constant: element type {dtype or array.dtype} is not supported "
                           f"(expected one of {', '.join(S.DTYPES)})")
    if scope.recording:
        node = scope.record.add_constant(array, dtype)
        scope.step("constant", array, dtype)
        return Tensor(None, scope, array.shape, dtype, node=node)
    with scope.context, user_location():
        attr = dense_attr(array, dtype)
        op = strata.ConstantOp.resolve()(attr, ip=scope.insertion_point)
    out = Tensor(op.result, scope)
    out.node = scope.record.add_constant(array, dtype)
    return out


@_user_errors
def constant(value, dtype: str | None = None, *, like: Tensor | None = None) -> Tensor:
    """A dense constant from a numpy array (f64 becomes f32; i64 becomes i32 where every
    value fits in 32 bits, else stays i64: a value is never wrapped).

    ``like`` names a tensor of the function to build into (default: the function
    being traced or built most recently).
    """
    from .scopes import current_scope

    scope = like.scope if like is not None else current_scope()
    return _constant_in(scope, value, dtype)


def _cast(scope, x, dtype):
    return _emit(scope, strata.CastOp, x, dtype)


@_user_errors
def cast(x, dtype):
    """Convert elements to ``dtype`` (f32, f16, bf16, i32 or i64, by strata's name or any
    numpy spelling: ``"float16"``, ``np.float16``, ``np.dtype("int64")``); a bool mask
    becomes 1 / 0."""
    scope, (x,) = _as_tensors(x)
    return _cast(scope, x, _dtype_arg(dtype))


def _dtype_arg(dtype) -> str:
    """strata's name for a dtype argument, or the user's error naming what is allowed."""
    name = dtype_name(dtype)
    if name is None:
        raise S.ShapeError(f"{dtype!r} is not a dtype (use one of {', '.join(S.DTYPES)}, or "
                           "a numpy dtype such as np.float16)")
    return name


# --- issue 14, part B (opsb): transposed convolution ------------------------------------------


@_user_errors
def conv_transpose2d(x, filter, stride=1, padding=0, output_padding=0, dilation=1,  # noqa: A002
                     layout: str = "NCHW", groups: int = 1):
    """2-D transposed convolution (PyTorch's ``conv_transpose2d``). NCHW: filter
    ``[C, F/groups, KH, KW]``; NHWC: filter ``[KH, KW, F/groups, C]``.

    ``padding`` is an int, ``(ph, pw)`` or ``(top, bottom, left, right)``, taken off the
    full result; ``output_padding`` (int or pair) adds rows / columns at the bottom / right.
    """
    scope, (x, w) = _as_tensors(x, filter)
    if isinstance(groups, (int, np.integer)) and not isinstance(groups, bool):
        groups = int(groups)
    extra = {} if groups == 1 else {"groups": groups}
    return _emit(scope, strata.ConvTranspose2dOp, x, w, _pair(stride), _padding4(padding),
                 _pair(output_padding), _pair(dilation), layout, **extra)


install_builders("ops", sys.modules[__name__])  # Tensor's operators call these
