"""FX graphs of core ATen ops as strata modules: ``strata.from_torch(exported_program)``.

    ep = torch.export.export(model.eval(), (x,))
    m = strata.from_torch(ep)          # a strata.Module: @main(params..., buffers..., x)
    print(m)                           # each op located at the model's source line
    prog = strata.compile(m)
    y = prog(*strata.torch.arguments(ep, x))

Parameters, buffers and user inputs all become arguments of the function (weights are
not baked into the code), in the order of the program's signature; their names are the
FX placeholders' (``p_fc1_weight``, ``x``). A symbolic size (``torch.export`` with
``dynamic_shapes``, a Dynamo graph with SymInts) is a dynamic dim; size placeholders are
not arguments (the sizes come with the tensors). ``m.torch_inputs`` lists
``(argument, kind, target)`` for each. The program is first lowered to core ATen
(``run_decompositions``) unless it already is.
"""

from __future__ import annotations

import operator
import re

import torch

from ..errors import StrataError
from ..frontend.locations import source_location
from ..frontend.module import Module
from ..frontend.tensor import Tensor, TensorSpec
from .aten_ops import convert_node, strata_dtype, unsupported
from .locations import graph_location, node_location
from .symbolic import is_size, strata_shape

__all__ = ["from_torch", "import_graph", "arguments", "spec_of_value", "tensor_inputs"]


def spec_of_value(val, what: str) -> TensorSpec:
    """The TensorSpec of a (fake) tensor: its shape (a symbolic size a dynamic dim, None),
    and int64 as i64."""
    if not isinstance(val, torch.Tensor):
        raise StrataError(f"{what}: a {type(val).__name__} input is not supported (tensors "
                          "only)", location="<torch>")
    dtype = strata_dtype(val.dtype)
    if dtype is None:
        raise StrataError(f"{what}: dtype {val.dtype} is not supported", location="<torch>")
    return TensorSpec(tuple(strata_shape(val.shape)), dtype)


def tensor_inputs(gm: torch.fx.GraphModule) -> list:
    """The positions of the graph's placeholders that are tensors: the function's
    arguments. The others are sizes (ints, SymInts), which strata reads from the
    tensors' shapes and so does not take."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    return [i for i, n in enumerate(placeholders) if not is_size(n.meta.get("val"))]


def _name(text: str, taken: set) -> str:
    name = re.sub(r"\W", "_", text) or "arg"
    base, i = name, 1
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    taken.add(name)
    return name


def _location_text(node) -> str:
    loc = node_location(node)
    return f"{loc[0]}:{loc[1]}:{loc[2]}" if loc else f"<torch node {node.name}>"


def import_graph(gm: torch.fx.GraphModule, name: str = "main", *,
                 module: Module | None = None) -> Module:
    """Imports an FX graph of ATen ops (placeholders carry ``meta["val"]``) as one function.

    Raises StrataError at the user's source line for a node strata cannot convert.
    """
    graph = gm.graph
    module = module or Module()
    every = [n for n in graph.nodes if n.op == "placeholder"]
    placeholders = [every[i] for i in tensor_inputs(gm)]
    taken: set = set()
    specs = {}
    for n in placeholders:
        specs[_name(n.name, taken)] = spec_of_value(n.meta.get("val"), f"input '{n.name}'")
    # the function and its arguments: where the graph's first op comes from
    where = graph_location(graph)
    if where is None:
        f = module.function(name, **specs)
    else:
        with source_location(*where):
            f = module.function(name, **specs)
    env = dict(zip(placeholders, f.args, strict=True))
    # sizes: only reshapes take them, and those read the result's shape (symbolic.py)
    env.update((n, n.meta.get("val")) for n in every if n not in env)
    try:
        for node in graph.nodes:
            if node.op in ("placeholder", "output"):
                continue
            if node.op == "get_attr":
                env[node] = _attr_constant(gm, node)
                continue
            if node.op != "call_function":
                raise StrataError(f"{node.op} nodes are not supported (node {node.name})",
                                  location=_location_text(node))
            reason = unsupported(node)
            if reason is not None:
                raise StrataError(f"{reason} ({node.format_node()})",
                                  location=_location_text(node))
            # a node with no location of its own (none in its graph either) sits with the
            # node before it
            where = node_location(node) or where or ("<torch>", 0, 0)
            with source_location(*where):
                try:
                    env[node] = convert_node(node, env)
                except StrataError:
                    raise
                except (NotImplementedError, ValueError, TypeError, KeyError) as e:
                    raise StrataError(f"cannot convert {node.target}: {e}",
                                      location=_location_text(node)) from None
            _check(node, env[node])
        out = next(n for n in graph.nodes if n.op == "output")
        results = []
        for r in torch.fx.node.map_aggregate(out.args[0], lambda x: x) if isinstance(
                out.args[0], (tuple, list)) else [out.args[0]]:
            if not isinstance(r, torch.fx.Node) or not isinstance(env.get(r), Tensor):
                raise StrataError(f"graph output {r} is not a tensor strata computes",
                                  location="<torch>")
            results.append(env[r])
        with source_location(*(where or ("<torch>", 0, 0))):  # with the last op
            f.ret(*results)
    finally:
        if not f.closed:
            from ..frontend.scopes import SCOPES

            f.closed = True
            SCOPES.remove(f)
    return module


def _check(node, value):
    """The converted value has the shape and dtype torch says the node has."""
    vals = node.meta.get("val")
    if node.target is operator.getitem or not isinstance(vals, torch.Tensor):
        return
    if isinstance(value, Tensor):
        if list(value.shape) != strata_shape(vals.shape) or \
                value.dtype != strata_dtype(vals.dtype):
            raise StrataError(f"internal: {node.target} converted to {value.type}, torch says "
                              f"{tuple(vals.shape)} {vals.dtype}", location=_location_text(node))


def _attr_constant(gm, node):
    from ..frontend.ops import constant

    value = getattr(gm, node.target)
    dtype = strata_dtype(value.dtype)
    array = value.detach().to(torch.float32 if dtype in ("f16", "bf16") else value.dtype)
    return constant(array.numpy(), dtype)


def _core_aten(ep):
    """``ep`` lowered to core ATen (a no-op for an already decomposed program); einsum is
    kept whole for strata.einsum."""
    table = torch.export.default_decompositions()
    table.pop(torch.ops.aten.einsum.default, None)
    return ep.run_decompositions(table)


def from_torch(exported_program, name: str = "main") -> Module:
    """Imports a ``torch.export`` program as a strata.Module with one function ``name``.

    Arguments: the program's parameters, buffers, lifted constants and user inputs, in its
    signature's order (``strata.torch.arguments(ep, *inputs)`` gives their values).
    """
    if not isinstance(exported_program, torch.export.ExportedProgram):
        raise StrataError(f"from_torch expects a torch.export.ExportedProgram, got "
                          f"{type(exported_program).__name__}", location="<torch>")
    ep = _core_aten(exported_program)
    module = import_graph(ep.graph_module, name)
    sig = ep.graph_signature
    module.torch_inputs = [(arg, spec.kind.name.lower(), spec.target or spec.arg.name)
                           for arg, spec in zip(module.arg_names[name], sig.input_specs,
                                                strict=True)]
    module.torch_program = ep
    return module


def arguments(exported_program, *inputs) -> list:
    """The numpy arrays to call ``strata.from_torch(exported_program)`` with: the program's
    parameters, buffers and constants, then ``inputs`` (tensors), in the signature's order."""
    from .tensors import to_numpy

    ep = exported_program
    state = dict(ep.state_dict)
    state.update(ep.constants)
    user = iter(inputs)
    out = []
    for spec in ep.graph_signature.input_specs:
        if spec.kind == torch.export.graph_signature.InputKind.USER_INPUT:
            out.append(to_numpy(next(user)))
        else:
            out.append(to_numpy(state[spec.target]))
    return out
