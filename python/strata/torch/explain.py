"""``strata.torch.explain(model, *inputs)``: what runs in strata, what in eager PyTorch, and why.

    >>> print(strata.torch.explain(model, x))
    strata.torch.explain: 1 graph, 3 subgraphs (2 in strata, 1 in eager PyTorch), 0 graph breaks
    graph 0
      subgraph 0  strata  2 ops: aten.permute.default, aten.addmm.default
      subgraph 1  eager   aten.cummax.default
                  split by aten.cummax.default: aten.cummax has no strata op  at model.py:21
      subgraph 2  strata  3 ops: aten.relu.default, aten.permute.default, aten.addmm.default

A subgraph strata failed to compile (any exception: a StrataError, a lowering error, a
bug in a converter) runs eagerly, and its lines say why and where
(``strata could not compile it: <the error>``, then the op where it failed, if known, else
its first op, and that op's source line). ``fallbacks`` are what the backend's
``StrataPerformanceWarning`` names (explain itself neither warns nor, in strict mode,
raises: it reports).

The model runs once under ``torch.compile(backend=...)`` with a recording strata backend
(in ``torch.no_grad()``); Dynamo's own graph breaks (Python it cannot trace) are listed
from ``torch._dynamo.explain``.
"""

from __future__ import annotations

import dataclasses

import torch

from .backend import strata_backend

__all__ = ["explain", "Explanation"]


@dataclasses.dataclass
class Explanation:
    """The graphs the backend compiled, each split into strata and eager subgraphs."""

    graphs: list  # backend.GraphRecord
    graph_breaks: list  # (reason, "file:line") from Dynamo

    @property
    def subgraphs(self) -> list:
        return [s for g in self.graphs for s in g.subgraphs]

    @property
    def eager_ops(self) -> list:
        """``(op, reason, "file:line")`` of every op the partition left to eager PyTorch."""
        return [r for s in self.subgraphs for r in s.reasons]

    @property
    def fallbacks(self) -> list:
        """Every ``backend.Fallback`` (op, "file:line", why): the ops left out of strata and
        the subgraphs strata failed to compile, one per op and line, as the warning says."""
        return [f for g in self.graphs for f in g.fallbacks]

    def __str__(self) -> str:
        subs = self.subgraphs
        n_strata = sum(s.kind == "strata" for s in subs)
        lines = [f"strata.torch.explain: {len(self.graphs)} graph"
                 f"{'s' if len(self.graphs) != 1 else ''}, {len(subs)} subgraphs ({n_strata} in "
                 f"strata, {len(subs) - n_strata} in eager PyTorch), {len(self.graph_breaks)} "
                 "graph breaks"]
        for g in self.graphs:
            lines.append(g.name)
            for i, s in enumerate(g.subgraphs):
                ops = ", ".join(s.ops[:6]) + (", ..." if len(s.ops) > 6 else "")
                count = f"{len(s.ops)} ops: " if len(s.ops) > 1 else ""
                lines.append(f"  subgraph {i}  {s.kind:<6}  {count}{ops}")
                for op, why, where in s.reasons:
                    lines.append(f"              split by {op}: {why}  at {where}")
                if s.error:
                    lines.append(f"              strata could not compile it: {s.error}")
                    if s.failed_at:
                        lines.append(f"              failed at {s.failed_at[0]}  at "
                                     f"{s.failed_at[1]}; it runs in eager PyTorch")
        for why, where in self.graph_breaks:
            lines.append(f"Dynamo graph break at {where}: {why}")
        return "\n".join(lines)


def _dynamo_breaks(model, inputs) -> list:
    try:
        result = torch._dynamo.explain(model)(*inputs)
    except Exception as e:  # noqa: BLE001 - explain is best effort; say why it failed
        return [(f"torch._dynamo.explain failed: {e}", "<unknown>")]
    breaks = []
    for b in result.break_reasons:
        where = "<unknown>"
        if b.user_stack:
            frame = b.user_stack[-1]
            where = f"{frame.filename}:{frame.lineno}"
        breaks.append((b.reason, where))
    return breaks


def explain(model, *inputs, options: dict | None = None) -> Explanation:
    """Runs ``model(*inputs)`` through the strata backend and reports how it was split."""
    record: list = []

    def backend(gm, example_inputs):
        return strata_backend(gm, example_inputs, options=options, record=record,
                              strict=False, warn=False)

    compiled = torch.compile(model, backend=backend)
    with torch.no_grad():
        compiled(*inputs)
        breaks = _dynamo_breaks(model, inputs)
    return Explanation(record, breaks)
