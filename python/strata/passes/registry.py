"""The pass registry: flag -> pass class, imported lazily; and named pipelines."""

from __future__ import annotations

import importlib

__all__ = ["PASSES", "lookup", "is_strata_pass", "all_passes"]

# flag -> "module:Class". Pipelines (classes with an ``elements`` method) are listed too.
PASSES = {
    "strata-verify": "strata.passes.verify:VerifyPass",
    "strata-canonicalize": "strata.passes.canonicalize:CanonicalizePass",
    "strata-to-linalg": "strata.passes.to_linalg:ToLinalgPass",
    "strata-decompose": "strata.passes.decompose:DecomposePass",
    "strata-fuse": "strata.passes.fuse:FusePass",
    "strata-layout": "strata.passes.layout:LayoutPass",
    "strata-expand-math": "strata.passes.expand_math:ExpandMathPass",
    "strata-vectorize": "strata.passes.vectorize:VectorizePass",
    "strata-parallelize": "strata.passes.parallelize:ParallelizePass",
    "strata-lower-vectors": "strata.passes.vectorize:LowerVectorsPass",
    "strata-bufferize": "strata.passes.bufferize:BufferizePass",
    "strata-unique-results": "strata.passes.unique_results:UniqueResultsPass",
    "strata-workspace": "strata.passes.workspace:WorkspacePass",
    "strata-blas": "strata.passes.blas:BlasPass",
    "strata-lower-to-llvm": "strata.passes.lower_to_llvm:LowerToLLVMPass",
    "strata-check-level": "strata.passes.check_level:CheckLevelPass",
    "strata-cpu": "strata.pipelines.cpu:CpuPipeline",
    "strata-gpu-map": "strata.passes.gpu.map:GpuMapPass",
    "strata-gpu-launch": "strata.passes.gpu.launch:GpuLaunchPass",
    "strata-gpu-host": "strata.passes.gpu.host:GpuHostPass",
    "strata-gpu": "strata.pipelines.gpu:GpuPipeline",
}


def is_strata_pass(name: str) -> bool:
    return name in PASSES


def lookup(name: str):
    module, cls = PASSES[name].split(":")
    return getattr(importlib.import_module(module), cls)


def all_passes():
    return [(name, lookup(name)) for name in sorted(PASSES)]


def levels():
    """``(name, summary)`` of the --compile-to levels, in order (empty until defined)."""
    try:
        from ..pipelines.levels import LEVELS
    except ImportError:
        return []
    return [(lvl.name, lvl.summary) for lvl in LEVELS]
