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

Inside a folder (a package: runtime, passes/fusion, ...) the modules' own import
graph must have no cycle either (``module_edges``, ``module_cycles``; imports
inside functions count here too). And a private name (``_x``) is its folder's:
``private_imports`` finds ``from m import _x`` and ``m._x`` of a module in
another folder, ``private_attributes`` an ``obj._x`` where ``_x`` is defined
only in other folders of strata (a reach into another package's object).
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


def _modules(root: str = ROOT) -> dict[str, str]:
    """``strata.runtime.jit`` -> its path, for every module (a package by its __init__)."""
    out = {}
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".py"):
                rel = os.path.relpath(os.path.join(folder, name), root)[:-3].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                out[".".join(["strata"] + rel)] = os.path.join(folder, name)
    return out


def _folder(module: str, mods: dict[str, str]) -> str:
    """The package ``module`` belongs to: itself for a package, else its parent."""
    return module if mods[module].endswith("__init__.py") else module.rsplit(".", 1)[0]


def _imports(module: str, mods: dict[str, str]):
    """``(line, imported module, [names taken from it], {alias: module})`` per import of
    strata in ``module`` (inside functions too)."""
    path = mods[module]
    package = _folder(module, mods).split(".")
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join(base + (node.module.split(".") if node.module else []))
            else:
                target = node.module
            if not target.startswith("strata"):
                continue
            names, aliases = [], {}
            for a in node.names:
                sub = f"{target}.{a.name}"
                if sub in mods:  # `from . import cache`: the module cache
                    aliases[a.asname or a.name] = sub
                    yield node.lineno, sub, [], {}
                else:
                    names.append(a.name)
            if names or not aliases:
                yield node.lineno, target, names, aliases
            else:  # only modules: their aliases still count as module names
                yield node.lineno, None, [], aliases
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("strata"):
                    yield node.lineno, a.name, [], {a.asname: a.name} if a.asname else {}


def _owner(target: str, mods: dict[str, str]) -> str | None:
    """The module an import names (``strata.runtime.api.x`` -> ``strata.runtime.api``)."""
    while target not in mods and "." in target:
        target = target.rsplit(".", 1)[0]
    return target if target in mods else None


def module_edges(root: str = ROOT) -> dict[tuple[str, str], list[str]]:
    """``(module, module) -> ["file:line", ...]`` for imports between two modules of one
    folder (a package's ``__init__`` counts as one of its modules)."""
    mods = _modules(root)
    out: dict[tuple[str, str], list[str]] = {}
    for module in sorted(mods):
        folder = _folder(module, mods)
        for line, target, _, _ in _imports(module, mods):
            dst = target and _owner(target, mods)
            if dst is None or dst == module:
                continue
            if dst == folder or _folder(dst, mods) == folder:
                rel = os.path.relpath(mods[module], root)
                out.setdefault((module, dst), []).append(f"{rel}:{line}")
    return out


def module_cycles(graph: dict[tuple[str, str], list[str]]) -> list[str]:
    """Each circle of imports among the modules of a folder, as a sentence."""
    succ: dict[str, set[str]] = {}
    for src, dst in graph:
        succ.setdefault(src, set()).add(dst)
    found, state = [], {}

    def visit(node, stack):
        state[node] = 1
        for nxt in sorted(succ.get(node, ())):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                where = [graph[(a, b)][0] for a, b in zip(cycle, cycle[1:], strict=False)]
                found.append("import cycle " + " -> ".join(cycle) + f" ({', '.join(where)})")
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for node in sorted(succ):
        if node not in state:
            visit(node, [node])
    return found


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports(root: str = ROOT) -> list[str]:
    """Every use of a private name (``_x``, not ``__x__``) of a module in another folder:
    ``from m import _x``, and ``m._x`` on a module ``m`` imported by name."""
    mods = _modules(root)
    found = []
    for module in sorted(mods):
        folder, rel = _folder(module, mods), os.path.relpath(mods[module], root)
        aliases = {}
        for line, target, names, alias in _imports(module, mods):
            aliases.update(alias)
            owner = target and _owner(target, mods)
            if owner is None or _folder(owner, mods) == folder or owner == folder:
                continue
            for name in filter(_private, names):
                found.append(f"{rel}:{line}: from {target} import {name}")
        with open(mods[module]) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and _private(node.attr) and
                    isinstance(node.value, ast.Name) and node.value.id in aliases):
                target = aliases[node.value.id]
                if _folder(target, mods) != folder and target != folder:
                    found.append(f"{rel}:{node.lineno}: {target}.{node.attr}")
    return found


def private_attributes(root: str = ROOT) -> list[str]:
    """Every ``obj._x`` (``obj`` not ``self`` or ``cls``) in a folder that defines no ``_x``
    while another folder of strata does: a reach into another package's object (a
    Program's ``_signatures``, say). Names strata does not define (``sys._getframe``,
    a torch op's ``_schema``) are other libraries' and not counted."""
    mods = _modules(root)
    defined: dict[str, set[str]] = {}
    uses = []
    for module in sorted(mods):
        folder = _folder(module, mods)
        names = defined.setdefault(folder, set())
        with open(mods[module]) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute):
                if isinstance(node.ctx, (ast.Store, ast.Del)):
                    names.add(node.attr)
                elif _private(node.attr) and not (isinstance(node.value, ast.Name) and
                                                  node.value.id in ("self", "cls")):
                    uses.append((folder, node.attr, module, node.lineno))
            elif isinstance(node, ast.alias):
                names.add((node.asname or node.name).split(".")[0])
    everywhere = set().union(*defined.values())
    return [f"{os.path.relpath(mods[module], root)}:{line}: .{name}"
            for folder, name, module, line in uses
            if name not in defined[folder] and name in everywhere]


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
    inner = module_edges()
    print(f"{len(graph)} edges between nodes; {len(inner)} between modules of one folder")
    found = (problems(graph) + module_cycles(inner) + private_imports() +
             private_attributes())
    for p in found:
        print("PROBLEM:", p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
