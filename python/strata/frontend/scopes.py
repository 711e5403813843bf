"""The functions under construction, and example values as TensorSpecs (no MLIR needed).

Shared by tracing into MLIR (frontend/module.py) and recorded traces
(frontend/record.py): ``strata.constant()`` builds into the innermost open one.
"""

from __future__ import annotations

import numpy as np

from ..dialect.types import dtype_of_numpy
from ..errors import StrataError
from .locations import location_text
from .tensor import TensorSpec

__all__ = ["SCOPES", "current_scope", "spec_of", "param_names", "return_traced"]

SCOPES: list = []


def current_scope():
    """The function under construction that was opened most recently."""
    for scope in reversed(SCOPES):
        if not scope.closed:
            return scope
    raise StrataError("no strata function is being built here (constant() needs one, or "
                      "pass like=<tensor>)", location=location_text())


def param_names(fn, n: int) -> list[str]:
    """The names of ``fn``'s first ``n`` parameters (``argI`` past its own), as
    ``inspect.signature`` gives them; a plain function's are read from its code object
    (importing inspect costs a disk-cache hit in a new process several ms)."""
    code = getattr(fn, "__code__", None)
    if type(fn).__name__ == "function" and code is not None and not code.co_kwonlyargcount \
            and not code.co_flags & 0x0C and not hasattr(fn, "__wrapped__") \
            and not hasattr(fn, "__signature__"):  # 0x0C: *args, **kwargs
        params = list(code.co_varnames[:code.co_argcount])
    else:
        import inspect

        params = list(inspect.signature(fn).parameters)
    return [params[i] if i < len(params) else f"arg{i}" for i in range(n)]


def spec_of(value, name: str = "argument") -> TensorSpec:
    """The TensorSpec of an example value: a TensorSpec, a numpy array or a Python scalar."""
    if isinstance(value, TensorSpec):
        return value
    if isinstance(value, bool):
        raise StrataError(f"{name}: bool arguments are not supported", location=location_text())
    if isinstance(value, float):
        return TensorSpec((), "f32")
    if isinstance(value, int):
        return TensorSpec((), "i32")
    if isinstance(value, (np.ndarray, np.generic)):
        dtype = dtype_of_numpy(value.dtype)
        if dtype not in ("f32", "f16", "bf16", "f64", "i32", "i64", "i1"):
            raise StrataError(f"{name}: numpy dtype {value.dtype} is not supported (use "
                              "float32, float16, bfloat16, float64, int32, int64 or bool)",
                              location=location_text())
        return TensorSpec(np.shape(value), dtype)
    raise StrataError(f"{name}: expected a numpy array, a Python scalar or a TensorSpec, got "
                      f"{type(value).__name__}", location=location_text())


def return_traced(f, out) -> None:
    """Returns a traced function's result ``out`` (a Tensor or a tuple of them) from the
    function under construction ``f``; anything else is the user's error."""
    from .tensor import Tensor

    results = out if isinstance(out, tuple) else (out,)
    if not all(isinstance(r, Tensor) for r in results):
        raise StrataError(f"traced function '{f.name}' must return strata tensors, got "
                          f"{', '.join(type(r).__name__ for r in results)}",
                          location=location_text())
    f.ret(*results)
