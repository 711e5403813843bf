"""The Dynamo backend ``strata``: ``torch.compile(model, backend="strata")``.

    Dynamo graph --aot_autograd + core ATen decompositions--> ATen FX graph
      --partition (aten_ops.unsupported)--> strata subgraphs + eager nodes
      --import_graph + strata.compile--> each strata subgraph a compiled Program

The backend is registered through the ``torch_dynamo_backends`` entry point (pyproject).
Parameters and buffers reach the compiled code as arguments (aot_autograd lifts them),
so new weights are new argument values, not a recompile. Tensors cross as numpy arrays
over the same memory (contiguous CPU tensors; int64 stays int64, strata's i64), and
results come back as tensors over the arrays the compiled code wrote. A graph Dynamo traces
with symbolic sizes (automatic dynamic, ``dynamic=True``) compiles once with dynamic dims
(symbolic.py): its size inputs are dropped at the call (strata reads the sizes from the
tensors), and size arithmetic between the ops stays in Python, unrecorded. A node strata
cannot run (an op it lacks, symbolic sizes its op cannot take, an unsupported dtype) stays
in eager PyTorch between the compiled subgraphs: ``strata.torch.explain`` lists them.

Never a hard failure: whatever goes wrong inside strata while it splits or compiles a
graph (a StrataError, a lowering or pipeline error, or a bug: any Exception in a
converter, the partitioner or the compiler) leaves that part to eager PyTorch: a
subgraph that fails runs its ATen ops eagerly, a graph strata cannot split runs whole (so
does one aot_autograd cannot lower with strata's decompositions). A fallback is never
silent: each graph with any gives one ``StrataPerformanceWarning`` (``strata.runtime.api``)
at the user's source line of its first fallback, listing each distinct op and line that
runs eagerly and why (a subgraph that failed: the op where it failed, if known, else its
first op, and the error); a warning of the same text as one given before in the process
(a recompile that falls back alike) is not repeated. ``strata.torch.explain`` lists them
all, with the full error.
With ``strata.torch.config.strict`` (or ``STRATA_TORCH_STRICT=1``, or
``options={"strict": True}``) a fallback is an error instead: the compiled model raises a
StrataError when called, naming each op, its line and the cause (raised while Dynamo
compiles, it would reach the user wrapped in BackendCompilerFailed); so is the warning
where warnings are errors (``-W error``). A crash (a signal) in compiled code cannot be
caught in-process; this is about exceptions.

Options (``torch.compile(..., options={...})``): ``threads``, ``blas``, ``fusion`` as
for ``strata.compile``; ``strict`` as above.
"""

from __future__ import annotations

import dataclasses
import operator
import warnings

import torch
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase

from ..errors import Diagnostic, StrataError
from ..runtime.log import logger
from . import config
from .aten_ops import unsupported
from .importer import import_graph, tensor_inputs
from .locations import node_location
from .symbolic import is_size
from .tensors import from_numpy, to_numpy

__all__ = ["strata_backend", "compile_fx", "SubgraphRecord", "GraphRecord", "Fallback"]


@dataclasses.dataclass
class SubgraphRecord:
    """One piece of an ATen graph: run by strata, or left to eager PyTorch (and why)."""

    kind: str  # "strata" | "eager"
    ops: list  # the ATen ops, as "aten.addmm.default"
    reasons: list = dataclasses.field(default_factory=list)  # (op, why, "file:line")
    error: str | None = None  # strata failed to compile it (it then runs eagerly)
    compiled: object = None  # the StrataSubgraph that runs it (its module, program)
    failed_at: tuple | None = None  # with error: (op, "file:line", why) where it failed
    exception: BaseException | None = dataclasses.field(default=None, repr=False,
                                                        compare=False)  # with error


@dataclasses.dataclass
class Fallback:
    """One op, at one source line, that runs in eager PyTorch, and why."""

    op: str  # "aten.cummax.default"
    where: str  # "file:line" ("<unknown>": the node has no location)
    why: str  # the reason, or the error of the subgraph strata failed to compile
    count: int = 1  # nodes of this op at this line
    cause: BaseException | None = dataclasses.field(default=None, repr=False, compare=False)

    def __str__(self) -> str:
        nodes = f" ({self.count} nodes)" if self.count > 1 else ""
        return f"{self.op} at {self.where}{nodes}: {self.why}"


@dataclasses.dataclass
class GraphRecord:
    """One ATen graph the backend was given, as split into subgraphs."""

    name: str
    subgraphs: list
    fallbacks: list = dataclasses.field(default_factory=list)  # Fallback: what the warning says


def _reason(node) -> str | None:
    """``unsupported(node)``; a failure of that check itself (a bug) leaves the node eager."""
    try:
        return unsupported(node)
    except Exception as e:  # noqa: BLE001 - never a hard failure: the node runs eagerly
        return f"strata's support check failed: {_describe(e)}"


def _describe(e: BaseException) -> str:
    """An exception in one line: a StrataError's message, else ``Type: message``."""
    if isinstance(e, StrataError):
        text = e.message
    else:
        text = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
    text = " ".join(text.split())
    return text if len(text) <= 300 else text[:297] + "..."


class _Support(OperatorSupportBase):
    def __init__(self):
        super().__init__()
        self.reasons = {}  # node -> why strata leaves it to eager PyTorch (None: it runs it)

    def reason(self, node) -> str | None:
        if node not in self.reasons:
            self.reasons[node] = _reason(node)
        return self.reasons[node]

    def is_node_supported(self, submodules, node) -> bool:
        if node.op != "call_function":
            return False
        if node.target is operator.getitem:  # with the op whose result it takes apart
            return self.is_node_supported(submodules, node.args[0])
        return self.reason(node) is None


def _op_name(node) -> str:
    return str(node.target) if hasattr(node.target, "_schema") else getattr(
        node.target, "__name__", str(node.target))


def _where(node) -> str:
    loc = node_location(node)
    return f"{loc[0]}:{loc[1]}" if loc else "<unknown>"


class StrataSubgraph(torch.nn.Module):
    """A partition of the ATen graph, compiled by strata and called on torch tensors."""

    def __init__(self, gm: torch.fx.GraphModule, options: dict):
        super().__init__()
        from ..runtime.api import compile as strata_compile

        self.module = import_graph(gm, "main")
        # the tensors among the inputs (sizes are read from their shapes)
        self.tensor_inputs = tensor_inputs(gm)
        n = len([p for p in gm.graph.nodes if p.op == "placeholder"])
        self.keep = None if len(self.tensor_inputs) == n else self.tensor_inputs
        self.program = strata_compile(self.module, **options)
        specs, _ = self.program.signature("main")
        # compiled now, for the static shapes Dynamo guards: a failure leaves this part eager
        logger("recompiles").info(
            "torch graph: compiling a subgraph of %d ops for (%s)%s",
            sum(1 for n in gm.graph.nodes if n.op == "call_function"),
            ", ".join(_spec_text(s, d) for s, d in specs),
            " (dynamic dims: one compile serves every size)" if any(
                None in tuple(s) for s, _ in specs) else "")
        self.compiled = self.program.compile(specs, function="main")
        out = next(n for n in gm.graph.nodes if n.op == "output").args[0]
        self.single = not isinstance(out, (tuple, list))
        outs = [out] if self.single else list(out)
        self.out_dtypes = [o.meta["val"].dtype for o in outs]
        self._direct = _direct_call(self.compiled, self.out_dtypes)

    def forward(self, *tensors):
        # Dynamo's guards hold shapes and dtypes: the arrays fit the compiled signature
        if self.keep is not None:
            tensors = [tensors[i] for i in self.keep]
        direct = self._direct
        if direct is not None:
            outs = direct(tensors)
            if outs is not None:
                return outs[0] if self.single else outs
        results = self.compiled.run([to_numpy(t) for t in tensors])
        outs = tuple(from_numpy(r, d) for r, d in zip(results, self.out_dtypes, strict=True))
        return outs[0] if self.single else outs


def _spec_text(shape, dtype) -> str:
    return "x".join("?" if d is None else str(d) for d in shape) + ("x" if shape else "") + dtype


_TORCH_DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
                 "f64": torch.float64, "i32": torch.int32, "i64": torch.int64}


def _direct_call(compiled, out_dtypes):
    """The warm path of a compiled subgraph whose arguments and results all have a torch
    dtype of their own (no bool): the tensors' data pointers go to the
    compiled code as they are, and its results are written into new torch tensors, with
    no numpy array on the way. The callable returns None for a tensor it cannot pass so
    (not contiguous, not on the CPU, empty), which then takes the numpy path. None where
    the signature does not allow it (a dynamic variant, another dtype)."""
    specs = getattr(compiled, "arg_specs", None)
    results = getattr(compiled, "result_specs", None)
    if specs is None or results is None or type(compiled).__name__ != "CompiledFunction":
        return None
    dtypes = [_TORCH_DTYPES.get(d) for _, d in specs]
    outs = [(tuple(s), _TORCH_DTYPES.get(d)) for s, d in results]
    if None in dtypes or any(d is None or d != want for (_, d), want
                             in zip(outs, out_dtypes, strict=True)):
        return None
    if any(None in tuple(s) for s, _ in specs) or any(None in s or 0 in s for s, _ in outs):
        return None
    call, workspace = compiled.kernel.call_pointers, compiled.workspace
    empty, cpu = torch.empty, torch.device("cpu")

    def direct(tensors):
        pointers = []
        for t, dtype in zip(tensors, dtypes, strict=True):
            if (not isinstance(t, torch.Tensor) or t.dtype is not dtype or t.device != cpu
                    or not t.is_contiguous() or not t.numel()):
                return None
            pointers.append(t.data_ptr())
        results = tuple(empty(shape, dtype=dtype) for shape, dtype in outs)
        pointers += [r.data_ptr() for r in results]
        if workspace:
            pointers.append(compiled.workspace_address())
        call(pointers)
        return results

    return direct


def compile_fx(gm: torch.fx.GraphModule, example_inputs, *, options: dict | None = None,
               record: list | None = None, strict: bool | None = None, warn: bool = True):
    """Compiles an ATen FX graph: supported partitions by strata, the rest left as is.

    Returns a boxed callable (aot_autograd's convention); appends a GraphRecord to
    ``record`` when given. Never raises for a failure inside strata: a subgraph it fails
    to compile runs its ATen ops eagerly, a graph it fails to split runs whole, and the
    graph's fallbacks give one StrataPerformanceWarning (``warn``). ``strict`` (None:
    ``options["strict"]``, else ``config.is_strict()``): the callable raises a StrataError
    naming them instead.
    """
    from functorch.compile import make_boxed_func

    options = dict(options or {})
    strict = _strict(strict, options)
    try:
        fused, records = _split(gm, options)
        forward = fused.forward
    except Exception as e:  # noqa: BLE001 - never a hard failure: the graph runs eagerly
        records = [_whole_graph(gm, "strata could not split the graph", e)]
        forward = gm.forward
    return make_boxed_func(_finish(forward, records, record, strict, warn))


def _strict(strict, options: dict) -> bool:
    """The strict setting: the argument, else ``options["strict"]`` (removed from
    ``options``: it is no strata.compile option), else ``config.is_strict()``."""
    option = options.pop("strict", None)
    if strict is not None:
        return bool(strict)
    return config.is_strict() if option is None else bool(option)


def _split(gm: torch.fx.GraphModule, options: dict):
    """``(graph module to run, [SubgraphRecord])``: a copy of ``gm`` (``gm`` itself stays
    whole, to run eagerly if this fails) with each supported partition compiled by strata;
    a partition strata fails to compile stays a module of its ATen ops."""
    import copy

    work = torch.fx.GraphModule(gm, copy.deepcopy(gm.graph))  # nodes' meta copied shallowly
    support = _Support()
    partitioner = CapabilityBasedPartitioner(work, support, allows_single_node_partition=True)
    partitions = partitioner.propose_partitions()
    fused = partitioner.fuse_partitions(partitions) if partitions else work
    records = []
    for node in list(fused.graph.nodes):
        if node.op == "call_function" and node.target is not operator.getitem and \
                not is_size(node.meta.get("val")):  # (size arithmetic is no tensor op)
            op = _op_name(node)
            records.append(SubgraphRecord("eager", [op], [(op, support.reason(node) or
                                                           "left out of strata", _where(node))]))
        if node.op != "call_module" or not node.target.startswith("fused_"):
            continue
        sub = getattr(fused, node.target)
        rec = SubgraphRecord("strata", [_op_name(n) for n in sub.graph.nodes
                                        if n.op == "call_function"])
        try:
            rec.compiled = StrataSubgraph(sub, options)
            setattr(fused, node.target, rec.compiled)
        except Exception as e:  # noqa: BLE001 - any failure: left to eager PyTorch, and said so
            n = len(rec.ops)
            _failed(rec, e, sub.graph, f"strata could not compile its subgraph ({n} op"
                    f"{'s' if n != 1 else ''})")
        records.append(rec)
    fused.recompile()
    return fused, records


def _error_text(e: BaseException) -> str:
    return str(e) if isinstance(e, StrataError) else f"{type(e).__name__}: {e}"


def _failed(rec: SubgraphRecord, e: BaseException, graph, what: str, *,
            any_graph: bool = False) -> None:
    """Marks ``rec`` as run eagerly because of ``e``, at the node of ``graph`` where strata
    failed (``any_graph``: a node of any graph, e.g. a copy of it)."""
    node = _failed_node(e, None if any_graph else graph)
    if node is None:  # else the first op
        node = next((n for n in graph.nodes if n.op == "call_function"
                     and n.target is not operator.getitem), None)
    op, where = (_op_name(node), _where(node)) if node is not None else ("<graph>", "<unknown>")
    rec.kind, rec.error, rec.exception = "eager", _error_text(e), e
    rec.failed_at = (op, where, f"{what}: {_describe(e)}")


def _failed_node(e: BaseException, graph):
    """The ATen node strata was working on when ``e`` was raised: the innermost frame of
    its traceback with a local ``node`` of ``graph`` (any graph, for None) - the importer's
    loop, a converter; else the first node at the source line a StrataError names; else
    None."""
    found = None
    tb = e.__traceback__
    while tb is not None:
        node = tb.tb_frame.f_locals.get("node")
        if isinstance(node, torch.fx.Node) and node.op == "call_function" and (
                graph is None or node.graph is graph):
            found = node
        tb = tb.tb_next
    if found is not None or graph is None or not isinstance(e, StrataError):
        return found
    for diag in e.diagnostics:
        file, line = _file_line(diag.location)
        for node in graph.nodes:
            loc = node_location(node) if node.op == "call_function" else None
            if loc is not None and (loc[0], loc[1]) == (file, line):
                return node
    return None


def _file_line(text: str) -> tuple:
    """``("file", line)`` of a ``file:line[:col]`` location text (None, None if it is not)."""
    parts = text.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return parts[0], int(parts[1])
    if len(parts) >= 2 and parts[-1].isdigit():
        return text.rsplit(":", 1)[0], int(parts[-1])
    return None, None


def _whole_graph(gm: torch.fx.GraphModule, what: str, e: BaseException) -> SubgraphRecord:
    """The record of a graph that runs whole in eager PyTorch because of ``e``."""
    rec = SubgraphRecord("eager", [_op_name(n) for n in gm.graph.nodes if n.op == "call_function"
                                   and n.target is not operator.getitem])
    _failed(rec, e, gm.graph, what, any_graph=True)  # (strata splits a copy of the graph)
    return rec


def _fallbacks(records: list) -> list:
    """The graph's ops that run in eager PyTorch, one Fallback per op and source line."""
    found: dict = {}
    for rec in records:
        items = [(op, where, why, None) for op, why, where in rec.reasons]
        if rec.failed_at is not None:
            op, where, why = rec.failed_at
            items.append((op, where, why, rec.exception))
        for op, where, why, cause in items:
            key = (op, where) if cause is None else (op, where, id(rec))
            if key in found:
                found[key].count += 1
            else:
                found[key] = Fallback(op, where, why, cause=cause)
    return list(found.values())


def _finish(forward, records: list, record: list | None, strict: bool, warn: bool):
    """``forward``, having recorded the graph and warned of its fallbacks; in strict mode,
    with any fallback, a callable that raises a StrataError naming them."""
    fallbacks = _fallbacks(records)
    if record is not None:
        record.append(GraphRecord(f"graph {len(record)}", records, fallbacks))
    if not fallbacks:
        return forward
    if strict:
        def refuse(*args):
            raise _strict_error(fallbacks)

        return refuse
    if warn:
        try:
            _warn(fallbacks)
        except Warning as w:  # warnings made errors (-W error): raised at the call, as strict
            return _raiser(w)
    return forward


def _raiser(error: BaseException):
    """A callable that raises ``error`` (which Dynamo would have wrapped at compile time)."""
    def raise_it(*args):
        raise error.with_traceback(None)

    return raise_it


# the warnings given in this process: the same text again (a recompile that falls back
# alike: a second input size, a second instance of the model) is not repeated
_WARNED: set = set()
_LISTED = 10  # fallbacks a warning lists


def _warn(fallbacks: list) -> None:
    """One StrataPerformanceWarning for a graph's fallbacks, at the first one's source
    line (shown with that line, as Python shows a warning)."""
    from ..runtime.performance import StrataPerformanceWarning

    see = "strata.torch.explain(model, *inputs) shows the split"
    if len(fallbacks) == 1:
        text = f"strata: {fallbacks[0].op} at {fallbacks[0].where} runs in eager PyTorch: " \
               f"{fallbacks[0].why} ({see})"
    else:
        lines = [f"strata: {len(fallbacks)} ops of this graph run in eager PyTorch ({see}):"]
        lines += [f"  {f}" for f in fallbacks[:_LISTED]]
        if len(fallbacks) > _LISTED:
            lines.append(f"  ... and {len(fallbacks) - _LISTED} more")
        text = "\n".join(lines)
    if text in _WARNED:
        return
    if len(_WARNED) >= 10000:
        _WARNED.clear()
    file, line = next(((f, n) for f, n in (_file_line(x.where) for x in fallbacks)
                       if f is not None), ("<unknown>", 0))
    warnings.warn_explicit(text, StrataPerformanceWarning, file, line)
    _WARNED.add(text)


def _strict_error(fallbacks: list) -> StrataError:
    """The StrataError of strict mode: one diagnostic per fallback (op, line, cause)."""
    diags = [Diagnostic(f.where, f"{f.op} would run in eager PyTorch: {f.why}"
                        + (f" ({f.count} nodes)" if f.count > 1 else "")) for f in fallbacks]
    err = StrataError(diagnostics=diags, hint=(
        "note: strata.torch strict mode (strata.torch.config.strict, STRATA_TORCH_STRICT=1 or "
        "options={'strict': True}) makes a fallback to eager PyTorch an error; without it "
        "these ops run eagerly with a StrataPerformanceWarning"))
    err.__cause__ = next((f.cause for f in fallbacks if f.cause is not None), None)
    return err


def _decompositions():
    from .decompositions import decompositions

    return decompositions()


def strata_backend(gm: torch.fx.GraphModule, example_inputs, *, options: dict | None = None,
                   record: list | None = None, strict: bool | None = None, warn: bool = True):
    """The ``strata`` Dynamo backend: aot_autograd to core ATen, then :func:`compile_fx`.

    A graph aot_autograd cannot lower (with strata's decompositions) runs as Dynamo gave
    it, in eager PyTorch, with the warning (or, ``strict``, the error) of compile_fx."""
    from torch._dynamo.backends.common import aot_autograd
    from torch._dynamo.exc import TorchDynamoException

    options = dict(options or {})
    strict = _strict(strict, options)

    def fw(g, inputs):
        return compile_fx(g, inputs, options=options, record=record, strict=strict, warn=warn)

    try:
        return aot_autograd(fw_compiler=fw, decompositions=_decompositions())(gm, example_inputs)
    except (TorchDynamoException, Warning):  # Dynamo's restarts; a warning made an error
        raise
    except Exception as e:  # noqa: BLE001 - never a hard failure: the graph runs eagerly
        rec = _whole_graph(gm, "aot_autograd could not lower the graph to core ATen", e)
        return _finish(gm.forward, [rec], record, strict, warn)
