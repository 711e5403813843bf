"""Where in the user's code an ATen node came from, as ``(file, line, col)``.

A node of a Dynamo or ``torch.export`` graph carries the Python stack that made it
(``meta["stack_trace"]``): its innermost frame outside torch is the user's line
(``nn.Linear``'s call site, not linear.py). A node that a torch module's own fast path made
(``nn.TransformerEncoderLayer`` calls one fused op that the decompositions split) has no
stack; it is then placed at the ``forward`` of the innermost module that ran it
(``meta["nn_module_stack"]``), so a remark or an error still points at real source.
"""

from __future__ import annotations

import importlib
import inspect
import os

import torch

__all__ = ["node_location", "graph_location"]

_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep


def _stack_location(trace: str) -> tuple[str, int, int] | None:
    frames = []
    for line in trace.splitlines():
        line = line.strip()
        if line.startswith('File "'):
            try:
                path, rest = line[6:].split('", line ', 1)
                frames.append((path, int(rest.split(",", 1)[0]), 1))
            except ValueError:
                continue
    user = [f for f in frames if not os.path.abspath(f[0]).startswith(_TORCH_DIR)]
    return (user or frames or [None])[-1]


def _module_class(entry):
    """The class of one ``nn_module_stack`` entry: a class (Dynamo) or its dotted name
    (``torch.export``)."""
    cls = entry[1] if isinstance(entry, tuple) and len(entry) > 1 else None
    if isinstance(cls, str):
        modname, _, name = cls.rpartition(".")
        try:
            cls = getattr(importlib.import_module(modname), name)
        except (ImportError, AttributeError, ValueError):
            return None
    return cls if inspect.isclass(cls) else None


def _module_location(stack) -> tuple[str, int, int] | None:
    for entry in reversed(list((stack or {}).values())):
        forward = getattr(_module_class(entry), "forward", None)
        code = getattr(inspect.unwrap(forward), "__code__", None) if forward else None
        if code is not None:  # its def line, from the code object (no source file read)
            return (code.co_filename, code.co_firstlineno, 1)
    return None


def node_location(node) -> tuple[str, int, int] | None:
    """``(file, line, col)`` of the code that made ``node``: the user's line from its stack
    trace, else the forward of the innermost module that ran it, else None."""
    return (_stack_location(node.meta.get("stack_trace") or "")
            or _module_location(node.meta.get("nn_module_stack")))


def graph_location(graph) -> tuple[str, int, int] | None:
    """Where a graph as a whole comes from: its first node that has a location."""
    for node in graph.nodes:
        if node.op == "call_function":
            loc = node_location(node)
            if loc is not None:
                return loc
    return None
