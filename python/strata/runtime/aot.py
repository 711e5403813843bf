"""Ahead-of-time compilation: the LLVM dialect to a shared library, and loading one back.

    LLVM dialect --mlir-translate--> LLVM IR --opt -O3--> --llc -O3 (PIC)--> object
                 --cc -shared (+ libmlir_c_runner_utils, libmlir_async_runtime
                               [+ numpy's OpenBLAS, when strata-blas made calls to it])--> lib.so
                 --ctypes--> Kernel

Used by the on-disk cache (runtime/cache.py) and by :func:`strata.export_library`.
Functions are called through their C interface ``_mlir_ciface_<name>(desc*, ...)``
with the same memref descriptors the JIT path uses. ``cpu`` is LLVM's CPU name
(``native``: this machine's, as the JIT does, or the set forced by
``STRATA_CPU_FEATURES``: codegen/host.py).
"""

from __future__ import annotations

import _ctypes
import ctypes
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

from mlir import ir

from ..errors import StrataError
from .engine import Kernel, keep_for_good, load_runtime_libraries, runtime_library

__all__ = ["available", "build_shared_library", "SharedLibrary", "host_cpu"]


def _bin(package: str, tool: str) -> str:
    root = list(importlib.util.find_spec(package).submodule_search_locations)[0]
    return os.path.join(root, "bin", tool)


def _linker() -> str | None:
    return shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")


def available() -> bool:
    """Whether a system C compiler driver is there to link shared libraries."""
    return _linker() is not None


_LLC_VERSION = None


def _llc_field(name: str, default: str) -> str:
    """A field of ``llc --version`` (read once), e.g. "Host CPU" or "Default target"."""
    global _LLC_VERSION
    if _LLC_VERSION is None:
        _LLC_VERSION = subprocess.run([_bin("llvm", "llc"), "--version"], capture_output=True,
                                      text=True).stdout
    return next((line.split(":", 1)[1].strip() for line in _LLC_VERSION.splitlines()
                 if name in line), default)


def host_cpu() -> str:
    """LLVM's name for this machine's CPU."""
    return _llc_field("Host CPU", "unknown")


def _host_triple() -> str:
    """LLVM's default target triple of this machine."""
    return _llc_field("Default target", "x86_64-unknown-linux-gnu")


def _run(cmd: list[str], what: str) -> None:
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise StrataError(f"{what} failed ({os.path.basename(cmd[0])} exit {p.returncode}): "
                          f"{p.stderr.strip()[:2000]}", location="<aot>")


def build_shared_library(module: ir.Module, out_path: str, *, cpu: str = "native",
                         opt_level: int = 3) -> None:
    """Compiles an LLVM-dialect module into the shared library ``out_path`` (atomically)."""
    linker = _linker()
    if linker is None:
        raise StrataError("no C compiler driver (cc) to link a shared library with",
                          location="<aot>")
    libdir = os.path.dirname(runtime_library("libmlir_c_runner_utils.so"))
    from .blas import link_args

    blas = link_args(module)  # numpy's OpenBLAS and an rpath to it (runtime/blas.py)
    from ..codegen.host import llvm_target

    forced = llvm_target()  # STRATA_CPU_FEATURES (codegen/host.py)
    attrs = []
    if forced is not None and cpu == "native":
        cpu = forced[0]
        attrs = [f"-mattr={forced[1]}"] if forced[1] else []
    out_dir = os.path.dirname(os.path.abspath(out_path))
    with tempfile.TemporaryDirectory(prefix="strata-aot-") as tmp:
        src, ll, bc, obj = (os.path.join(tmp, n) for n in ("m.mlir", "m.ll", "m.bc", "m.o"))
        with open(src, "w") as f:
            f.write(module.operation.get_asm(enable_debug_info=False))
        _run([_bin("mlir", "mlir-translate"), "--mlir-to-llvmir", src, "-o", ll],
             "translating to LLVM IR")
        # The translated module names no target: without the triple, opt's cost model
        # knows no vector registers and the loop vectorizer does nothing.
        triple = f"-mtriple={_host_triple()}"
        _run([_bin("llvm", "opt"), f"-O{opt_level}", triple, f"-mcpu={cpu}", *attrs, ll,
              "-o", bc],
             "optimizing LLVM IR")
        _run([_bin("llvm", "llc"), f"-O{opt_level}", triple, "-relocation-model=pic",
              "-filetype=obj", f"-mcpu={cpu}", *attrs, bc, "-o", obj], "generating machine code")
        fd, tmp_lib = tempfile.mkstemp(prefix=".strata-lib-", suffix=".so", dir=out_dir)
        os.close(fd)
        try:
            _run([linker, "-shared", "-o", tmp_lib, obj, f"-L{libdir}",
                  "-lmlir_c_runner_utils", "-lmlir_async_runtime", f"-Wl,-rpath,{libdir}"] + blas,
                 "linking")
            os.replace(tmp_lib, out_path)
        finally:
            if os.path.exists(tmp_lib):
                os.unlink(tmp_lib)


def _dlclose(handle: int) -> None:
    if sys.is_finalizing():  # the process is ending: the OS unmaps everything
        return
    try:
        _ctypes.dlclose(handle)
    except OSError:  # pragma: no cover - already closed
        pass


class SharedLibrary:
    """A compiled strata library loaded with ctypes; unloaded when no kernel uses it.

    Kernels hold their library (``Kernel.owner``), and a running call holds its
    kernel, so the library is closed only once nothing can call into it. A
    ``threaded`` library (one calling the async runtime) stays loaded for good.
    """

    def __init__(self, path: str, threaded: bool = True):
        # The runtime libraries stay loaded for good: closing the last library that
        # needs the async runtime would unmap it under its running worker threads.
        load_runtime_libraries()
        self.path = path
        self.lib = ctypes.CDLL(path)
        self.closable = not threaded
        if threaded:  # never closed: see engine._KEPT_FOR_GOOD
            keep_for_good(self.lib)

    def __del__(self):
        lib, self.lib = getattr(self, "lib", None), None
        if lib is not None and getattr(self, "closable", False) and _dlclose is not None:
            _dlclose(lib._handle)

    def kernel(self, name: str, shapes: list[tuple[int, ...]]) -> Kernel:
        try:
            fn = getattr(self.lib, "_mlir_ciface_" + name)
        except AttributeError:
            raise StrataError(f"{self.path} has no function '{name}'", location="<aot>") from None
        address = ctypes.cast(fn, ctypes.c_void_p).value
        return Kernel(self, address, shapes, packed=False)
