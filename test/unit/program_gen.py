"""Random strata programs for the property-based fuzzer (test_program_fuzz.py).

A program is a list of :class:`Node` s in SSA order: inputs, constants and one
node per strata op, with the op's attributes and the result's shape and dtype
(computed here with numpy's rules, so every generated program is valid). It
renders to the Python source a user would write (``Program.source``), which
the worker process traces with ``strata.compile``; program_ref.py evaluates the
same nodes in float64 with a rounding-error bound per element.

``programs()`` is the hypothesis strategy. Every choice goes through hypothesis
(shrinking makes a failing program smaller: fewer ops, smaller dims, the
simplest form of each op); the input values come from a numpy generator seeded
by a drawn integer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

BF16 = ml_dtypes.bfloat16
NP = {"f32": np.float32, "f16": np.float16, "bf16": BF16, "i32": np.int32, "i1": np.bool_}
NP_NAME = {"f32": "np.float32", "f16": "np.float16", "bf16": "ml_dtypes.bfloat16",
           "i32": "np.int32"}
FLOATS = ("f32", "f16", "bf16")
DTYPES = FLOATS + ("i32",)

# Dims of new inputs: odd sizes and 1s (broadcasting) first, so shrinking goes there.
DIMS = (1, 2, 3, 5, 4, 7, 8, 9, 13, 16, 17, 33)
MAX_ELEMENTS = 2048
# Medium programs (a quarter): dims around strata's vector, register and cache tiles
# (8, 64, 128) and their remainders.
MEDIUM_DIMS = (1, 3, 64, 17, 100, 129, 8, 65, 257, 130)
MEDIUM_ELEMENTS = 1 << 16

# The hooks for the numpy-semantics operators (aed1bf9 and 32d62f6): ``/`` on integers
# (true division in f32), ``//``, ``%`` and ``divmod`` (strata.floor_div / strata.mod, on
# every dtype); ``==``/``!=`` on tensors (elementwise); ``where`` of two scalars and
# casts of masks. Turn one off to keep the generator away from it.
NUMPY_DIVISION = True
TENSOR_EQ = True
MASK_OPS = True
# Known bugs the generator steers around (test_program_fuzz.KNOWN_BUGS pins each one with
# an xfail(strict=True) reproducer): names checked where the program is built.
AVOID: set = set()
FLOAT_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "pow") + (
    ("floor_div", "mod") if NUMPY_DIVISION else ())
INT_BINARY = ("add", "sub", "mul", "maximum", "minimum", "pow") + (
    ("div", "floor_div", "mod") if NUMPY_DIVISION else ())
BINARY_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**",
                 "floor_div": "//", "mod": "%"}
BINARY_FN = {"floor_div": "floor_divide", "mod": "remainder"}
FLOAT_UNARY = ("neg", "abs", "relu", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "gelu")
INT_UNARY = ("neg", "abs", "relu")
PREDICATES = ("lt", "le", "gt", "ge", "eq", "ne")
COMPARE_FN = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
              "gt": "greater", "ge": "greater_equal"}
COMPARE_SYMBOL = {"lt": "<", "le": "<=", "gt": ">", "ge": ">="}
if TENSOR_EQ:
    COMPARE_SYMBOL.update({"eq": "==", "ne": "!="})
# Scalars exactly representable in every float dtype (bf16 has 8 significant bits).
FLOAT_SCALARS = (1.0, 0.5, 2.0, -1.0, 1.5, -0.25, 3.0, 0.125, -2.5)
INT_SCALARS = (1, 2, -1, 3, 0, -7, 5)
# Value ranges of inputs: (low, high) per kind.
FLOAT_RANGES = {"sym": (-2.0, 2.0), "pos": (0.25, 4.0), "small": (-0.1, 0.1),
                "wide": (-30.0, 30.0)}
INT_RANGES = {"sym": (-8, 8), "pos": (1, 8), "small": (-2, 2), "wide": (-1000, 1000)}


@dataclass
class Node:
    """One value of a program: an input, a constant or the result of one op."""

    name: str
    op: str
    args: tuple = ()
    attrs: dict = field(default_factory=dict)
    shape: tuple = ()
    dtype: str = "f32"

    @property
    def size(self) -> int:
        return math.prod(self.shape)


@dataclass(repr=False)
class Program:
    nodes: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    seed: int = 0
    specials: bool = False  # some inputs hold NaN / inf at a few positions

    # -------------------------------------------------------------- building
    def node(self, name: str) -> Node:
        for n in self.nodes:
            if n.name == name:
                return n
        raise KeyError(name)

    @property
    def inputs(self) -> list:
        return [n for n in self.nodes if n.op == "input"]

    def add(self, op, args=(), attrs=None, shape=(), dtype="f32") -> Node:
        prefix = "x" if op == "input" else "v"
        node = Node(f"{prefix}{len(self.nodes)}", op, tuple(args), attrs or {}, tuple(shape),
                    dtype)
        self.nodes.append(node)
        return node

    # -------------------------------------------------------------- source
    def source(self) -> str:
        params = ", ".join(n.name for n in self.inputs)
        lines = ["import ml_dtypes", "import numpy as np", "", "import strata", "", "",
                 f"def prog({params}):"]
        for n in self.nodes:
            if n.op != "input":
                lines.append(f"    {n.name} = {render(n, self)}")
        outs = ", ".join(self.outputs)
        lines.append(f"    return {outs}")
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        return f"<program\n{self.source()}inputs: {self.describe_inputs()}>"

    def _repr_pretty_(self, printer, cycle):  # hypothesis's "Failing test case" line
        printer.text(repr(self))

    def cone(self, outputs) -> Program:
        """The program computing only ``outputs`` (same input values: see make_inputs)."""
        need, order = set(outputs), []
        for n in reversed(self.nodes):
            if n.name in need:
                need.update(n.args)
                order.append(n)
        if self.nodes[0].name not in need:  # constants are built like the first input
            order.append(self.nodes[0])
        order.reverse()
        return Program(order, list(outputs), self.seed, self.specials)

    def describe_inputs(self) -> str:
        parts = [f"{n.name}: {n.dtype}{list(n.shape)} {n.attrs['range']}" for n in self.inputs]
        extra = ", NaN/inf at some positions" if self.specials else ""
        return f"seed {self.seed}{extra}; " + "; ".join(parts)

    def make_inputs(self, salt: int = 0) -> list:
        """The input arrays: values drawn in float64, rounded to each input's dtype.

        Each input's values depend on the seed, its number and ``salt`` only.
        """
        arrays = []
        for n in self.inputs:
            rng = np.random.default_rng([self.seed, int(n.name[1:])] + ([salt] if salt else []))
            kind = n.attrs["range"]
            if n.dtype == "i32":
                lo, hi = INT_RANGES[kind]
                a = rng.integers(lo, hi + 1, size=n.shape).astype(np.int32)
            else:
                lo, hi = FLOAT_RANGES[kind]
                a = rng.uniform(lo, hi, size=n.shape)
                if self.specials and a.size:
                    k = rng.integers(1, 3)
                    idx = rng.integers(0, a.size, size=k)
                    a.reshape(-1)[idx] = rng.choice([np.nan, np.inf, -np.inf], size=k)
                a = a.astype(NP[n.dtype])
            arrays.append(a)
        return arrays

    def reproducer(self) -> str:
        """The program's source and how to make its inputs, for a failure report."""
        return (f"--- program ---\n{self.source()}--- inputs ---\n{self.describe_inputs()}\n"
                f"(program_gen.Program.make_inputs: numpy default_rng([seed, input number]), "
                f"uniform in the range, rounded to the dtype)\n")


# ------------------------------------------------------------------ rendering

def _lit(value) -> str:
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _tuple(t) -> str:
    t = tuple(t)
    return f"({t[0]},)" if len(t) == 1 else str(t)


def _index_text(index) -> str:
    parts = []
    for item in index:
        if item is None:
            parts.append("None")
        elif item is Ellipsis:
            parts.append("...")
        elif isinstance(item, slice):
            a = "" if item.start is None else str(item.start)
            b = "" if item.stop is None else str(item.stop)
            parts.append(f"{a}:{b}" + ("" if item.step is None else f":{item.step}"))
        else:
            parts.append(str(item))
    if len(parts) == 1:
        return parts[0] + ("," if index[0] is None or index[0] is Ellipsis else "")
    return ", ".join(parts)


def render(n: Node, prog: Program) -> str:
    """The Python expression that makes node ``n`` (its operands are earlier names)."""
    a = n.args
    at = n.attrs
    op = n.op
    form = at.get("form", "fn")
    if op == "const":
        like = prog.inputs[0].name
        values = np.asarray(at["values"])
        if values.size == 0:  # no values to list
            arr = f"np.zeros({_tuple(values.shape)}, {NP_NAME[n.dtype]})"
            return arr if form == "captured" else f"strata.constant({arr}, like={like})"
        if form == "captured":  # a numpy array operand: a constant of the trace
            return f"np.array({values.tolist()}, {NP_NAME[n.dtype]})"
        if n.dtype == "i32":
            arr = f"np.array({values.tolist()}, np.int32)"
            return f"strata.constant({arr}, like={like})"
        arr = f"np.array({values.tolist()})"
        if n.dtype == "f16" and form == "np":
            return f"strata.constant(np.array({values.tolist()}, np.float16), like={like})"
        if n.dtype == "f32" and form == "np":
            return f"strata.constant({arr}, like={like})"  # f64 -> f32
        return f"strata.constant({arr}, dtype={n.dtype!r}, like={like})"
    if op == "binary":
        fn = at["fn"]
        if "scalar" in at:
            s = _lit(at["scalar"])
            lhs, rhs = (a[0], s) if at["side"] == "r" else (s, a[0])
        else:
            lhs, rhs = a
        if form == "divmod":
            return f"divmod({lhs}, {rhs})[{0 if fn == 'floor_div' else 1}]"
        if form == "op" and fn in BINARY_SYMBOL:
            return f"{lhs} {BINARY_SYMBOL[fn]} {rhs}"
        return f"strata.{BINARY_FN.get(fn, fn)}({lhs}, {rhs})"
    if op == "unary":
        fn = at["fn"]
        if form == "op" and fn == "neg":
            return f"-{a[0]}"
        if form == "op" and fn == "abs":
            return f"abs({a[0]})"
        if fn == "gelu" and at.get("approximate", "none") != "none":
            return f"strata.gelu({a[0]}, approximate={at['approximate']!r})"
        return f"strata.{fn}({a[0]})"
    if op == "compare":
        p = at["pred"]
        lhs = a[0]
        rhs = _lit(at["scalar"]) if "scalar" in at else a[1]
        if form == "op" and p in COMPARE_SYMBOL:
            return f"{lhs} {COMPARE_SYMBOL[p]} {rhs}"
        return f"strata.{COMPARE_FN[p]}({lhs}, {rhs})"
    if op == "where":
        c, rest = a[0], list(a[1:])
        t = _lit(at["true_scalar"]) if "true_scalar" in at else rest.pop(0)
        f = _lit(at["false_scalar"]) if "false_scalar" in at else rest.pop(0)
        return f"strata.where({c}, {t}, {f})"
    if op == "matmul":
        return f"{a[0]} @ {a[1]}" if form == "op" else f"strata.matmul({a[0]}, {a[1]})"
    if op == "reduce":
        fn, axis, keep = at["fn"], at["axis"], at["keepdims"]
        axis_text = _tuple(axis) if isinstance(axis, tuple) else str(axis)
        args = []
        if axis is not None or keep:
            args.append(f"axis={axis_text}")
        if keep:
            args.append("keepdims=True")
        if form == "method":
            return f"{a[0]}.{fn}({', '.join(args)})"
        return f"strata.{fn}({', '.join([a[0]] + args)})"
    if op == "softmax":
        if at["axis"] == -1 and form == "default":
            return f"strata.softmax({a[0]})"
        return f"strata.softmax({a[0]}, axis={at['axis']})"
    if op == "layer_norm":
        args = [a[0]]
        rest = list(a[1:])
        if at["scale"]:
            args.append(f"scale={rest.pop(0)}")
        if at["bias"]:
            args.append(f"bias={rest.pop(0)}")
        if at["axis"] != -1:
            args.append(f"axis={at['axis']}")
        if at["eps"] != 1e-5:
            args.append(f"epsilon={at['eps']!r}")
        return f"strata.layer_norm({', '.join(args)})"
    if op == "reshape":
        t = at["target"]
        if form == "method" and t:
            return f"{a[0]}.reshape({', '.join(map(str, t))})"
        return f"strata.reshape({a[0]}, {_tuple(t) if t else '()'})"
    if op == "transpose":
        perm = at["perm"]
        if perm is None:
            return f"{a[0]}.T" if form == "op" else f"strata.transpose({a[0]})"
        if form == "method":
            return f"{a[0]}.transpose({', '.join(map(str, perm))})"
        return f"strata.transpose({a[0]}, {list(perm)})"
    if op == "broadcast_to":
        return f"strata.broadcast_to({a[0]}, {_tuple(at['shape']) if at['shape'] else '()'})"
    if op == "concat":
        axis = "" if at["axis"] == 0 and form == "default" else f", axis={at['axis']}"
        return f"strata.concat([{', '.join(a)}]{axis})"
    if op == "slice":
        steps = f", {list(at['steps'])}" if any(s != 1 for s in at["steps"]) else ""
        return f"strata.slice({a[0]}, {list(at['starts'])}, {list(at['limits'])}{steps})"
    if op == "getitem":
        return f"{a[0]}[{_index_text(at['index'])}]"
    if op == "conv2d":
        args = [a[0], a[1]]
        for k in ("stride", "padding", "dilation"):
            if at[k] != (1 if k != "padding" else 0):
                args.append(f"{k}={at[k]}")
        if at["layout"] != "NCHW":
            args.append(f"layout={at['layout']!r}")
        return f"strata.conv2d({', '.join(args)})"
    if op == "pool":
        args = [a[0], str(at["kernel"])]
        if at["stride"] is not None:
            args.append(f"stride={at['stride']}")
        if at["padding"] != 0:
            args.append(f"padding={at['padding']}")
        if at["layout"] != "NCHW":
            args.append(f"layout={at['layout']!r}")
        return f"strata.{at['fn']}({', '.join(args)})"
    if op == "cast":
        if form == "method":
            return f"{a[0]}.astype({at['to']!r})"
        return f"strata.cast({a[0]}, {at['to']!r})"
    raise AssertionError(op)


# ------------------------------------------------------------------ shapes

def broadcast(*shapes) -> tuple:
    return tuple(np.broadcast_shapes(*shapes))


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def padding4(p):
    if isinstance(p, int):
        return (p,) * 4
    return (p[0], p[0], p[1], p[1]) if len(p) == 2 else tuple(p)


def conv_out(h, k, stride, dil, lo, hi):
    return (h + lo + hi - dil * (k - 1) - 1) // stride + 1


class Gen:
    """Hypothesis draws with the shapes of a program's choices (shrinking toward the first)."""

    def __init__(self, draw, big: bool = False, zero_dims: bool = True):
        self.draw = draw
        self.big = big
        self.zero_dims = zero_dims
        self.medium = False

    @property
    def max_elements(self) -> int:
        return MEDIUM_ELEMENTS if self.medium else MAX_ELEMENTS

    def int(self, lo, hi) -> int:
        return self.draw(st.integers(lo, hi))

    def pick(self, seq):
        return self.draw(st.sampled_from(seq))

    def chance(self, p: float) -> bool:
        """True with probability ``p``; shrinks toward False."""
        return self.draw(st.integers(0, 99)) >= 100 - round(p * 100)

    def dim(self) -> int:
        if self.zero_dims and self.chance(0.03):
            return 0
        return self.pick(MEDIUM_DIMS if self.medium else DIMS)

    def shape(self, rank=None, max_elements=None) -> tuple:
        max_elements = max_elements or self.max_elements
        if rank is None:
            rank = self.pick((2, 1, 3, 0, 4))
        dims = []
        for _ in range(rank):
            d = self.dim()
            if math.prod(dims) * max(d, 1) > max_elements:
                d = 1
            dims.append(d)
        return tuple(dims)

    def partner(self, shape) -> tuple:
        """A shape that broadcasts with ``shape`` (numpy rules)."""
        dims = list(shape)
        full = True
        if dims and self.chance(0.3):  # fewer leading dims
            dims = dims[self.int(1, len(dims)):]
            full = False
        out = []
        for d in dims:
            if d == 1 and self.chance(0.3):
                out.append(self.pick((3, 2, 5)))
            elif d != 1 and self.chance(0.3):
                out.append(1)
            else:
                out.append(d)
        if full and len(out) < 4 and self.chance(0.15):
            out.insert(0, self.pick((2, 1, 3)))
        if math.prod(broadcast(shape, out)) > 4 * self.max_elements:
            return tuple(shape)
        return tuple(out)


# ------------------------------------------------------------------ the generator

class Builder:
    """Adds random valid ops to a program."""

    def __init__(self, g: Gen, dtype: str):
        self.g = g
        self.dtype = dtype
        self.p = Program()

    # operands -----------------------------------------------------------
    def new_input(self, shape, dtype, kind=None) -> Node:
        g = self.g
        if kind is None:
            kind = g.pick(("sym", "pos", "small", "wide"))
        return self.p.add("input", attrs={"range": kind}, shape=shape, dtype=dtype)

    def values(self, pred=lambda n: True) -> list:
        """The program's tensors so far (not masks, not captured numpy arrays)."""
        return [n for n in self.p.nodes if n.dtype != "i1" and pred(n) and
                n.attrs.get("form") != "captured"]

    def operand(self, pred=lambda n: True, dtypes=DTYPES, make=None, fresh=0.2) -> Node:
        """A recent value satisfying ``pred`` (and of a dtype in ``dtypes``), or a new input."""
        g = self.g
        cands = self.values(lambda n: pred(n) and n.dtype in dtypes)
        if cands and not g.chance(fresh):
            # mostly the latest values: chains of ops, not a forest of one-op trees
            k = g.int(0, min(len(cands), 4) - 1)
            return cands[-1 - k]
        dtype = self.dtype if self.dtype in dtypes else g.pick(dtypes)
        shape = make() if make is not None else g.shape()
        return self.new_input(shape, dtype)

    def shaped(self, pred=lambda n: True, make=None) -> Node:
        """An operand of a shape op: sometimes a mask (a comparison's i1 result)."""
        masks = [n for n in self.p.nodes if n.dtype == "i1" and pred(n)]
        if masks and self.g.chance(0.2):
            return masks[-1]
        return self.operand(pred, make=make)

    def mask(self, shape) -> Node:
        """A new i1 tensor of ``shape``: a new input compared with a scalar."""
        g = self.g
        x = self.new_input(shape, self.dtype)
        s = g.pick(FLOAT_SCALARS if x.dtype in FLOATS else INT_SCALARS)
        return self.p.add("compare", (x.name,), {"pred": g.pick(PREDICATES), "scalar": s,
                                                 "form": g.pick(("op", "fn"))}, shape, "i1")

    def floatify(self, n: Node) -> Node:
        """``n``, cast to a float dtype if it is i32 (for float-only ops)."""
        if n.dtype in FLOATS:
            return n
        to = self.g.pick(FLOATS)
        return self.p.add("cast", (n.name,), {"to": to, "form": "method"}, n.shape, to)

    def positive(self, n: Node) -> Node:
        """``abs(n) + c``: a guard keeping a domain-limited op's argument positive."""
        g = self.g
        a = self.p.add("unary", (n.name,), {"fn": "abs", "form": g.pick(("op", "fn"))},
                       n.shape, n.dtype)
        c = g.pick((0.5, 0.25, 1.0)) if n.dtype != "i32" else 1
        return self.p.add("binary", (a.name,), {"fn": "add", "scalar": c, "side": "r",
                                                "form": "op"}, n.shape, n.dtype)

    def same_dtype_partner(self, a: Node, make) -> Node:
        """A second operand of ``a``'s dtype: an earlier value whose shape fits, or new."""
        g = self.g
        shape = make()
        if a.dtype == "i1":
            masks = [n for n in self.p.nodes if n.dtype == "i1" and n.shape == shape]
            return masks[-1] if masks and g.chance(0.5) else self.mask(shape)
        fits = [n for n in self.values(lambda n: n.dtype == a.dtype and n.name != a.name)
                if _fits(n.shape, shape)]
        if fits and g.chance(0.4):
            return fits[-1 - g.int(0, len(fits) - 1)]
        kind = None
        return self.new_input(shape, a.dtype, kind)

    # ops ----------------------------------------------------------------
    def binary(self, fn=None):
        g = self.g
        a = self.operand()
        fns = FLOAT_BINARY if a.dtype in FLOATS else INT_BINARY
        if "int_pow" in AVOID and a.dtype == "i32":
            fns = tuple(f for f in fns if f != "pow")
        if fn is not None and fn not in fns:
            a = self.floatify(a)
        fn = fn or g.pick(fns)
        form = g.pick(("op", "fn", "divmod") if fn in ("floor_div", "mod") else ("op", "fn"))
        if fn in ("maximum", "minimum"):
            form = "fn"
        out = "f32" if a.dtype == "i32" and fn == "div" else a.dtype  # int / int is f32
        if a.dtype == "i32" and fn == "pow":  # ipowi: small non-negative exponents only
            k = g.pick((2, 0, 1, 3))
            return self.p.add("binary", (a.name,), {"fn": "pow", "scalar": k, "side": "r",
                                                    "form": form}, a.shape, a.dtype)
        if fn == "pow" and a.dtype in FLOATS and g.chance(0.7):
            a = self.positive(a)
        if g.chance(0.3):  # a Python scalar operand
            s = g.pick(FLOAT_SCALARS if a.dtype in FLOATS else INT_SCALARS)
            side = g.pick(("r", "l"))
            if fn == "pow" and side == "l":
                s = abs(s) or 2.0
            if fn == "div" and side == "r" and s == 0:
                s = 2
            return self.p.add("binary", (a.name,), {"fn": fn, "scalar": s, "side": side,
                                                    "form": form}, a.shape, out)
        b = self.same_dtype_partner(a, lambda: g.partner(a.shape))
        if fn in ("div", "floor_div", "mod") and g.chance(0.5):
            b = self.positive(b)
        if fn == "pow" and a.dtype in FLOATS and g.chance(0.5):
            b = self.p.add("unary", (b.name,), {"fn": "tanh"}, b.shape, b.dtype)
        lhs, rhs = (a, b) if g.chance(0.8) or fn in ("pow", "div") else (b, a)
        shape = broadcast(lhs.shape, rhs.shape)
        return self.p.add("binary", (lhs.name, rhs.name), {"fn": fn, "form": form}, shape, out)

    def unary(self, fn=None):
        g = self.g
        fn = fn or g.pick(FLOAT_UNARY + ("neg", "relu"))
        a = self.operand()
        if fn not in INT_UNARY:
            a = self.floatify(a)
        if fn in ("log", "sqrt", "rsqrt") and g.chance(0.75):
            a = self.positive(a)
        attrs = {"fn": fn, "form": g.pick(("fn", "op"))}
        if fn == "gelu":
            attrs["approximate"] = g.pick(("none", "tanh"))
        return self.p.add("unary", (a.name,), attrs, a.shape, a.dtype)

    def compare(self, for_where=False):
        g = self.g
        a = self.operand()
        preds = PREDICATES
        pred = g.pick(preds)
        form = g.pick(("op", "fn"))
        if g.chance(0.3):
            s = g.pick(FLOAT_SCALARS if a.dtype in FLOATS else INT_SCALARS)
            return self.p.add("compare", (a.name,), {"pred": pred, "scalar": s, "form": form},
                              a.shape, "i1")
        b = self.same_dtype_partner(a, lambda: g.partner(a.shape))
        return self.p.add("compare", (a.name, b.name), {"pred": pred, "form": form},
                          broadcast(a.shape, b.shape), "i1")

    def where(self):
        g = self.g
        conds = [n for n in self.p.nodes if n.dtype == "i1"]
        c = conds[-1] if conds and g.chance(0.5) else self.compare()
        t = self.operand(lambda n: _broadcastable(n.shape, c.shape))
        if not _broadcastable(t.shape, c.shape):
            t = self.new_input(g.partner(c.shape), t.dtype)
        args = [c.name]
        attrs = {}
        shapes = [c.shape]
        if g.chance(0.2):
            attrs["true_scalar"] = g.pick(FLOAT_SCALARS if t.dtype in FLOATS else INT_SCALARS)
        else:
            args.append(t.name)
            shapes.append(t.shape)
        if g.chance(0.25) and ("true_scalar" not in attrs or MASK_OPS):
            attrs["false_scalar"] = g.pick(FLOAT_SCALARS if t.dtype in FLOATS else INT_SCALARS)
            if "true_scalar" in attrs:  # two scalars: f32, or i32 for two ints
                dtype = "f32" if t.dtype in FLOATS else "i32"
                return self.p.add("where", args, attrs, c.shape, dtype)
        else:
            f = self.same_dtype_partner(t, lambda: g.partner(broadcast(c.shape, t.shape)))
            if not _broadcastable(f.shape, broadcast(*shapes)):
                f = self.new_input(broadcast(*shapes), t.dtype)
            args.append(f.name)
            shapes.append(f.shape)
        return self.p.add("where", args, attrs, broadcast(*shapes), t.dtype)

    def matmul(self):
        g = self.g
        a = self.operand(lambda n: len(n.shape) >= 1,
                         make=lambda: g.shape(rank=g.pick((2, 1, 3, 4)),
                                              max_elements=g.max_elements // 2))
        k = a.shape[-1]
        if len(a.shape) == 1:
            kind = g.pick(("mat", "vec", "batch"))
        else:
            kind = g.pick(("mat", "vec", "batch", "batch"))
        if g.medium:
            n = g.pick((1, 17, 64, 100, 129, 257))
        else:
            n = g.pick((1, 3, 5, 8, 16, 17, 0) if g.zero_dims else (1, 3, 5, 8, 17))
        if kind == "vec":
            bshape = (k,)
        elif kind == "mat":
            bshape = (k, n)
        else:
            batch = list(a.shape[:-2]) if len(a.shape) > 2 else []
            batch = [1 if (d != 1 and g.chance(0.3)) else d for d in batch]
            if g.chance(0.4) or not batch:
                batch = [g.pick((2, 1, 3))] + batch
            bshape = tuple(batch[-2:]) + (k, n)
        if math.prod(bshape) > 2 * g.max_elements:
            bshape = (k, min(n, 3))
        if len(bshape) >= 2 and g.chance(0.25):
            # the transpose of an (n, k) input: strata-layout folds it into the matmul
            t = self.new_input(bshape[:-2] + bshape[-1:] + bshape[-2:-1], a.dtype)
            r = len(bshape)
            perm = tuple(range(r - 2)) + (r - 1, r - 2)
            b = self.p.add("transpose", (t.name,), {"perm": perm, "form": "fn"}, bshape,
                           a.dtype)
        else:
            b = self.same_dtype_partner(a, lambda: bshape)
        shape = np.matmul(np.empty(a.shape, np.int8), np.empty(b.shape, np.int8)).shape
        return self.p.add("matmul", (a.name, b.name), {"form": g.pick(("op", "fn"))}, shape,
                          a.dtype)

    def reduce(self, fn=None):
        g = self.g
        fn = fn or g.pick(("sum", "max", "mean"))
        a = self.operand()
        if fn == "mean":
            a = self.floatify(a)
        r = len(a.shape)
        choice = g.pick(("one", "none", "tuple")) if r else "none"
        if choice == "none":
            axis = None
            axes = list(range(r))
        elif choice == "one":
            axis = g.int(-r, r - 1)
            axes = [axis % r]
        else:
            axes = sorted(set(g.int(0, r - 1) for _ in range(g.int(1, r))))
            order = [x - r if g.chance(0.3) else x for x in axes]
            if g.chance(0.3):
                order = order[::-1]
            axis = tuple(order)
        keep = g.chance(0.4)
        shape = tuple(1 if i in axes else d for i, d in enumerate(a.shape)) if keep else \
            tuple(d for i, d in enumerate(a.shape) if i not in axes)
        return self.p.add("reduce", (a.name,), {"fn": fn, "axis": axis, "keepdims": keep,
                                               "form": g.pick(("fn", "method"))}, shape, a.dtype)

    def softmax(self):
        g = self.g
        a = self.floatify(self.operand(lambda n: len(n.shape) >= 1,
                                       make=lambda: g.shape(rank=g.pick((2, 1, 3)))))
        r = len(a.shape)
        axis = g.pick((-1, 0, 1, -2, 2))
        axis = axis if -r <= axis < r else -1
        return self.p.add("softmax", (a.name,), {"axis": axis, "form": g.pick(("default", "x"))},
                          a.shape, a.dtype)

    def layer_norm(self):
        g = self.g
        a = self.floatify(self.operand(lambda n: len(n.shape) >= 1,
                                       make=lambda: g.shape(rank=g.pick((2, 1, 3)))))
        r = len(a.shape)
        axis = g.pick((-1, -2, 0, 1))
        axis = axis if -r <= axis < r else -1
        norm = a.shape[axis % r:]
        args = [a.name]
        attrs = {"axis": axis, "eps": g.pick((1e-5, 1e-3, 0.1, 0.0)), "scale": False,
                 "bias": False}
        for k in ("scale", "bias"):
            if g.chance(0.5):
                kind = "pos" if k == "scale" else "sym"
                args.append(self.new_input(norm, a.dtype, kind).name)
                attrs[k] = True
        return self.p.add("layer_norm", args, attrs, a.shape, a.dtype)

    def reshape(self):
        g = self.g
        a = self.shaped()
        total = a.size
        dims = []
        if total == 0:
            dims = [0] + [g.pick((1, 2, 3)) for _ in range(g.int(0, 2))]
            dims = list(g.draw(st.permutations(dims)))
        else:
            rest = total
            for _ in range(g.int(0, 3)):
                divs = [d for d in range(1, rest + 1) if rest % d == 0 and d <= 64]
                d = g.pick(divs)
                dims.append(d)
                rest //= d
            if rest != 1 or not dims or g.chance(0.3):
                dims.append(rest)
        target = list(dims)
        if total and target and g.chance(0.3):
            target[g.int(0, len(target) - 1)] = -1
        return self.p.add("reshape", (a.name,), {"target": tuple(target),
                                                 "form": g.pick(("method", "fn"))},
                          tuple(dims), a.dtype)

    def transpose(self):
        g = self.g
        a = self.shaped(lambda n: len(n.shape) >= 2,
                        make=lambda: g.shape(rank=g.pick((2, 3, 4))))
        r = len(a.shape)
        if g.chance(0.3):
            return self.p.add("transpose", (a.name,), {"perm": None,
                                                       "form": g.pick(("op", "fn"))},
                              a.shape[::-1], a.dtype)
        perm = tuple(g.draw(st.permutations(range(r))))
        return self.p.add("transpose", (a.name,), {"perm": perm,
                                                   "form": g.pick(("method", "fn"))},
                          tuple(a.shape[p] for p in perm), a.dtype)

    def broadcast_to(self):
        g = self.g
        a = self.shaped()
        target = [g.pick((2, 3, 1)) for _ in range(g.int(0 if a.shape else 1, 2))]
        target += [g.pick((3, 2, 4, 1)) if d == 1 else d for d in a.shape]
        if math.prod(target) > 4 * g.max_elements:
            target = list(a.shape)
        return self.p.add("broadcast_to", (a.name,), {"shape": tuple(target)}, tuple(target),
                          a.dtype)

    def concat(self):
        g = self.g
        a = self.shaped(lambda n: len(n.shape) >= 1,
                        make=lambda: g.shape(rank=g.pick((2, 1, 3))))
        r = len(a.shape)
        axis = g.int(-r, r - 1)
        ax = axis % r
        args = [a.name]
        total = a.shape[ax]
        for _ in range(g.int(1, 2)):
            if g.chance(0.3):
                args.append(a.name)
                total += a.shape[ax]
                continue
            d = g.pick((1, 2, 3, 5, 0) if g.zero_dims else (1, 2, 3, 5))
            shape = a.shape[:ax] + (d,) + a.shape[ax + 1:]
            b = self.same_dtype_partner(a, lambda s=shape: s)
            if b.shape != shape:
                b = self.mask(shape) if a.dtype == "i1" else self.new_input(shape, a.dtype)
            args.append(b.name)
            total += d
        order = args if g.chance(0.7) else args[::-1]
        shape = a.shape[:ax] + (total,) + a.shape[ax + 1:]
        return self.p.add("concat", order, {"axis": axis, "form": g.pick(("default", "x"))},
                          shape, a.dtype)

    def slice(self):
        g = self.g
        a = self.shaped(lambda n: len(n.shape) >= 1)
        if not a.shape:
            a = self.new_input(g.shape(rank=2), a.dtype)
        starts, limits, steps = [], [], []
        for d in a.shape:
            lo = g.int(0, d)
            hi = g.int(lo, d)
            if g.chance(0.4):
                lo, hi = 0, d
            starts.append(lo)
            limits.append(hi)
            steps.append(g.pick((1, 2, 3)))
        shape = tuple(-(-(h - lo) // s) for lo, h, s in zip(starts, limits, steps, strict=True))
        return self.p.add("slice", (a.name,), {"starts": tuple(starts), "limits": tuple(limits),
                                               "steps": tuple(steps)}, shape, a.dtype)

    def getitem(self):
        g = self.g
        a = self.shaped(lambda n: len(n.shape) >= 1)
        index = []
        for d in a.shape:
            kind = g.pick(("slice", "int", "full", "none"))
            if kind == "int" and d > 0:
                index.append(g.int(-d, d - 1))
            elif kind == "slice":
                lo = g.pick((None, 1, -1, 0, 2, -3))
                hi = g.pick((None, -1, 2, 5, 1, -2))
                step = g.pick((None, 2, 3, 1))
                index.append(slice(lo, hi, step))
            elif kind == "none":
                index += [None, slice(None)]
            else:
                index.append(slice(None))
        # a full slice may become "...", or trailing full slices be dropped
        full = [i for i, x in enumerate(index) if x == slice(None)]
        if full and g.chance(0.3):
            index[full[0]] = Ellipsis
        else:
            while index and index[-1] == slice(None) and g.chance(0.5):
                index.pop()
        if not index:
            index = [Ellipsis]
        index = tuple(index)
        shape = np.empty(a.shape, np.int8)[index].shape
        return self.p.add("getitem", (a.name,), {"index": index}, shape, a.dtype)

    def _nchw(self, n: Node, layout):
        return n.shape if layout == "NCHW" else (n.shape[0], n.shape[3], n.shape[1], n.shape[2])

    def _image(self, layout, max_c=4):
        g = self.g

        def make():
            n, c = g.pick((1, 2)), g.int(1, 16 if g.medium else max_c)
            h, w = (g.int(1, 40), g.int(1, 40)) if g.medium else (g.int(1, 9), g.int(1, 9))
            return (n, c, h, w) if layout == "NCHW" else (n, h, w, c)

        return self.operand(lambda n: len(n.shape) == 4 and all(d > 0 for d in n.shape) and
                            math.prod(n.shape) <= g.max_elements, make=make, fresh=0.4)

    def conv2d(self):
        g = self.g
        layout = g.pick(("NCHW", "NHWC"))
        x = self._image(layout)
        n, c, h, w = self._nchw(x, layout)
        f = g.pick((8, 17, 32, 1) if g.medium else (1, 2, 3, 4, 5, 8))
        for _ in range(10):
            kh, kw = g.int(1, 3), g.int(1, 3)
            stride = g.pick((1, 2, (1, 2), 3))
            dilation = g.pick((1, 2, (2, 1)))
            padding = g.pick((0, 1, (1, 0), (0, 1, 2, 1), 2))
            sh, sw = _pair(stride)
            dh, dw = _pair(dilation)
            t, b, l, r = padding4(padding)
            if h + t + b >= dh * (kh - 1) + 1 and w + l + r >= dw * (kw - 1) + 1:
                break
        else:
            kh = kw = 1
            stride, dilation, padding = 1, 1, 0
            sh = sw = dh = dw = 1
            t = b = l = r = 0
        wshape = (f, c, kh, kw) if layout == "NCHW" else (kh, kw, c, f)
        filt = self.new_input(wshape, x.dtype, "sym" if x.dtype != "i32" else "small")
        oh, ow = conv_out(h, kh, sh, dh, t, b), conv_out(w, kw, sw, dw, l, r)
        shape = (n, f, oh, ow) if layout == "NCHW" else (n, oh, ow, f)
        return self.p.add("conv2d", (x.name, filt.name),
                          {"stride": stride, "padding": padding, "dilation": dilation,
                           "layout": layout}, shape, x.dtype)

    def pool(self, fn=None):
        g = self.g
        fn = fn or g.pick(("max_pool2d", "avg_pool2d"))
        layout = g.pick(("NCHW", "NHWC"))
        x = self._image(layout)
        if fn == "avg_pool2d":
            x = self.floatify(x)
        n, c, h, w = self._nchw(x, layout)
        for _ in range(10):
            kernel = g.pick((2, 1, 3, (2, 1), (1, 3)))
            kh, kw = _pair(kernel)
            stride = g.pick((None, 1, 2, (1, 2)))
            padding = g.pick((0, 1, (1, 0), (0, 1, 1, 0)))
            t, b, l, r = padding4(padding)
            if t < kh and b < kh and l < kw and r < kw and h + t + b >= kh and \
                    w + l + r >= kw:
                break
        else:
            kernel, stride, padding = 1, None, 0
            kh = kw = 1
            t = b = l = r = 0
        sh, sw = _pair(kernel if stride is None else stride)
        oh, ow = conv_out(h, kh, sh, 1, t, b), conv_out(w, kw, sw, 1, l, r)
        shape = (n, c, oh, ow) if layout == "NCHW" else (n, oh, ow, c)
        return self.p.add("pool", (x.name,), {"fn": fn, "kernel": kernel, "stride": stride,
                                              "padding": padding, "layout": layout},
                          shape, x.dtype)

    def cast(self):
        g = self.g
        masks = [n for n in self.p.nodes if n.dtype == "i1"]
        if MASK_OPS and masks and g.chance(0.3):
            a = masks[-1]
        else:
            a = self.operand()
        to = g.pick(tuple(d for d in DTYPES if d != a.dtype))
        return self.p.add("cast", (a.name,), {"to": to, "form": g.pick(("method", "fn"))},
                          a.shape, to)

    def const(self):
        g = self.g
        a = self.operand()
        shape = g.partner(a.shape) if math.prod(a.shape) <= 64 else g.pick(((), (1,)))
        if math.prod(shape) > 64:
            shape = ()
        rng = np.random.default_rng(g.int(0, 1000))
        if a.dtype == "i32":
            values = rng.integers(-8, 9, size=shape)
        else:
            values = rng.integers(-32, 33, size=shape) / 8.0  # exact in bf16
        c = self.p.add("const", (), {"values": values,
                                     "form": g.pick(("dtype", "np", "captured"))}, shape, a.dtype)
        fn = g.pick(("add", "mul", "sub", "maximum"))
        lhs, rhs = (a, c) if g.chance(0.7) else (c, a)
        return self.p.add("binary", (lhs.name, rhs.name), {"fn": fn, "form": "fn"},
                          broadcast(a.shape, c.shape), a.dtype)


OPS = ("binary", "unary", "matmul", "reduce", "compare", "where", "softmax", "layer_norm",
       "reshape", "transpose", "broadcast_to", "concat", "slice", "getitem", "conv2d", "pool",
       "cast", "const")
# Relative weights: elementwise and matmul/reductions most, every op regularly.
WEIGHTS = {"binary": 4, "unary": 4, "matmul": 3, "reduce": 3, "where": 2, "compare": 1,
           "softmax": 2, "layer_norm": 2, "reshape": 2, "transpose": 2, "broadcast_to": 1,
           "concat": 2, "slice": 1, "getitem": 2, "conv2d": 2, "pool": 2, "cast": 2, "const": 1}
OP_TABLE = tuple(op for op in OPS for _ in range(WEIGHTS[op]))


# Every op and function: the first op of the programs of test_programs_starting_with.
FIRST = tuple(
    [f"binary:{fn}" for fn in FLOAT_BINARY] + [f"unary:{fn}" for fn in FLOAT_UNARY] +
    ["reduce:sum", "reduce:max", "reduce:mean", "pool:max_pool2d", "pool:avg_pool2d"] +
    [op for op in OPS if op not in ("binary", "unary", "reduce", "pool")])


def _fits(have, want) -> bool:
    return tuple(have) == tuple(want)


def _broadcastable(a, b) -> bool:
    try:
        np.broadcast_shapes(tuple(a), tuple(b))
    except ValueError:
        return False
    return True


@st.composite
def programs(draw, max_ops: int = 5, zero_dims: bool = True, ops=OPS, first=None,
             medium=None, specials=None):
    """A random valid program of 1..max_ops ops (plus the guards and casts they need).

    ``first``: the first op, one of FIRST (a kind of OPS, or ``kind:fn``), to cover
    every op in few examples.
    """
    g = Gen(draw, zero_dims=zero_dims)
    g.medium = g.chance(0.25) if medium is None else medium
    dtype = g.pick(DTYPES)
    b = Builder(g, dtype)
    b.new_input(g.shape(), dtype)
    table = tuple(op for op in ops for _ in range(WEIGHTS[op]))
    for i in range(g.int(1, max_ops)):
        if i == 0 and first:
            kind, _, fn = first.partition(":")
            getattr(b, kind)(*([fn] if fn else []))
        else:
            getattr(b, g.pick(table))()
    p = b.p
    last = p.nodes[-1]
    used = {a for n in p.nodes for a in n.args}
    # every value nothing else uses (so that all the work is checked), some others too
    outs = [n.name for n in p.nodes[:-1] if n.op not in ("input", "const") and
            (n.name not in used or g.chance(0.15))]
    if g.chance(0.03):
        outs.append(p.inputs[0].name)  # an argument returned as it is
    outs.append(last.name)
    if g.chance(0.03):
        outs.append(last.name)  # the same value twice
    p.outputs = outs
    p.specials = g.chance(0.1) if specials is None else specials
    p.seed = g.int(0, 2 ** 31 - 1)
    return p


@st.composite
def big_programs(draw):
    """One or two ops on shapes large enough for strata to split them across threads.

    strata's thresholds: matmuls of >= 2^25 flops, row reductions (sum, max, softmax,
    layer_norm) of >= 2^20 elements, compute-heavy elementwise ops of >= 2^21 cost units.
    """
    g = Gen(draw, big=True, zero_dims=False)
    dtype = g.pick(FLOATS + ("i32",))
    b = Builder(g, dtype)
    p = b.p
    kind = g.pick(("matmul", "reduce", "softmax", "layer_norm", "unary", "matmul_epilogue"))
    fdtype = dtype if dtype in FLOATS else "f32"
    if kind.startswith("matmul"):
        m, k, n = g.pick((64, 96, 130)), g.pick((512, 384)), g.pick((512, 520))
        batch = g.pick(((), (2,)))
        x = b.new_input(batch + (m, k), dtype, "sym" if dtype != "i32" else "small")
        w = b.new_input((k, n), dtype, "sym" if dtype != "i32" else "small")
        y = p.add("matmul", (x.name, w.name), {"form": "op"}, batch + (m, n), dtype)
        if kind == "matmul_epilogue":
            bias = b.new_input((n,), dtype, "sym")
            y = p.add("binary", (y.name, bias.name), {"fn": "add", "form": "op"}, y.shape, dtype)
            if dtype in FLOATS:
                p.add("unary", (y.name,), {"fn": g.pick(("relu", "gelu", "tanh"))}, y.shape,
                      dtype)
    elif kind == "unary":
        x = b.new_input((g.pick((1024, 1030)), 1024), fdtype, "sym")
        p.add("unary", (x.name,), {"fn": g.pick(("exp", "gelu", "tanh", "sigmoid"))}, x.shape,
              fdtype)
    else:
        rows, cols = g.pick(((256, 4096), (1024, 1024), (33, 32768), (1025, 1023)))
        x = b.new_input((rows, cols), fdtype if kind != "reduce" else dtype, "sym")
        if kind == "reduce":
            fn = g.pick(("sum", "max", "mean")) if x.dtype in FLOATS else g.pick(("sum", "max"))
            keep = g.chance(0.5)
            p.add("reduce", (x.name,), {"fn": fn, "axis": -1, "keepdims": keep, "form": "fn"},
                  (rows, 1) if keep else (rows,), x.dtype)
        elif kind == "softmax":
            p.add("softmax", (x.name,), {"axis": -1, "form": "default"}, x.shape, x.dtype)
        else:
            s = b.new_input((cols,), x.dtype, "pos")
            p.add("layer_norm", (x.name, s.name), {"axis": -1, "eps": 1e-5, "scale": True,
                                                   "bias": False}, x.shape, x.dtype)
    p.outputs = [p.nodes[-1].name]
    p.seed = g.int(0, 2 ** 31 - 1)
    return p
