"""JIT-compiled functions called on numpy arrays through MLIR's ExecutionEngine.

Compiled functions take their results as out-params (see strata-bufferize), so
the caller allocates every output as a fresh numpy array and nothing returned
by compiled code ever needs freeing. Calls go through the packed C interface
(``_mlir_ciface_<name>``) with a cached function pointer and memref descriptors
cached per thread; only data pointers change between calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the bindings are imported where they are used
    from mlir import ir

import ctypes
import functools
import os
import threading
from functools import cache

import numpy as np

from .symbols import top_level_symbols

__all__ = ["Engine", "Kernel", "address", "runtime_library", "descriptor_class", "set_target",
           "uses_thread_runtime", "thread_runtime_of",
           "load_runtime_libraries", "keep_for_good"]


def runtime_library(name: str) -> str:
    """Path of a runtime library shipped with the installed MLIR package (found without
    importing the bindings)."""
    return os.path.join(_mlir_root(), "lib", name)


@cache
def _mlir_root() -> str:
    import importlib.util

    return list(importlib.util.find_spec("mlir").submodule_search_locations)[0]


@cache
def descriptor_class(rank: int):
    """The ctypes struct of a ranked memref descriptor of ``rank``."""
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})


@cache
def load_runtime_libraries() -> None:
    """Loads MLIR's runtime libraries into the process for good.

    The async runtime (the thread pool of threaded code) is loaded globally rather
    than through an ExecutionEngine's ``shared_libs``: an engine given it there tears
    the process-wide runtime down when the engine is freed, and every other compiled
    function using it would then crash. Likewise a shared library of compiled code
    that is closed must not take its runtime libraries with it.
    """
    for name in ("libmlir_c_runner_utils.so", "libmlir_async_runtime.so"):
        ctypes.CDLL(runtime_library(name), mode=ctypes.RTLD_GLOBAL)


def thread_runtime_of(module: ir.Module) -> str | None:
    """What runs LLVM-dialect ``module``'s parallel loops: ``omp`` (it calls libomp),
    ``async`` (MLIR's async runtime), or None (it is not threaded).

    Both compile roads (the JIT, the disk cache's library) ask it of each threaded
    module, so async code made for want of libomp is reported here, once per process
    (runtime/openmp.py's ``note_fallback``)."""
    names = [name for kind, name in top_level_symbols(module) if kind == "llvm.func"]
    if any(name.startswith("mlirAsyncRuntime") for name in names):
        from .openmp import note_fallback

        note_fallback()
        return "async"
    from mlir import ir

    found = []

    def visit(op):  # OpenMP's calls are made only when the omp ops are translated
        if op.name.startswith("omp."):
            found.append(op.name)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return "omp" if found else None


def uses_thread_runtime(module: ir.Module) -> bool:
    """Whether LLVM-dialect ``module`` is threaded code (calls a thread runtime)."""
    return thread_runtime_of(module) is not None


# Threaded code is never unloaded: after a call returns, a worker thread of the
# async runtime may still be running the tail of one of its tasks (the code after
# it signalled completion), so freeing the code could pull it from under the worker.
_KEPT_FOR_GOOD: list = []


def set_target(module: ir.Module) -> None:
    """Gives every function defined in LLVM-dialect ``module`` the forced target CPU and
    features (``STRATA_CPU_FEATURES``, see codegen/host.py), which LLVM uses instead of the
    host's; does nothing when none is forced."""
    from ..codegen.host import llvm_target

    target = llvm_target()
    if target is None:
        return
    from mlir import ir

    cpu, features = target
    with module.context:
        cpu_attr = ir.StringAttr.get(cpu)
        words = ", ".join(f'"{f}"' for f in features.split(",") if f)
        features_attr = ir.Attribute.parse(f"#llvm.target_features<[{words}]>")
        for op in module.body.operations:
            if op.operation.name == "llvm.func" and op.operation.regions[0].blocks:
                op.operation.attributes["target_cpu"] = cpu_attr
                op.operation.attributes["target_features"] = features_attr


def capped_opt_level(module: ir.Module, opt_level: int) -> int:
    """``opt_level``, lowered to the module's ``strata.max_opt_level`` if it has one (set
    by strata-fuse where LLVM's -O3 costs seconds and gains nothing over -O2)."""
    from mlir import ir

    from ..passes.knobs import OPT_LEVEL_CAP

    attrs = module.operation.attributes
    if OPT_LEVEL_CAP in attrs:
        return min(opt_level, ir.IntegerAttr(attrs[OPT_LEVEL_CAP]).value)
    return opt_level


class Engine:
    """An ExecutionEngine over a module lowered to the LLVM dialect.

    Its code is freed with it, unless it is threaded (see ``_KEPT_FOR_GOOD``).
    """

    def __init__(self, module: ir.Module, opt_level: int = 3, shared_libs=()):
        from mlir.execution_engine import ExecutionEngine

        load_runtime_libraries()
        libs = [runtime_library("libmlir_c_runner_utils.so")] + list(shared_libs)
        from .blas import link_args

        libs += link_args(module)[:1]  # numpy's OpenBLAS, when the code calls it (strata-blas)
        runtime = thread_runtime_of(module)
        if runtime == "omp":
            from .openmp import load_openmp

            load_openmp()  # global: the JIT resolves the __kmpc_* calls against it
        threaded = runtime is not None
        set_target(module)
        self.engine = ExecutionEngine(module, opt_level=capped_opt_level(module, opt_level),
                                      shared_libs=libs)
        if threaded:
            keep_for_good(self.engine)

    def kernel(self, name: str, shapes: list[tuple[int, ...]]) -> Kernel:
        address = self.engine.raw_lookup("_mlir_ciface_" + name)
        if not address:
            raise RuntimeError(f"compiled module has no function '{name}'")
        return Kernel(self, address, shapes)


_char_at = ctypes.c_char.from_buffer


def address(a: np.ndarray) -> int:
    """The data address of a C-contiguous array (5x cheaper than ``a.ctypes.data`` for a
    writable, non-empty one)."""
    try:
        return ctypes.addressof(_char_at(a))
    except (TypeError, ValueError):  # read-only or empty
        return a.ctypes.data


def _set_shape(desc, shape) -> None:
    """Sizes and row-major strides of a memref descriptor."""
    stride = 1
    for i in range(len(shape) - 1, -1, -1):
        desc.sizes[i] = shape[i]
        desc.strides[i] = stride
        stride *= max(shape[i], 1)


class _CallState:
    """One thread's memref descriptors and packed argument array for a kernel."""

    def __init__(self, shapes, packed: bool):
        self.descs = []
        for shape in shapes:
            desc = descriptor_class(len(shape))()
            _set_shape(desc, [d or 0 for d in shape])  # a dynamic dim is set per call
            self.descs.append(desc)
        addresses = [ctypes.addressof(d) for d in self.descs]
        if packed:
            self.cells = [ctypes.c_void_p(a) for a in addresses]
            packed_args = (ctypes.c_void_p * len(self.cells))(
                *[ctypes.addressof(c) for c in self.cells])
            self.args = (packed_args,)
        else:
            self.args = tuple(addresses)


class Kernel:
    """One compiled function of fixed argument shapes (inputs, then outputs).

    ``packed``: called through the JIT's packed wrapper ``void(void**)``; else through
    the C interface ``void(desc*, desc*, ...)`` directly (a loaded shared library).

    Calls are reentrant: each thread fills descriptors of its own (made on its first
    call), so one kernel can run on several threads at once while ctypes releases
    the GIL for the duration of the call.
    """

    def __init__(self, owner, address: int, shapes: list[tuple[int, ...]], packed: bool = True):
        self.owner = owner  # keeps the compiled code alive
        self.shapes = [tuple(s) for s in shapes]
        self.packed = packed
        if packed:
            self.fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)
        else:
            self.fn = ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * len(shapes)))(address)
        self._local = threading.local()

    def _state(self) -> _CallState:
        state = getattr(self._local, "state", None)
        if state is None:
            state = self._local.state = _CallState(self.shapes, self.packed)
            state.call = functools.partial(self.fn, *state.args)
        return state

    def thread_state(self):
        """``(descriptors, call)``: this thread's memref descriptors (inputs, outputs, then
        the workspace) and a callable running the kernel on what they hold."""
        state = getattr(self._local, "state", None)
        if state is None:
            state = self._state()
        return state.descs, state.call

    def __call__(self, arrays: list[np.ndarray]) -> None:
        """Runs on C-contiguous ``arrays`` of exactly the shapes given at construction."""
        self.call_pointers([address(a) for a in arrays])

    def call_shaped(self, pointers: list[int], shapes: list[tuple[int, ...]]) -> None:
        """Runs on buffers of the given shapes (a function compiled with dynamic dims)."""
        state = self._state()
        for desc, ptr, shape in zip(state.descs, pointers, shapes, strict=True):
            desc.allocated = ptr
            desc.aligned = ptr
            _set_shape(desc, shape)
        self.fn(*state.args)

    def call_pointers(self, pointers: list[int]) -> None:
        """Runs on buffers given by address (device memory, say), shapes as constructed."""
        state = self._state()
        for desc, ptr in zip(state.descs, pointers, strict=True):
            desc.allocated = ptr
            desc.aligned = ptr
        self.fn(*state.args)


def keep_for_good(owner) -> None:
    """Keeps ``owner`` (compiled threaded code) alive until the process ends."""
    _KEPT_FOR_GOOD.append(owner)
