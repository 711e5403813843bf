"""The flags of strata's passes and named pipelines: ``strata-opt --<flag>`` and pipeline text.

A pass knows its own flag (``name``); this table, above the passes package, is
the one list of them. Upstream MLIR passes are MLIR's to resolve.
"""

from __future__ import annotations

from ..passes.attention import AttentionPass
from ..passes.base import Options, PassPipeline
from ..passes.blas import BlasPass
from ..passes.bufferize import BufferizePass
from ..passes.canonicalize import CanonicalizePass
from ..passes.check_level import CheckLevelPass
from ..passes.conv_to_matmul import ConvToMatmulPass
from ..passes.decompose import DecomposePass
from ..passes.expand_math import ExpandMathPass
from ..passes.flatten_forall import FlattenForallPass
from ..passes.fuse import FusePass
from ..passes.gpu.host import GpuHostPass
from ..passes.gpu.launch import GpuLaunchPass
from ..passes.gpu.map import GpuMapPass
from ..passes.layout import LayoutPass
from ..passes.lower_to_llvm import LowerToLLVMPass
from ..passes.nontemporal_stores import NontemporalStoresPass
from ..passes.parallelize import ParallelizePass
from ..passes.row_blocks import RowBlocksPass
from ..passes.row_fuse import RowFusePass
from ..passes.row_kernels import RowKernelsPass
from ..passes.strided_copies import StridedCopiesPass
from ..passes.to_linalg import ToLinalgPass
from ..passes.unique_results import UniqueResultsPass
from ..passes.vectorize import LowerVectorsPass, VectorizePass
from ..passes.vectorize_depthwise import VectorizeDepthwisePass
from ..passes.verify import VerifyPass
from ..passes.workspace import WorkspacePass
from .cpu import CpuPipeline
from .gpu import GpuPipeline

__all__ = ["PASSES", "lookup", "is_strata_pass", "all_passes"]

# flag -> class: passes (Pass) and named pipelines (PassPipeline) alike.
PASSES: dict[str, type[Options]] = {cls.name: cls for cls in (
    VerifyPass, CanonicalizePass, ToLinalgPass, AttentionPass, DecomposePass, ConvToMatmulPass,
    FusePass, LayoutPass, ExpandMathPass, VectorizePass, ParallelizePass, LowerVectorsPass,
    BufferizePass, UniqueResultsPass, WorkspacePass, BlasPass, FlattenForallPass,
    LowerToLLVMPass, CheckLevelPass, StridedCopiesPass, CpuPipeline, GpuMapPass, GpuLaunchPass,
    GpuHostPass, GpuPipeline, RowKernelsPass, RowFusePass, RowBlocksPass,
    VectorizeDepthwisePass, NontemporalStoresPass)}


def is_strata_pass(name: str) -> bool:
    return name in PASSES


def is_pipeline(name: str) -> bool:
    return issubclass(PASSES[name], PassPipeline)


def lookup(name: str) -> type[Options]:
    return PASSES[name]


def all_passes() -> list[tuple[str, type[Options]]]:
    return sorted(PASSES.items())
