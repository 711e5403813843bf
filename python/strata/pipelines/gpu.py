"""strata-gpu: the whole NVIDIA GPU pipeline, strata dialect to LLVM + a gpu.binary.

    strata-gpu{chip=sm_90 features=+ptx80 format=bin opt-level=3 compile-to=llvm fusion=true
               resident=false}
  = strata-verify, strata-canonicalize, strata-to-linalg, canonicalize, cse,
    [func.func(linalg-fuse-elementwise-ops), canonicalize, cse], strata-decompose,
    strata-gpu-map                         linalg on tensors -> block/thread scf.forall
    one-shot-bufferize{...}, canonicalize, cse, canonicalize
    strata-gpu-launch                      foralls -> gpu.launch (shared memory, all_reduce)
    func.func(convert-linalg-to-loops), canonicalize, cse
    strata-gpu-host{resident}              gpu.alloc / gpu.memcpy / gpu.dealloc
    buffer-results-to-out-params{hoist-static-allocs modify-public-functions}, canonicalize, cse
    gpu-kernel-outlining, func.func(gpu-async-region)                     <- compile-to=gpu
    nvvm-attach-target{chip features O}, gpu.module(convert-gpu-to-nvvm)  <- compile-to=nvvm
    gpu-module-to-binary{format}, gpu-to-llvm, host lowering to LLVM      <- compile-to=llvm

``format=bin`` embeds a cubin (ptxas from the CUDA toolkit assembles it at
compile time), ``format=isa`` embeds PTX text (JIT-compiled by the driver when
the module loads). The result holds only ``llvm.*`` ops, ``gpu.binary`` and
``gpu.launch_func`` (which the LLVM translation turns into mgpu* runtime calls).
Functions take their results as out-params, like strata-cpu's. With
``resident=true`` every memref argument, inputs and out-params alike, is a
device buffer (strata.runtime.cuda.DeviceArray) and nothing is copied between
host and device.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..passes.base import PassPipeline, option
from ..passes.canonicalize import CanonicalizePass
from ..passes.decompose import DecomposePass
from ..passes.gpu.host import GpuHostPass
from ..passes.gpu.launch import GpuLaunchPass
from ..passes.gpu.map import GpuMapPass
from ..passes.to_linalg import ToLinalgPass
from ..passes.verify import VerifyPass

__all__ = ["GpuPipeline", "GPU_LEVELS"]

GPU_LEVELS = ("gpu", "nvvm", "llvm")

_BUFFERIZE = ("one-shot-bufferize{bufferize-function-boundaries "
              "function-boundary-type-conversion=identity-layout-map}")


@dataclass(frozen=True, eq=False, repr=False)
class GpuPipeline(PassPipeline):
    """Lower strata to LLVM + an embedded NVIDIA GPU binary (kernels via NVVM)."""

    name = "strata-gpu"
    chip: str = option("sm_90", pattern=r"sm_[0-9]+[a-z]?", form="sm_<number>",
                       help="The NVIDIA GPU architecture to compile the kernels for")
    features: str = option("+ptx80", pattern=r"[+-][A-Za-z0-9_.]+(,[+-][A-Za-z0-9_.]+)*",
                           form="+ptx<number>", help="PTX features (the PTX ISA version)")
    format: str = option("bin", choices=("bin", "isa", "fatbin"), noun="format",
                         help="What gpu.binary embeds: a cubin, PTX text or a fatbin")
    opt_level: int = option(3, min=0, max=3, help="Optimization level of the kernels")
    compile_to: str = option("llvm", choices=GPU_LEVELS, noun="level",
                             help="The last level to lower to")
    fusion: bool = option(True, help="Fuse elementwise ops before mapping them to kernels")
    resident: bool = option(False, help="Arguments are device buffers: copy nothing")

    def build(self, p) -> None:
        p.add(VerifyPass())
        p.add(CanonicalizePass())
        p.add(ToLinalgPass())
        p.add("canonicalize, cse")
        if self.fusion:
            p.add("func.func(linalg-fuse-elementwise-ops), canonicalize, cse")
        p.add(DecomposePass())
        p.add(GpuMapPass())
        p.add(_BUFFERIZE + ", canonicalize, cse, canonicalize")
        p.add(GpuLaunchPass())
        p.add("func.func(convert-linalg-to-loops), canonicalize, cse")
        p.add(GpuHostPass(resident=self.resident))
        p.add("buffer-results-to-out-params{hoist-static-allocs modify-public-functions}, "
              "canonicalize, cse, gpu-kernel-outlining, func.func(gpu-async-region)")
        if self.compile_to == "gpu":
            return
        p.add("convert-nvgpu-to-nvvm, convert-vector-to-scf, convert-scf-to-cf, "
              "convert-nvvm-to-llvm, "
              "convert-func-to-llvm, expand-strided-metadata, "
              f"nvvm-attach-target{{chip={self.chip} features={self.features} "
              f"O={self.opt_level}}}, "
              "lower-affine, convert-arith-to-llvm, convert-index-to-llvm, canonicalize, cse, "
              "gpu.module(convert-gpu-to-nvvm{has-redux=1}, canonicalize, cse, "
              "reconcile-unrealized-casts)")
        if self.compile_to == "nvvm":
            return
        p.add(f"gpu-module-to-binary{{format={self.format}}}, convert-math-to-llvm, gpu-to-llvm, "
              "finalize-memref-to-llvm, convert-cf-to-llvm, convert-func-to-llvm, "
              "reconcile-unrealized-casts, canonicalize, cse")
