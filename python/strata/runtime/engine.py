"""JIT-compiled functions called on numpy arrays through MLIR's ExecutionEngine.

Compiled functions take their results as out-params (see strata-bufferize), so
the caller allocates every output as a fresh numpy array and nothing returned
by compiled code ever needs freeing. Calls go through the packed C interface
(``_mlir_ciface_<name>``) with a cached function pointer and cached memref
descriptors; only data pointers change between calls.
"""

from __future__ import annotations

import ctypes
import os
from functools import cache

import numpy as np
from mlir import ir
from mlir.execution_engine import ExecutionEngine

__all__ = ["Engine", "Kernel", "runtime_library", "descriptor_class"]


def runtime_library(name: str) -> str:
    """Path of a runtime library shipped with the installed MLIR package."""
    return os.path.join(os.path.dirname(ir.__file__), "lib", name)


@cache
def descriptor_class(rank: int):
    """The ctypes struct of a ranked memref descriptor of ``rank``."""
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})


@cache
def load_async_runtime() -> None:
    """Loads MLIR's async runtime (the thread pool of threaded code) into the process.

    Loaded globally rather than through ``shared_libs``: an ExecutionEngine given
    it there tears the process-wide runtime down when the engine is freed, and
    every other compiled function using it would then crash.
    """
    ctypes.CDLL(runtime_library("libmlir_async_runtime.so"), mode=ctypes.RTLD_GLOBAL)


class Engine:
    """An ExecutionEngine over a module lowered to the LLVM dialect."""

    def __init__(self, module: ir.Module, opt_level: int = 3, shared_libs=()):
        load_async_runtime()
        libs = [runtime_library("libmlir_c_runner_utils.so")] + list(shared_libs)
        self.engine = ExecutionEngine(module, opt_level=opt_level, shared_libs=libs)

    def kernel(self, name: str, shapes: list[tuple[int, ...]]) -> Kernel:
        address = self.engine.raw_lookup("_mlir_ciface_" + name)
        if not address:
            raise RuntimeError(f"compiled module has no function '{name}'")
        return Kernel(self, address, shapes)


class Kernel:
    """One compiled function of fixed argument shapes (inputs, then outputs).

    ``packed``: called through the JIT's packed wrapper ``void(void**)``; else through
    the C interface ``void(desc*, desc*, ...)`` directly (a loaded shared library).
    """

    def __init__(self, owner, address: int, shapes: list[tuple[int, ...]], packed: bool = True):
        self.owner = owner  # keeps the compiled code alive
        self.descs = []
        for shape in shapes:
            desc = descriptor_class(len(shape))()
            strides = np.ones(len(shape), np.int64)
            for i in range(len(shape) - 2, -1, -1):
                strides[i] = strides[i + 1] * max(shape[i + 1], 1)
            for i, s in enumerate(shape):
                desc.sizes[i] = s
                desc.strides[i] = int(strides[i])
            self.descs.append(desc)
        addresses = [ctypes.addressof(d) for d in self.descs]
        if packed:
            self.cells = [ctypes.c_void_p(a) for a in addresses]
            packed_args = (ctypes.c_void_p * len(self.cells))(
                *[ctypes.addressof(c) for c in self.cells])
            self.fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)
            self.args = (packed_args,)
        else:
            self.fn = ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * len(addresses)))(address)
            self.args = tuple(addresses)

    def __call__(self, arrays: list[np.ndarray]) -> None:
        """Runs on C-contiguous ``arrays`` of exactly the shapes given at construction."""
        for desc, a in zip(self.descs, arrays, strict=True):
            ptr = a.ctypes.data
            desc.allocated = ptr
            desc.aligned = ptr
        self.fn(*self.args)

    def call_pointers(self, pointers: list[int]) -> None:
        """Runs on buffers given by address (device memory, say), shapes as constructed."""
        for desc, ptr in zip(self.descs, pointers, strict=True):
            desc.allocated = ptr
            desc.aligned = ptr
        self.fn(*self.args)
