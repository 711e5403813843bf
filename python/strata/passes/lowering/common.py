"""IR-building helpers shared by the strata-to-linalg lowerings."""

from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, tensor

from ..linalg_ops import linalg

DYN = ir.ShapedType.get_dynamic_size()


class LoweringError(Exception):
    """An op (or a form of it, e.g. some dynamic shapes) that the lowering does not support."""


def rtype(v) -> ir.RankedTensorType:
    return ir.RankedTensorType(v.type)


def is_float(t: ir.Type) -> bool:
    return isinstance(t, (ir.F32Type, ir.F16Type, ir.BF16Type, ir.F64Type))


def compute_type(t: ir.Type) -> ir.Type:
    """f16 and bf16 compute in f32 (rounded back at the end); others in their own type."""
    return ir.F32Type.get() if isinstance(t, (ir.F16Type, ir.BF16Type)) else t


def index(i: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), i)


def dim(v, i: int):
    """Size of dim ``i`` of ``v``: an int if static, else a ``tensor.dim`` value."""
    t = rtype(v)
    if not t.is_dynamic_dim(i):
        return t.get_dim_size(i)
    return tensor.dim(v, index(i))


def dims(v) -> list:
    return [dim(v, i) for i in range(rtype(v).rank)]


def empty(sizes, elem: ir.Type) -> ir.Value:
    return tensor.empty(sizes, elem)


def empty_like_result(result_type: ir.RankedTensorType, size_of, elem=None) -> ir.Value:
    """A tensor.empty of ``result_type``'s shape; ``size_of(i)`` gives dynamic dim i."""
    sizes = [size_of(i) if result_type.is_dynamic_dim(i) else result_type.get_dim_size(i)
             for i in range(result_type.rank)]
    return empty(sizes, elem or result_type.element_type)


def scalar(t: ir.Type, value) -> ir.Value:
    if is_float(t):
        return arith.constant(t, float(value))
    return arith.constant(t, int(value))


def fill(value, init) -> ir.Value:
    return linalg.fill(value, outs=[init])


def filled(sizes, elem: ir.Type, value) -> ir.Value:
    """A tensor of ``sizes`` x ``elem`` filled with ``value`` (a number, or a scalar Value)."""
    return fill(value if isinstance(value, ir.Value) else scalar(elem, value), empty(sizes, elem))


def extreme(t: ir.Type, highest: bool = False) -> ir.Value:
    """The lowest value of ``t`` (-inf, or the most negative integer), or the highest."""
    if is_float(t):
        return arith.constant(t, float("inf") if highest else float("-inf"))
    return scalar(t, 2 ** (t.width - 1) - 1 if highest else -(2 ** (t.width - 1)))


def i64s(op, name: str) -> list[int]:
    """The integers of ``op``'s DenseI64ArrayAttr ``name``."""
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


def as_index(v) -> ir.Value:
    """``v`` as an index Value (an int becomes a constant)."""
    return index(v) if isinstance(v, int) else v


def embed(x, x_sizes, sizes, offsets, value, steps=None) -> ir.Value:
    """A tensor of ``sizes`` filled with ``value``, ``x`` (of ``x_sizes``: ``dims(x)``)
    inserted at ``offsets``, every ``steps``-th element along each dim: padding, or
    spreading an input out for a strided window."""
    rank = rtype(x).rank
    base = fill(value, empty(sizes, rtype(x).element_type))
    dyn_sz, st_sz = mixed(x_sizes)
    return tensor.insert_slice(x, base, [], dyn_sz, [], offsets, st_sz, steps or [1] * rank)


def divide_by_counts(out, counts, spatial) -> ir.Value:
    """``out`` divided by the window counts of an average pool: ``counts`` an int (every
    window), or a numpy array of them over the dims ``spatial`` of ``out``."""
    t = rtype(out)
    ct, rank = t.element_type, t.rank
    ident = ir.AffineMap.get_identity(rank)
    if isinstance(counts, int):
        n = scalar(ct, counts)
        return generic([out], [empty(dims(out), ct)], [ident, ident], ["parallel"] * rank,
                       lambda a, _o: arith.divf(a, n))[0]
    counts = counts.astype(np.float64 if isinstance(ct, ir.F64Type) else np.float32)
    count_type = ir.RankedTensorType.get(list(counts.shape), ct)
    cst = arith.constant(count_type, ir.DenseElementsAttr.get(counts, type=ct))
    return generic([out, cst], [empty(dims(out), ct)],
                   [ident, affine_map(rank, [d(i) for i in spatial]), ident],
                   ["parallel"] * rank, lambda a, c, _o: arith.divf(a, c))[0]


def convert(x: ir.Value, to: ir.Type) -> ir.Value:
    """Scalar conversion between float widths, between float and integer, and between
    integer widths (i32 -> i64 sign-extends; i64 -> i32 keeps the low bits, as numpy's
    ``astype`` does)."""
    src = x.type
    if src == to:
        return x
    if is_float(src) and is_float(to):
        if src.width == to.width:  # f16 <-> bf16 goes through f32
            return arith.truncf(to, arith.extf(ir.F32Type.get(), x))
        return arith.extf(to, x) if to.width > src.width else arith.truncf(to, x)
    if is_float(to):
        return arith.sitofp(to, x)
    if is_float(src):
        return fptosi_saturating(x, to)
    if isinstance(src, ir.IntegerType) and isinstance(to, ir.IntegerType) and src.width > 1:
        return arith.extsi(to, x) if to.width > src.width else arith.trunci(to, x)
    raise LoweringError(f"no conversion from {src} to {to}")


def fptosi_saturating(x: ir.Value, to: ir.Type) -> ir.Value:
    """float -> int truncating toward zero; out-of-range saturates and NaN becomes 0."""
    f32 = ir.F32Type.get()
    xf = arith.extf(f32, x) if x.type != f32 and x.type.width < 32 else x
    lo = arith.constant(xf.type, -(2.0 ** (to.width - 1)))
    hi = arith.constant(xf.type, 2.0 ** (to.width - 1) - 2 ** (to.width - 25 if to.width > 24 else 0))
    clamped = arith.minimumf(arith.maximumf(xf, lo), hi)
    as_int = arith.fptosi(to, clamped)
    # hi is the largest float below 2**(w-1): at or above that, saturate to INT_MAX
    too_big = arith.cmpf(arith.CmpFPredicate.OGE, xf,
                         arith.constant(xf.type, 2.0 ** (to.width - 1)))
    as_int = arith.select(too_big, arith.constant(to, 2 ** (to.width - 1) - 1), as_int)
    is_nan = arith.cmpf(arith.CmpFPredicate.UNO, xf, xf)
    return arith.select(is_nan, arith.constant(to, 0), as_int)


_PARALLEL = None


def iterator(kind: str) -> ir.Attribute:
    return ir.Attribute.parse(f"#linalg.iterator_type<{kind}>")


def affine_map(n_dims: int, exprs) -> ir.AffineMap:
    return ir.AffineMap.get(n_dims, 0, exprs)


def d(i: int):
    return ir.AffineDimExpr.get(i)


def zero_expr():
    return ir.AffineConstantExpr.get(0)


def broadcast_map(operand_type: ir.RankedTensorType, result_type: ir.RankedTensorType):
    """Indexing map of an operand broadcast (numpy rules) into the result's iteration space.

    A static size-1 dim stretched against a larger (or dynamic) result dim reads index 0.
    Dynamic operand dims are taken to match the result (they never broadcast).
    """
    rank, r = result_type.rank, operand_type.rank
    exprs = []
    for i in range(r):
        j = rank - r + i
        if (not operand_type.is_dynamic_dim(i) and operand_type.get_dim_size(i) == 1 and
                (result_type.is_dynamic_dim(j) or result_type.get_dim_size(j) != 1)):
            exprs.append(zero_expr())
        else:
            exprs.append(d(j))
    return affine_map(rank, exprs)


def generic(inputs, outputs, maps, iterators, body, result_types=None):
    """A linalg.generic; ``body(*block_args)`` builds the region and returns the yields."""
    result_types = result_types or [o.type for o in outputs]
    op = linalg.GenericOp(
        result_types, inputs, outputs,
        ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
        ir.ArrayAttr.get([iterator(k) for k in iterators]),
    )
    elem_types = [rtype(v).element_type for v in list(inputs) + list(outputs)]
    block = op.regions[0].blocks.append(*elem_types)
    with ir.InsertionPoint(block):
        yields = body(*block.arguments)
        linalg.YieldOp(list(yields) if isinstance(yields, (list, tuple)) else [yields])
    return op.results


def dynamic_size_from(operands, result_type):
    """A ``size_of(i)`` for empty_like_result: dim i from an operand that carries it."""

    def size_of(i):
        rank = result_type.rank
        for v in operands:
            t = rtype(v)
            k = i - (rank - t.rank)
            if k >= 0 and t.is_dynamic_dim(k):
                return dim(v, k)
        for v in operands:
            t = rtype(v)
            k = i - (rank - t.rank)
            if k >= 0 and t.get_dim_size(k) != 1:
                return t.get_dim_size(k)
        raise LoweringError(f"cannot determine the size of result dim {i}")

    return size_of


def mixed(values):
    """Splits ints/Values into (dynamic Values, static list with kDynamic placeholders)."""
    dynamic, static = [], []
    for v in values:
        if isinstance(v, int):
            static.append(v)
        else:
            static.append(DYN)
            dynamic.append(v)
    return dynamic, static


def reassociation(groups) -> ir.ArrayAttr:
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, x) for x in g])
                             for g in groups])


def collapse(v, groups, result_shape):
    t = ir.RankedTensorType.get(result_shape, rtype(v).element_type)
    return tensor.collapse_shape(t, v, reassociation(groups))


def expand(v, groups, result_sizes):
    """tensor.expand_shape of ``v`` to ``result_sizes`` (ints or index Values)."""
    dynamic, static = mixed(result_sizes)
    t = ir.RankedTensorType.get(static, rtype(v).element_type)
    return tensor.expand_shape(t, v, reassociation(groups), dynamic, static)


def map_elementwise(inputs, result_type, fn, out_elem=None):
    """One linalg.generic applying scalar ``fn`` to broadcast ``inputs`` elementwise."""
    out_elem = out_elem or result_type.element_type
    init = empty_like_result(result_type, dynamic_size_from(inputs, result_type), out_elem)
    maps = [broadcast_map(rtype(v), result_type) for v in inputs]
    maps.append(ir.AffineMap.get_identity(result_type.rank))
    return generic(inputs, [init], maps, ["parallel"] * result_type.rank,
                   lambda *args: fn(*args[:-1]))[0]


def to_compute(x: ir.Value) -> ir.Value:
    """Elementwise extension of an f16/bf16 tensor to f32 (identity otherwise)."""
    t = rtype(x)
    ct = compute_type(t.element_type)
    if ct == t.element_type:
        return x
    out = ir.RankedTensorType.get(list(t.shape), ct)
    return map_elementwise([x], out, lambda a: arith.extf(ct, a), ct)


def from_compute(x: ir.Value, elem: ir.Type) -> ir.Value:
    t = rtype(x)
    if t.element_type == elem:
        return x
    out = ir.RankedTensorType.get(list(t.shape), elem)
    return map_elementwise([x], out, lambda a: convert(a, elem), elem)
