"""``strata.show``: the picture of a function at a level, as SVG and PNG.

    pic = strata.show(encoder_block, *args, level="fused")   # a Picture
    pic.save("encoder")            # encoder.svg + encoder.png (and encoder.dot)
    pic                            # in a notebook: drawn inline (_repr_svg_)

The function is traced with the given arguments (or a strata.Module / .mlir text
is taken as is), lowered to ``level`` with strata-fuse's decision report on,
and drawn by explain/graph.py through Graphviz's ``dot``.
"""

from __future__ import annotations

import os

from ..errors import StrataError
from ..frontend.module import Module, trace
from ..pipelines.levels import level_index
from ..runtime.api import check_blas, clone_module, lower, parse
from .graph import function_graph, render, source_ops, to_dot

__all__ = ["Picture", "show", "module_picture"]

LEVELS = ("strata", "linalg", "fused", "layout", "bufferized")


class Picture:
    """A drawn function: ``dot`` source, ``svg`` text, ``png()`` bytes, ``save(stem)``."""

    def __init__(self, graph, dot: str):
        self.graph = graph
        self.dot = dot
        self._svg: str | None = None

    @property
    def svg(self) -> str:
        if self._svg is None:
            self._svg = render(self.dot, "svg").decode()
        return self._svg

    def png(self) -> bytes:
        return render(self.dot, "png")

    def _repr_svg_(self) -> str:
        return self.svg

    def save(self, stem: str) -> list[str]:
        """Writes ``stem.svg``, ``stem.png`` and ``stem.dot``; returns the paths. Each file is
        written whole or not at all (a temporary file renamed into place)."""
        stem = stem[:-4] if stem.endswith((".svg", ".png", ".dot")) else stem
        paths = []
        for ext, data in (("dot", self.dot.encode()), ("svg", self.svg.encode()),
                          ("png", self.png())):
            path = f"{stem}.{ext}"
            tmp = f"{path}.tmp{os.getpid()}"
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
            paths.append(path)
        return paths


def module_picture(module: Module, fname: str | None = None, level: str = "fused", *,
                   blas: str = "auto", fusion: bool = True, layout: bool = True) -> Picture:
    """The picture of ``fname`` (default: the module's first function) of a strata-level
    module, lowered to ``level`` (strata, linalg, fused, layout or bufferized)."""
    level_index(level)
    if level not in LEVELS:
        raise StrataError(f"cannot draw the '{level}' level (levels drawn: "
                          f"{', '.join(LEVELS)})", location="<show>")
    names = list(module.functions)
    if not names:
        raise StrataError("the module has no function to draw", location="<show>")
    fname = fname or names[0]
    if fname not in names:
        raise StrataError(f"no function '{fname}' (functions: {', '.join(names)})",
                          location="<show>")
    with module.context:
        work = clone_module(module.mlir)
        remarks = lower(work, level, fusion=fusion, layout=layout,
                        fuse_options="report=true" if fusion else "", blas=check_blas(blas))
        graph = function_graph(work, fname, level, remarks, source_ops(module.mlir))
    return Picture(graph, to_dot(graph))


def show(fn_or_module, *args, level: str = "fused", function: str | None = None,
         blas: str = "auto", fusion: bool = True, layout: bool = True) -> Picture:
    """The picture of a Python function traced on ``args`` (or of a strata.Module or
    ``.mlir`` text) at ``level``."""
    if isinstance(fn_or_module, str):
        module = parse(fn_or_module)
    elif isinstance(fn_or_module, Module):
        module = fn_or_module
    else:
        module = trace(getattr(fn_or_module, "fn", fn_or_module), *args)
    return module_picture(module, function, level, blas=blas, fusion=fusion, layout=layout)
