"""The BLAS that compiled code may call: the OpenBLAS numpy ships, found and linked.

numpy's wheels carry OpenBLAS as ``numpy.libs/libscipy_openblas64_-<hash>.so``
(64-bit integers, every symbol prefixed ``scipy_``); strata-blas makes compiled
code call its ``scipy_cblas_sgemm64_`` (passes/blas.py). This module finds that
library and says how each way of running code resolves the symbols:

* JIT (``runtime/engine.py``): the ExecutionEngine gets the library in its
  ``shared_libs`` (it is already mapped into the process by numpy, so nothing
  is loaded twice; OpenBLAS has no ``__mlir_execution_engine_destroy`` hook, so
  freeing an engine leaves it alone).
* AOT (``runtime/aot.py``: the disk cache, ``strata.export_library``): the
  shared library is linked against it with an rpath to its folder, so the
  dynamic loader finds it wherever the library is loaded from (a DT_NEEDED
  entry on ``libscipy_openblas64_-<hash>.so``).

The library's identity (its file name, whose ``<hash>`` names its contents, and
numpy's version) is part of the disk cache's key. Where numpy has no such
library (a numpy built against another BLAS), ``blas="auto"`` means generated
code only and ``blas="always"`` is an error.
"""

from __future__ import annotations

import ctypes
import glob
import os
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the bindings are imported where they are used
    from mlir import ir

from ..errors import StrataError

__all__ = ["library", "identity", "needs_library", "link_args", "resolve_mode", "MODES"]

MODES = ("auto", "always", "never")


@cache
def library() -> str | None:
    """The path of numpy's OpenBLAS exporting the CBLAS symbols, or None."""
    try:
        import numpy
    except ImportError:  # pragma: no cover - numpy is a dependency
        return None
    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(numpy.__file__))),
                          "numpy.libs")
    for path in sorted(glob.glob(os.path.join(folder, "libscipy_openblas64_*.so*"))):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        if all(hasattr(lib, name) for name in _symbols()):
            return os.path.realpath(path)
    return None


def identity() -> str | None:
    """What names the library's code, for cache keys: file name and numpy's version."""
    path = library()
    if path is None:
        return None
    import numpy

    return f"{os.path.basename(path)} (numpy {numpy.__version__})"


def needs_library(module: ir.Module) -> bool:
    """Whether ``module`` (any level) declares a function of the BLAS library."""
    from ..passes.knobs import BLAS_SYMBOLS as SYMBOLS
    from .symbols import top_level_symbols

    return any(kind in ("func.func", "llvm.func") and name in SYMBOLS
               for kind, name in top_level_symbols(module))


def link_args(module: ir.Module) -> list[str]:
    """Linker arguments for a shared library of ``module``: the BLAS and an rpath to it."""
    if not needs_library(module):
        return []
    path = _required()
    return [path, f"-Wl,-rpath,{os.path.dirname(path)}"]


def _symbols() -> tuple:
    """The library functions compiled code may call (their names live with strata-blas; its
    module imports MLIR, so they are copied here and a test keeps the two equal)."""
    return (SGEMM, "scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_")


SGEMM = "scipy_cblas_sgemm64_"


def _required() -> str:
    path = library()
    if path is None:
        raise StrataError(f"compiled code calls {SGEMM}, but numpy ships no OpenBLAS with it "
                          "here (numpy.libs/libscipy_openblas64_*.so); compile with "
                          "blas='never'", location="<blas>")
    return path


def resolve_mode(blas: str, where: str) -> str:
    """The ``blas`` mode the pipeline gets: ``auto`` becomes ``never`` without the library.

    Raises StrataError for an unknown mode, or ``always`` without the library.
    """
    if blas not in MODES:
        raise StrataError(f"unknown blas mode '{blas}' (modes: {', '.join(MODES)})",
                          location=where)
    if blas == "never" or library() is not None:
        return blas
    if blas == "auto":
        return "never"
    raise StrataError("blas='always' needs the OpenBLAS numpy ships "
                      "(numpy.libs/libscipy_openblas64_*.so), which is not there",
                      location=where)
