"""The flags of strata's passes and named pipelines: ``strata-opt --<flag>`` and pipeline text.

A pass knows its own flag (``name``); this table, above the passes package, is
the one list of them. Upstream MLIR passes are MLIR's to resolve.

The table names each flag's class by module and class name, and imports a module
the first time one of its flags is looked up (a documented lazy import, for
start-up cost only: every module it names sits below this one, so there is no
cycle behind it). A CPU compile so imports the passes its pipeline runs, not the
GPU passes or the ones only ``strata-opt`` runs; ``all_passes`` (strata-opt's
``--help``) imports them all. ``test/unit/test_cold_imports.py`` checks that each
entry's class has the flag it is filed under.

    lookup("strata-fuse")  # imports strata.passes.fuse, returns FusePass
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping

from ..passes.base import Options, PassPipeline

__all__ = ["PASSES", "lookup", "is_strata_pass", "is_pipeline", "all_passes"]

# flag -> "module:Class" (modules relative to the strata package): passes (Pass) and
# named pipelines (PassPipeline) alike.
_WHERE = {
    "strata-verify": "passes.verify:VerifyPass",
    "strata-canonicalize": "passes.canonicalize:CanonicalizePass",
    "strata-to-linalg": "passes.to_linalg:ToLinalgPass",
    "strata-attention": "passes.attention:AttentionPass",
    "strata-decompose": "passes.decompose:DecomposePass",
    "strata-conv-to-matmul": "passes.conv_to_matmul:ConvToMatmulPass",
    "strata-fuse": "passes.fuse:FusePass",
    "strata-layout": "passes.layout:LayoutPass",
    "strata-expand-math": "passes.expand_math:ExpandMathPass",
    "strata-vectorize": "passes.vectorize:VectorizePass",
    "strata-parallelize": "passes.parallelize:ParallelizePass",
    "strata-lower-vectors": "passes.lower_vectors:LowerVectorsPass",
    "strata-bufferize": "passes.bufferize:BufferizePass",
    "strata-unique-results": "passes.unique_results:UniqueResultsPass",
    "strata-fill-borders": "passes.fill_borders:FillBordersPass",
    "strata-workspace": "passes.workspace:WorkspacePass",
    "strata-blas": "passes.blas:BlasPass",
    "strata-flatten-forall": "passes.flatten_forall:FlattenForallPass",
    "strata-lower-to-llvm": "passes.lower_to_llvm:LowerToLLVMPass",
    "strata-check-level": "passes.check_level:CheckLevelPass",
    "strata-strided-copies": "passes.strided_copies:StridedCopiesPass",
    "strata-cpu": "pipelines.cpu:CpuPipeline",
    "strata-gpu-map": "passes.gpu.map:GpuMapPass",
    "strata-gpu-launch": "passes.gpu.launch:GpuLaunchPass",
    "strata-gpu-host": "passes.gpu.host:GpuHostPass",
    "strata-gpu": "pipelines.gpu:GpuPipeline",
    "strata-row-kernels": "passes.row_kernels:RowKernelsPass",
    "strata-row-fuse": "passes.row_fuse:RowFusePass",
    "strata-row-blocks": "passes.row_blocks:RowBlocksPass",
    "strata-vectorize-depthwise": "passes.vectorize_depthwise:VectorizeDepthwisePass",
    "strata-nontemporal-stores": "passes.nontemporal_stores:NontemporalStoresPass",
    "strata-prefetch-rows": "passes.prefetch_rows:PrefetchRowsPass",
}


class _Passes(MutableMapping):
    """flag -> class, importing a class's module on its first lookup; a class set
    here (a test's pass) is kept as it is."""

    def __init__(self, where: dict[str, str]):
        self._entries: dict[str, str | type[Options]] = dict(where)

    def __getitem__(self, name: str) -> type[Options]:
        entry = self._entries[name]
        if isinstance(entry, str):
            module, cls = entry.split(":")
            entry = getattr(importlib.import_module(f"strata.{module}"), cls)
            self._entries[name] = entry
        return entry

    def __setitem__(self, name: str, cls: type[Options]) -> None:
        self._entries[name] = cls

    def __delitem__(self, name: str) -> None:
        del self._entries[name]

    def __contains__(self, name: object) -> bool:  # no import to answer it
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


PASSES: MutableMapping[str, type[Options]] = _Passes(_WHERE)


def is_strata_pass(name: str) -> bool:
    return name in PASSES


def is_pipeline(name: str) -> bool:
    return issubclass(PASSES[name], PassPipeline)


def lookup(name: str) -> type[Options]:
    return PASSES[name]


def all_passes() -> list[tuple[str, type[Options]]]:
    """Every flag and its class (imports every pass module)."""
    return sorted((name, PASSES[name]) for name in PASSES)
