"""Which runtime runs compiled code's parallel loops: LLVM's OpenMP runtime or MLIR's async one.

strata-lower-to-llvm turns each parallel loop into an OpenMP parallel region
(``thread-runtime=omp``: calls into libomp) or into tasks of MLIR's async runtime
(``async``). libomp's workers spin for a while (``KMP_BLOCKTIME``, 200 ms by
default) after a region before they sleep, while the async runtime's sleep at once;
waking a sleeping thread costs ~55 us on the 2-vCPU machines strata is measured on,
so a 256^3 matmul (three parallel loops per call) ran slower on two threads than on
one with the async runtime, and 1.8x faster with OpenMP.

libomp is not a Python package: it comes from the system (Debian's ``libomp5``).
The runtime uses ``omp`` where it finds the library and ``async`` otherwise;
``STRATA_THREAD_RUNTIME=omp|async`` chooses (``omp`` without the library is an
error), and ``STRATA_OPENMP_LIBRARY`` names the library's path. The choice is part
of every threaded compile's cache key.
"""

from __future__ import annotations

import ctypes
import glob
import os
from functools import cache

from ..errors import StrataError

__all__ = ["THREAD_RUNTIMES", "openmp_library", "thread_runtime", "load_openmp",
           "OPENMP_LIBRARY_NAMES"]

THREAD_RUNTIMES = ("omp", "async")  # as strata-lower-to-llvm's thread-runtime option
OPENMP_LIBRARY_NAMES = ("libomp.so.5", "libomp.so")
_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
         "/usr/local/lib")


@cache
def openmp_library() -> str | None:
    """The path of LLVM's OpenMP runtime library, or None where none is installed.

    Looks in the usual library folders and LLVM's own (``/usr/lib/llvm-*/lib``)
    rather than asking ``ctypes.util.find_library`` (which runs ldconfig or a
    compiler: tens of milliseconds)."""
    named = os.environ.get("STRATA_OPENMP_LIBRARY", "")
    if named:
        return named if os.path.isfile(named) else None
    dirs = list(_DIRS) + sorted(glob.glob("/usr/lib/llvm-*/lib"), reverse=True)
    for d in dirs:
        for name in OPENMP_LIBRARY_NAMES:
            path = os.path.join(d, name)
            if os.path.isfile(path):
                return os.path.realpath(path)
    return None


def thread_runtime() -> str:
    """``omp`` or ``async``: what runs this process's compiled parallel loops (see above)."""
    asked = os.environ.get("STRATA_THREAD_RUNTIME", "")
    if asked and asked not in THREAD_RUNTIMES:
        raise StrataError(f"STRATA_THREAD_RUNTIME={asked!r}: expected one of "
                          f"{', '.join(THREAD_RUNTIMES)}", location="<environment>")
    if asked == "omp" and openmp_library() is None:
        raise StrataError("STRATA_THREAD_RUNTIME=omp, but LLVM's OpenMP runtime (libomp) is "
                          "not installed (Debian: apt-get install libomp5; or set "
                          "STRATA_OPENMP_LIBRARY to its path)", location="<environment>")
    if asked:
        return asked
    return "omp" if openmp_library() is not None else "async"


@cache
def load_openmp() -> str:
    """Loads libomp into the process for good, its symbols global (the JIT resolves the
    ``__kmpc_*`` calls of compiled code against them); returns its path."""
    path = openmp_library()
    if path is None:
        raise StrataError("compiled code calls LLVM's OpenMP runtime (libomp), which is not "
                          "installed (Debian: apt-get install libomp5)", location="<runtime>")
    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    return path
