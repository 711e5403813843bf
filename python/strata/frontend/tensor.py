"""The Tensor proxy: an SSA value of a function under construction, with numpy-like operators."""

from __future__ import annotations

from mlir import ir

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


class Tensor:
    """A value being built into a strata function.

    Supports ``+ - * / @ **``, unary ``-``, comparisons (``< <= > >=``), ``.T``,
    ``.reshape``, ``.transpose``, ``.sum/.max/.mean``, ``.astype`` and numpy-style
    basic indexing (ints, slices with positive steps, ``None``, ``...``).
    """

    __array_priority__ = 1000  # numpy scalars defer to Tensor's reflected operators

    def __init__(self, value: ir.Value, scope):
        self.value = value
        self.scope = scope
        self.shape, self.dtype = shape_of(value.type)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def type(self) -> ir.Type:
        return self.value.type

    def __repr__(self) -> str:
        return f"Tensor({self.value.type})"

    def __bool__(self):
        from ..errors import StrataError
        from .locations import location_text

        raise StrataError("a traced tensor has no truth value: use strata.where for "
                          "data-dependent choices", location=location_text())

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

    __hash__ = object.__hash__

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

    def sum(self, axis=None, keepdims=False):
        return _ops().sum(self, axis=axis, keepdims=keepdims)

    def max(self, axis=None, keepdims=False):
        return _ops().max(self, axis=axis, keepdims=keepdims)

    def mean(self, axis=None, keepdims=False):
        return _ops().mean(self, axis=axis, keepdims=keepdims)

    def astype(self, dtype: str):
        return _ops().cast(self, dtype)

    def __getitem__(self, index):
        return _ops().getitem(self, index)


def _ops():
    from . import ops

    return ops
