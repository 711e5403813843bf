"""A picture of one function at one level: its kernels, what was fused, each tensor's layout.

``function_graph(module, fname, remarks)`` reads the function's top-level ops
into a ``Graph``: a node per kernel (a linalg op, a strata op, a tiled loop
with what runs inside it) labelled with its op, its result type and the user's
``file:line``; an edge per value, labelled with its shape, dtype and (for
rank-4 tensors around convolutions and pools) NCHW or NHWC. Plumbing that is
not work (``tensor.empty``, constants, the zero ``linalg.fill`` of an output)
is left out. strata-fuse's remarks (``report=true``) group the kernels it made:
an elementwise chain merged into one ``linalg.generic`` or an epilogue tiled
with its matmul is drawn as a cluster titled with the ops it absorbed and the
cost model's reason. Layout conversions (``linalg.transpose`` that
strata-layout inserted or kept) are drawn in orange.

``to_digraph(graph)`` builds it as a ``graphviz.Digraph`` (which quotes every name
and label), ``to_dot(graph)`` is its Graphviz text; ``render(text, fmt)`` runs
Graphviz's ``dot`` through the ``graphviz`` package (a clear StrataError naming
what to install when ``dot`` is missing).
"""

from __future__ import annotations

import html
import re
import shutil
from dataclasses import dataclass, field

from mlir import ir

from ..errors import StrataError

__all__ = ["Graph", "Node", "function_graph", "to_digraph", "to_dot", "render"]

PLUMBING = {"tensor.empty", "arith.constant", "strata.constant", "memref.alloc",
            "memref.dealloc", "bufferization.to_tensor", "bufferization.to_buffer"}
NHWC_OPS = ("conv_2d_nhwc", "pooling_nhwc", "depthwise_conv_2d_nhwc")
NCHW_OPS = ("conv_2d_nchw", "pooling_nchw", "strata.conv2d", "strata.max_pool2d",
            "strata.avg_pool2d")
_REMARK = re.compile(r"strata-fuse: (?:\[[0-9a-f]+\] )?(fused|tiled) (\S+) at (\S+) "
                     r"(?:into|by \[[0-9, ]+\] with) (\S+) at (\S+?)(?: fused into each tile)?"
                     r": (.*)$")


@dataclass
class Node:
    id: str
    label: str
    location: str = ""
    kind: str = "op"            # op | input | output | conversion | blas
    cluster: str | None = None  # the fused group it belongs to


@dataclass
class Graph:
    name: str
    level: str
    nodes: list[Node] = field(default_factory=list)
    edges: list[tuple[str, str, str]] = field(default_factory=list)  # (from, to, label)
    clusters: dict[str, str] = field(default_factory=dict)          # id -> title


def _loc_text(loc: ir.Location) -> str:
    """``file:line:col`` of a (possibly fused or named) location, or ""."""
    text = str(loc)
    m = re.search(r'"([^"]+)":(\d+):(\d+)', text)
    return f"{m.group(1)}:{m.group(2)}:{m.group(3)}" if m else ""


def _short_loc(loc: str) -> str:
    if not loc:
        return ""
    path, line, _ = loc.rsplit(":", 2)
    return f"{path.rsplit('/', 1)[-1]}:{line}"


def _type_text(t: ir.Type) -> str:
    s = str(t)
    m = re.match(r"(?:tensor|memref)<(.*)>$", s)
    return m.group(1).split(",")[0] if m else s


def _layout(op_name: str) -> str | None:
    if any(k in op_name for k in NHWC_OPS):
        return "NHWC"
    if any(k in op_name for k in NCHW_OPS):
        return "NCHW"
    return None


def _body_ops(op) -> list[str]:
    names = []
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                name = inner.operation.name
                if name.split(".")[0] in ("arith", "math") and name != "arith.constant":
                    names.append(name.split(".", 1)[1])
    return names


def _describe(op) -> tuple[str, str]:
    """(label, kind) of one top-level op."""
    name = op.name
    attrs = op.attributes
    kind = "op"
    label = name
    if name == "linalg.generic":
        iters = str(attrs["iterator_types"]) if "iterator_types" in attrs else ""
        red = iters.count("reduction")
        body = _body_ops(op)
        shown = ", ".join(body[:6]) + (", ..." if len(body) > 6 else "")
        label = f"linalg.generic ({'reduction' if red else 'elementwise'})\\n{shown}"
    elif name in ("scf.for", "scf.forall"):
        inner = [o.operation.name for r in op.regions for b in r.blocks for o in b.operations
                 if o.operation.name.startswith(("linalg.", "strata."))
                 and o.operation.name != "linalg.fill"]
        label = f"{name} (tiled)\\n" + " + ".join(dict.fromkeys(inner))
        if "strata.row_kernel" in attrs:  # strata-row-kernels / strata-row-fuse
            label = f"{name} (row kernel)\\n{ir.StringAttr(attrs['strata.row_kernel']).value}"
    elif name == "linalg.transpose":
        kind = "conversion"
        perm = list(ir.DenseI64ArrayAttr(attrs["permutation"])) if "permutation" in attrs else []
        label = f"linalg.transpose {perm}"
    if "strata.blas" in attrs:
        kind = "blas"
        label += "\\n(OpenBLAS sgemm)"
    return label, kind


def _is_zero_init(op) -> bool:
    """A ``linalg.fill`` whose result only initializes outputs (``outs``) of later ops."""
    if op.name != "linalg.fill":
        return False
    for use in op.results[0].uses:
        owner = use.owner
        n_in = len(getattr(owner, "inputs", [])) if hasattr(owner, "inputs") else None
        if n_in is None or use.operand_number < n_in:
            return False
    return True


def fusion_groups(remarks, sources=None) -> dict[str, tuple[list[str], str]]:
    """Kernel location -> (absorbed ``ops at file:line`` texts, the reasons), from
    strata-fuse's remarks; chains are followed, so a kernel lists all that merged into it.
    ``sources`` (location -> strata op names) names the user's ops at each location."""
    sources = sources or {}
    into: dict[str, list[tuple[str, str, str]]] = {}
    for r in remarks:
        m = _REMARK.search(getattr(r, "message", str(r)))
        if not m:
            continue
        how, a_op, a_loc, b_op, b_loc, why = m.groups()
        if how == "tiled":  # "tiled <consumer> by [...] with <producer> fused into each tile"
            into.setdefault(a_loc, []).append((b_op, b_loc, why))
        else:               # "fused <producer> into <consumer>"
            into.setdefault(b_loc, []).append((a_op, a_loc, why))
    out = {}
    for kernel in into:
        absorbed, stack, visited = [], [kernel], set()
        reasons = list(dict.fromkeys(why for _, _, why in into[kernel]))
        while stack:
            loc = stack.pop()
            if loc in visited:
                continue
            visited.add(loc)
            for p_op, p_loc, _ in into.get(loc, []):
                what = ", ".join(sources.get(p_loc, [p_op]))
                absorbed.append(f"{what} at {_short_loc(p_loc)}")
                stack.append(p_loc)
        out[kernel] = (list(dict.fromkeys(absorbed)), "; ".join(reasons))
    return out


def source_ops(module: ir.Module) -> dict[str, list[str]]:
    """``file:line:col`` -> the strata ops (short names) at that location, in order."""
    out: dict[str, list[str]] = {}

    def visit(op):
        name = op.name
        if name.startswith("strata.") and name != "strata.constant":
            loc = _loc_text(op.location)
            if loc:
                out.setdefault(loc, []).append(name.split(".", 1)[1])
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return {k: list(dict.fromkeys(v)) for k, v in out.items()}


def function_graph(module: ir.Module, fname: str, level: str, remarks=(),
                   sources=None) -> Graph:
    """The graph of function ``fname`` of ``module`` (lowered to ``level``); ``remarks``:
    strata-fuse's report; ``sources``: ``source_ops`` of the strata-level module."""
    sources = sources or {}
    func = None
    for op in module.body.operations:
        if op.operation.name == "func.func" and \
                ir.StringAttr(op.operation.attributes["sym_name"]).value == fname:
            func = op.operation
    if func is None:
        raise StrataError(f"no function '{fname}' in the module", location="<show>")
    g = Graph(fname, level)
    groups = fusion_groups(remarks, sources)
    block = func.regions[0].blocks[0]
    ids: dict[str, str] = {}  # value text -> node id
    layouts: dict[str, str] = {}  # value text -> the layout its producer wrote it in
    used_groups: set[str] = set()

    def key(value) -> str:
        return value.get_name()

    for i, arg in enumerate(block.arguments):
        nid = f"a{i}"
        g.nodes.append(Node(nid, f"arg{i}: {_type_text(arg.type)}", kind="input"))
        ids[key(arg)] = nid
    skipped: dict[str, list[str]] = {}  # plumbing value -> the node ids it depends on
    for n, child in enumerate(block.operations):
        op = child.operation
        name = op.name
        operands = [key(v) for v in op.operands]
        if name in PLUMBING or _is_zero_init(op) or name.startswith(("tensor.expand_shape",
                                                                      "tensor.collapse_shape")):
            deps = []
            for v in operands:
                deps += [ids[v]] if v in ids else skipped.get(v, [])
            for r in op.results:
                skipped[key(r)] = deps
            continue
        nid = f"n{n}"
        # the op that decides a layout: the op itself, or the conv/pool inside a tiled loop
        kernel_name = name
        if name in ("scf.for", "scf.forall"):
            kernel_name = _describe(op)[0]
        if name == "func.return":
            g.nodes.append(Node(nid, "return", kind="output"))
        else:
            label, kind = _describe(op)
            loc = _loc_text(op.location)
            results = ", ".join(_type_text(r.type) for r in op.results)
            if level != "strata" and sources.get(loc):
                label += "\\nuser op: " + ", ".join(sources[loc])
            node = Node(nid, f"{label}\\n-> {results}" if results else label, loc, kind)
            # only a generic or a tiled loop can hold what was fused into it (several ops
            # may share one source location), and each group is drawn once
            group = groups.get(loc) if name in ("linalg.generic", "scf.for", "scf.forall") \
                and loc not in used_groups else None
            if group and level not in ("strata", "linalg") and kind != "conversion":
                used_groups.add(loc)
                ops, why = group
                cid = f"cluster_{nid}"
                g.clusters[cid] = (f"fused into one kernel: {len(ops)} more op group(s)\\n"
                                   + "\\n".join(ops[:6]) + ("\\n..." if len(ops) > 6 else "")
                                   + f"\\nwhy: {why}")
                node.cluster = cid
            g.nodes.append(node)
        for v in _operands_and_captures(op):
            srcs = [ids[key(v)]] if key(v) in ids else skipped.get(key(v), [])
            lay = None
            if _is_shaped(v.type) and ir.ShapedType(v.type).rank == 4:
                # a conv or pool reads its input (operand 0) in its layout; any other rank-4
                # value carries the layout its producer wrote it in
                first = op.operands[0] if len(op.operands) else None
                own = _layout(kernel_name) if first is not None and key(first) == key(v) \
                    else None
                lay = own or layouts.get(key(v))
            text = _type_text(v.type) + (f" {lay}" if lay else "")
            for s in dict.fromkeys(srcs):
                if (s, nid, text) not in g.edges:
                    g.edges.append((s, nid, text))
        for r in op.results:
            ids[key(r)] = nid
            if _layout(kernel_name):
                layouts[key(r)] = _layout(kernel_name)
    return g


def _operands_and_captures(op) -> list:
    """The op's operands, then values its regions use that are defined outside it."""
    values = list(op.operands)
    inside = set()

    def visit(o):
        for r in o.regions:
            for b in r.blocks:
                for a in b.arguments:
                    inside.add(a.get_name())
                for inner in b.operations:
                    for res in inner.results:
                        inside.add(res.get_name())
                    visit(inner.operation)

    def uses(o):
        for r in o.regions:
            for b in r.blocks:
                for inner in b.operations:
                    for v in inner.operands:
                        if v.get_name() not in inside:
                            values.append(v)
                    uses(inner.operation)

    visit(op)
    uses(op)
    return values


def _is_shaped(t) -> bool:
    try:
        ir.ShapedType(t)
        return True
    except (ValueError, TypeError):
        return False


STYLE = {
    "op": {"shape": "box", "style": "rounded,filled", "fillcolor": "#e8f0fe"},
    "blas": {"shape": "box", "style": "rounded,filled", "fillcolor": "#e6f4ea"},
    "conversion": {"shape": "box", "style": "rounded,filled,bold", "fillcolor": "#fbbc04",
                   "color": "#e37400"},
    "input": {"shape": "ellipse", "style": "filled", "fillcolor": "#f1f3f4"},
    "output": {"shape": "ellipse", "style": "filled", "fillcolor": "#f1f3f4"},
}


def to_digraph(g: Graph):
    """The graph as a ``graphviz.Digraph`` (which quotes names and labels)."""
    import graphviz

    dot = graphviz.Digraph(g.name)
    dot.attr(label=f"@{g.name} at the {g.level} level", labelloc="t", fontsize="16")
    dot.attr("node", fontname="Helvetica", fontsize="10")
    dot.attr("edge", fontname="Helvetica", fontsize="9")

    def add_node(into, n: Node) -> None:
        label = n.label + (f"\\n{_short_loc(n.location)}" if n.location else "")
        tooltip = html.escape(n.location or n.label.replace("\\n", " "))
        into.node(n.id, label, tooltip=tooltip, **STYLE[n.kind])

    for n in g.nodes:
        if n.cluster is None:
            add_node(dot, n)
    for cid, title in g.clusters.items():
        with dot.subgraph(name=cid) as sub:
            sub.attr(label=title, style="rounded,dashed", color="#1a73e8", fontsize="9")
            for n in g.nodes:
                if n.cluster == cid:
                    add_node(sub, n)
    for src, dst, label in g.edges:
        dot.edge(src, dst, label=label)
    return dot


def to_dot(g: Graph) -> str:
    """The graph as Graphviz text."""
    return to_digraph(g).source


def render(dot_text: str, fmt: str = "svg") -> bytes:
    """The picture in ``fmt`` (svg, png, pdf), from Graphviz's ``dot`` through the pinned
    ``graphviz`` package."""
    import graphviz

    if shutil.which("dot") is None:
        raise StrataError("drawing needs Graphviz's `dot` program, which is not installed "
                          "(Debian/Ubuntu: apt-get install graphviz; macOS: brew install "
                          "graphviz)", location="<show>")
    try:
        return graphviz.Source(dot_text).pipe(format=fmt, engine="dot")
    except graphviz.ExecutableNotFound:
        raise StrataError("drawing needs Graphviz's `dot` program, which is not installed "
                          "(Debian/Ubuntu: apt-get install graphviz)", location="<show>") from None
    except graphviz.CalledProcessError as e:
        detail = getattr(e, "stderr", b"") or b""
        raise StrataError(f"dot failed: {detail.decode(errors='replace').strip() or e}",
                          location="<show>") from None
