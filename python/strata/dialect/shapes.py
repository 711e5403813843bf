"""Shape and dtype rules of the strata ops, in pure Python.

One function per op family. Each takes operand shapes (tuples of ``int`` or
``None`` for a dynamic dim), dtypes (``"f32"``, ``"f16"``, ``"bf16"``, ``"i32"``,
``"i1"``) and attribute values, and returns the result ``(shape, dtype)`` or
raises :class:`ShapeError` with a message in the user's terms. The verifier
(``strata.dialect.verifier``) and the Python builders (``strata.frontend``)
share these rules, so an op that builds also verifies.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "ShapeError", "FLOAT_DTYPES", "DTYPES", "fmt_shape", "broadcast_shapes", "elementwise",
    "unary", "compare", "select", "matmul", "reduce", "softmax", "layer_norm", "reshape",
    "transpose", "broadcast_to", "concat", "slice_", "gather",
    "arg_reduce", "argsort", "conv2d", "pool2d", "cast", "conv_transpose2d", "cumsum",
    "reverse", "pad", "scatter", "conv3d", "pool3d",
    "normalize_axis", "RULES",
]

Shape = tuple  # tuple[int | None, ...]
FLOAT_DTYPES = ("f32", "f16", "bf16", "f64")
DTYPES = FLOAT_DTYPES + ("i32", "i64")
INDEX_DTYPES = ("i32", "i64")
COMPARE_PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")
LAYOUTS = ("NCHW", "NHWC")
GELU_FORMS = ("none", "tanh")


class ShapeError(ValueError):
    """An op's operands, attributes or result type break one of its rules."""


def fmt_shape(shape: Sequence) -> str:
    """``(2, None, 3)`` -> ``2x?x3``; the empty shape prints as ``scalar``."""
    if len(shape) == 0:
        return "scalar"
    return "x".join("?" if d is None else str(d) for d in shape)


def _check_dtype(op: str, dtype: str, allowed: Sequence[str], what: str = "operand") -> None:
    if dtype not in allowed:
        raise ShapeError(f"{op}: {what} element type {dtype} is not supported "
                         f"(expected one of {', '.join(allowed)})")


def _same_dtype(op: str, dtypes: Sequence[str]) -> str:
    first = dtypes[0]
    for other in dtypes[1:]:
        if other != first:
            raise ShapeError(f"{op}: operand element types differ ({first} vs {other})")
    return first


def normalize_axis(op: str, axis: int, rank: int, what: str = "axis") -> int:
    if not -rank <= axis < rank:
        raise ShapeError(f"{op}: {what} {axis} is out of range for a rank-{rank} tensor "
                         f"(expected -{rank} <= {what} < {rank})" if rank else
                         f"{op}: {what} {axis} is out of range for a rank-0 tensor")
    return axis + rank if axis < 0 else axis


def broadcast_shapes(op: str, *shapes: Sequence) -> Shape:
    """numpy broadcasting; a dynamic dim against 1 stays dynamic, against n > 1 is n."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        static = {d for d in dims if d is not None and d != 1}
        if len(static) > 1:
            sizes = " vs ".join(str(d) for d in sorted(static))
            raise ShapeError(
                f"{op}: shapes {' and '.join(fmt_shape(s) for s in shapes)} cannot be "
                f"broadcast (dim {i - rank} has sizes {sizes})")
        if static:
            out.append(static.pop())
        elif any(d is None for d in dims):
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


def elementwise(op: str, lhs: Shape, rhs: Shape, lhs_dtype: str, rhs_dtype: str):
    dtype = _same_dtype(op, [lhs_dtype, rhs_dtype])
    _check_dtype(op, dtype, INDEX_DTYPES if op in INT_ONLY_OPS else DTYPES)
    if op == "div" and dtype not in FLOAT_DTYPES:
        # An integer division could trap (x / 0, INT_MIN / -1); numpy's / on integers
        # is true division anyway, and its // is floor_div.
        raise ShapeError(f"div: operand element type {dtype} is not supported (div is "
                         "floating-point only: cast the operands to a float type for "
                         "numpy's true division, or use strata.floor_div for //)")
    return broadcast_shapes(op, lhs, rhs), dtype


# Bitwise ops: integer operands only (bool &, |, ^ are built as the logical ops).
INT_ONLY_OPS = ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift",
                "bitwise_not")

FLOAT_ONLY_UNARY = ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "gelu", "erf", "sin",
                    "cos", "floor", "ceil", "round")


def unary(op: str, shape: Shape, dtype: str, approximate: str = "none"):
    _check_dtype(op, dtype, FLOAT_DTYPES if op in FLOAT_ONLY_UNARY else
                 INDEX_DTYPES if op in INT_ONLY_OPS else DTYPES)
    if op == "gelu" and approximate not in GELU_FORMS:
        raise ShapeError(f"gelu: approximate must be one of {', '.join(GELU_FORMS)}, "
                         f"got '{approximate}'")
    return tuple(shape), dtype


def compare(lhs: Shape, rhs: Shape, lhs_dtype: str, rhs_dtype: str, predicate: str):
    if predicate not in COMPARE_PREDICATES:
        raise ShapeError(f"compare: unknown predicate '{predicate}' "
                         f"(expected one of {', '.join(COMPARE_PREDICATES)})")
    shape, _ = elementwise("compare", lhs, rhs, lhs_dtype, rhs_dtype)
    return shape, "i1"


def select(cond: Shape, on_true: Shape, on_false: Shape, cond_dtype: str, true_dtype: str,
           false_dtype: str):
    if cond_dtype != "i1":
        raise ShapeError(f"select: condition element type must be i1, got {cond_dtype}")
    dtype = _same_dtype("select", [true_dtype, false_dtype])
    _check_dtype("select", dtype, DTYPES)
    return broadcast_shapes("select", cond, on_true, on_false), dtype


def _dims_equal(a, b) -> bool:
    return a is None or b is None or a == b


def matmul(lhs: Shape, rhs: Shape, lhs_dtype: str, rhs_dtype: str):
    dtype = _same_dtype("matmul", [lhs_dtype, rhs_dtype])
    _check_dtype("matmul", dtype, DTYPES)
    if len(lhs) == 0 or len(rhs) == 0:
        raise ShapeError(f"matmul: operands must have rank >= 1, got "
                         f"{fmt_shape(lhs)} and {fmt_shape(rhs)}")
    a = (1,) + tuple(lhs) if len(lhs) == 1 else tuple(lhs)
    b = tuple(rhs) + (1,) if len(rhs) == 1 else tuple(rhs)
    if not _dims_equal(a[-1], b[-2]):
        raise ShapeError(f"matmul: inner dimensions differ ({a[-1]} vs {b[-2]})")
    batch = broadcast_shapes("matmul", a[:-2], b[:-2])
    out = batch + (a[-2], b[-1])
    if len(lhs) == 1:
        out = out[:-2] + out[-1:]
    if len(rhs) == 1:
        out = out[:-1]
    return out, dtype


def _normalize_axes(op: str, axes: Sequence[int], rank: int) -> list[int]:
    norm = [normalize_axis(op, a, rank) for a in axes]
    if len(set(norm)) != len(norm):
        raise ShapeError(f"{op}: axes {list(axes)} repeat an axis")
    return norm


def reduce(op: str, shape: Shape, dtype: str, axes: Sequence[int], keepdims: bool):
    _check_dtype(op, dtype, FLOAT_DTYPES if op == "mean" else DTYPES)
    norm = set(_normalize_axes(op, axes, len(shape)))
    if keepdims:
        return tuple(1 if i in norm else d for i, d in enumerate(shape)), dtype
    return tuple(d for i, d in enumerate(shape) if i not in norm), dtype


def arg_reduce(op: str, shape: Shape, dtype: str, axis: int, keepdims: bool):
    """argmax / argmin: the i32 index along ``axis`` (which must not be empty)."""
    _check_dtype(op, dtype, DTYPES)
    ax = normalize_axis(op, axis, len(shape))
    if shape[ax] == 0:
        raise ShapeError(f"{op}: axis {ax} of the input {fmt_shape(shape)} is empty")
    if keepdims:
        return tuple(1 if i == ax else d for i, d in enumerate(shape)), "i32"
    return tuple(d for i, d in enumerate(shape) if i != ax), "i32"


def softmax(shape: Shape, dtype: str, axis: int):
    _check_dtype("softmax", dtype, FLOAT_DTYPES)
    if len(shape) == 0:
        raise ShapeError("softmax: input must have rank >= 1")
    normalize_axis("softmax", axis, len(shape))
    return tuple(shape), dtype


def layer_norm(shape: Shape, scale: Shape, bias: Shape, dtypes: Sequence[str], axis: int,
               epsilon: float):
    dtype = _same_dtype("layer_norm", dtypes)
    _check_dtype("layer_norm", dtype, FLOAT_DTYPES)
    if len(shape) == 0:
        raise ShapeError("layer_norm: input must have rank >= 1")
    ax = normalize_axis("layer_norm", axis, len(shape))
    normalized = tuple(shape[ax:])
    for name, s in (("scale", scale), ("bias", bias)):
        if len(s) != len(normalized) or not all(map(_dims_equal, s, normalized)):
            raise ShapeError(f"layer_norm: {name} has shape {fmt_shape(s)} but the normalized "
                             f"dims are {fmt_shape(normalized)}")
    if not epsilon >= 0:
        raise ShapeError(f"layer_norm: epsilon must be >= 0, got {epsilon}")
    return tuple(shape), dtype


def _numel(shape):
    n = 1
    for d in shape:
        if d is None:
            return None
        n *= d
    return n


def reshape(shape: Shape, dtype: str, target: Shape):
    """``target`` is the result shape (no -1 here: the front end resolves it)."""
    if any(d is not None and d < 0 for d in target):
        raise ShapeError(f"reshape: negative size in target shape {fmt_shape(target)}")
    a, b = _numel(shape), _numel(target)
    if a is not None and b is not None and a != b:
        raise ShapeError(f"reshape: cannot reshape {fmt_shape(shape)} ({a} elements) "
                         f"into {fmt_shape(target)} ({b} elements)")
    return tuple(target), dtype


def transpose(shape: Shape, dtype: str, permutation: Sequence[int]):
    perm = list(permutation)
    if sorted(perm) != list(range(len(shape))):
        raise ShapeError(f"transpose: permutation {perm} is not a permutation of "
                         f"[0, {len(shape)}) for a rank-{len(shape)} input")
    return tuple(shape[p] for p in perm), dtype


def broadcast_to(shape: Shape, dtype: str, target: Shape):
    if len(target) < len(shape):
        raise ShapeError(f"broadcast_to: cannot broadcast {fmt_shape(shape)} to the "
                         f"lower-rank shape {fmt_shape(target)}")
    offset = len(target) - len(shape)
    for i, d in enumerate(shape):
        t = target[offset + i]
        if not (d == 1 or _dims_equal(d, t)):
            raise ShapeError(f"broadcast_to: cannot broadcast {fmt_shape(shape)} to "
                             f"{fmt_shape(target)} (dim {i} is {d}, target is {t})")
    return tuple(target), dtype


def concat(shapes: Sequence[Shape], dtypes: Sequence[str], axis: int):
    if not shapes:
        raise ShapeError("concat: needs at least one input")
    dtype = _same_dtype("concat", dtypes)
    rank = len(shapes[0])
    for s in shapes[1:]:
        if len(s) != rank:
            raise ShapeError(f"concat: inputs have different ranks "
                             f"({fmt_shape(shapes[0])} vs {fmt_shape(s)})")
    ax = normalize_axis("concat", axis, rank)
    out = list(shapes[0])
    for s in shapes[1:]:
        for i in range(rank):
            if i == ax:
                continue
            if not _dims_equal(out[i], s[i]):
                raise ShapeError(f"concat: inputs differ in dim {i} ({fmt_shape(shapes[0])} vs "
                                 f"{fmt_shape(s)}); only axis {ax} may differ")
            out[i] = out[i] if out[i] is not None else s[i]
    sizes = [s[ax] for s in shapes]
    out[ax] = None if any(d is None for d in sizes) else sum(sizes)
    return tuple(out), dtype


def slice_(shape: Shape, dtype: str, starts: Sequence[int], limits: Sequence[int],
           steps: Sequence[int]):
    rank = len(shape)
    for name, v in (("starts", starts), ("limits", limits), ("steps", steps)):
        if len(v) != rank:
            raise ShapeError(f"slice: {name} has {len(v)} entries for a rank-{rank} input")
    out = []
    for i, (d, lo, hi, st) in enumerate(zip(shape, starts, limits, steps, strict=True)):
        if st < 1:
            raise ShapeError(f"slice: step {st} in dim {i} must be >= 1")
        if lo < 0 or hi < lo or (d is not None and hi > d):
            raise ShapeError(f"slice: bounds [{lo}, {hi}) in dim {i} are not within "
                             f"[0, {'?' if d is None else d}]")
        out.append(-(-(hi - lo) // st))
    return tuple(out), dtype


def gather(shape: Shape, index_shape: Shape, dtype: str, index_dtype: str, axis: int):
    """numpy ``take(input, indices, axis)``: the axis replaced by the indices' dims."""
    _check_dtype("gather", dtype, DTYPES, "input")
    if index_dtype not in INDEX_DTYPES:
        raise ShapeError(f"gather: indices element type {index_dtype} is not supported "
                         "(expected i32 or i64)")
    ax = normalize_axis("gather", axis, len(shape))
    if shape[ax] == 0:
        raise ShapeError(f"gather: axis {ax} of the input {fmt_shape(shape)} has no elements "
                         "to pick")
    return tuple(shape[:ax]) + tuple(index_shape) + tuple(shape[ax + 1:]), dtype


def argsort(shape: Shape, dtype: str, axis: int):
    """numpy ``argsort(input, axis, kind="stable")``: i32 indices of the input's shape."""
    _check_dtype("argsort", dtype, DTYPES)
    normalize_axis("argsort", axis, len(shape))
    return tuple(shape), "i32"


def cumsum(shape: Shape, dtype: str, axis: int):
    """numpy ``cumsum(input, axis)``: the input's shape and element type."""
    _check_dtype("cumsum", dtype, DTYPES, "input")
    normalize_axis("cumsum", axis, len(shape))
    return tuple(shape), dtype


def reverse(shape: Shape, dtype: str, axes: Sequence[int]):
    """numpy ``flip(input, axes)``: the input's shape and element type."""
    _check_dtype("reverse", dtype, DTYPES, "input")
    seen = set()
    for a in axes:
        ax = normalize_axis("reverse", a, len(shape))
        if ax in seen:
            raise ShapeError(f"reverse: axis {ax} is repeated in {list(axes)}")
        seen.add(ax)
    return tuple(shape), dtype


def pad(shape: Shape, dtype: str, low: Sequence[int], high: Sequence[int], value: float):
    """numpy ``pad(input, pad_width, constant_values=value)`` with widths >= 0."""
    _check_dtype("pad", dtype, DTYPES, "input")
    rank = len(shape)
    for name, v in (("low", low), ("high", high)):
        if len(v) != rank:
            raise ShapeError(f"pad: {name} has {len(v)} entries for a rank-{rank} input")
        if any(w < 0 for w in v):
            raise ShapeError(f"pad: {name} widths must be >= 0, got {list(v)}")
    bits = {"i32": 32, "i64": 64}.get(dtype)
    if bits and not (float(value).is_integer() and -2**(bits - 1) <= value < 2**(bits - 1)):
        raise ShapeError(f"pad: pad_value {value} is not an {dtype} value")
    return tuple(None if d is None else lo + d + hi
                 for d, lo, hi in zip(shape, low, high, strict=True)), dtype


def scatter(op: str, shape: Shape, index_shape: Shape, update_shape: Shape,
            dtypes: Sequence[str], axis: int):
    """PyTorch ``scatter(input, axis, indices, updates)`` (and ``scatter_add``): indices
    and updates of one shape, of the input's rank, within the input's other dims."""
    dtype, index_dtype, update_dtype = dtypes
    _check_dtype(op, dtype, DTYPES, "input")
    if index_dtype not in INDEX_DTYPES:
        raise ShapeError(f"{op}: indices element type {index_dtype} is not supported "
                         "(expected i32 or i64)")
    if update_dtype != dtype:
        raise ShapeError(f"{op}: updates element type {update_dtype} differs from the "
                         f"input's {dtype}")
    ax = normalize_axis(op, axis, len(shape))
    if len(index_shape) != len(shape):
        raise ShapeError(f"{op}: indices {fmt_shape(index_shape)} must have the input's rank "
                         f"{len(shape)}")
    if len(update_shape) != len(index_shape) or not all(
            _dims_equal(a, b) for a, b in zip(index_shape, update_shape, strict=True)):
        raise ShapeError(f"{op}: indices {fmt_shape(index_shape)} and updates "
                         f"{fmt_shape(update_shape)} differ in shape")
    for i, (d, k) in enumerate(zip(shape, index_shape, strict=True)):
        if i != ax and d is not None and k is not None and k > d:
            raise ShapeError(f"{op}: indices {fmt_shape(index_shape)} are larger than the "
                             f"input {fmt_shape(shape)} in dim {i}")
    return tuple(shape), dtype


def _pair(op, name, v, n):
    if len(v) != n:
        raise ShapeError(f"{op}: {name} needs {n} values, got {len(v)}")
    low = 0 if name in ("padding", "output_padding") else 1
    if any(x < low for x in v):
        raise ShapeError(f"{op}: {name} values must be >= {low}, "
                         f"got {list(v)}")
    return list(v)


def _spatial_out(op, size, k, stride, dil, pad_lo, pad_hi, what):
    if size is None or k is None:
        return None
    span = dil * (k - 1) + 1
    if size + pad_lo + pad_hi < span:
        raise ShapeError(f"{op}: {what} window of {span} does not fit in the padded input "
                         f"size {size + pad_lo + pad_hi}")
    return (size + pad_lo + pad_hi - span) // stride + 1


def _layout(op, layout):
    if layout not in LAYOUTS:
        raise ShapeError(f"{op}: layout must be NCHW or NHWC, got '{layout}'")


def _conv_common(op, inp, flt, dtypes, allowed, strides, padding, dilations, layout, groups):
    """The checks conv2d and conv_transpose2d share; the dtype and the normalized
    strides, padding and dilations."""
    dtype = _same_dtype(op, dtypes)
    _check_dtype(op, dtype, allowed)
    _layout(op, layout)
    if len(inp) != 4 or len(flt) != 4:
        raise ShapeError(f"{op}: input and filter must have rank 4, got "
                         f"{fmt_shape(inp)} and {fmt_shape(flt)}")
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ShapeError(f"{op}: groups must be a positive integer, got {groups}")
    return (dtype, _pair(op, "strides", strides, 2), _pair(op, "padding", padding, 4),
            _pair(op, "dilations", dilations, 2))


def _in_nchw(layout, inp: Shape, flt: Shape) -> tuple[Shape, Shape]:
    """The input as ``(n, c, h, w)`` and the filter as ``(outer, inner, kh, kw)`` whatever
    the layout: an NHWC filter is ``[KH, KW, inner, outer]``."""
    if layout == "NCHW":
        return tuple(inp), tuple(flt)
    n, h, w, c = inp
    kh, kw, inner, outer = flt
    return (n, c, h, w), (outer, inner, kh, kw)


def conv2d(inp: Shape, flt: Shape, dtypes: Sequence[str], strides, padding, dilations, layout,
           groups: int = 1):
    op = "conv2d"
    dtype, strides, padding, dilations = _conv_common(op, inp, flt, dtypes, DTYPES, strides,
                                                      padding, dilations, layout, groups)
    (n, c, h, w), (f, fc, kh, kw) = _in_nchw(layout, inp, flt)
    if groups == 1:
        if not _dims_equal(c, fc):
            raise ShapeError(f"conv2d: input has {c} channels but the filter expects {fc}")
    else:
        for what, size in (("input channels", c), ("output channels (filter)", f)):
            if size is not None and size % groups:
                raise ShapeError(f"conv2d: {what} {size} are not divisible by groups={groups}")
        if c is not None and fc is not None and c // groups != fc:
            raise ShapeError(f"conv2d: with groups={groups} the filter must have {c} / "
                             f"{groups} = {c // groups} channels, got {fc}")
    oh = _spatial_out(op, h, kh, strides[0], dilations[0], padding[0], padding[1], "height")
    ow = _spatial_out(op, w, kw, strides[1], dilations[1], padding[2], padding[3], "width")
    return ((n, f, oh, ow) if layout == "NCHW" else (n, oh, ow, f)), dtype


def conv_transpose2d(inp: Shape, flt: Shape, dtypes: Sequence[str], strides, padding,
                     output_padding, dilations, layout, groups: int = 1):
    """Transposed convolution (issue 14, part B): NCHW filter ``[C, F/G, KH, KW]``, NHWC
    filter ``[KH, KW, F/G, C]``."""
    op = "conv_transpose2d"
    dtype, strides, padding, dilations = _conv_common(op, inp, flt, dtypes, FLOAT_DTYPES,
                                                      strides, padding, dilations, layout,
                                                      groups)
    output_padding = _pair(op, "output_padding", output_padding, 2)
    for k in range(2):
        if output_padding[k] >= max(strides[k], dilations[k]):
            raise ShapeError(f"{op}: output_padding {list(output_padding)} must be smaller "
                             f"than the stride {list(strides)} or the dilation "
                             f"{list(dilations)}")
    (n, c, h, w), (fc, fg, kh, kw) = _in_nchw(layout, inp, flt)
    if not _dims_equal(c, fc):
        raise ShapeError(f"{op}: input has {c} channels but the filter expects {fc}")
    if c is not None and c % groups:
        raise ShapeError(f"{op}: input channels {c} are not divisible by groups={groups}")
    f = None if fg is None else fg * groups

    def out(size, k, i):
        if size is None or k is None:
            return None
        o = ((size - 1) * strides[i] - padding[2 * i] - padding[2 * i + 1] +
             dilations[i] * (k - 1) + output_padding[i] + 1)
        if o < 1:
            raise ShapeError(f"{op}: padding {list(padding)} leaves no output along "
                             f"{'height' if i == 0 else 'width'} ({o})")
        return o

    oh, ow = out(h, kh, 0), out(w, kw, 1)
    return ((n, f, oh, ow) if layout == "NCHW" else (n, oh, ow, f)), dtype


def pool2d(op: str, inp: Shape, dtype: str, kernel, strides, padding, layout):
    _check_dtype(op, dtype, FLOAT_DTYPES if op == "avg_pool2d" else DTYPES)
    _layout(op, layout)
    if len(inp) != 4:
        raise ShapeError(f"{op}: input must have rank 4, got {fmt_shape(inp)}")
    kernel = _pair(op, "kernel", kernel, 2)
    strides = _pair(op, "strides", strides, 2)
    padding = _pair(op, "padding", padding, 4)
    for p, k in zip(padding, kernel[:1] * 2 + kernel[1:] * 2, strict=True):
        if p >= k:
            raise ShapeError(f"{op}: padding {list(padding)} must be smaller than the kernel "
                             f"{list(kernel)}")
    if layout == "NCHW":
        n, c, h, w = inp
    else:
        n, h, w, c = inp
    oh = _spatial_out(op, h, kernel[0], strides[0], 1, padding[0], padding[1], "height")
    ow = _spatial_out(op, w, kernel[1], strides[1], 1, padding[2], padding[3], "width")
    return ((n, c, oh, ow) if layout == "NCHW" else (n, oh, ow, c)), dtype


def _grouped_channels(op, c, f, fc, groups):
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ShapeError(f"{op}: groups must be a positive integer, got {groups}")
    for what, size in (("input channels", c), ("output channels (filter)", f)):
        if size is not None and size % groups:
            raise ShapeError(f"{op}: {what} {size} are not divisible by groups={groups}")
    if c is not None and fc is not None and c // groups != fc:
        raise ShapeError(f"{op}: the filter must have {c} / {groups} = {c // groups} "
                         f"channels, got {fc}")


_DEPTH_HEIGHT_WIDTH = ("depth", "height", "width")


def conv3d(inp: Shape, flt: Shape, dtypes: Sequence[str], strides, padding, dilations,
           groups: int = 1):
    """PyTorch ``conv3d`` in NCDHW: filter ``[F, C/groups, KD, KH, KW]``."""
    op = "conv3d"
    dtype = _same_dtype(op, dtypes)
    _check_dtype(op, dtype, FLOAT_DTYPES)
    if len(inp) != 5 or len(flt) != 5:
        raise ShapeError(f"{op}: input and filter must have rank 5 (NCDHW), got "
                         f"{fmt_shape(inp)} and {fmt_shape(flt)}")
    strides = _pair(op, "strides", strides, 3)
    padding = _pair(op, "padding", padding, 6)
    dilations = _pair(op, "dilations", dilations, 3)
    n, c = inp[:2]
    f, fc = flt[:2]
    _grouped_channels(op, c, f, fc, groups)
    out = [_spatial_out(op, inp[2 + i], flt[2 + i], strides[i], dilations[i], padding[2 * i],
                        padding[2 * i + 1], _DEPTH_HEIGHT_WIDTH[i]) for i in range(3)]
    return (n, f, *out), dtype


def pool3d(op: str, inp: Shape, dtype: str, kernel, strides, padding):
    """``max_pool3d`` / ``avg_pool3d`` in NCDHW."""
    _check_dtype(op, dtype, FLOAT_DTYPES if op == "avg_pool3d" else DTYPES)
    if len(inp) != 5:
        raise ShapeError(f"{op}: input must have rank 5 (NCDHW), got {fmt_shape(inp)}")
    kernel = _pair(op, "kernel", kernel, 3)
    strides = _pair(op, "strides", strides, 3)
    padding = _pair(op, "padding", padding, 6)
    if any(padding[2 * i + j] >= kernel[i] for i in range(3) for j in range(2)):
        raise ShapeError(f"{op}: padding {list(padding)} must be smaller than the kernel "
                         f"{list(kernel)}")
    out = [_spatial_out(op, inp[2 + i], kernel[i], strides[i], 1, padding[2 * i],
                        padding[2 * i + 1], _DEPTH_HEIGHT_WIDTH[i]) for i in range(3)]
    return (inp[0], inp[1], *out), dtype


def cast(shape: Shape, dtype: str, target_dtype: str):
    """Between f32, f16, bf16 and i32, or from i1 (a comparison's result: 1 or 0)."""
    _check_dtype("cast", dtype, DTYPES + ("i1",))
    _check_dtype("cast", target_dtype, DTYPES, "result")
    return tuple(shape), target_dtype


BINARY_OPS = ("add", "sub", "mul", "div", "maximum", "minimum", "pow", "floor_div", "mod",
              "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")
UNARY_OPS = ("neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu",
             "erf", "sin", "cos", "floor", "ceil", "round", "sign", "bitwise_not")
REDUCE_OPS = ("sum", "max", "mean", "prod", "min")
POOL_OPS = ("max_pool2d", "avg_pool2d")

# op name -> family, for the verifier's dispatch.
RULES = {
    **{n: "binary" for n in BINARY_OPS},
    **{n: "unary" for n in UNARY_OPS},
    **{n: "reduce" for n in REDUCE_OPS},
    **{n: "pool" for n in POOL_OPS},
    "compare": "compare", "select": "select", "matmul": "matmul", "softmax": "softmax",
    "layer_norm": "layer_norm", "reshape": "reshape", "transpose": "transpose",
    "broadcast_to": "broadcast_to", "concat": "concat", "slice": "slice", "conv2d": "conv2d",
    "gather": "gather", "argmax": "arg_reduce", "argmin": "arg_reduce", "argsort": "argsort",
    "conv_transpose2d": "conv_transpose2d",
    "constant": "constant", "cast": "cast",
    "cumsum": "cumsum", "reverse": "reverse", "pad": "pad", "scatter": "scatter",
    "scatter_add": "scatter",
    "conv3d": "conv3d", "max_pool3d": "pool3d", "avg_pool3d": "pool3d",
}
