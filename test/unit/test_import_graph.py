"""strata's subpackages import downward only, with no cycle (tools/import_graph.py's LAYERS);
the modules of each folder import each other without a cycle; no package uses another's
private names.

The imports are read from the source with ``ast``, those inside functions
included, so a lazy import cannot hide an upward edge or a cycle. docs/architecture.md
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


def test_no_import_cycle_among_the_modules_of_a_folder():
    graph = import_graph.module_edges()
    assert graph, "no import between modules found: is tools/import_graph.py reading them?"
    assert import_graph.module_cycles(graph) == []


def test_the_module_check_finds_a_cycle_through_a_function_level_import(tmp_path):
    pkg = tmp_path / "strata" / "runtime"
    pkg.mkdir(parents=True)
    (tmp_path / "strata" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import g\n")
    (pkg / "b.py").write_text("def g():\n    from . import a\n    return a\n")
    cycles = import_graph.module_cycles(import_graph.module_edges(str(tmp_path / "strata")))
    assert cycles and "strata.runtime.a -> strata.runtime.b -> strata.runtime.a" in cycles[0]


# Private names used across packages, where unavoidable (with the reason). Empty: every
# package calls another through public names.
PRIVATE_ALLOWED: list[str] = []


def test_no_package_uses_another_packages_private_names():
    assert import_graph.private_imports() == PRIVATE_ALLOWED
    assert import_graph.private_attributes() == PRIVATE_ALLOWED


def test_the_private_checks_find_each_form(tmp_path):
    root = tmp_path / "strata"
    for folder in ("a", "b"):
        (root / folder).mkdir(parents=True)
        (root / folder / "__init__.py").write_text("")
    (root / "__init__.py").write_text("")
    (root / "a" / "m.py").write_text(
        "def _helper():\n    pass\n\n\nclass P:\n    def __init__(self):\n"
        "        self._fields_of_p = 1\n")
    (root / "b" / "n.py").write_text(
        "from ..a.m import _helper\nfrom ..a import m\n\n\ndef f(p):\n"
        "    m._helper()\n    return p._fields_of_p, m.__name__\n")
    found = import_graph.private_imports(str(root))
    assert found == ["b/n.py:1: from strata.a.m import _helper", "b/n.py:6: strata.a.m._helper"]
    # (the import of _helper made it b's name too: the check above reports it)
    assert import_graph.private_attributes(str(root)) == ["b/n.py:7: ._fields_of_p"]
