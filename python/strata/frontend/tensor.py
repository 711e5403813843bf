"""The Tensor proxy: an SSA value of a function under construction, with numpy-like operators."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the bindings are imported where they are used
    from mlir import ir

import numpy as np

from ..dialect.types import shape_of

__all__ = ["Tensor", "TensorSpec"]


class TensorSpec:
    """The shape and dtype of a function argument; ``None`` in ``shape`` is a dynamic dim."""

    def __init__(self, shape, dtype: str = "f32"):
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"TensorSpec({self.shape}, {self.dtype!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, TensorSpec) and (self.shape, self.dtype) == (
            other.shape, other.dtype)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype))


def _no_value(what: str, instead: str):
    """A StrataError at the user's line: a traced tensor has no value to convert."""
    from ..errors import StrataError
    from .locations import location_text

    return StrataError(f"{what} needs the value of a traced tensor, which is not known while "
                       "tracing: data-dependent Python is not captured. " + instead,
                       location=location_text())


_KEEP_TRACED = ("Keep the computation in strata ops (strata.where for choices, .astype for "
                "conversions), or compute this outside the traced function on its result.")


class Tensor:
    """A value being built into a strata function.

    Supports ``+ - * / // % @ **`` and ``divmod``, unary ``-``, the bitwise
    ``& | ^ ~ << >>`` (integers; bools as the logical ops), elementwise
    comparisons (``== != < <= > >=``, each a bool tensor), ``.T``, ``.reshape``,
    ``.transpose``, ``.sum/.max/.mean``, ``.astype``, numpy-style basic indexing
    (ints, slices with positive steps, ``None``, ``...``), ``len()`` and iteration
    over the first axis (static size). Operators take numpy arrays and scalars on
    either side (``w * x`` defers to Tensor: ``__array_ufunc__ = None``).

    A tensor has no value while it is traced: ``bool()``, ``float()``, ``int()``,
    ``complex()``, ``operator.index()``, ``np.asarray()``, ``.item()`` and
    ``.tolist()`` raise :class:`strata.StrataError` at the user's line.
    Tensors hash by identity (``==`` builds a comparison, it does not compare
    proxies): use ``is`` to ask whether two proxies are the same value.
    """

    __array_ufunc__ = None  # numpy arrays and scalars defer to Tensor's reflected operators
    __array_priority__ = 1000

    def __init__(self, value: ir.Value | None, scope, shape=None, dtype=None, node=None):
        self.value = value  # None in a recorded trace (frontend/record.py): no MLIR
        self.scope = scope
        self.node = node  # its number in the scope's record
        if value is None:
            self.shape, self.dtype = tuple(shape), dtype
        else:
            self.shape, self.dtype = shape_of(value.type)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def type(self) -> ir.Type:
        if self.value is None:
            from ..dialect.types import tensor_type

            return tensor_type(self.shape, self.dtype)
        return self.value.type

    def __repr__(self) -> str:
        return f"Tensor({self._type_text()})"

    def _type_text(self) -> str:
        if self.value is not None:
            return str(self.value.type)
        dims = "".join("?x" if d is None else f"{d}x" for d in self.shape)
        return f"tensor<{dims}{self.dtype}>"

    # Python conversions need a value, which a traced tensor does not have.
    def __bool__(self):
        from ..errors import StrataError
        from .locations import location_text

        raise StrataError("a traced tensor has no truth value: use strata.where for "
                          "data-dependent choices", location=location_text())

    def __float__(self):
        raise _no_value("float()", _KEEP_TRACED)

    def __int__(self):
        raise _no_value("int()", _KEEP_TRACED)

    def __complex__(self):
        raise _no_value("complex()", _KEEP_TRACED)

    def __index__(self):
        raise _no_value("using a tensor as an index or size (operator.index)",
                        "Indices and sizes must be Python ints known while tracing.")

    def __array__(self, dtype=None, copy=None):
        raise _no_value("np.asarray()/np.array()",
                        "Use strata ops inside the traced function; its result is a numpy "
                        "array.")

    def item(self, *args):
        raise _no_value(".item()", _KEEP_TRACED)

    def tolist(self):
        raise _no_value(".tolist()", _KEEP_TRACED)

    def __len__(self) -> int:
        """The size of the first axis, as numpy's ``len`` (it must be static)."""
        return self._static_len("len()")

    def __iter__(self):
        """The rows along the first axis, as numpy iterates (its size must be static)."""
        n = self._static_len("iterating over a tensor")
        return (self[i] for i in range(n))

    def _static_len(self, what: str) -> int:
        from ..errors import StrataError
        from .locations import location_text

        if not self.shape:
            raise StrataError(f"{what}: a rank-0 tensor has no first axis",
                              location=location_text())
        if self.shape[0] is None:
            raise StrataError(f"{what}: the first axis of {self._type_text()} is dynamic (its "
                              "size is known only at run time)", location=location_text())
        return self.shape[0]

    # Arithmetic, with Python scalars promoted to the tensor's dtype.
    def __add__(self, o):
        return _ops().add(self, o)

    def __radd__(self, o):
        return _ops().add(o, self)

    def __sub__(self, o):
        return _ops().sub(self, o)

    def __rsub__(self, o):
        return _ops().sub(o, self)

    def __mul__(self, o):
        return _ops().mul(self, o)

    def __rmul__(self, o):
        return _ops().mul(o, self)

    def __truediv__(self, o):
        return _ops().div(self, o)

    def __rtruediv__(self, o):
        return _ops().div(o, self)

    def __floordiv__(self, o):
        return _ops().floor_divide(self, o)

    def __rfloordiv__(self, o):
        return _ops().floor_divide(o, self)

    def __mod__(self, o):
        return _ops().remainder(self, o)

    def __rmod__(self, o):
        return _ops().remainder(o, self)

    def __divmod__(self, o):
        return _ops().floor_divide(self, o), _ops().remainder(self, o)

    def __rdivmod__(self, o):
        return _ops().floor_divide(o, self), _ops().remainder(o, self)

    def __pow__(self, o):
        return _ops().pow(self, o)

    def __rpow__(self, o):
        return _ops().pow(o, self)

    def __matmul__(self, o):
        return _ops().matmul(self, o)

    def __rmatmul__(self, o):
        return _ops().matmul(o, self)

    def __neg__(self):
        return _ops().neg(self)

    # Bitwise operators (frontend/bitwise.py): integers, or bools as the logical ops.
    def __and__(self, o):
        return _bitwise().bitwise_and(self, o)

    def __rand__(self, o):
        return _bitwise().bitwise_and(o, self)

    def __or__(self, o):
        return _bitwise().bitwise_or(self, o)

    def __ror__(self, o):
        return _bitwise().bitwise_or(o, self)

    def __xor__(self, o):
        return _bitwise().bitwise_xor(self, o)

    def __rxor__(self, o):
        return _bitwise().bitwise_xor(o, self)

    def __lshift__(self, o):
        return _bitwise().left_shift(self, o)

    def __rlshift__(self, o):
        return _bitwise().left_shift(o, self)

    def __rshift__(self, o):
        return _bitwise().right_shift(self, o)

    def __rrshift__(self, o):
        return _bitwise().right_shift(o, self)

    def __invert__(self):
        return _bitwise().bitwise_not(self)

    def __abs__(self):
        return _ops().abs(self)

    def __lt__(self, o):
        return _ops().less(self, o)

    def __le__(self, o):
        return _ops().less_equal(self, o)

    def __gt__(self, o):
        return _ops().greater(self, o)

    def __ge__(self, o):
        return _ops().greater_equal(self, o)

    def __eq__(self, o):
        if not isinstance(o, _OPERANDS):
            return NotImplemented  # Python then compares identities: t == None is False
        return _ops().equal(self, o)

    def __ne__(self, o):
        if not isinstance(o, _OPERANDS):
            return NotImplemented
        return _ops().not_equal(self, o)

    __hash__ = object.__hash__  # by identity, as the proxies it keys are distinct values

    @property
    def T(self):  # noqa: N802 - numpy's name
        return _ops().transpose(self)

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return _ops().reshape(self, shape)

    def transpose(self, *perm):
        if len(perm) == 1 and isinstance(perm[0], (tuple, list)):
            perm = tuple(perm[0])
        return _ops().transpose(self, perm or None)

    # numpy's functions (np.sum(x), np.mean(x, axis=0)) call these methods with their
    # own ``dtype`` and ``out`` keywords
    def sum(self, axis=None, keepdims=False, dtype=None, out=None):
        return self._reduce("sum", axis, keepdims, dtype, out)

    def max(self, axis=None, keepdims=False, out=None):
        return self._reduce("max", axis, keepdims, None, out)

    def min(self, axis=None, keepdims=False, out=None):
        return self._reduce("min", axis, keepdims, None, out)

    def prod(self, axis=None, keepdims=False, dtype=None, out=None):
        return self._reduce("prod", axis, keepdims, dtype, out)

    def mean(self, axis=None, keepdims=False, dtype=None, out=None):
        return self._reduce("mean", axis, keepdims, dtype, out)

    def argmax(self, axis=None, out=None, keepdims=False):
        return self._reduce("argmax", axis, keepdims, None, out)

    def argmin(self, axis=None, out=None, keepdims=False):
        return self._reduce("argmin", axis, keepdims, None, out)

    def _reduce(self, name, axis, keepdims, dtype, out):
        if out is not None:
            from ..errors import StrataError
            from .locations import location_text

            raise StrataError(f"{name}: out= is not supported inside a traced function "
                              "(traced values are immutable; use the result)",
                              location=location_text())
        x = self if dtype is None else _ops().cast(self, dtype)
        return getattr(_ops(), name)(x, axis=axis, keepdims=keepdims)

    def astype(self, dtype):
        """numpy's ``astype``: strata's dtype names or any numpy spelling (np.float16)."""
        return _ops().cast(self, dtype)

    def __getitem__(self, index):
        return _ops().getitem(self, index)


# The builders Tensor's operators call: frontend/ops.py and frontend/bitwise.py. Both
# import Tensor, so this module does not import them: each installs itself here when it
# is imported, and every way to make tensors imports both first (frontend/module.py's
# Function and trace, frontend/recording.py's record_trace).
_BUILDERS: dict = {}


def install_builders(name: str, module) -> None:
    """Makes ``module`` the ``name`` (``ops`` or ``bitwise``) builders of the operators."""
    _BUILDERS[name] = module


def _ops():
    return _BUILDERS["ops"]


def _bitwise():
    return _BUILDERS["bitwise"]


# What the comparison operators take: anything else compares by identity.
_OPERANDS = (Tensor, int, float, np.generic, np.ndarray)
