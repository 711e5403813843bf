#!/usr/bin/env python3
"""The import graph of strata's subpackages, from the source (ast): check it, print it, draw it.

    python tools/import_graph.py            # the edges, and any upward edge or cycle
    python tools/import_graph.py --dot F    # Graphviz text to F (and F.svg if `dot` is there)
    python tools/import_graph.py --mermaid  # the mermaid chart of docs/architecture.md

A node is a subpackage (dialect, dialects, frontend, passes, codegen, pipelines,
runtime, tools) or a top-level module (errors, settings, context, diagnostics,
parsing, testing, demo, and the package's own ``__init__``). Every import counts, at
module level or inside a function alike. ``LAYERS`` lists the nodes from the
bottom up: an import may only point to its own layer or one below, and the
graph between nodes must have no cycle. test/unit/test_import_graph.py runs
the same check.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python",
                    "strata")

# Bottom up. `__init__` is the package facade: it holds the version and maps public names to
# modules by string (loaded on first use, so that `import strata` stays fast); it imports
# nothing of strata itself, so it sits at the bottom.
LAYERS = [
    ["__init__", "errors", "settings"],
    ["dialect", "diagnostics"],
    ["dialects"],
    ["context"],
    ["parsing", "codegen"],
    ["passes"],
    ["pipelines"],
    ["frontend"],
    ["runtime"],
    ["testing", "demo", "explain", "torch", "autotune", "serve"],
    ["tools"],
]
LEVEL = {node: i for i, layer in enumerate(LAYERS) for node in layer}


def _node(parts: list[str]) -> str:
    """``["strata", "passes", "fuse"]`` -> ``passes``; ``["strata"]`` -> ``__init__``."""
    return parts[1] if len(parts) > 1 else "__init__"


def edges(root: str = ROOT) -> dict[tuple[str, str], list[str]]:
    """``(from, to) -> ["file:line", ...]`` for every import between two nodes."""
    out: dict[tuple[str, str], list[str]] = {}
    for folder, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            parts = ["strata"] + rel[:-3].split(os.sep)
            package = parts[:-1]
            if parts[-1] == "__init__":
                parts = parts[:-1]
            with open(path) as f:
                tree = ast.parse(f.read(), path)
            for node in ast.walk(tree):
                targets = []
                if isinstance(node, ast.ImportFrom):
                    if node.level:
                        base = package[: len(package) - node.level + 1]
                        module = base + (node.module.split(".") if node.module else [])
                        # `from . import x`: x may be a module of that package, or a name in it
                        if not node.module:
                            for a in node.names:
                                sub = os.path.join(root, *module[1:], a.name)
                                is_module = os.path.isdir(sub) or os.path.exists(sub + ".py")
                                targets.append(module + [a.name] if is_module else module)
                            module = None
                    else:
                        module = node.module.split(".")
                    if module is not None:
                        targets.append(module)
                elif isinstance(node, ast.Import):
                    targets += [a.name.split(".") for a in node.names]
                for target in targets:
                    if target[0] != "strata":
                        continue
                    src, dst = _node(parts), _node(target)
                    if src != dst:
                        out.setdefault((src, dst), []).append(f"{rel}:{node.lineno}")
    return out


def problems(graph: dict[tuple[str, str], list[str]]) -> list[str]:
    """Upward edges, unknown nodes and cycles, as sentences (empty: the graph is layered)."""
    found = []
    for (src, dst), where in sorted(graph.items()):
        for node in (src, dst):
            if node not in LEVEL:
                found.append(f"'{node}' is in no layer of tools/import_graph.py ({where[0]})")
        if src in LEVEL and dst in LEVEL and LEVEL[dst] > LEVEL[src]:
            found.append(f"upward edge {src} -> {dst} ({', '.join(where)})")
    # A cycle needs an upward or same-layer edge; look for one among same-layer edges too.
    succ: dict[str, set[str]] = {}
    for src, dst in graph:
        succ.setdefault(src, set()).add(dst)
    state: dict[str, int] = {}

    def visit(node, stack):
        state[node] = 1
        for nxt in sorted(succ.get(node, ())):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                found.append("cycle " + " -> ".join(cycle))
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for node in sorted(succ):
        if node not in state:
            visit(node, [node])
    return found


def dot(graph) -> str:
    lines = ["digraph strata {", "  rankdir=BT;", '  node [shape=box, fontname="Helvetica"];']
    for i, layer in enumerate(LAYERS):
        names = " ".join(f'"{n}"' for n in layer)
        lines.append(f"  {{ rank=same; {names} }}  // layer {i}")
    for (src, dst), where in sorted(graph.items()):
        lines.append(f'  "{src}" -> "{dst}" [tooltip="{len(where)} imports"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def mermaid(graph) -> str:
    """The graph as a mermaid flowchart, top layer first (docs/architecture.md holds it)."""
    lines = ["flowchart TD"]
    for i, layer in reversed(list(enumerate(LAYERS))):
        lines.append(f"  subgraph L{i}[\" \"]")
        lines += [f"    {n.strip('_') or n}[\"{n}\"]" for n in layer]
        lines.append("  end")
    for (src, dst), _ in sorted(graph.items(), key=lambda e: (-LEVEL[e[0][0]], e[0])):
        lines.append(f"  {src.strip('_')} --> {dst.strip('_')}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    graph = edges()
    if argv == ["--mermaid"]:
        sys.stdout.write(mermaid(graph))
        return 1 if problems(graph) else 0
    if len(argv) == 2 and argv[0] == "--dot":
        with open(argv[1], "w") as f:
            f.write(dot(graph))
        if shutil.which("dot"):
            subprocess.run(["dot", "-Tsvg", argv[1], "-o", argv[1] + ".svg"], check=True)
            print(f"wrote {argv[1]} and {argv[1]}.svg")
        else:
            print(f"wrote {argv[1]} (no Graphviz `dot` here to draw it)")
    for (src, dst), where in sorted(graph.items()):
        print(f"{src:>12} -> {dst:<12} {len(where):3} import(s)")
    found = problems(graph)
    for p in found:
        print("PROBLEM:", p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
