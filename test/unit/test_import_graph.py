"""strata's subpackages import downward only, with no cycle (tools/import_graph.py's LAYERS).

The imports are read from the source with ``ast``, those inside functions
included, so a lazy import cannot hide an upward edge. docs/architecture.md
draws the graph.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location("import_graph",
                                               os.path.join(ROOT, "tools", "import_graph.py"))
import_graph = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(import_graph)


def test_no_upward_edge_and_no_cycle():
    graph = import_graph.edges()
    assert graph, "no import found: is tools/import_graph.py reading python/strata?"
    assert import_graph.problems(graph) == []


def test_every_subpackage_and_top_level_module_has_a_layer():
    nodes = set()
    for name in os.listdir(import_graph.ROOT):
        path = os.path.join(import_graph.ROOT, name)
        if os.path.isdir(path) and os.path.exists(os.path.join(path, "__init__.py")):
            nodes.add(name)
        elif name.endswith(".py"):
            nodes.add(name[:-3])
    assert nodes - set(import_graph.LEVEL) == set()


def test_passes_import_nothing_above_them():
    above = {"pipelines", "runtime", "tools", "frontend"}
    bad = {(s, d): w for (s, d), w in import_graph.edges().items() if s == "passes" and d in above}
    assert bad == {}


@pytest.mark.parametrize("edge,message", [
    ({("passes", "pipelines"): ["passes/x.py:1"]}, "upward edge passes -> pipelines"),
    ({("dialect", "frontend"): ["dialect/x.py:1"], ("frontend", "dialect"): ["f.py:1"]},
     "cycle"),
])
def test_the_check_finds_upward_edges_and_cycles(edge, message):
    assert any(message in p for p in import_graph.problems(edge))


def test_the_chart_in_the_docs_is_the_graph():
    with open(os.path.join(ROOT, "docs", "architecture.md")) as f:
        doc = f.read()
    chart = doc.split("```mermaid\n", 1)[1].split("```", 1)[0]
    assert chart == import_graph.mermaid(import_graph.edges()), \
        "docs/architecture.md is stale: paste `python tools/import_graph.py --mermaid` into it"
