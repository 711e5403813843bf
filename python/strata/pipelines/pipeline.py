"""A pipeline: strata passes and upstream MLIR passes, in order, as MLIR's PassManager runs them.

    p = Pipeline()
    p.add(CanonicalizePass())             # a strata pass (options checked when built)
    p.add("func.func(canonicalize, cse)")   # upstream passes, in MLIR's textual syntax
    p.add(CpuPipeline(threads=2))         # a named pipeline (PassPipeline) adds its passes
    str(p)  # builtin.module(strata-canonicalize{...}, func.func(canonicalize, cse), ...)

A strata pass is added to MLIR's PassManager as a Python pass: it runs on the
op the PassManager is anchored on (the module) and visits the functions it works
on; upstream passes keep their textual anchors (``func.func(...)``). Named
pipelines (``strata-cpu``, ``strata-gpu``, the ``--compile-to`` levels) are
functions that add passes to a Pipeline.
"""

from __future__ import annotations

import dataclasses

from ..errors import Diagnostic, StrataError
from ..passes.base import Pass, PassPipeline

__all__ = ["Pipeline", "PipelineError"]


class PipelineError(StrataError):
    """A pipeline could not be built (bad syntax, unknown pass, bad option) or a pass failed.

    ``stage`` names the strata pass that failed (None when an upstream pass did,
    or when the pipeline did not build); ``reproducer`` is the saved input IR.
    """

    def __init__(self, diagnostics, *, stage: str | None = None, reproducer: str | None = None,
                 hint: str | None = None):
        self.stage = stage
        self.reproducer = reproducer
        super().__init__(diagnostics=diagnostics, hint=hint)

    @classmethod
    def config(cls, message: str, hint: str | None = None) -> PipelineError:
        """An error in the pipeline itself (it has no location in the IR)."""
        return cls([Diagnostic("<pass-pipeline>", message)], hint=hint)


class Pipeline:
    """An ordered list of strata passes (instances) and upstream textual pipeline elements."""

    def __init__(self, anchor: str = "builtin.module"):
        self.anchor = anchor
        self.items: list[Pass | str] = []

    def add(self, item: Pass | PassPipeline | str | Pipeline) -> Pipeline:
        """Appends a strata pass, a named pipeline's passes, upstream text or another pipeline."""
        if isinstance(item, PassPipeline):
            item.build(self)
        elif isinstance(item, Pipeline):
            self.items += item.items
        elif isinstance(item, (Pass, str)):
            if not (isinstance(item, str) and not item.strip()):
                self.items.append(item)
        else:
            raise TypeError(f"cannot add {type(item).__name__} to a pipeline")
        return self

    def passes(self) -> list[Pass]:
        """The strata passes of the pipeline, in order."""
        return [item for item in self.items if isinstance(item, Pass)]

    def replace(self, name: str, **changes) -> Pipeline:
        """A copy with ``changes`` made to every strata pass ``name`` (e.g. ``report=True``)."""
        out = Pipeline(self.anchor)
        out.items = [dataclasses.replace(i, **changes) if isinstance(i, Pass) and i.name == name
                     else i for i in self.items]
        return out

    def inner(self) -> str:
        """The elements, without the anchor: ``strata-verify, func.func(cse)``."""
        return ", ".join(str(item) for item in self.items)

    def __str__(self) -> str:
        return f"{self.anchor}({self.inner()})"
