"""Arguments and results of ``strata.jit`` functions as trees of arrays (pytrees).

A jitted function may take keyword arguments, and any argument (or result) may be a
tree of containers with arrays at its leaves, as JAX users pass parameters:

    @strata.jit
    def mlp(params, x, *, scale=1.0):
        h = strata.relu(x @ params["w1"] + params["b1"])
        return {"y": h @ params["w2"] * scale, "h": h}

Containers are tuples, lists, dicts (keys in sorted order, as JAX orders them, so
``{"a", "b"}`` built in either order is one tree), named tuples, dataclass instances
and ``None`` (an empty tree). Everything else is a leaf: a numpy array, a numpy or
Python scalar, a TensorSpec. ``flatten`` gives the leaves and a hashable ``Tree``
that records the containers; a call compiles one flat function per argument tree
(``runtime/jit.py``), so the tree is part of what selects a compiled variant, and the
leaves are its positional arguments, named after their paths (``params_w1``) in
guards and messages.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from ..errors import StrataError
from ..frontend.locations import location_text

__all__ = ["Tree", "LEAF", "flatten", "unflatten", "is_container", "leaf_names"]


@dataclasses.dataclass(frozen=True)
class Tree:
    """The shape of a tree: ``kind`` (leaf, none, tuple, list, dict, namedtuple,
    dataclass), ``meta`` (dict keys, the class, the field names), ``children``."""

    kind: str
    meta: Any = None
    children: tuple = ()

    @property
    def leaves(self) -> int:
        if self.kind == "leaf":
            return 1
        return sum(c.leaves for c in self.children)


LEAF = Tree("leaf")
_NONE = Tree("none")


def is_container(value) -> bool:
    """Whether ``value`` is a tree node rather than a leaf."""
    return value is None or isinstance(value, (tuple, list, dict)) or \
        dataclasses.is_dataclass(value) and not isinstance(value, type)


def _sorted_keys(d: dict, where: str) -> list:
    try:
        return sorted(d)
    except TypeError:
        raise StrataError(f"{where}: dict keys must be sortable (all str, or all int) to "
                          f"make a tree, got {sorted({type(k).__name__ for k in d})}",
                          location=location_text()) from None


def flatten(value, where: str = "argument") -> tuple[list, Tree]:
    """``(leaves, tree)`` of ``value``, leaves in tree order (depth first)."""
    leaves: list = []

    def walk(v, path):
        if v is None:
            return _NONE
        if isinstance(v, tuple) and hasattr(type(v), "_fields"):
            return Tree("namedtuple", type(v), tuple(walk(x, path) for x in v))
        if isinstance(v, (tuple, list)):
            return Tree(type(v).__name__, None, tuple(walk(x, path) for x in v))
        if isinstance(v, dict):
            keys = _sorted_keys(v, where)
            return Tree("dict", tuple(keys), tuple(walk(v[k], path) for k in keys))
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            names = tuple(f.name for f in dataclasses.fields(v) if f.init)
            return Tree("dataclass", (type(v), names),
                        tuple(walk(getattr(v, n), path) for n in names))
        leaves.append(v)
        return LEAF

    return leaves, walk(value, where)


def unflatten(tree: Tree, leaves) -> Any:
    """The value of shape ``tree`` with ``leaves`` (any iterable, in tree order)."""
    it = iter(leaves)

    def build(t: Tree):
        if t.kind == "leaf":
            return next(it)
        if t.kind == "none":
            return None
        items = [build(c) for c in t.children]
        if t.kind == "tuple":
            return tuple(items)
        if t.kind == "list":
            return items
        if t.kind == "dict":
            return dict(zip(t.meta, items, strict=True))
        if t.kind == "namedtuple":
            return t.meta(*items)
        cls, names = t.meta
        return cls(**dict(zip(names, items, strict=True)))

    return build(tree)


def leaf_names(tree: Tree, root_names: list[str]) -> list[str]:
    """Identifier-like names of the leaves of ``tree`` (a tuple of the positional
    arguments' trees, then the keywords' dict), from their paths: ``params_w1`` for
    ``params["w1"]``, ``layers_0_w`` for ``layers[0].w``, a keyword by its name."""
    names: list[str] = []

    def walk(t: Tree, path: str):
        if t.kind == "leaf":
            names.append(path)
        elif t.kind == "dict":
            for k, c in zip(t.meta, t.children, strict=True):
                walk(c, f"{path}_{k}")
        elif t.kind == "dataclass" or t.kind == "namedtuple":
            fields = t.meta[1] if t.kind == "dataclass" else t.meta._fields
            for k, c in zip(fields, t.children, strict=True):
                walk(c, f"{path}_{k}")
        else:
            for i, c in enumerate(t.children):
                walk(c, f"{path}_{i}")

    positional, keywords = tree.children
    for name, child in zip(root_names, positional.children, strict=True):
        walk(child, name)
    for key, child in zip(keywords.meta, keywords.children, strict=True):
        walk(child, str(key))
    out, seen = [], set()
    for n in names:
        n = re.sub(r"\W", "_", n)
        if not n or n[0].isdigit():
            n = "_" + n
        base, i = n, 1
        while n in seen:  # params_a_b (a dict key "a_b") beside params_a["b"]
            i += 1
            n = f"{base}_{i}"
        seen.add(n)
        out.append(n)
    return out
