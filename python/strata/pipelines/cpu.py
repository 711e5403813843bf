"""strata-cpu: the whole CPU pipeline, strata dialect to LLVM dialect, as one pass flag.

    strata-cpu{compile-to=llvm fusion=true layout=true threads=1 blas=auto thread-runtime=omp}
  = strata-verify, strata-canonicalize, strata-to-linalg, canonicalize, cse,
    [strata-fuse], [strata-layout], strata-bufferize, [strata-blas], strata-lower-to-llvm,
    with strata-check-level after each level (pipelines/levels.py).

``blas`` (auto|always|never): which matmuls call OpenBLAS's sgemm instead of
generated code (strata-fuse chooses with its cost model, strata-blas makes the
calls; see passes/blas.py).

``threads`` > 1 runs large matmuls and row reductions on that many threads
(strata-vectorize makes them ``scf.forall`` loops; strata-lower-to-llvm turns
those into OpenMP parallel regions, or with ``thread-runtime=async`` tasks of MLIR's
async runtime). ``opt-level`` is the LLVM
optimization level the runtime's JIT uses; it does not change the MLIR passes.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..passes.base import PassPipeline, option, threads_option
from ..passes.lower_to_llvm import THREAD_RUNTIMES
from .levels import LEVEL_NAMES, LevelOptions, add_levels

__all__ = ["CpuPipeline"]


@dataclass(frozen=True, eq=False, repr=False)
class CpuPipeline(PassPipeline):
    """Lower strata to the LLVM dialect for the CPU (all levels, with contract checks)."""

    name = "strata-cpu"
    compile_to: str = option("llvm", choices=LEVEL_NAMES, noun="level",
                             help="The last level to lower to")
    fusion: bool = option(True, help="Fuse elementwise chains and matmul epilogues")
    layout: bool = option(True, help="Make layout decisions (transposes, conv layouts)")
    opt_level: int = option(3, min=0, max=3, help="LLVM optimization level of the runtime's JIT")
    threads: int = threads_option()
    blas: str = option("auto", choices=("auto", "always", "never"),
                       help="Matmuls as OpenBLAS calls: auto (the cost model), always, never")
    thread_runtime: str = option("omp", choices=THREAD_RUNTIMES,
                                 help="What runs parallel loops: omp (LLVM's OpenMP runtime) "
                                 "or async (MLIR's async runtime)")

    def build(self, p) -> None:
        add_levels(p, self.compile_to, LevelOptions(fusion=self.fusion, layout=self.layout,
                                                    threads=self.threads, blas=self.blas,
                                                    thread_runtime=self.thread_runtime))
