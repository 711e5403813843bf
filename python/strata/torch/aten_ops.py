"""Core ATen ops as strata frontend ops: the table the importer and the partitioner share.

Each converter takes the node's arguments by their schema names (``normalize_function``),
with tensors already converted to strata Tensors, and returns a Tensor or a tuple of them
(for ops with several results, such as ``native_layer_norm``). ``unsupported(node)`` says
why a node cannot be converted (or None): the Dynamo backend leaves such nodes to eager
PyTorch and ``strata.torch.explain`` reports the reason.

    %addmm = aten.addmm.default(%b, %x, %w_t)   ->   strata.matmul + strata.add
    %ln = aten.native_layer_norm.default(...)   ->   strata.layer_norm (mean/rstd on demand)

int64 tensors are i64 inside strata (never narrowed to i32), int32 i32.
A symbolic size is a dynamic dim (None); ``symbolic.symbolic_unsupported`` says which ops
cannot take theirs. Slices of a tensor with a dynamic dim (along a static one) are
``strata.take`` of constant indices, since strata.slice has static sizes.
"""

from __future__ import annotations

import operator

import numpy as np
import torch

from ..frontend import index_ops as I
from ..frontend import ops as S
from ..frontend.tensor import Tensor
from .aten_bitwise import BITWISE_CONVERTERS
from .aten_conv3d import CONV3D_CONVERTERS, conv3d_unsupported, convolution3d
from .aten_dtypes import cast_to as _cast_to
from .aten_dtypes import numpy_type as _np
from .aten_dtypes import out_dtype as _out_dtype
from .aten_dtypes import strata_dtype
from .aten_sort import SORT_CONVERTERS
from .symbolic import is_symbolic, strata_shape, symbolic_numbers, symbolic_unsupported

__all__ = ["CONVERTERS", "convert_node", "unsupported", "strata_dtype", "is_foldable"]

def _scalar(v):
    if isinstance(v, bool):
        return int(v)
    return v


def _operands(node, *values):
    """Tensors in the node's result dtype (torch promotes, strata's ops do not)."""
    dtype = _out_dtype(node)
    return [_cast_to(v, dtype) if isinstance(v, Tensor) else _scalar(v) for v in values]


def _with_tensor(node, fn, a, b):
    """``fn(a, b)`` where at least one side must be a Tensor (else a rank-0 constant)."""
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        a = S.constant(np.array(a, _np(node)), _out_dtype(node))
    return fn(*_operands(node, a, b))


# --- elementwise -------------------------------------------------------------------------


def _add(node, self, other, alpha=1):
    if alpha != 1:
        other = S.mul(*_operands(node, other, alpha)) if isinstance(other, Tensor) else \
            other * alpha
    return _with_tensor(node, S.add, self, other)


def _sub(node, self, other, alpha=1):
    if alpha != 1:
        other = S.mul(*_operands(node, other, alpha)) if isinstance(other, Tensor) else \
            other * alpha
    return _with_tensor(node, S.sub, self, other)


def _rsub(node, self, other, alpha=1):
    return _sub(node, other, self, alpha) if alpha == 1 else _with_tensor(
        node, S.sub, other, S.mul(*_operands(node, self, alpha)))


def _div(node, self, other, rounding_mode=None):
    if rounding_mode == "floor":
        return _with_tensor(node, S.floor_divide, self, other)
    if rounding_mode is not None:
        raise NotImplementedError(f"div with rounding_mode='{rounding_mode}'")
    dtype = _out_dtype(node)
    a, b = (_cast_to(v, dtype) if isinstance(v, Tensor) else v for v in (self, other))
    return S.div(a, b)


def _binary(fn):
    return lambda node, self, other: _with_tensor(node, fn, self, other)


def _unary(fn):
    return lambda node, self: fn(_cast_to(self, _out_dtype(node)))


def _rounding(fn):
    def convert(node, self, decimals=0):
        if decimals:
            raise NotImplementedError("round with decimals")
        return self if self.dtype in ("i32", "i64") else fn(self)  # integers are whole

    return convert


def _gelu(node, self, approximate="none"):
    return S.gelu(self, approximate=approximate)


def _reciprocal(node, self):
    return S.div(_operands(node, 1.0)[0], _cast_to(self, _out_dtype(node)))


def _clamp(node, self, min=None, max=None):  # noqa: A002 - schema names
    x = _cast_to(self, _out_dtype(node))
    if min is not None:
        x = S.maximum(*_operands(node, x, min))
    if max is not None:
        x = S.minimum(*_operands(node, x, max))
    return x


def _compare(fn):
    def convert(node, self, other):
        dtypes = [v.dtype for v in (self, other) if isinstance(v, Tensor)]
        a, b = self, other
        if len(set(dtypes)) > 1:
            common = torch.promote_types(*(a_.meta["val"].dtype for a_ in node.args[:2]))
            a, b = _cast_to(a, strata_dtype(common)), _cast_to(b, strata_dtype(common))
        if isinstance(b, float) and isinstance(a, Tensor) and a.dtype in ("i32", "i64", "i1"):
            a = S.cast(a, "f32")
        if isinstance(a, Tensor) and a.dtype == "i1":
            a = S.cast(a, "i32")
        if isinstance(b, Tensor) and b.dtype == "i1":
            b = S.cast(b, "i32")
        return fn(a, _scalar(b))

    return convert


def _where(node, condition, self, other):
    dtype = _out_dtype(node)
    t, f = (_cast_to(v, dtype) if isinstance(v, Tensor) else _scalar(v) for v in (self, other))
    if not isinstance(t, Tensor) and not isinstance(f, Tensor):
        t = S.constant(np.array(t, _np(node)), dtype)
    return S.where(_cast_to(condition, "i1"), t, f)


def _pow(node, self, exponent):
    if isinstance(exponent, (int, float)) and exponent == 2 and isinstance(self, Tensor):
        x = _cast_to(self, _out_dtype(node))
        return S.mul(x, x)
    return _with_tensor(node, S.pow, self, exponent)


# --- contractions ---------------------------------------------------------------------------


def _mm(node, self, mat2):
    return S.matmul(*_operands(node, self, mat2))


def _addmm(node, self, mat1, mat2, beta=1, alpha=1):
    prod = S.matmul(*_operands(node, mat1, mat2))
    if alpha != 1:
        prod = S.mul(prod, alpha)
    bias = _cast_to(self, prod.dtype)
    if beta != 1:
        bias = S.mul(bias, beta)
    return S.add(prod, bias)


def _linear(node, input, weight, bias=None):  # noqa: A002 - schema names
    y = S.matmul(input, S.transpose(weight))
    return y if bias is None else S.add(y, bias)


# --- reductions and normalizations --------------------------------------------------------------


def _dims(dim, rank):
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return list(range(rank))
    if isinstance(dim, int):
        return [dim]
    return list(dim)


def _sum(node, self, dim=None, keepdim=False, dtype=None):
    x = _cast_to(self, _out_dtype(node))
    return S.sum(x, axis=_dims(dim, x.ndim), keepdims=keepdim)


def _mean(node, self, dim=None, keepdim=False, dtype=None):
    x = _cast_to(self, _out_dtype(node))
    return S.mean(x, axis=_dims(dim, x.ndim), keepdims=keepdim)


def _amax(node, self, dim=(), keepdim=False):
    return S.max(self, axis=_dims(dim, self.ndim), keepdims=keepdim)


def _amin(node, self, dim=(), keepdim=False):
    return S.min(self, axis=_dims(dim, self.ndim), keepdims=keepdim)


def _argmax(node, self, dim=None, keepdim=False):
    if dim is None and keepdim:  # torch keeps every dim as size 1
        return _cast_to(S.reshape(S.argmax(self), strata_shape(node.meta["val"].shape)),
                        _out_dtype(node))
    return _cast_to(S.argmax(self, axis=dim, keepdims=keepdim), _out_dtype(node))


def _argmin(node, self, dim=None, keepdim=False):
    if dim is None and keepdim:
        return _cast_to(S.reshape(S.argmin(self), strata_shape(node.meta["val"].shape)),
                        _out_dtype(node))
    return _cast_to(S.argmin(self, axis=dim, keepdims=keepdim), _out_dtype(node))


def _prod(node, self=None, dim=None, keepdim=False, dtype=None, inp=None, dims=None,
          output_dtype=None):
    """aten.prod, and prims.prod (``inp``, ``dims``: cumprod's decomposition makes it)."""
    x = _cast_to(self if self is not None else inp, _out_dtype(node))
    return S.prod(x, axis=_dims(dim if dims is None else dims, x.ndim), keepdims=keepdim)


def _max_dim(node, self, dim, keepdim=False):
    """torch.max(x, dim): the values and the (first) index of each."""
    return S.max(self, axis=dim, keepdims=keepdim), _cast_to(
        S.argmax(self, axis=dim, keepdims=keepdim), _out_dtype(node, 1))


def _min_dim(node, self, dim, keepdim=False):
    return S.min(self, axis=dim, keepdims=keepdim), _cast_to(
        S.argmin(self, axis=dim, keepdims=keepdim), _out_dtype(node, 1))


def _var(x, dims, correction, keepdim):
    """The variance over ``dims`` with ``correction`` (Bessel's: 1) and the mean (the
    kept-dims mean, reshaped where the dims go: one reduction, not two)."""
    mean = S.mean(x, axis=dims, keepdims=True)
    count = 1
    for d in dims:
        count *= x.shape[d]
    centered = S.sub(x, mean)
    total = S.sum(S.mul(centered, centered), axis=dims, keepdims=keepdim)
    var = S.div(total, float(max(count - (1 if correction is None else correction), 0)))
    return var, mean if keepdim else S.reshape(mean, list(var.shape))


def _var_mean(node, self, dim=None, correction=None, keepdim=False):
    x = _cast_to(self, _out_dtype(node, 0))
    return _var(x, _dims(dim, x.ndim), correction, keepdim)


def _var_correction(node, self, dim=None, correction=None, keepdim=False):
    x = _cast_to(self, _out_dtype(node))
    return _var(x, _dims(dim, x.ndim), correction, keepdim)[0]


def _as_strided(node, self, size, stride, storage_offset=None):
    """A contiguous tensor read with its own contiguous strides: a reshape (others are
    refused by unsupported())."""
    return S.reshape(self, strata_shape(node.meta["val"].shape))


def _softmax(node, self, dim, half_to_float=False):
    return S.softmax(_cast_to(self, _out_dtype(node)), axis=dim)


def _log_softmax(node, self, dim, half_to_float=False):
    return S.log(S.softmax(_cast_to(self, _out_dtype(node)), axis=dim))


def _used_outputs(node) -> set:
    return {u.args[1] for u in node.users if u.target is operator.getitem}


def _stats(x, axes, eps):
    mean = S.mean(x, axis=axes, keepdims=True)
    centered = S.sub(x, mean)
    var = S.mean(S.mul(centered, centered), axis=axes, keepdims=True)
    return mean, S.rsqrt(S.add(var, eps))


def _native_layer_norm(node, input, normalized_shape, weight, bias, eps):  # noqa: A002
    axis = input.ndim - len(normalized_shape)
    out = S.layer_norm(input, weight, bias, axis=axis, epsilon=float(eps))
    used = _used_outputs(node)
    mean = rstd = None
    if used & {1, 2}:
        mean, rstd = _stats(input, list(range(axis, input.ndim)), float(eps))
    return out, mean, rstd


def _channel(v, rank):
    return S.reshape(v, [1, -1] + [1] * (rank - 2))


def _batch_norm_eval(node, input, weight, bias, running_mean, running_var, momentum, eps):  # noqa: A002
    if _used_outputs(node) & {1, 2}:
        raise NotImplementedError("the saved mean/rstd of batch norm")
    scale = S.rsqrt(S.add(running_var, float(eps)))
    if weight is not None:
        scale = S.mul(scale, weight)
    shift = S.neg(S.mul(running_mean, scale))
    if bias is not None:
        shift = S.add(shift, bias)
    return (S.add(S.mul(input, _channel(scale, input.ndim)), _channel(shift, input.ndim)),
            None, None)


# --- shapes ----------------------------------------------------------------------------------


def _view(node, self, size):
    return S.reshape(self, strata_shape(node.meta["val"].shape))


def _permute(node, self, dims):
    return S.transpose(self, [d % self.ndim for d in dims]) if self.ndim else self


def _t(node, self):
    return S.transpose(self) if self.ndim == 2 else self


def _transpose(node, self, dim0, dim1):
    perm = list(range(self.ndim))
    a, b = dim0 % self.ndim, dim1 % self.ndim
    perm[a], perm[b] = perm[b], perm[a]
    return S.transpose(self, perm)


def _expand(node, self, size, implicit=False):
    shape = strata_shape(node.meta["val"].shape)
    if tuple(shape) == self.shape:
        return self
    return S.broadcast_to(self, shape)


def _reshape_to_node(node, self, *rest, **kw):
    return S.reshape(self, strata_shape(node.meta["val"].shape))


def _indices(array):
    """Constant indices for strata.take (read-only: compiled in): i32 where every index
    fits, else i64 (never wrapped)."""
    array = array.astype(np.int32) if S.fits_i32(array) else array.astype(np.int64)
    array.setflags(write=False)
    return array


def _slice(node, self, dim=0, start=None, end=None, step=1):
    dim %= self.ndim
    size = self.shape[dim]
    if size is None:  # the whole of a symbolic dim (symbolic.py allows no other slice)
        return self
    lo, hi, st = slice(start, end, step).indices(size)
    hi = max(hi, lo)
    if (lo, hi, st) == (0, size, 1):
        return self
    if None in self.shape:  # strata.slice has static sizes: pick the entries instead
        return S.take(self, _indices(np.arange(lo, hi, st)), axis=dim)
    starts, limits, steps = [0] * self.ndim, list(self.shape), [1] * self.ndim
    starts[dim], limits[dim], steps[dim] = lo, hi, st
    return S.slice(self, starts, limits, steps)


def _select(node, self, dim, index):
    dim %= self.ndim
    index %= self.shape[dim]
    if None in self.shape:  # a rank-0 index drops the dim
        return S.take(self, _indices(np.array(index)), axis=dim)
    y = _slice(node, self, dim, index, index + 1, 1)
    return S.reshape(y, strata_shape(node.meta["val"].shape))


def _cat(node, tensors, dim=0):
    dtype = _out_dtype(node)
    parts = [_cast_to(t, dtype) for t in tensors if not (isinstance(t, Tensor) and 0 in t.shape)]
    if not parts:  # every part empty: so is the result
        shape = strata_shape(node.meta["val"].shape)
        if None in shape:
            raise NotImplementedError("cat of empty parts with a symbolic size")
        return S.constant(np.zeros(shape, _np(node)), dtype)
    if len(parts) == 1:
        return parts[0]
    return S.concat(parts, axis=dim % parts[0].ndim)


def _split_with_sizes(node, self, split_sizes, dim=0):
    dim %= self.ndim
    out, start = [], 0
    for size in split_sizes:
        out.append(_slice(node, self, dim, start, start + size, 1))
        start += size
    return tuple(out)


def _split(node, self, split_size, dim=0):
    dim %= self.ndim
    total = self.shape[dim]
    sizes = [min(split_size, total - s) for s in range(0, total, split_size)] or [0]
    return _split_with_sizes(node, self, sizes, dim)


def _unbind(node, self, dim=0):
    dim %= self.ndim
    shape = [d for i, d in enumerate(self.shape) if i != dim]
    if None in self.shape:
        return tuple(S.take(self, _indices(np.array(i)), axis=dim)
                     for i in range(self.shape[dim]))
    return tuple(S.reshape(_slice(node, self, dim, i, i + 1, 1), shape)
                 for i in range(self.shape[dim]))


def _logical_not(node, self):
    return S.equal(S.cast(self, "i32") if self.dtype == "i1" else self, 0)


def _truth(x):
    return S.cast(x, "i32") if x.dtype == "i1" else S.cast(S.not_equal(x, 0), "i32")


def _logical_and(node, self, other):
    return S.not_equal(S.mul(_truth(self), _truth(other)), 0)


def _logical_or(node, self, other):
    return S.not_equal(S.maximum(_truth(self), _truth(other)), 0)


def _any(node, self, dim=None, keepdim=False):
    """A count of the true elements (a max would be i32's lowest over an empty dim: true)."""
    axes = _dims(dim, self.ndim)
    return S.not_equal(S.sum(_truth(self), axis=axes, keepdims=keepdim), 0)


def _all(node, self, dim=None, keepdim=False):
    """No false element: all() of an empty dim is true, as in torch."""
    axes = _dims(dim, self.ndim)
    return S.equal(S.sum(S.sub(1, _truth(self)), axis=axes, keepdims=keepdim), 0)


def _identity(node, self, *rest, **kw):
    return self


def _to_copy(node, self, dtype=None, **kw):
    return _cast_to(self, _out_dtype(node))


def _dropout(node, input, p, train=None):  # noqa: A002
    if train:
        raise NotImplementedError("dropout in training mode")
    return input, None


def _full(node, size, fill_value, **kw):
    dtype = _out_dtype(node)
    value = S.constant(np.array(_scalar(fill_value), _np(node)), dtype)
    return S.broadcast_to(value, list(size)) if list(size) else value


def _full_like(node, self, fill_value, **kw):
    shape = strata_shape(node.meta["val"].shape)
    if None not in shape:
        return _full(node, shape, fill_value)
    # a symbolic size: the value picked by a select over ``self``'s shape (either way: a
    # NaN in self, unequal to itself, still picks it)
    value = S.constant(np.array(_scalar(fill_value), _np(node)), _out_dtype(node))
    return S.where(S.equal(self, self), value, value)


def _scalar_tensor(node, s, **kw):
    return S.constant(np.array(_scalar(s), _np(node)), _out_dtype(node))


def _embedding(node, weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return S.take(weight, indices, axis=0)


def _index_select(node, self, dim, index):
    return S.take(self, index, axis=dim)


def _flat_index_dtype(sizes, indices) -> str:
    """i64 for a flat index into ``sizes`` elements if an index is i64 or the count needs
    it, else i32 (advanced indexing and gather read one flattened dim)."""
    count = np.array([int(np.prod(sizes, dtype=np.int64))])
    return "i64" if any(t.dtype == "i64" for t in indices) or not S.fits_i32(count) else "i32"


def _index(node, self, indices):
    """``self[i, j]`` with integer index tensors (advanced indexing; a ``None`` is a whole
    dim): the indexed dims as one, picked by the flat index ``i * size_j + j``
    (``strata.take``). Indexed dims that are not adjacent go first, as in torch. A bool
    tensor (a padding mask) is picked from as i32."""
    if self.dtype == "i1":
        return S.not_equal(_index(node, S.cast(self, "i32"), indices), 0)
    dims = [d for d, t in enumerate(indices) if t is not None]
    idx = [indices[d] for d in dims]
    if dims != list(range(dims[0], dims[-1] + 1)):  # apart: torch puts their dims first
        self = S.transpose(self, dims + [d for d in range(self.ndim) if d not in dims])
        dims = list(range(len(dims)))
    p, k = dims[0], len(dims)
    if k == 1:
        return S.take(self, idx[0], axis=p)  # (take counts negative indices from the end)
    sizes = list(self.shape[p:p + k])
    dtype = _flat_index_dtype(sizes, idx)
    flat = None
    for t, size in zip(idx, sizes, strict=True):
        t = _cast_to(t, dtype)
        t = S.where(S.less(t, 0), S.add(t, size), t)
        flat = t if flat is None else S.add(S.mul(flat, size), t)
    rows = list(self.shape[:p]) + [int(np.prod(sizes, dtype=np.int64))] + list(self.shape[p + k:])
    return S.take(S.reshape(self, rows), flat, axis=p)


def _gather(node, self, dim, index, sparse_grad=False):
    """``torch.gather(x, dim, index)``: ``out[p] = x[p with dim replaced by index[p]]``, as
    one ``strata.take`` from the flattened ``x`` by the flat offsets (the other coordinates
    are constant aranges; an index is wrapped if negative and clamped per dim)."""
    dim %= self.ndim
    dtype = _flat_index_dtype(self.shape, [index])
    npd = np.int64 if dtype == "i64" else np.int32
    stride, strides = 1, [0] * self.ndim
    for d in reversed(range(self.ndim)):
        strides[d] = stride
        stride *= self.shape[d]
    size = self.shape[dim]
    picked = _cast_to(index, dtype)
    picked = S.where(S.less(picked, 0), S.add(picked, size), picked)
    picked = S.minimum(S.maximum(picked, 0), size - 1)
    flat = S.mul(picked, strides[dim]) if strides[dim] != 1 else picked
    for d in range(self.ndim):
        if d == dim:
            continue
        shape = [1] * index.ndim
        shape[d] = index.shape[d]
        coords = np.arange(index.shape[d], dtype=npd).reshape(shape) * npd(strides[d])
        coords.setflags(write=False)
        flat = S.add(flat, S.constant(coords, dtype))
    return S.take(S.reshape(self, [int(np.prod(self.shape, dtype=np.int64))]), flat, axis=0)


# --- convolution and pooling ----------------------------------------------------------------------


def _convolution(node, input, weight, bias, stride, padding, dilation, transposed,  # noqa: A002
                 output_padding, groups):
    if weight.ndim == 5:  # 3-D (aten_conv3d.py; not transposed: see unsupported)
        return convolution3d(input, weight, bias, stride, padding, dilation, groups)
    if weight.ndim == 3:  # 1-D (Whisper's audio stem): a 2-D convolution of height 1
        y = _convolution(node, S.reshape(input, [*input.shape[:2], 1, input.shape[2]]),
                         S.reshape(weight, [*weight.shape[:2], 1, weight.shape[2]]), bias,
                         [1, *stride], [0, *padding], [1, *dilation], transposed,
                         [0, *output_padding], groups)
        return S.reshape(y, strata_shape(node.meta["val"].shape))
    if transposed:
        y = S.conv_transpose2d(input, weight, stride=list(stride), padding=list(padding),
                               output_padding=list(output_padding), dilation=list(dilation),
                               groups=int(groups))
        return y if bias is None else S.add(y, _channel(bias, 4))
    y = S.conv2d(input, weight, stride=list(stride), padding=list(padding),
                 dilation=list(dilation), groups=int(groups))
    return y if bias is None else S.add(y, _channel(bias, 4))


def _pool_args(kernel_size, stride, padding):
    kernel = list(kernel_size) * (2 if len(kernel_size) == 1 else 1)
    stride = list(stride) if stride else kernel
    stride = stride * (2 if len(stride) == 1 else 1)
    padding = list(padding) * (2 if len(padding) == 1 else 1)
    return kernel, stride, padding


def _max_pool(node, self, kernel_size, stride=(), padding=(0,), dilation=(1,), ceil_mode=False):
    kernel, stride, padding = _pool_args(kernel_size, stride, padding)
    return S.max_pool2d(self, kernel, stride, padding), None


def _avg_pool(node, self, kernel_size, stride=(), padding=(0,), ceil_mode=False,
              count_include_pad=True, divisor_override=None):
    """strata.avg_pool2d divides by the window's elements inside the input (PyTorch's
    ``count_include_pad=False``); with the padding counted, the zeros are padded on first;
    ``divisor_override`` rescales the window mean to a sum over that divisor."""
    kernel, stride, padding = _pool_args(kernel_size, stride, padding)
    if count_include_pad and any(padding):
        self = I.pad(self, [(0, 0), (0, 0), (padding[0], padding[0]), (padding[1], padding[1])])
        padding = (0, 0)
    out = S.avg_pool2d(self, kernel, stride, padding)
    if divisor_override:
        out = S.mul(out, float(kernel[0] * kernel[1]) / float(divisor_override))
    return out


def _adaptive_avg_pool(node, self, output_size):
    return S.mean(self, axis=[2, 3], keepdims=True)


# --- scans, reversal, padding, scatter (frontend/index_ops.py) ------------------------------


def _cumsum(node, self, dim):
    return I.cumsum(_cast_to(self, _out_dtype(node)), axis=dim)


def _flip(node, self, dims):
    return I.flip(self, axis=list(dims)) if len(dims) else self


def _constant_pad_nd(node, self, pad, value=0):
    """``pad`` lists (before, after) pairs from the last dim backwards; negative crops."""
    widths = [(0, 0)] * self.ndim
    for i in range(len(pad) // 2):
        widths[self.ndim - 1 - i] = (int(pad[2 * i]), int(pad[2 * i + 1]))
    return I.pad(self, widths, value=float(value))


def _scatter(node, self, dim, index, src=None, value=None, reduce=None):
    if src is None:  # scatter.value: one number for every index
        src = S.broadcast_to(S.constant(np.array(_scalar(value), _np(node)), self.dtype),
                             list(index.shape))
    return I.scatter(self, index, _cast_to(src, self.dtype), axis=dim)


def _scatter_add(node, self, dim, index, src):
    return I.scatter_add(self, index, _cast_to(src, self.dtype), axis=dim)


def _index_put(node, self, indices, values, accumulate=False):
    """``self[idx] = values``; ``self[:, :, idx] = values`` (one 1-D index tensor after
    whole dims: a static KV cache's write at the cache positions) as the first-dim form
    on ``self`` with that dim moved first, and moved back."""
    values = _cast_to(values, self.dtype)
    d = len(indices) - 1
    if d == 0:
        return I.index_put(self, indices[0], values, accumulate=accumulate)
    idx = indices[d]
    target = list(self.shape[:d]) + list(idx.shape) + list(self.shape[d + 1:])
    if tuple(values.shape) != tuple(target):
        values = S.broadcast_to(values, target)
    perm = [d] + [i for i in range(self.ndim) if i != d]
    inverse = [perm.index(i) for i in range(self.ndim)]
    moved = I.index_put(S.transpose(self, perm), idx, S.transpose(values, perm),
                        accumulate=accumulate)
    return S.transpose(moved, inverse)


_INDEX_CONVERTERS = {
    "cumsum": _cumsum, "flip": _flip, "constant_pad_nd": _constant_pad_nd,
    "scatter": _scatter, "scatter_add": _scatter_add, "index_put": _index_put,
}


def _index_unsupported(name, args) -> str | None:
    """Why one of the converters above cannot take a node's arguments (None: it can)."""
    if name == "scatter" and args.get("reduce") is not None:
        return "aten.scatter: reduce= has no strata op"
    if name in ("scatter", "scatter_add"):
        index, src = args["index"].meta["val"], args.get("src")
        src = src.meta["val"] if isinstance(src, torch.fx.Node) else None
        if src is not None and any(s < k for s, k in zip(src.shape, index.shape, strict=False)):
            return f"aten.{name}: src smaller than index"
    if name == "index_put":
        indices = args["indices"]
        if not indices or indices[-1] is None or any(i is not None for i in indices[:-1]):
            return "aten.index_put: only one index tensor, after whole dims"
        if len(indices) > 1 and indices[-1].meta["val"].dim() != 1:
            return "aten.index_put: a non-first dim indexed by a tensor of rank other than 1"
        if indices[-1].meta["val"].dtype == torch.bool:
            return "aten.index_put: boolean mask indices"
    return None


# --- issue 14, part B (opsb): einsum, transposed convolution -----------------------------------


def _einsum(node, equation, tensors, path=None):
    from ..frontend.einsum import einsum

    dtype = _out_dtype(node)
    return einsum(equation, *[_cast_to(t, dtype) for t in tensors])


# name of the overload packet -> converter
CONVERTERS = {
    "add": _add, "sub": _sub, "rsub": _rsub, "mul": _binary(S.mul), "div": _div,
    "maximum": _binary(S.maximum), "minimum": _binary(S.minimum), "pow": _pow,
    "remainder": _binary(S.remainder), "floor_divide": _binary(S.floor_divide),
    "neg": _unary(S.neg), "abs": _unary(S.abs), "exp": _unary(S.exp), "log": _unary(S.log),
    "sqrt": _unary(S.sqrt), "rsqrt": _unary(S.rsqrt), "tanh": _unary(S.tanh),
    "sigmoid": _unary(S.sigmoid), "relu": _unary(S.relu), "gelu": _gelu,
    "erf": _unary(S.erf), "sin": _unary(S.sin), "cos": _unary(S.cos), "sign": _unary(S.sign),
    "floor": _rounding(S.floor), "ceil": _rounding(S.ceil), "round": _rounding(S.round),
    "reciprocal": _reciprocal, "clamp": _clamp, "clamp_min": lambda n, self, min: _clamp(
        n, self, min=min), "clamp_max": lambda n, self, max: _clamp(n, self, max=max),
    "eq": _compare(S.equal), "ne": _compare(S.not_equal), "lt": _compare(S.less),
    "le": _compare(S.less_equal), "gt": _compare(S.greater), "ge": _compare(S.greater_equal),
    "where": _where,
    "mm": _mm, "bmm": _mm, "matmul": _mm, "addmm": _addmm, "linear": _linear,
    "sum": _sum, "mean": _mean, "amax": _amax,
    "amin": _amin, "prod": _prod, "max": _max_dim, "min": _min_dim,
    "var_mean": _var_mean, "var": _var_correction, "as_strided": _as_strided,
    "argmax": _argmax, "argmin": _argmin, "_softmax": _softmax, "softmax": _softmax,
    "_log_softmax": _log_softmax,
    "native_layer_norm": _native_layer_norm,
    "_native_batch_norm_legit_no_training": _batch_norm_eval,
    "view": _view, "_unsafe_view": _view, "reshape": _view, "permute": _permute, "t": _t,
    "transpose": _transpose, "expand": _expand, "unsqueeze": _reshape_to_node,
    "squeeze": _reshape_to_node, "flatten": _reshape_to_node, "slice": _slice,
    "select": _select, "cat": _cat, "split_with_sizes": _split_with_sizes, "split": _split,
    "unbind": _unbind, "logical_not": _logical_not,
    "logical_and": _logical_and, "logical_or": _logical_or, "any": _any, "all": _all,
    "clone": _identity, "alias": _identity, "detach": _identity, "contiguous": _identity,
    "lift_fresh_copy": _identity, "_to_copy": _to_copy, "to": _to_copy,
    "native_dropout": _dropout, "dropout": lambda n, input, p, train: _dropout(
        n, input, p, train)[0],
    "full": _full, "full_like": _full_like, "scalar_tensor": _scalar_tensor,
    "embedding": _embedding, "index_select": _index_select, "index": _index,
    "gather": _gather,
    "convolution": _convolution, "max_pool2d_with_indices": _max_pool,
    "max_pool2d": lambda n, *a, **k: _max_pool(n, *a, **k)[0], "avg_pool2d": _avg_pool,
    "_adaptive_avg_pool2d": _adaptive_avg_pool, "adaptive_avg_pool2d": _adaptive_avg_pool,
    **_INDEX_CONVERTERS,
    **BITWISE_CONVERTERS,  # issue 37: aten_bitwise.py
    **SORT_CONVERTERS,  # issue 37: aten_sort.py
    **CONV3D_CONVERTERS,  # issue 37: aten_conv3d.py
    "einsum": _einsum,
}

# ops with no tensor operand whose value the importer computes once, in torch (a constant)
FOLDABLE = {"arange", "zeros", "ones", "empty", "full", "scalar_tensor", "eye", "triu",
            "tril", "iota"}


FOLD_LIMIT = 1 << 20  # elements: a larger folded value would bloat the compiled module


def is_foldable(node) -> bool:
    """A value that depends on no input of the graph: an op with no tensor operand (arange,
    ones, eye's pieces) or whose operands are all such values, deterministic and not
    in place. It is computed once, in torch, and compiled in as a constant (the pieces
    may have dtypes strata lacks, like eye's uint8 aranges; only what strata ops read is
    converted)."""
    cached = node.meta.get("strata_foldable")
    if cached is None:
        cached = node.meta["strata_foldable"] = _foldable(node)
    return cached


def _foldable(node) -> bool:
    if node.op != "call_function" or not hasattr(node.target, "_schema"):
        return False
    schema = node.target._schema
    if schema.is_mutable or torch.Tag.nondeterministic_seeded in node.target.tags:
        return False
    inputs = []
    torch.fx.node.map_arg((node.args, node.kwargs), inputs.append)
    if not inputs and _packet_name(node.target) not in FOLDABLE:
        return False  # (a factory strata does not know: left to its converter or eager)
    if not all(is_foldable(i) for i in inputs):
        return False
    vals = _vals(node)
    return all(isinstance(v, torch.Tensor) and not is_symbolic(v) and v.numel() <= FOLD_LIMIT
               for v in vals)


def folded_value(node):
    """The torch value of a foldable node, computed once (on real tensors: the backend runs
    inside Dynamo's fake-tensor mode, whose tensors hold no values)."""
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    value = node.meta.get("strata_folded")
    if value is None:
        def arg(a):
            return folded_value(a) if isinstance(a, torch.fx.Node) else a

        args = torch.fx.node.map_aggregate(node.args, arg)
        kwargs = torch.fx.node.map_aggregate(node.kwargs, arg)
        with unset_fake_temporarily():
            value = node.target(*args, **kwargs)
        node.meta["strata_folded"] = value
    return value


def fold(node):
    """The value of a foldable node, as a strata constant."""
    from torch._subclasses.fake_tensor import unset_fake_temporarily

    value = folded_value(node)
    dtype = strata_dtype(value.dtype)
    if dtype is None:
        return _Unconverted(node)
    with unset_fake_temporarily():
        array = value.to(torch.float32 if dtype in ("f16", "bf16") else value.dtype).numpy()
    if dtype == "i1":  # (a mask: strata has no bool constants, it compares i32 ones)
        return S.not_equal(S.constant(array.astype(np.int32), "i32"), 0)
    return S.constant(array, dtype)


class _Unconverted:
    """A folded value of a dtype strata lacks: only other folded values may read it."""

    def __init__(self, node):
        self.node = node


def _packet_name(target) -> str | None:
    packet = getattr(target, "overloadpacket", None)
    return getattr(packet, "__name__", None) if packet is not None else None


def _folds_to_strata(node) -> bool:
    """A foldable node's value can enter strata: its dtype is strata's, or only other
    foldable nodes read it."""
    val = node.meta.get("val")
    return strata_dtype(val.dtype) is not None or all(is_foldable(u) for u in node.users)


def _vals(node):
    val = node.meta.get("val")
    return list(val) if isinstance(val, (tuple, list)) else [val]


def unsupported(node) -> str | None:
    """Why strata cannot run this call_function node (None: it can)."""
    if node.target is operator.getitem:
        return None
    name = _packet_name(node.target)
    if name is None:
        return f"{getattr(node.target, '__name__', node.target)} is not an ATen op"
    if is_foldable(node):
        return None if _folds_to_strata(node) else (
            f"aten.{name}: folded to a constant of dtype {node.meta['val'].dtype}, which "
            "strata lacks, and read by a strata op")
    if name not in CONVERTERS:
        return f"aten.{name} has no strata op"
    for val in _vals(node):
        if val is None:
            continue
        if not isinstance(val, torch.Tensor):
            return f"aten.{name} gives a {type(val).__name__}, not a tensor"
        if strata_dtype(val.dtype) is None:
            return f"aten.{name}: dtype {val.dtype} is not supported"
    args = dict(zip((a.name for a in node.target._schema.arguments), node.args, strict=False))
    args.update(node.kwargs)
    if name == "convolution":
        w = args["weight"].meta["val"]
        if w.dim() not in (3, 4, 5):
            return f"aten.convolution: only 1-D, 2-D and 3-D convolution (weight rank {w.dim()})"
    if name in ("max_pool2d_with_indices", "max_pool2d"):
        if any(d != 1 for d in args.get("dilation", (1,)) or (1,)) or args.get("ceil_mode"):
            return f"aten.{name}: dilation or ceil_mode"
        if name == "max_pool2d_with_indices" and 1 in _used_outputs(node):
            return "aten.max_pool2d_with_indices: the indices are used"
    if name == "avg_pool2d":
        pad = args.get("padding", (0,)) or (0,)
        if args.get("ceil_mode"):
            return "aten.avg_pool2d: ceil_mode"
        if args.get("divisor_override") and any(pad) and not args.get("count_include_pad", True):
            return "aten.avg_pool2d: divisor_override with uncounted padding"
    if name in ("_adaptive_avg_pool2d", "adaptive_avg_pool2d"):
        if list(node.meta["val"].shape[2:]) != [1, 1]:
            return f"aten.{name}: output size other than 1x1"
    why = _index_unsupported(name, args) or conv3d_unsupported(name, node, args)
    if why:
        return why
    if name == "index":
        tensors = [t for t in args["indices"] if t is not None]
        if not tensors or any(t.meta["val"].dtype in (torch.bool, torch.uint8)
                              for t in tensors):
            return "aten.index: boolean mask indices (a data-dependent shape)"
    if name in ("max", "min") and not isinstance(args.get("dim"), int):
        return f"aten.{name}: only the form along one dim"
    if name in ("var_mean", "var") and any(
            d is None for d in strata_shape(args["self"].meta["val"].shape)):
        return f"aten.{name}: symbolic sizes"
    if name == "gather" and (None in strata_shape(args["self"].meta["val"].shape) or
                             None in strata_shape(args["index"].meta["val"].shape)):
        return "aten.gather: symbolic sizes"
    if name == "as_strided" and not _plain_view(args):
        return "aten.as_strided: a view other than a reshape of a contiguous tensor"
    if name == "round" and args.get("decimals"):
        return "aten.round: decimals other than 0"
    if name == "div" and args.get("rounding_mode") == "trunc":
        return "aten.div: rounding_mode='trunc'"
    if name == "_native_batch_norm_legit_no_training" and _used_outputs(node) & {1, 2}:
        return "batch norm's saved statistics are used"
    if name in ("native_dropout", "dropout") and args.get("train"):
        return f"aten.{name} in training mode"
    tensors = [v.meta.get("val") for v in _arg_nodes(args)]
    if any(is_symbolic(v) for v in tensors + _vals(node)) or symbolic_numbers(args):
        return symbolic_unsupported(name, node, args)
    return None


def _plain_view(args) -> bool:
    """as_strided(x, size, stride) that reads a contiguous x in order from its start."""
    x = args["self"].meta["val"]
    size, stride = list(args["size"]), list(args["stride"])
    if args.get("storage_offset") not in (None, 0) or not x.is_contiguous():
        return False
    if any(not isinstance(d, int) for d in size + stride) or None in strata_shape(x.shape):
        return False
    want, step = [], 1
    for d in reversed(size):
        want.append(step)
        step *= d
    count = 1
    for d in x.shape:
        count *= int(d)
    return step == count and all(s == w or d == 1 for s, w, d in
                                 zip(stride, reversed(want), size, strict=True))


def _arg_nodes(args) -> list:
    """The nodes among a node's arguments (in lists too: cat's tensors)."""
    found = []
    torch.fx.node.map_arg(list(args.values()), found.append)
    return found


def convert_node(node, env):
    """The strata value(s) of one call_function node; ``env`` maps nodes to converted values."""
    def arg(a):
        return env[a] if isinstance(a, torch.fx.Node) else a

    args = torch.fx.node.map_aggregate(node.args, arg)
    kwargs = torch.fx.node.map_aggregate(node.kwargs, arg)
    if node.target is operator.getitem:
        return args[0][args[1]]
    if is_foldable(node):
        return fold(node)
    name = _packet_name(node.target)
    schema = node.target._schema
    named = {}
    for a, v in zip(schema.arguments, args, strict=False):
        named[a.name] = v
    named.update(kwargs)
    for key in ("dtype", "layout", "device", "pin_memory", "memory_format", "non_blocking",
                "out", "generator"):
        named.pop(key, None)
    return CONVERTERS[name](node, **named)
