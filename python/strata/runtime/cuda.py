"""Compiling and running strata programs on an NVIDIA GPU (CUDA driver via MLIR's runtime).

    ok, reason = strata.runtime.cuda.cuda_available()
    prog = compile_cuda(module)             # strata-gpu: kernels to a cubin, host code to LLVM
    prog.ir, prog.gpu_binary_ir, prog.ptx() # inspectable on any machine
    y = prog(x, w)                          # needs a CUDA device; StrataError otherwise

Calls check their arrays like the CPU Program (dtype, rank, static dims), then
copy inputs to device memory, launch the kernels and copy the results back
into fresh numpy arrays (the compiled host code does the copies; the program
does not keep buffers on the device between calls).

The device check comes first: MLIR's CUDA runtime library needs the driver
(libcuda.so.1), and loading it without one aborts the process, so an
ExecutionEngine is only built once ``cuda_available()`` said yes.
"""

from __future__ import annotations

import ctypes
import functools
import time

from mlir import ir

from ..errors import StrataError
from ..frontend.locations import location_text
from ..frontend.module import Module, trace
from ..pipelines.runner import run_pipeline
from .api import (
    CompiledFunction,
    ProgramBase,
    _clone,
    _keep_only,
    _widen_bool_results,
    parse,
)
from .engine import Engine, runtime_library

__all__ = ["cuda_available", "compile_cuda", "CudaProgram", "cuda_runtime_library"]

_CC_MAJOR, _CC_MINOR = 75, 76  # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_{MAJOR,MINOR}


@functools.cache
def cuda_available() -> tuple[bool, str]:
    """``(True, "sm_90: <n> device(s)")`` when a CUDA device answers, else ``(False, why)``."""
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        return False, f"the CUDA driver library libcuda.so.1 cannot be loaded ({e})"
    rc = cu.cuInit(0)
    if rc != 0:
        what = {100: "CUDA_ERROR_NO_DEVICE", 999: "CUDA_ERROR_UNKNOWN"}.get(rc, f"CUresult {rc}")
        return False, f"cuInit failed with {what}"
    n = ctypes.c_int(0)
    rc = cu.cuDeviceGetCount(ctypes.byref(n))
    if rc != 0:
        return False, f"cuDeviceGetCount failed with CUresult {rc}"
    if n.value == 0:
        return False, "the driver reports 0 CUDA devices"
    dev = ctypes.c_int(0)
    cu.cuDeviceGet(ctypes.byref(dev), 0)
    major, minor = ctypes.c_int(0), ctypes.c_int(0)
    cu.cuDeviceGetAttribute(ctypes.byref(major), _CC_MAJOR, dev)
    cu.cuDeviceGetAttribute(ctypes.byref(minor), _CC_MINOR, dev)
    return True, f"sm_{major.value}{minor.value}: {n.value} device(s)"


def device_chip() -> str | None:
    """``sm_XY`` of device 0, or None without a device."""
    ok, reason = cuda_available()
    return reason.split(":")[0] if ok else None


def cuda_runtime_library() -> str:
    return runtime_library("libmlir_cuda_runtime.so")


def gpu_binaries(module: ir.Module) -> list[tuple[str, int, bytes]]:
    """``(symbol, format, object bytes)`` of every gpu.binary object in ``module``."""
    from mlir.dialects import gpu

    out = []
    for op in module.body.operations:
        if op.operation.name == "gpu.binary":
            name = ir.StringAttr(op.attributes["sym_name"]).value
            for a in ir.ArrayAttr(op.attributes["objects"]):
                o = gpu.ObjectAttr(a)
                out.append((name, o.format, bytes(o.object)))
    return out


class _GpuFunction:
    """One function lowered by strata-gpu for one signature; runs once a device exists."""

    def __init__(self, name, arg_specs, result_specs, module, bool_results, opt_level):
        self.name = name
        self.arg_specs = arg_specs
        self.result_specs = result_specs
        self.module = module
        self.bool_results = bool_results
        self.opt_level = opt_level
        self.ir = str(module)
        self._compiled = None

    @property
    def gpu_binary_ir(self) -> str:
        return "\n".join(str(op) for op in self.module.body.operations
                         if op.operation.name == "gpu.binary")

    def run(self, arrays):
        ok, reason = cuda_available()
        if not ok:
            raise StrataError(f"{self.name}: cannot run on the GPU: no CUDA device: {reason}",
                              location=location_text(),
                              hint="the program compiled; its IR is in .ir / .gpu_binary_ir")
        if self._compiled is None:
            engine = Engine(self.module, opt_level=self.opt_level,
                            shared_libs=[cuda_runtime_library()])
            kernel = engine.kernel(self.name, [tuple(s) for s, _ in self.arg_specs] +
                                   [tuple(s) for s, _ in self.result_specs])
            self._compiled = CompiledFunction(self.name, self.arg_specs, self.result_specs,
                                              kernel, self.bool_results)
        return self._compiled.run(arrays)


class CudaProgram(ProgramBase):
    """The callable result of compile_cuda: one entry per function, run on the GPU."""

    def __init__(self, module: Module | ir.Module, *, chip: str = "sm_90",
                 features: str = "+ptx80", format: str = "bin",  # noqa: A002
                 opt_level: int = 3, fusion: bool = True):
        super().__init__(module)
        self.chip, self.features, self.format = chip, features, format
        self.opt_level = opt_level
        self.fusion = fusion
        # Functions with static signatures compile now (no device needed).
        for fname, (specs, _) in self._signatures.items():
            if all(None not in s for s, _ in specs):
                self._get(fname, [(tuple(s), d) for s, d in specs])

    def pipeline(self, format: str | None = None) -> str:  # noqa: A002
        return (f"builtin.module(strata-gpu{{chip={self.chip} features={self.features} "
                f"format={format or self.format} opt-level={self.opt_level} "
                f"fusion={str(self.fusion).lower()}}})")

    def _compiled_all(self):
        return list(self._cache.values())

    @property
    def ir(self) -> str:
        """The lowered module(s): LLVM dialect host code + gpu.binary, one per compiled function."""
        return "\n".join(f.ir for f in self._compiled_all())

    @property
    def gpu_binary_ir(self) -> str:
        """The gpu.binary ops (kernels as cubin or PTX) of the compiled functions."""
        return "\n".join(f.gpu_binary_ir for f in self._compiled_all())

    def ptx(self, fname: str | None = None) -> dict[str, str]:
        """The PTX of each kernel module (compiled again with format=isa)."""
        out = {}
        for f in self._compiled_all():
            if fname is not None and f.name != fname:
                continue
            module = self._lower(f.name, f.arg_specs, format="isa")[0]
            for name, _, data in gpu_binaries(module):
                out[name] = data.decode()
        return out

    def _get(self, fname, arg_specs):
        key = (fname, tuple(tuple(s) for s, _ in arg_specs))
        fn = self._cache.get(key)
        if fn is None:
            start = time.perf_counter()
            module, result_specs, bools = self._lower(fname, arg_specs)
            fn = _GpuFunction(fname, arg_specs, result_specs, module, bools, self.opt_level)
            self._cache[key] = fn
            elapsed = time.perf_counter() - start
            self.stats.compiles += 1
            self.stats.compile_seconds += elapsed
            self.stats.specializations.append((fname, [tuple(s) for s, _ in arg_specs], elapsed))
        return fn

    def _lower(self, fname, arg_specs, format=None):  # noqa: A002
        from .specialize import specialize_function

        module = _clone(self.module)
        specialize_function(module.operation, fname, arg_specs)
        _keep_only(module, fname)
        bools = _widen_bool_results(module, fname)
        result_specs = _keep_only(module, fname)
        with module.context:
            for op in module.body.operations:
                if op.operation.name == "func.func":
                    op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        run_pipeline(module.operation, self.pipeline(format))
        return module, result_specs, bools


def compile_cuda(fn_or_module, *examples, chip: str = "sm_90", features: str = "+ptx80",
                 format: str = "bin", opt_level: int = 3, fusion: bool = True) -> CudaProgram:  # noqa: A002
    """Compiles a strata.Module, .mlir text or a Python function (with examples) for the GPU."""
    if callable(fn_or_module) and not isinstance(fn_or_module, Module):
        if not examples:
            raise StrataError("compile_cuda needs example arguments to trace a Python function",
                              location=location_text())
        module = trace(fn_or_module, *examples)
    elif isinstance(fn_or_module, str):
        module = parse(fn_or_module)
    else:
        module = fn_or_module
    return CudaProgram(module, chip=chip, features=features, format=format,
                       opt_level=opt_level, fusion=fusion)

