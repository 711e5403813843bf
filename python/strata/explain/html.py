"""``strata report --html``: one page that explains a compiled function.

    from strata.explain.html import html_report
    html_report(model, x, w, path="model.html")

The page holds, for the function traced on the given arguments:

* the picture at the strata, linalg, fused and layout levels (explain/show.py,
  inline SVG), fused groups as clusters with the cost model's reasons;
* every fusion and layout decision (strata-fuse's and strata-layout's remarks,
  at the user's file:line);
* where the compile's time went: MLIR's per-pass timing of each level;
* the four runtime costs (cold compile, restart from the disk cache, warm call,
  new shape: runtime/report.py), unless ``costs=False``.

It is one self-contained file (no script, no external resource), written whole
or not at all, from the jinja2 template explain/templates/report.html (autoescaped:
every text from the program is escaped, only dot's SVG goes in as it is).
"""

from __future__ import annotations

import datetime
import os
import platform

import numpy as np

from .. import __version__
from ..frontend.module import trace
from ..runtime.api import check_blas, clone_module, lower
from .graph import function_graph, render, source_ops, to_dot

__all__ = ["html_report", "LEVELS"]

LEVELS = ("strata", "linalg", "fused", "layout")

_TEMPLATE = "report.html"  # in explain/templates/, a package data file


def _page(**values) -> str:
    """The report page: explain/templates/report.html rendered with ``values``
    (autoescaped; only the pictures, dot's own SVG, go in as they are)."""
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("strata.explain", "templates"),
                             autoescape=True, keep_trailing_newline=True)
    return env.get_template(_TEMPLATE).render(**values)


def _svg_body(svg: str) -> str:
    """The <svg> element of dot's output (its XML prologue and doctype dropped)."""
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg


def _decisions(remarks) -> list[tuple[str, str, str]]:
    rows = []
    for r in remarks:
        message = getattr(r, "message", str(r))
        if ":" not in message:
            continue
        pass_name, text = message.split(":", 1)
        if pass_name.startswith("strata-"):
            rows.append((pass_name, getattr(r, "location", ""), text.strip()))
    return rows


def html_report(fn, *args, path: str, costs: bool = True, blas: str = "auto",
                title: str | None = None) -> str:
    """Writes the report of ``fn`` on ``args`` to ``path``; returns the path."""
    target = getattr(fn, "fn", fn)
    module = trace(target, *args)
    fname = module.functions[0]
    sources = source_ops(module.mlir)
    pictures, remarks, timing = [], [], {}
    with module.context:
        for level in LEVELS:
            work = clone_module(module.mlir)
            level_remarks = lower(work, level, fuse_options="report=true", blas=check_blas(blas))
            graph = function_graph(work, fname, level, level_remarks, sources)
            pictures.append((level, _svg_body(render(to_dot(graph), "svg").decode())))
        work = clone_module(module.mlir)
        remarks = lower(work, "llvm", fuse_options="report=true", blas=check_blas(blas),
                        timing=timing)
    signature = ", ".join(f"{tuple(a.shape)} {np.asarray(a).dtype}" for a in args)
    timing_rows = [(level, "  " * depth + name, f"{seconds * 1e3:.2f}")
                   for level, items in timing.items() for seconds, name, depth in items]
    total = sum(seconds for items in timing.values() for seconds, _, depth in items
                if depth == 0)
    cost_rows = None
    if costs:
        from ..runtime.api import jit

        report = jit(target, blas=blas).report(*args)
        cost_rows = [(c, _ms(s), w) for c, s, w in report.rows]
    page = _page(title=title or fname, heading=title or f"@{fname}", version=__version__,
                 machine=platform.machine(),
                 when=datetime.datetime.now().isoformat(timespec="seconds"),
                 signature=signature, pictures=pictures, decisions=_decisions(remarks),
                 timing=timing_rows, total_ms=total * 1e3, costs=cost_rows)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(page)
    os.replace(tmp, path)
    return path


def _ms(seconds) -> str:
    if seconds is None or seconds != seconds:
        return "—"
    return f"{seconds * 1e3:.3g} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.3g} µs"
