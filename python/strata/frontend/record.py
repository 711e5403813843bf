"""Recorded traces: what a traced function computes, as plain Python data, without MLIR.

Every op the builders of ``frontend/ops.py`` emit is also written down here, in
order: its kind, its operands (earlier records), its attributes as Python values
and its result type. Tracing into MLIR records as it builds (``Function.record``);
``record_trace`` (frontend/recording.py) runs the same builders with no MLIR at all
(result types from the pure-Python shape rules). The record's :meth:`Record.digest` names the
program: two traces with equal digests build the same strata IR (locations
aside), so the disk cache keys jit variants by it and a cache hit in a new
process never imports the MLIR bindings::

    record_trace(lambda x, w: strata.relu(x @ w), x, w).ops
    # [("matmul", (0, 1), (), (4, 2), "f32"), ("relu", (2,), (), (4, 2), "f32")]

Op classes are named here (:data:`DIALECT`, an ``OpRef`` per class) and resolved
to the generated classes of ``dialects/strata.py`` only when MLIR is built.
"""

from __future__ import annotations

import hashlib
from types import SimpleNamespace

import numpy as np

from ..dialect import shapes as S
from ..dialect.types import numpy_dtype
from ..errors import StrataError
from .locations import location_text, user_position
from .tensor import Tensor

__all__ = ["DIALECT", "OpRef", "Record", "RecordingFunction", "ATTRIBUTES"]

# The attributes each op class takes positionally after its operands, in order (the
# generated builders' order; test_record.py checks this table against them).
ATTRIBUTES = {
    "compare": ("predicate",), "concat": ("axis",), "transpose": ("permutation",),
    "sum": ("axes",), "max": ("axes",), "mean": ("axes",),
    "prod": ("axes",), "min": ("axes",), "argmax": ("axis",), "argmin": ("axis",),
    "argsort": ("axis",),
    "conv3d": ("strides", "padding", "dilations"),
    "max_pool3d": ("kernel", "strides", "padding"),
    "avg_pool3d": ("kernel", "strides", "padding"),
    "slice": ("starts", "limits", "steps"), "gather": ("axis",),
    "conv2d": ("strides", "padding", "dilations", "layout"),
    "max_pool2d": ("kernel", "strides", "padding", "layout"),
    "avg_pool2d": ("kernel", "strides", "padding", "layout"),
    "reshape": ("shape",), "broadcast_to": ("shape",), "cast": ("dtype",),
    "cumsum": ("axis",), "reverse": ("axes",), "pad": ("low", "high"),
    "scatter": ("axis",), "scatter_add": ("axis",),
    "conv_transpose2d": ("strides", "padding", "output_padding", "dilations", "layout"),
}

# The attributes' defaults (the ODS ones, as dialect/verifier.py reads them).
_DEFAULTS = {"keepdims": False, "axis": -1, "epsilon": 1e-5, "approximate": "none",
             "groups": 1, "pad_value": 0.0, "descending": False}


class OpRef:
    """A strata op class by name; :meth:`resolve` imports the generated class."""

    __slots__ = ("class_name", "kind")

    def __init__(self, class_name: str, kind: str):
        self.class_name = class_name
        self.kind = kind

    def resolve(self) -> type:
        from ..dialects import strata

        return strata.op_class("strata." + self.kind)


class _Dialect:
    """``DIALECT.MatmulOp`` and ``DIALECT.op_class("strata.add")``: OpRefs, no import."""

    def __init__(self):
        self._refs: dict[str, OpRef] = {}

    def __getattr__(self, class_name: str) -> OpRef:
        if not class_name.endswith("Op"):
            raise AttributeError(class_name)
        ref = self._refs.get(class_name)
        if ref is None:
            kind = "".join("_" + c.lower() if c.isupper() and i else c.lower()
                           for i, c in enumerate(class_name[:-2]))
            ref = self._refs[class_name] = OpRef(class_name, kind)
        return ref

    def op_class(self, name: str) -> OpRef:
        kind = name.split(".", 1)[1]
        return getattr(self, "".join(p.capitalize() for p in kind.split("_")) + "Op")


DIALECT = _Dialect()


def _canonical(value):
    """An attribute value as hashable, comparable plain data."""
    if isinstance(value, (list, tuple)):
        return tuple(_canonical(v) for v in value)
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return ("float", float(value).hex())
    return value


class _Attrs:
    """Attributes as the verifier's rules read them (``OpAttrs.get``), from Python values."""

    def __init__(self, values: dict):
        self.values = values

    def get(self, name: str):
        value = self.values.get(name)
        if value is None:
            if name not in _DEFAULTS:
                raise S.ShapeError(f"attribute '{name}' is missing")
            return _DEFAULTS[name]
        if isinstance(value, (list, tuple)):
            return [int(v) for v in value]
        return value


def infer(kind: str, operands, attrs: dict):
    """The result ``(shape, dtype)`` of op ``kind`` on Tensors ``operands`` (ShapeError if a
    rule is broken), as the op classes infer it."""
    if kind == "reshape":
        return S.reshape(operands[0].shape, operands[0].dtype, tuple(attrs["shape"]))
    if kind == "broadcast_to":
        return S.broadcast_to(operands[0].shape, operands[0].dtype, tuple(attrs["shape"]))
    if kind == "cast":
        return S.cast(operands[0].shape, operands[0].dtype, attrs["dtype"])
    from ..dialect.verifier import infer as rules

    return rules(kind, [SimpleNamespace(shape=t.shape, dtype=t.dtype) for t in operands],
                 _Attrs(attrs), None)


class Record:
    """One function's ops in order; values are numbered (arguments first)."""

    def __init__(self, name: str, arg_specs):
        self.name = name
        self.args = tuple((tuple(s.shape), s.dtype) for s in arg_specs)
        self.ops: list[tuple] = []
        self.results: tuple = ()
        self._values = len(self.args)

    def add(self, kind: str, operands, attrs, shape, dtype) -> int:
        """Writes down one op; returns its result's number."""
        self.ops.append((kind, tuple(operands), tuple(sorted(
            (k, _canonical(v)) for k, v in attrs.items())), tuple(shape), dtype))
        self._values += 1
        return self._values - 1

    def add_constant(self, array: np.ndarray, dtype: str) -> int:
        """A dense constant: its dtype, shape and a hash of its bytes as ``dtype``."""
        data = np.ascontiguousarray(np.asarray(array).astype(numpy_dtype(dtype)))
        digest = hashlib.sha256(data.view(np.uint8).reshape(-1)).hexdigest()
        return self.add("constant", (), {"data": digest}, data.shape, dtype)

    def add_splat(self, value, dtype: str) -> int:
        """A rank-0 constant of a Python scalar (as ``_splat`` builds it)."""
        return self.add("splat", (), {"value": value}, (), dtype)

    def finish(self, results) -> None:
        self.results = tuple(results)

    def data(self) -> tuple:
        return (self.name, self.args, tuple(self.ops), self.results)

    def digest(self) -> str:
        """A hash of everything recorded: equal digests, equal strata IR."""
        return hashlib.sha256(repr(self.data()).encode()).hexdigest()[:32]

    def result_specs(self) -> list:
        """``[(shape, dtype)]`` of the function's results."""
        specs = list(self.args) + [(op[3], op[4]) for op in self.ops]
        return [specs[i] for i in self.results]


class RecordingFunction:
    """A function under construction that only records (the builders' scope, no MLIR)."""

    recording = True

    def __init__(self, name: str, specs: dict):
        self.name = name
        self.closed = False
        self.arg_names = list(specs)
        self.specs = specs
        self.position = user_position()
        # what the builders did, in order, with the values they were given and the user's
        # line: frontend/module.py's replay() builds the same MLIR from it, so a disk-cache
        # miss compiles without running the user's function a second time
        self.steps: list[tuple] = []
        self.record = Record(name, specs.values())
        self.args = tuple(Tensor(None, self, s.shape, s.dtype, node=i)
                          for i, s in enumerate(specs.values()))

    def check_open(self):
        if self.closed:
            raise StrataError(f"function '{self.name}' is already finished (ret() was called)",
                              location=location_text())

    def ret(self, *values: Tensor) -> None:
        self.check_open()
        for i, v in enumerate(values):
            if not isinstance(v, Tensor) or v.scope is not self:
                raise StrataError(f"function '{self.name}': result {i} is not a tensor of this "
                                  "function", location=location_text())
        self.record.finish(v.node for v in values)
        self.steps.append(("ret", [v.node for v in values], user_position()))
        self.closed = True

    @property
    def finished(self) -> bool:
        """The traced function returned (its steps end with the return)."""
        return bool(self.steps) and self.steps[-1][0] == "ret"

    def step(self, *what) -> None:
        """Notes one builder step (see ``steps``) at the user's current line."""
        self.steps.append((*what, user_position()))
