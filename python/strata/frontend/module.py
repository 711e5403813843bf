"""The explicit builder API (Module, Function) and tracing of Python functions.

    m = strata.Module()
    f = m.function("mlp", x=strata.TensorSpec((32, 64)), w=strata.TensorSpec((64, 16)))
    x, w = f.args
    f.ret(strata.relu(x @ w))
    print(m)                     # strata dialect IR, each op located at its Python line

Tracing builds the same thing from a Python function over Tensor proxies:

    m = strata.trace(lambda x, w: strata.relu(x @ w), np.ones((32, 64), "f32"), ...)
"""

from __future__ import annotations

import contextlib
import inspect

from mlir import ir
from mlir.dialects import func

from ..context import new_context
from ..dialect.types import tensor_type
from ..dialect.verifier import check_module
from ..errors import StrataError
from . import bitwise, ops  # noqa: F401 - bitwise: Tensor's operators call it
from .locations import location_text, source_location, user_location
from .record import Record
from .scopes import SCOPES as _SCOPES
from .scopes import current_scope, return_traced, spec_of
from .tensor import Tensor, TensorSpec

__all__ = ["Module", "Function", "trace", "replay", "current_scope", "spec_of"]

class Function:
    """A func.func of strata ops under construction; ``args`` are its Tensor arguments.

    ``record`` writes down each op built (frontend/record.py): its digest names the
    function's IR without printing it."""

    recording = False

    def __init__(self, module: Module, name: str, specs: dict[str, TensorSpec]):
        self.module = module
        self.context = module.context
        self.name = name
        self.closed = False
        loc = user_location_in(self.context)
        with self.context, loc:
            arg_types = [tensor_type(s.shape, s.dtype) for s in specs.values()]
            with ir.InsertionPoint(module.mlir.body):
                self.op = func.FuncOp(name, (arg_types, []))
            self.op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
            block = self.op.add_entry_block(arg_locs=[loc] * len(arg_types))
        self.arg_names = list(specs)
        module.arg_names[name] = self.arg_names
        self.record = module.records[name] = Record(name, specs.values())
        self.insertion_point = ir.InsertionPoint(block)
        self.args = tuple(Tensor(a, self, node=i) for i, a in enumerate(block.arguments))
        _SCOPES.append(self)

    def check_open(self):
        if self.closed:
            raise StrataError(f"function '{self.name}' is already finished (ret() was called)",
                              location=location_text())

    def arg(self, name: str) -> Tensor:
        return self.args[self.arg_names.index(name)]

    def ret(self, *values: Tensor) -> None:
        """Finishes the function, returning ``values``."""
        self.check_open()
        for i, v in enumerate(values):
            if not isinstance(v, Tensor) or v.scope is not self:
                raise StrataError(f"function '{self.name}': result {i} is not a tensor of this "
                                  "function", location=location_text())
        with self.context, user_location():
            with self.insertion_point:
                func.ReturnOp([v.value for v in values])
            arg_types = [a.value.type for a in self.args]
            ftype = ir.FunctionType.get(arg_types, [v.value.type for v in values])
            self.op.attributes["function_type"] = ir.TypeAttr.get(ftype)
        self.record.finish(v.node for v in values)
        self.closed = True
        _SCOPES.remove(self)


def user_location_in(context):
    with context:
        return user_location()


class Module:
    """A module of strata functions, built with :meth:`function` or :func:`trace`."""

    def __init__(self, context: ir.Context | None = None):
        self.context = context or new_context()
        with self.context, ir.Location.unknown():
            self.mlir = ir.Module.create()
        self.arg_names: dict[str, list[str]] = {}  # function -> its Python argument names
        self.records: dict[str, Record] = {}  # function -> what was built (frontend/record.py)

    def function(self, name: str, *specs: TensorSpec, **named: TensorSpec) -> Function:
        """Adds a function with the given argument specs (positional ones are named arg0...)."""
        all_specs = {f"arg{i}": spec_of(s, f"arg{i}") for i, s in enumerate(specs)}
        all_specs.update({k: spec_of(v, k) for k, v in named.items()})
        return Function(self, name, all_specs)

    @property
    def functions(self) -> list[str]:
        return [ir.StringAttr(op.attributes["sym_name"]).value for op in self.mlir.body.operations
                if op.operation.name == "func.func"]

    def verify(self) -> None:
        """Raises StrataError if any op breaks a rule (MLIR's or strata's)."""
        with self.context:
            try:
                self.mlir.operation.verify()
            except ir.MLIRError as err:
                raise StrataError.from_mlir_error(err) from None
        check_module(self.mlir.operation)

    def text(self, debug_info: bool = False) -> str:
        return self.mlir.operation.get_asm(enable_debug_info=debug_info)

    def __str__(self) -> str:
        return str(self.mlir)


def trace(fn, *examples, name: str | None = None, module: Module | None = None) -> Module:
    """Traces ``fn`` over Tensor proxies shaped like ``examples`` into a strata module.

    Each example is a numpy array, a Python scalar (a rank-0 f32 or i32 tensor) or a
    TensorSpec (which may have dynamic dims). ``fn`` returns a Tensor or a tuple of them.

    Numpy arrays that ``fn`` uses without receiving them as arguments (closures,
    globals) become constants holding their values at trace time, as in JAX: later
    writes to them are not seen. A writable one warns once with
    :class:`strata.CapturedArrayWarning`; pass it as an argument, or make it
    read-only (``w.setflags(write=False)``), see ``strata.frontend.captures``.
    Python code that needs a tensor's value (``if``, ``float()``, ``np.asarray``)
    raises :class:`strata.StrataError`: only strata ops are captured.
    """
    params = list(inspect.signature(fn).parameters)
    names = [params[i] if i < len(params) else f"arg{i}" for i in range(len(examples))]
    module = module or Module()
    specs = {n: spec_of(e, n) for n, e in zip(names, examples, strict=True)}
    f = Function(module, name or getattr(fn, "__name__", "main").replace("<lambda>", "main"),
                 specs)
    try:
        return_traced(f, fn(*f.args))
    finally:
        if not f.closed:
            f.closed = True
            _SCOPES.remove(f)
    return module


def replay(recording, module: Module | None = None) -> Module | None:
    """The module :func:`trace` would build, from a recording function's steps
    (frontend/record.py): the same ops, attributes and locations, without running the
    user's function again. None where the steps do not rebuild the recorded trace exactly
    (its digest differs): the caller then traces the function."""
    module = module or Module()
    with _at(recording.position):
        f = Function(module, recording.name, recording.specs)
    values = list(f.args)

    def value(a):
        return values[a.n] if isinstance(a, ops.Node) else a

    try:
        for kind, *what, position in recording.steps:
            with _at(position):
                if kind == "op":
                    op_class, args, attrs = what
                    values.append(ops._emit(f, op_class, *[value(a) for a in args], **attrs))
                elif kind == "splat":
                    values.append(ops._splat(f, *what))
                elif kind == "constant":
                    values.append(ops._constant_in(f, *what))
                else:
                    f.ret(*[values[n] for n in what[0]])
    finally:
        if not f.closed:
            f.closed = True
            _SCOPES.remove(f)
    if module.records[recording.name].digest() != recording.record.digest():
        return None
    return module


def _at(position):
    """Builds located at ``position`` (file, line, col), or at the calling line if None."""
    return source_location(*position) if position else contextlib.nullcontext()

