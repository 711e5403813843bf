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

Options (``torch.compile(..., options={...})``): ``threads``, ``blas``, ``fusion`` as
for ``strata.compile``.
"""

from __future__ import annotations

import dataclasses
import operator

import torch
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase

from ..errors import StrataError
from ..runtime.log import logger
from .aten_ops import unsupported
from .importer import import_graph, tensor_inputs
from .locations import node_location
from .symbolic import is_size
from .tensors import from_numpy, to_numpy

__all__ = ["strata_backend", "compile_fx", "SubgraphRecord", "GraphRecord"]


@dataclasses.dataclass
class SubgraphRecord:
    """One piece of an ATen graph: run by strata, or left to eager PyTorch (and why)."""

    kind: str  # "strata" | "eager"
    ops: list  # the ATen ops, as "aten.addmm.default"
    reasons: list = dataclasses.field(default_factory=list)  # (op, why, "file:line")
    error: str | None = None  # strata failed to compile it (it then runs eagerly)
    compiled: object = None  # the StrataSubgraph that runs it (its module, program)


@dataclasses.dataclass
class GraphRecord:
    """One ATen graph the backend was given, as split into subgraphs."""

    name: str
    subgraphs: list


class _Support(OperatorSupportBase):
    def is_node_supported(self, submodules, node) -> bool:
        if node.op != "call_function":
            return False
        if node.target is operator.getitem:  # with the op whose result it takes apart
            return self.is_node_supported(submodules, node.args[0])
        return unsupported(node) is None


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
        specs = self.program._signatures["main"][0]
        # compiled now, for the static shapes Dynamo guards: a failure leaves this part eager
        logger("recompiles").info(
            "torch graph: compiling a subgraph of %d ops for (%s)%s",
            sum(1 for n in gm.graph.nodes if n.op == "call_function"),
            ", ".join(_spec_text(s, d) for s, d in specs),
            " (dynamic dims: one compile serves every size)" if any(
                None in tuple(s) for s, _ in specs) else "")
        self.compiled = self.program._get("main", [(tuple(s), d) for s, d in specs])
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
            pointers.append(compiled._workspace())
        call(pointers)
        return results

    return direct


def compile_fx(gm: torch.fx.GraphModule, example_inputs, *, options: dict | None = None,
               record: list | None = None):
    """Compiles an ATen FX graph: supported partitions by strata, the rest left as is.

    Returns a boxed callable (aot_autograd's convention); appends a GraphRecord to
    ``record`` when given.
    """
    from functorch.compile import make_boxed_func

    options = dict(options or {})
    partitioner = CapabilityBasedPartitioner(gm, _Support(), allows_single_node_partition=True)
    partitions = partitioner.propose_partitions()
    fused = partitioner.fuse_partitions(partitions) if partitions else gm
    records = []
    for node in list(fused.graph.nodes):
        if node.op == "call_function" and node.target is not operator.getitem and \
                not is_size(node.meta.get("val")):  # (size arithmetic is no tensor op)
            op = _op_name(node)
            records.append(SubgraphRecord("eager", [op], [(op, unsupported(node) or
                                                           "left out of strata", _where(node))]))
        if node.op != "call_module" or not node.target.startswith("fused_"):
            continue
        sub = getattr(fused, node.target)
        rec = SubgraphRecord("strata", [_op_name(n) for n in sub.graph.nodes
                                        if n.op == "call_function"])
        try:
            rec.compiled = StrataSubgraph(sub, options)
            setattr(fused, node.target, rec.compiled)
        except StrataError as e:  # left to eager PyTorch, and said so
            rec.kind, rec.error = "eager", str(e)
        records.append(rec)
    if record is not None:
        record.append(GraphRecord(f"graph {len(record)}", records))
    fused.recompile()
    return make_boxed_func(fused.forward)


def _decompositions():
    from .decompositions import decompositions

    return decompositions()


def strata_backend(gm: torch.fx.GraphModule, example_inputs, *, options: dict | None = None,
                   record: list | None = None):
    """The ``strata`` Dynamo backend: aot_autograd to core ATen, then :func:`compile_fx`."""
    from torch._dynamo.backends.common import aot_autograd

    def fw(g, inputs):
        return compile_fx(g, inputs, options=options, record=record)

    return aot_autograd(fw_compiler=fw, decompositions=_decompositions())(gm, example_inputs)
