"""Which runtime runs compiled code's parallel loops: LLVM's OpenMP runtime or MLIR's async one.

strata-lower-to-llvm turns each parallel loop into an OpenMP parallel region
(``thread-runtime=omp``: calls into libomp) or into tasks of MLIR's async runtime
(``async``). libomp's workers spin for a while (``KMP_BLOCKTIME``, 200 ms by
default) after a region before they sleep, while the async runtime's sleep at once;
waking a sleeping thread costs ~55 us on the 2-vCPU machines strata is measured on,
so a 256^3 matmul (three parallel loops per call) ran slower on two threads than on
one with the async runtime, and 1.8x faster with OpenMP.

Where libomp comes from, first found first:

1. ``STRATA_OPENMP_LIBRARY``, a path (a missing file means no libomp);
2. the PyPI wheel ``cmeel-libomp`` (LLVM's libomp, in site-packages'
   ``cmeel.prefix/lib``), a dependency of strata on x86_64 and aarch64 Linux, so
   ``pip install`` alone brings it and every install runs the same pinned runtime;
3. the system's (Debian's ``libomp5``, LLVM's own folders).

The runtime uses ``omp`` where it finds the library and ``async`` otherwise; when
threaded code is compiled for ``async`` for that reason, it says so once per process
(a ``StrataPerformanceWarning``, ``note_fallback``). ``STRATA_THREAD_RUNTIME=omp|async``
chooses (``omp`` without the library is an error). The choice is part of every
threaded compile's cache key.
"""

from __future__ import annotations

import ctypes
import glob
import os
import sys
import sysconfig
import warnings
from functools import cache

from .. import settings
from ..errors import StrataError

__all__ = ["THREAD_RUNTIMES", "openmp_library", "wheel_library", "system_library",
           "thread_runtime", "fell_back", "note_fallback", "load_openmp",
           "OPENMP_LIBRARY_NAMES", "OPENMP_WHEEL"]

THREAD_RUNTIMES = ("omp", "async")  # as strata-lower-to-llvm's thread-runtime option
OPENMP_LIBRARY_NAMES = ("libomp.so.5", "libomp.so")
OPENMP_WHEEL = "cmeel-libomp==21.1.8"  # as pinned in pyproject.toml
_WHEEL_FILE = os.path.join("cmeel.prefix", "lib", "libomp.so")
_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
         "/usr/local/lib")
_HOW_TO_GET = (f"pip install '{OPENMP_WHEEL}' (a strata dependency on x86_64 and aarch64 "
               "Linux), or the system's (Debian: apt-get install libomp5), or set "
               "STRATA_OPENMP_LIBRARY to its path")


@cache
def openmp_library() -> str | None:
    """The path of LLVM's OpenMP runtime library, or None where none is found (the
    order is in the module's docstring)."""
    named = settings.get("STRATA_OPENMP_LIBRARY")
    if named:
        return named if os.path.isfile(named) else None
    return wheel_library() or system_library()


def wheel_library() -> str | None:
    """libomp of the ``cmeel-libomp`` wheel where it is installed: in one of the
    interpreter's site folders or another ``sys.path`` entry (a ``--target`` install).

    Looks for the file rather than asking ``importlib.metadata`` (which reads every
    installed distribution's metadata: milliseconds)."""
    folders = [sysconfig.get_path("platlib"), sysconfig.get_path("purelib")] + sys.path
    for folder in dict.fromkeys(f for f in folders if f):
        path = os.path.join(folder, _WHEEL_FILE)
        if os.path.isfile(path):
            return os.path.realpath(path)
    return None


def system_library() -> str | None:
    """The system's libomp, or None.

    Looks in the usual library folders and LLVM's own (``/usr/lib/llvm-*/lib``)
    rather than asking ``ctypes.util.find_library`` (which runs ldconfig or a
    compiler: tens of milliseconds)."""
    dirs = list(_DIRS) + sorted(glob.glob("/usr/lib/llvm-*/lib"), reverse=True)
    for d in dirs:
        for name in OPENMP_LIBRARY_NAMES:
            path = os.path.join(d, name)
            if os.path.isfile(path):
                return os.path.realpath(path)
    return None


def thread_runtime() -> str:
    """``omp`` or ``async``: what runs this process's compiled parallel loops (see above)."""
    asked = settings.get("STRATA_THREAD_RUNTIME")
    if asked == "omp" and openmp_library() is None:
        raise StrataError("STRATA_THREAD_RUNTIME=omp, but LLVM's OpenMP runtime (libomp) was "
                          f"not found: {_HOW_TO_GET}", location="<environment>")
    if asked:
        return asked
    return "omp" if openmp_library() is not None else "async"


def fell_back() -> bool:
    """Whether this process runs parallel loops on MLIR's async runtime for want of
    libomp (rather than because ``STRATA_THREAD_RUNTIME`` asked for it)."""
    return settings.raw("STRATA_THREAD_RUNTIME") is None and openmp_library() is None


def note_fallback() -> None:
    """Called where threaded code for the async runtime is compiled: says once per
    process that it runs there for want of libomp (nothing when it was asked for)."""
    if fell_back():
        _warn_fallback()


@cache
def _warn_fallback() -> None:
    from .performance import StrataPerformanceWarning

    warnings.warn("strata: LLVM's OpenMP runtime (libomp) was not found, so threaded code "
                  "runs its parallel loops on MLIR's async runtime, whose sleeping workers "
                  "are slower to wake (a small threaded matmul can run no faster than on one "
                  f"thread). To use libomp: {_HOW_TO_GET}. STRATA_THREAD_RUNTIME=async "
                  "chooses the async runtime without this warning.",
                  StrataPerformanceWarning, stacklevel=2)


@cache
def load_openmp() -> str:
    """Loads libomp into the process for good, its symbols global (the JIT resolves the
    ``__kmpc_*`` calls of compiled code against them); returns its path."""
    path = openmp_library()
    if path is None:
        raise StrataError("compiled code calls LLVM's OpenMP runtime (libomp: it was lowered "
                          f"with thread-runtime=omp), which was not found: {_HOW_TO_GET}; or "
                          "lower it with thread-runtime=async (MLIR's async runtime, which "
                          "strata ships)", location="<runtime>")
    try:
        ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError as e:
        raise StrataError(f"cannot load LLVM's OpenMP runtime {path}: {e}",
                          location="<runtime>") from e
    return path
