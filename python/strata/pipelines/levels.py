"""The named, ordered levels of the CPU pipeline, and what each one's IR may contain.

    strata      strata dialect, canonicalized and verified
    linalg      linalg/tensor/arith/math on tensors
    fused       after strata's fusion decisions
    layout      after layout decisions (packing, transposes)
    bufferized  buffers (memref), no tensor values, results as out-params,
                intermediates in one caller-given workspace (strata-workspace)
    llvm        LLVM dialect only

``strata-opt --compile-to=<level>`` and ``strata.compile(..., compile_to=<level>)``
run the same passes and stop at the same point; each level ends with
``strata-check-level{level=<level>}``, its contract check (the level names and
the dialects each allows belong to that pass: strata.passes.check_level).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..errors import StrataError
from ..passes.attention import AttentionPass
from ..passes.base import OptionError, check_threads
from ..passes.blas import BlasPass
from ..passes.bufferize import BufferizePass
from ..passes.canonicalize import CanonicalizePass
from ..passes.check_level import ALLOWED, LEVEL_NAMES, CheckLevelPass
from ..passes.conv_to_matmul import ConvToMatmulPass
from ..passes.decompose import DecomposePass
from ..passes.expand_math import ExpandMathPass
from ..passes.fill_borders import FillBordersPass
from ..passes.fuse import FusePass
from ..passes.layout import LayoutPass
from ..passes.lower_to_llvm import LowerToLLVMPass
from ..passes.parallelize import ParallelizePass
from ..passes.row_blocks import RowBlocksPass
from ..passes.row_fuse import RowFusePass
from ..passes.row_kernels import RowKernelsPass
from ..passes.to_linalg import ToLinalgPass
from ..passes.vectorize import VectorizePass
from ..passes.vectorize_depthwise import VectorizeDepthwisePass
from ..passes.verify import VerifyPass
from ..passes.workspace import WorkspacePass
from .pipeline import Pipeline, PipelineError

__all__ = ["Level", "LEVELS", "LEVEL_NAMES", "ALLOWED", "LevelOptions", "level_index",
           "add_levels", "level_pipeline", "level_steps", "pipeline_to_level"]


@dataclass(frozen=True)
class LevelOptions:
    """What changes the passes of the levels: the ``strata-cpu`` options, in Python.

    ``threads`` > 1 lets strata-fuse (fused epilogues), strata-vectorize
    (matmuls, row reductions) and strata-parallelize (elementwise ops) make large
    ops parallel loops, which strata-lower-to-llvm runs on that many threads.
    ``fuse_options`` is extra strata-fuse option text (``report=true ...``).
    ``blas`` (auto|always|never): strata-fuse chooses, per matmul, between
    generated code and a call of OpenBLAS's sgemm, which strata-blas makes
    after bufferization (with ``fusion`` off too: strata-fuse then only chooses).
    ``tuned``: strata-vectorize's per-matmul tuned tiles (passes/tuning.py).
    ``thread_runtime`` (omp|async): what runs the parallel loops (strata-lower-to-llvm).
    """

    fusion: bool = True
    layout: bool = True
    check: bool = True
    fuse_options: str = ""
    threads: int = 1
    blas: str = "auto"
    tuned: str = ""
    thread_runtime: str = "omp"


def _strata(p: Pipeline, o: LevelOptions) -> None:
    p.add(VerifyPass())
    p.add(CanonicalizePass())


def _linalg(p: Pipeline, o: LevelOptions) -> None:
    p.add(RowBlocksPass())  # a dynamic batch dim: loops over static blocks of rows
    p.add(ToLinalgPass())
    p.add("canonicalize, cse")


def _fused(p: Pipeline, o: LevelOptions) -> None:
    if o.fusion:  # strata-fuse's report=true also reports the attention decisions
        p.add(AttentionPass(threads=o.threads, tuned=o.tuned,
                            report="report=true" in o.fuse_options.split()))
    p.add(DecomposePass(keep_row_softmax=True))
    # convs as im2col + matmuls, before strata-fuse makes its BLAS and epilogue choices
    p.add(ConvToMatmulPass(report=FusePass.from_options(o.fuse_options).report,
                           threads=o.threads, blas=o.blas))
    threads = f"threads={o.threads}" if o.threads > 1 else ""
    blas = f"blas={o.blas}" if o.blas != "never" else ""
    if blas and "blas" in o.tuned:  # tuned BLAS-or-generated choices (passes/tuning.py)
        blas += f" tuned={o.tuned}"
    if o.fusion:
        p.add(FusePass.from_options(" ".join(t for t in (o.fuse_options, threads, blas) if t)))
        p.add(RowKernelsPass(threads=o.threads))
        p.add(RowFusePass(threads=o.threads))
        p.add("canonicalize, cse")
    else:
        if blas:  # only the choice between generated code and BLAS calls
            p.add(FusePass.from_options(" ".join(t for t in ("elementwise=false epilogue=false",
                                                             threads, blas) if t)))
        p.add(RowKernelsPass(threads=o.threads, fuse=False))


def _layout(p: Pipeline, o: LevelOptions) -> None:
    if o.layout:
        p.add(LayoutPass())
        p.add("canonicalize, cse")


def _bufferized(p: Pipeline, o: LevelOptions) -> None:
    p.add(ExpandMathPass())
    p.add(VectorizePass(threads=o.threads, tuned=o.tuned))
    p.add(VectorizeDepthwisePass(threads=o.threads,
                                 report=FusePass.from_options(o.fuse_options).report))
    p.add(ParallelizePass(threads=o.threads))  # one thread: large ops vectorized to stream
    p.add("func.func(loop-invariant-subset-hoisting), canonicalize, cse")
    # strata-row-blocks' static block functions, compiled as such, into their loops: their
    # blocks of rows bufferize to views of the arguments and results (no copies)
    # pads fill their borders only: before eliminate-empty-tensors lets a conv's
    # epilogue write into the next pad's interior
    p.add(FillBordersPass())
    p.add("inline{default-pipeline=}, eliminate-empty-tensors")
    p.add(BufferizePass())
    if o.blas != "never":
        p.add(BlasPass(threads=o.threads))
    p.add(WorkspacePass())


def _llvm(p: Pipeline, o: LevelOptions) -> None:
    p.add(LowerToLLVMPass(threads=o.threads, thread_runtime=o.thread_runtime))


@dataclass(frozen=True)
class Level:
    name: str
    summary: str
    add: Callable[[Pipeline, LevelOptions], None]  # the passes from the previous level to this


LEVELS = [
    Level("strata", "strata dialect ops, canonicalized and verified", _strata),
    Level("linalg", "linalg, tensor, arith and math ops on tensors", _linalg),
    Level("fused", "after fusion decisions (strata-fuse)", _fused),
    Level("layout", "after layout decisions (strata-layout)", _layout),
    Level("bufferized", "memrefs only, results written to caller buffers", _bufferized),
    Level("llvm", "LLVM dialect only", _llvm),
]
assert [lvl.name for lvl in LEVELS] == LEVEL_NAMES, "levels and strata-check-level disagree"


def level_index(name: str) -> int:
    if name not in LEVEL_NAMES:
        raise StrataError(f"unknown level '{name}' (levels: {', '.join(LEVEL_NAMES)})",
                          location="<compile-to>")
    return LEVEL_NAMES.index(name)


def add_level(p: Pipeline, name: str, options: LevelOptions = LevelOptions()) -> Pipeline:
    """Adds the passes that reach level ``name`` from the one before (and its check)."""
    LEVELS[level_index(name)].add(p, options)
    if options.check:
        p.add(CheckLevelPass(level=name))
    return p


def add_levels(p: Pipeline, name: str, options: LevelOptions = LevelOptions()) -> Pipeline:
    """Adds the passes that lower strata IR to level ``name`` (each level checked)."""
    try:
        check_threads("strata-cpu", options.threads)
        for lvl in LEVELS[: level_index(name) + 1]:
            add_level(p, lvl.name, options)
    except OptionError as e:
        raise PipelineError.config(str(e)) from None
    return p


def level_pipeline(name: str, **options) -> Pipeline:
    """The pipeline that lowers strata IR to level ``name``."""
    return add_levels(Pipeline(), name, LevelOptions(**options))


def level_steps(name: str, **options) -> list[tuple[str, str]]:
    """``(level, pipeline elements)`` for each level up to ``name``, in order.

    Each level's elements are MLIR pipeline text (``strata-verify, ...``) that
    ``run_pipeline(module, f"builtin.module({text})")`` runs.
    """
    o = LevelOptions(**options)
    add_levels(Pipeline(), name, o)  # checks the options once
    return [(lvl.name, add_level(Pipeline(), lvl.name, o).inner())
            for lvl in LEVELS[: level_index(name) + 1]]


def pipeline_to_level(name: str, **options) -> str:
    """The textual pipeline that lowers strata IR to level ``name``."""
    return str(level_pipeline(name, **options))
