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
or not at all.
"""

from __future__ import annotations

import datetime
import html
import os
import platform

import numpy as np

from .. import __version__
from ..frontend.module import trace
from ..runtime.api import _blas, _clone, lower
from .graph import function_graph, render, source_ops, to_dot

__all__ = ["html_report", "LEVELS"]

LEVELS = ("strata", "linalg", "fused", "layout")

STYLE = """
body { font-family: Helvetica, Arial, sans-serif; margin: 2em; color: #202124; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { border: 1px solid #dadce0; padding: 0.25em 0.6em; text-align: left; }
th { background: #f1f3f4; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.picture { border: 1px solid #dadce0; margin: 0.5em 0; overflow: auto; max-height: 70em; }
.meta { color: #5f6368; }
"""


def _esc(text) -> str:
    return html.escape(str(text))


def _table(headers, rows, numeric=()) -> str:
    out = ["<table>", "<tr>" + "".join(f"<th>{_esc(h)}</th>" for h in headers) + "</tr>"]
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            cls = ' class="num"' if i in numeric else ""
            cells.append(f"<td{cls}>{_esc(cell)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


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
            work = _clone(module.mlir)
            level_remarks = lower(work, level, fuse_options="report=true", blas=_blas(blas))
            graph = function_graph(work, fname, level, level_remarks, sources)
            pictures.append((level, _svg_body(render(to_dot(graph), "svg").decode())))
        work = _clone(module.mlir)
        remarks = lower(work, "llvm", fuse_options="report=true", blas=_blas(blas),
                        timing=timing)
    sections = []
    signature = ", ".join(f"{tuple(a.shape)} {np.asarray(a).dtype}" for a in args)
    sections.append(f"<h1>{_esc(title or f'@{fname}')}</h1>")
    sections.append(f'<p class="meta">strata {_esc(__version__)} · {_esc(platform.machine())} · '
                    f"{_esc(datetime.datetime.now().isoformat(timespec='seconds'))} · "
                    f"arguments: {_esc(signature)}</p>")
    sections.append('<h2 id="pictures">The function at each level</h2>')
    for level, svg in pictures:
        sections.append(f'<h3>{_esc(level)}</h3><div class="picture" id="picture-{level}">'
                        f"{svg}</div>")
    sections.append('<h2 id="decisions">Fusion and layout decisions</h2>')
    rows = _decisions(remarks)
    sections.append(_table(["pass", "where", "decision"], rows) if rows else
                    "<p>No decision was reported.</p>")
    sections.append('<h2 id="timing">Where the compile time went (MLIR pass timing)</h2>')
    timing_rows = [(level, "  " * depth + name, f"{seconds * 1e3:.2f}")
                   for level, items in timing.items() for seconds, name, depth in items]
    total = sum(seconds for items in timing.values() for seconds, _, depth in items
                if depth == 0)
    sections.append(f"<p>Total over the passes: {total * 1e3:.1f} ms.</p>")
    sections.append(_table(["level", "pass", "ms"], timing_rows, numeric=(2,)))
    if costs:
        from ..runtime.api import jit

        report = jit(target, blas=blas).report(*args)
        sections.append('<h2 id="costs">Runtime costs</h2>')
        sections.append(_table(["cost", "time", "what was measured"],
                               [(c, _ms(s), w) for c, s, w in report.rows], numeric=(1,)))
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_esc(title or fname)} · strata report</title><style>{STYLE}</style>"
            "</head><body>\n" + "\n".join(sections) + "\n</body></html>\n")
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(page)
    os.replace(tmp, path)
    return path


def _ms(seconds) -> str:
    if seconds is None or seconds != seconds:
        return "—"
    return f"{seconds * 1e3:.3g} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.3g} µs"
