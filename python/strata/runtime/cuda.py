"""Compiling and running strata programs on an NVIDIA GPU (CUDA driver via MLIR's runtime).

    ok, reason = strata.runtime.cuda.cuda_available()
    prog = compile_cuda(module)             # strata-gpu: kernels to a cubin, host code to LLVM
    prog.ir, prog.gpu_binary_ir, prog.ptx() # inspectable on any machine
    y = prog(x, w)                          # needs a CUDA device; StrataError otherwise

Calls check their arrays like the CPU Program (dtype, rank, static dims). On
numpy arrays the compiled host code copies inputs to device memory, launches
the kernels and copies the results back into fresh numpy arrays. On
DeviceArrays (strata.runtime.device) a variant compiled with
strata-gpu{resident=true} runs on the device buffers as they are and returns
DeviceArrays, so values stay on the device between calls::

    dx = to_device(x)
    y = prog.second(prog.first(dx)).numpy()

The device check comes first: MLIR's CUDA runtime library needs the driver
(libcuda.so.1), and loading it without one aborts the process, so an
ExecutionEngine is only built once ``cuda_available()`` said yes.
"""

from __future__ import annotations

import time

import numpy as np
from mlir import ir

from ..context import new_context
from ..dialect.types import numpy_dtype
from ..errors import StrataError
from ..frontend.locations import location_text
from ..frontend.module import Module, trace
from ..pipelines.runner import run_pipeline
from .compiled import check_argument, coerce_argument
from .device import cuda_available, cuda_runtime_library
from .engine import Engine
from .program import ProgramBase, parse, specialized

__all__ = ["cuda_available", "compile_cuda", "CudaProgram", "cuda_runtime_library"]

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
    """One function lowered by strata-gpu for one signature; runs once a device exists.

    ``resident``: lowered with strata-gpu{resident=true}; runs on DeviceArrays.
    """

    def __init__(self, name, arg_specs, result_specs, module, opt_level, resident=False):
        self.name = name
        self.arg_specs = arg_specs
        self.result_specs = result_specs
        self.module = module
        self.opt_level = opt_level
        self.resident = resident
        self.ir = str(module)
        self._kernel = None

    @property
    def gpu_binary_ir(self) -> str:
        return "\n".join(str(op) for op in self.module.body.operations
                         if op.operation.name == "gpu.binary")

    def _compiled(self):
        ok, reason = cuda_available()
        if not ok:
            raise StrataError(f"{self.name}: cannot run on the GPU: no CUDA device: {reason}",
                              location=location_text(),
                              hint="the program compiled; its IR is in .ir / .gpu_binary_ir")
        from .device import ensure_context

        ensure_context()
        if self._kernel is None:
            engine = Engine(self.module, opt_level=self.opt_level,
                            shared_libs=[cuda_runtime_library()])
            self._kernel = engine.kernel(self.name, [tuple(s) for s, _ in self.arg_specs] +
                                         [tuple(s) for s, _ in self.result_specs])
        return self._kernel

    def run(self, arrays):
        """Host arrays in, host arrays out (the compiled code copies both ways)."""
        kernel = self._compiled()
        outs = [np.empty(s, numpy_dtype(d)) for s, d in self.result_specs]
        kernel(list(arrays) + outs)  # bools are stored as i8 0/1, numpy's layout
        return outs

    def run_resident(self, arrays):
        """DeviceArrays in, new DeviceArrays out; nothing crosses the bus."""
        from .device import DeviceArray

        kernel = self._compiled()
        outs = [DeviceArray(s, numpy_dtype(d)) for s, d in self.result_specs]
        kernel.call_pointers([a.ptr for a in arrays] + [o.ptr for o in outs])
        return outs


class CudaProgram(ProgramBase):
    """The callable result of compile_cuda: one entry per function, run on the GPU.

    Called on numpy arrays it copies them to the device and the results back.
    Called with at least one DeviceArray (strata.runtime.device) it runs a
    variant compiled with resident buffers: numpy arguments are copied to the
    device first, and the results are DeviceArrays that can feed the next call.
    """

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

    def pipeline(self, format: str | None = None, resident: bool = False,  # noqa: A002
                 compile_to: str = "llvm") -> str:
        return (f"builtin.module(strata-gpu{{chip={self.chip} features={self.features} "
                f"format={format or self.format} opt-level={self.opt_level} "
                f"fusion={str(self.fusion).lower()} resident={str(resident).lower()} "
                f"compile-to={compile_to}}})")

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
            if (fname is not None and f.name != fname) or f.resident:
                continue
            module = self._lower(f.name, f.arg_specs, format="isa")[0]
            for name, _, data in gpu_binaries(module):
                out[name] = data.decode()
        return out

    def call(self, fname: str, *args, out=None):
        from .device import DeviceArray, to_device

        if out is not None:
            raise StrataError(f"{fname}: out= is not supported by the cuda target",
                              location=location_text())
        if not any(isinstance(a, DeviceArray) for a in args):
            return super().call(fname, *args)
        specs, names = self._signatures[fname]
        if len(args) != len(specs):
            raise StrataError(f"{fname}: expected {len(specs)} arguments, got {len(args)}",
                              location=location_text())
        arrays = []
        for a, (s, d), n in zip(args, specs, names, strict=True):
            if isinstance(a, DeviceArray):
                check_argument(a.dtype, a.shape, s, d, n, fname, what="device array")
                arrays.append(a)
            else:
                arrays.append(to_device(coerce_argument(a, s, d, n, fname)))
        compiled = self._get(fname, [(a.shape, d) for a, (_, d) in
                                     zip(arrays, specs, strict=True)], resident=True)
        self.stats.calls += 1
        outs = compiled.run_resident(arrays)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _get(self, fname, arg_specs, resident=False):
        key = (fname, tuple(tuple(s) for s, _ in arg_specs), resident)
        def build():
            start = time.perf_counter()
            module, result_specs = self._lower(fname, arg_specs, resident=resident)
            fn = _GpuFunction(fname, arg_specs, result_specs, module, self.opt_level,
                              resident)
            elapsed = time.perf_counter() - start
            self.stats.compiles += 1
            self.stats.compile_seconds += elapsed
            self.stats.specializations.append((fname, [tuple(s) for s, _ in arg_specs], elapsed))
            return fn

        fn = self._cache.get_or_build(key, build)
        return fn

    def lower_to(self, level: str, fname: str | None = None, resident: bool = False) -> Module:
        """The module lowered by strata-gpu up to ``level`` (gpu, nvvm or llvm), for one
        function (the only one, or ``fname``) at its declared static signature."""
        fname = fname or self._only_function()
        specs, _ = self._signatures[fname]
        if any(None in s for s, _ in specs):
            raise StrataError(f"{fname}: lowering needs static argument shapes",
                              location=location_text())
        out = Module(new_context())
        out.mlir = self._lower(fname, [(tuple(s), d) for s, d in specs], resident=resident,
                               compile_to=level)[0]
        return out

    def _only_function(self) -> str:
        if len(self._signatures) != 1:
            raise StrataError(f"the module has several functions ({', '.join(self.functions)}); "
                              "name one", location=location_text())
        return next(iter(self._signatures))

    def _lower(self, fname, arg_specs, format=None, resident=False,  # noqa: A002
               compile_to="llvm"):
        module, result_specs = specialized(self.module, fname, arg_specs)
        with module.context:
            for op in module.body.operations:
                if op.operation.name == "func.func":
                    op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        run_pipeline(module.operation, self.pipeline(format, resident, compile_to))
        return module, result_specs


def compile_cuda(fn_or_module, *examples, chip: str = "sm_90", features: str = "+ptx80",
                 format: str = "bin", opt_level: int = 3, fusion: bool = True,  # noqa: A002
                 compile_to: str | None = None):
    """Compiles a strata.Module, .mlir text or a Python function (with examples) for the GPU.

    Returns a CudaProgram; with ``compile_to`` (gpu, nvvm or llvm) the strata.Module
    lowered to that level instead (needs static shapes).
    """
    from ..pipelines.gpu import GPU_LEVELS

    if compile_to is not None and compile_to not in GPU_LEVELS:
        raise StrataError(f"target 'cuda': compile_to must be one of {', '.join(GPU_LEVELS)}, "
                          f"got '{compile_to}'", location=location_text())
    if callable(fn_or_module) and not isinstance(fn_or_module, Module):
        if not examples:
            raise StrataError("compile_cuda needs example arguments to trace a Python function",
                              location=location_text())
        module = trace(fn_or_module, *examples)
    elif isinstance(fn_or_module, str):
        module = parse(fn_or_module)
    else:
        module = fn_or_module
    prog = CudaProgram(module, chip=chip, features=features, format=format,
                       opt_level=opt_level, fusion=fusion)
    return prog if compile_to is None else prog.lower_to(compile_to)
