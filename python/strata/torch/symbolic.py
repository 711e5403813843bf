"""Symbolic sizes (Dynamo's SymInts) as strata dynamic dims, and which ops accept them.

A graph Dynamo traces with dynamic shapes (``torch.compile(dynamic=True)``, or automatic
dynamic after a second input size) has fake tensors of sizes such as ``(s0, 64)`` and
SymInt placeholders (the sizes themselves). strata reads such a tensor as ``?x64``:

    %x: f32[s0, 64]  ->  argument ?x64xf32 (one compile serves every s0; Dynamo guards s0 >= 2)
    %s0: Sym(s0)     ->  no argument: the size is read from the tensors' shapes at call time
    aten.view(%y, [s0, 4, 16])  ->  strata.reshape to ?x4x16 (the one ? inferred)

``symbolic_unsupported`` says why an op cannot run with its symbolic sizes (the backend
then leaves it to eager PyTorch, with the reason): a reshape to two symbolic sizes, a
slice, select or split along a symbolic dim, a size used as a number. Softmax, cat,
cumsum and reductions along symbolic dims run in strata (the decode step of a KV cache).
"""

from __future__ import annotations

import torch

__all__ = ["strata_shape", "is_symbolic", "is_size", "symbolic_numbers",
           "symbolic_unsupported"]


def _size(d):
    """A torch size as strata sees it: an int, or None for a symbolic one (a dynamic dim)."""
    if isinstance(d, int):
        return d
    from torch.fx.experimental.symbolic_shapes import is_concrete_int

    return int(d) if is_concrete_int(d) else None


def strata_shape(shape) -> list:
    """A torch shape (ints and SymInts) as a strata shape: each symbolic size is None."""
    return [_size(d) for d in shape]


def is_symbolic(val) -> bool:
    """A (fake) tensor with a symbolic size."""
    return isinstance(val, torch.Tensor) and None in strata_shape(val.shape)


def is_size(val) -> bool:
    """A placeholder's value that is a size (an int or a SymInt), not a tensor."""
    return isinstance(val, (int, torch.SymInt)) and not isinstance(val, bool)


def _text(shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ")"


# ops whose converters take every size from the tensors (elementwise, contractions, layout)
_ANY = {
    "add", "sub", "rsub", "mul", "div", "maximum", "minimum", "pow", "remainder",
    "floor_divide", "neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu",
    "gelu", "erf", "sin", "cos", "sign", "floor", "ceil", "round", "reciprocal", "clamp",
    "clamp_min", "clamp_max", "eq", "ne", "lt", "le", "gt", "ge", "where", "bitwise_not",
    "logical_not", "logical_and", "logical_or", "clone", "alias", "detach", "contiguous",
    "lift_fresh_copy", "_to_copy", "to", "native_dropout", "dropout",
    "bitwise_and", "bitwise_or", "bitwise_xor", "__and__", "__or__", "__xor__",
    "bitwise_left_shift", "bitwise_right_shift", "__lshift__", "__rshift__",
    "mm", "bmm", "matmul", "addmm", "linear", "permute", "t", "transpose", "embedding",
}
# ops that take the result's shape from the node (the size arguments are not read)
_RESHAPES = {"view", "_unsafe_view", "reshape", "unsqueeze", "squeeze", "flatten"}
# ops along one dim (``dim``), which must be static
_ALONG = {"slice", "select", "split", "split_with_sizes", "unbind"}
# ops along one dim that may be symbolic (a KV cache's length: softmax over the keys seen
# so far, the cache grown by a cat), reductions over symbolic dims (the attention mask's
# ``any``), layer norms of symbolic rows; and ops shaped like their input (full_like)
_ALONG_SYMBOLIC = {"_softmax", "softmax", "_log_softmax", "cat", "cumsum"}
_REDUCTIONS = {"sum", "mean", "amax", "amin", "prod", "argmax", "argmin", "any", "all"}
_LIKE = {"full_like", "zeros_like", "ones_like"}


def symbolic_numbers(args) -> list:
    """The symbolic numbers among a node's arguments (SymInt nodes, SymInts)."""
    found = []

    def visit(a):
        val = a.meta.get("val") if isinstance(a, torch.fx.Node) else a
        if isinstance(val, (torch.SymInt, torch.SymFloat, torch.SymBool)):
            found.append(val)
        return a

    torch.fx.node.map_aggregate(list(args.values()), visit)
    return found


def _first_tensor(args):
    for key in ("self", "input", "tensors"):
        v = args.get(key)
        if isinstance(v, (list, tuple)) and v:
            v = v[0]
        if isinstance(v, torch.fx.Node) and isinstance(v.meta.get("val"), torch.Tensor):
            return v.meta["val"]
    return None


def symbolic_unsupported(name: str, node, args: dict) -> str | None:
    """Why ``aten.name`` cannot run on its symbolic sizes in strata (None: it can).

    ``args`` are the node's arguments by schema name."""
    out = node.meta.get("val")
    out = out[0] if isinstance(out, (tuple, list)) else out
    out_shape = tuple(out.shape) if isinstance(out, torch.Tensor) else ()
    if name in _RESHAPES:
        if strata_shape(out_shape).count(None) > 1:
            return (f"aten.{name}: the result {_text(out_shape)} has more than one symbolic "
                    "size (strata's reshape infers one)")
        return None
    if name == "expand":
        x = args["self"].meta["val"]
        lead = len(out_shape) - x.dim()
        for i, d in enumerate(strata_shape(out_shape)):
            if d is None and (i < lead or _size(x.shape[i - lead]) is not None):
                return (f"aten.expand: stretching {_text(x.shape)} to the symbolic size "
                        f"{out_shape[i]}")
        return None
    sizes = symbolic_numbers(args)
    if sizes:
        return f"aten.{name}: a symbolic number ({sizes[0]}) as an argument"
    if name in _ANY or name in _ALONG_SYMBOLIC or name in _REDUCTIONS or name in _LIKE:
        return None
    x = _first_tensor(args)
    if x is None:
        return f"aten.{name}: symbolic shape {_text(out_shape)} has no strata form"
    shape = strata_shape(x.shape)
    if name in _ALONG:
        dim = args.get("dim", 0)
        if name == "slice" and args.get("start") in (None, 0) and args.get("step", 1) == 1 \
                and (args.get("end") is None or args["end"] >= 2 ** 62):
            return None  # the whole dim: the converter passes the tensor on
        if shape and shape[dim % len(shape)] is None:
            return f"aten.{name}: along the symbolic dim {dim} of {_text(x.shape)}"
        return None
    if name == "native_layer_norm":
        return None
    return f"aten.{name}: symbolic shape {_text(x.shape)} is not supported for this op"
