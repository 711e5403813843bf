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
``strata-check-level{level=<level>}``, its contract check.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import StrataError

__all__ = ["Level", "LEVELS", "LEVEL_NAMES", "pipeline_to_level", "level_index", "ALLOWED"]


@dataclass(frozen=True)
class Level:
    name: str
    summary: str
    passes: str  # what runs to reach this level from the previous one


LEVELS = [
    Level("strata", "strata dialect ops, canonicalized and verified",
          "strata-verify, strata-canonicalize"),
    Level("linalg", "linalg, tensor, arith and math ops on tensors",
          "strata-to-linalg, canonicalize, cse"),
    Level("fused", "after fusion decisions (strata-fuse)", "{fuse}"),
    Level("layout", "after layout decisions (strata-layout)", "{layout}"),
    Level("bufferized", "memrefs only, results written to caller buffers",
          "strata-expand-math, {vectorize}, func.func(loop-invariant-subset-hoisting), "
          "canonicalize, cse, "
          "strata-bufferize, {blas}strata-workspace"),
    Level("llvm", "LLVM dialect only", "{lower}"),
]
LEVEL_NAMES = [lvl.name for lvl in LEVELS]

# Dialects whose ops may appear at each level (builtin.module and func are always allowed).
ALLOWED = {
    "strata": {"strata"},
    "linalg": {"linalg", "tensor", "arith", "math"},
    "fused": {"linalg", "tensor", "arith", "math", "scf", "affine"},
    "layout": {"linalg", "tensor", "arith", "math", "scf", "affine"},
    "bufferized": {"memref", "linalg", "arith", "math", "scf", "vector", "affine", "cf", "ub"},
    "llvm": {"llvm"},
}


def level_index(name: str) -> int:
    if name not in LEVEL_NAMES:
        raise StrataError(f"unknown level '{name}' (levels: {', '.join(LEVEL_NAMES)})",
                          location="<compile-to>")
    return LEVEL_NAMES.index(name)


def level_steps(name: str, *, fusion: bool = True, layout: bool = True, check: bool = True,
                fuse_options: str = "", threads: int = 1,
                blas: str = "auto") -> list[tuple[str, str]]:
    """``(level, pipeline elements)`` for each level up to ``name``, in order.

    ``threads`` > 1 lets strata-fuse (fused epilogues), strata-vectorize
    (matmuls, row reductions) and strata-parallelize (elementwise ops) make large
    ops parallel loops, which strata-lower-to-llvm runs on that many threads.
    ``blas`` (auto|always|never): strata-fuse chooses, per matmul, between
    generated code and a call of OpenBLAS's sgemm, which strata-blas makes
    after bufferization (also with ``fusion`` off: strata-fuse then only chooses).
    """
    par = f"{{threads={threads}}}" if threads > 1 else ""
    blas_option = f"blas={blas}" if blas != "never" else ""
    fuse_options = " ".join(o for o in (fuse_options, par[1:-1], blas_option) if o)
    fuse = "strata-fuse" + (f"{{{fuse_options}}}" if fuse_options else "")
    choose_only = f"strata-fuse{{elementwise=false epilogue=false {blas_option}" + \
        (f" {par[1:-1]}" if par else "") + "}"
    steps = []
    for lvl in LEVELS[: level_index(name) + 1]:
        passes = lvl.passes.format(
            fuse=f"strata-decompose, {fuse}, canonicalize, cse" if fusion else
            f"strata-decompose, {choose_only}" if blas_option else "strata-decompose",
            blas=f"strata-blas{par}, " if blas_option else "",
            layout="strata-layout, canonicalize, cse" if layout else "",
            vectorize=f"strata-vectorize{par}, strata-parallelize{par}" if par else
            "strata-vectorize", lower=f"strata-lower-to-llvm{par}")
        parts = [p for p in (passes, f"strata-check-level{{level={lvl.name}}}" if check else "")
                 if p]
        steps.append((lvl.name, ", ".join(parts)))
    return steps


def pipeline_to_level(name: str, *, fusion: bool = True, layout: bool = True,
                      check: bool = True, fuse_options: str = "", threads: int = 1,
                      blas: str = "auto") -> str:
    """The textual pipeline that lowers strata IR to level ``name``."""
    steps = level_steps(name, fusion=fusion, layout=layout, check=check,
                        fuse_options=fuse_options, threads=threads, blas=blas)
    return "builtin.module(" + ", ".join(text for _, text in steps if text) + ")"
