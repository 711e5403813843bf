"""float64 reference of a generated program, with a rounding-error bound per element.

``evaluate(program, inputs)`` runs the program's nodes one by one in float64
(int64 for i32, wrapping to 32 bits like strata; bool for comparisons) and
carries, next to each value ``v``, a bound ``e`` on ``|strata - v|``:

- every rounding to the result dtype adds ``2u|v|`` (``u`` its unit roundoff,
  strata.testing.unit_roundoff; f16/bf16 compute in f32 and round once) and
  transcendental functions a few f32 ulps more;
- errors of the operands propagate to first order (``d(a*b) = |a|eb + |b|ea``,
  ``d log a = ea/a``, ...);
- a K-term sum (reductions, matmul, conv, pools, softmax, layer_norm) adds
  ``4(1 + sqrt K)·2u_f32·Σ|terms|``, the probabilistic growth of a reordered sum.

Where the bound is not meaningful, the element is *unknown* (``e = inf``) and
not compared: a comparison whose operands are within their bounds of each
other, ``log``/``sqrt``/division whose argument may cross zero, ``exp`` of an
argument off by more than 1, a value that may or may not overflow the dtype,
a float->int cast whose truncation is ambiguous. Exact special values (a
NaN from ``log(-3)``, an inf from an overflow beyond doubt) have ``e = 0``:
strata must produce them at the same positions.
"""

from __future__ import annotations

import math

import numpy as np
from program_gen import FLOATS, NP, padding4

from strata.testing import unit_roundoff

U32 = unit_roundoff("f32")
INT_MIN, INT_MAX = -2 ** 31, 2 ** 31 - 1
INF = np.inf


def _finfo(dt):
    return np.finfo(NP[dt])


TINY = {"f32": float(_finfo("f32").smallest_normal), "bf16": float(_finfo("bf16").smallest_normal),
        "f16": float(_finfo("f16").smallest_subnormal)}
BIG = {dt: float(_finfo(dt).max) for dt in FLOATS}


def wrap(x):
    """int64 (or uint64) values as i32 two's complement, in int64."""
    x = np.asarray(x).astype(np.uint64) & np.uint64(0xFFFFFFFF)
    return (x.astype(np.int64) ^ 0x80000000) - 0x80000000


def rnd(v, dt, k=0.0):
    """One rounding of ``v`` to ``dt`` after a computation of ``k`` f32 ulps."""
    a = np.abs(v)
    return np.where(np.isfinite(a), 2 * (unit_roundoff(dt) + k * U32) * a, 0.0) + TINY[dt]


def acc(k, mag):
    """The error of a K-term sum in f32 whose terms have absolute sum ``mag``."""
    return 8.0 * (1.0 + np.sqrt(k)) * U32 * mag


def finish(v, e, dt):
    """Cleans a float node's (value, bound): overflow, NaN bounds, exact specials."""
    v = np.asarray(v, dtype=np.float64)
    e = np.broadcast_to(np.asarray(e, dtype=np.float64), v.shape).copy()
    e[np.isnan(e)] = INF
    big = BIG[dt]
    a = np.abs(v)
    fin = np.isfinite(v)
    sure = fin & (a - e > big * (1 + unit_roundoff(dt)))
    ambiguous = fin & ~sure & (a + e >= big)
    v = np.where(sure, np.sign(v) * INF, v)
    e[sure] = 0.0
    e[ambiguous] = INF
    e[~np.isfinite(v) & np.isfinite(e)] = 0.0
    return v, e


def _int(v, e):
    e = np.broadcast_to(np.asarray(e, dtype=np.float64), np.shape(v)).copy()
    e[e > 0] = INF
    return wrap(v), e


def _unknown_where(e, mask):
    e = np.array(e, dtype=np.float64, copy=True)
    e[np.broadcast_to(mask, e.shape)] = INF
    return e


# ----------------------------------------------------------------------- elementwise

def _quotient_range(a, ea, b, eb):
    """Floors of the smallest and largest ``a'/b'`` over the operands' error intervals."""
    with np.errstate(all="ignore"):
        qs = [(a + sa * ea) / (b + sb * eb) for sa in (-1, 1) for sb in (-1, 1)]
        lo, hi = np.minimum.reduce(qs), np.maximum.reduce(qs)
    return np.floor(lo), np.floor(hi)


def floor_div_mod(fn, a, ea, b, eb, dt):
    """numpy's floor_divide / remainder: exact on exact operands (numpy's own result in
    f32, which strata matches bit for bit), else defined where the floor is unambiguous."""
    f32 = np.float32
    with np.errstate(all="ignore"):
        exact = (np.floor_divide(a.astype(f32), b.astype(f32)) if fn == "floor_div" else
                 np.remainder(a.astype(f32), b.astype(f32))).astype(np.float64)
        exact = np.broadcast_to(exact, np.broadcast_shapes(a.shape, b.shape))
        q = np.floor(a / b)
        lo, hi = _quotient_range(a, ea, b, eb)
        known = (lo == hi) & (np.abs(b) > eb) & np.isfinite(q)
        if fn == "floor_div":
            v = np.where((ea == 0) & (eb == 0), exact, q)
            e = np.where(known, 0.0, INF)
        else:
            v = np.where((ea == 0) & (eb == 0), exact, a - q * b)
            e = np.where(known, ea + np.abs(q) * eb + 4 * U32 * (np.abs(a) + np.abs(q * b)),
                         INF)
        e = np.where((ea == 0) & (eb == 0), 0.0, e) + rnd(v, dt)
    return finish(v, e, dt)


def binary(fn, a, ea, b, eb, dt):
    if dt != "i32" and np.int64 in (a.dtype, b.dtype):  # true division of integers: in f32
        (a, ea), (b, eb) = (cast(np.asarray(x).astype(np.int64), ex, "i32", "f32")
                            for x, ex in ((a, ea), (b, eb)))
    if dt == "i32":
        if fn in ("floor_div", "mod"):  # numpy's, in int64, then wrapped: x // 0 = x % 0 = 0
            with np.errstate(all="ignore"):
                v = np.floor_divide(a, b) if fn == "floor_div" else np.remainder(a, b)
            return _int(v, ea + eb)
        if fn == "add":
            v = a + b
        elif fn == "sub":
            v = a - b
        elif fn == "mul":
            v = a * b
        elif fn == "maximum":
            v = np.maximum(a, b)
        elif fn == "minimum":
            v = np.minimum(a, b)
        elif fn == "pow":
            k = int(b)
            v = np.ones_like(a)
            for _ in range(k):
                v = wrap(v * a)
        else:
            raise AssertionError(fn)
        return _int(v, ea + eb)
    aa, ab = np.abs(a), np.abs(b)
    if fn in ("add", "sub"):
        v = a + b if fn == "add" else a - b
        return finish(v, ea + eb + rnd(v, dt), dt)
    if fn == "mul":
        v = a * b
        return finish(v, aa * eb + ab * ea + ea * eb + rnd(v, dt), dt)
    if fn in ("maximum", "minimum"):
        v = np.maximum(a, b) if fn == "maximum" else np.minimum(a, b)
        return finish(v, np.maximum(ea, eb), dt)
    if fn == "div":
        v = a / b
        e = (ea + np.abs(v) * eb) / (ab - eb) + rnd(v, dt)
        e = np.where(ab - eb > 0.5 * ab, e, INF)
        # division by an exact zero: inf (or NaN for 0/0) beyond doubt if a is known
        zero = (b == 0) & (eb == 0) & ((ea == 0) | (aa > ea))
        e = np.where(zero, 0.0, e)
        return finish(v, e, dt)
    if fn in ("floor_div", "mod"):
        return floor_div_mod(fn, a, ea, b, eb, dt)
    if fn == "pow":
        v = a ** b
        with np.errstate(all="ignore"):
            rel = np.abs(b) * ea / (aa - ea) + np.abs(np.log(aa)) * eb
        e = np.abs(v) * 1.5 * rel + rnd(v, dt, 4)
        exact = (ea == 0) & (eb == 0)
        integral = (eb == 0) & (b == np.round(b))
        ok = ((a > ea) & (rel < 0.5)) | ((a < -ea) & integral & (rel < 0.5))
        e = np.where(ok, e, INF)
        e = np.where(exact, rnd(v, dt, 4), e)
        e = np.where((a < -ea) & (eb == 0) & ~integral, 0.0, e)  # NaN
        return finish(v, e, dt)
    raise AssertionError(fn)


def unary(fn, a, ea, dt, approximate="none"):
    if dt == "i32":
        if fn == "neg":
            return _int(-a, ea)
        if fn == "abs":
            return _int(np.abs(a), ea)
        if fn == "relu":
            return _int(np.maximum(a, 0), ea)
        raise AssertionError(fn)
    aa = np.abs(a)
    if fn == "neg":
        return finish(-a, ea, dt)
    if fn == "abs":
        return finish(aa, ea, dt)
    if fn == "relu":
        return finish(np.maximum(a, 0.0), ea, dt)
    if fn == "exp":
        v = np.exp(a)
        e = np.where(ea < 1, np.abs(v) * np.expm1(ea) + rnd(v, dt, 4), INF)
        return finish(v, e, dt)
    if fn == "log":
        v = np.log(a)
        e = -np.log1p(-ea / np.where(a > ea, a, 1.0)) + rnd(v, dt, 2) + 2 * U32
        e = np.where(a > ea, e, INF)
        e = np.where((ea == 0) & (a <= 0), 0.0, e)  # log(0) = -inf, log(-x) = NaN
        e = np.where(a < -ea, 0.0, e)
        return finish(v, e, dt)
    if fn == "sqrt":
        v = np.sqrt(a)
        e = np.sqrt(np.maximum(a, 0)) - np.sqrt(np.maximum(a - ea, 0)) + rnd(v, dt, 1)
        e = np.where((a > ea) | ((ea == 0) & (a >= 0)), e, INF)
        e = np.where(a < -ea, 0.0, e)
        return finish(v, e, dt)
    if fn == "rsqrt":
        v = 1.0 / np.sqrt(a)
        ratio = ea / np.where(a > ea, a, 1.0)
        e = np.abs(v) * ((1 - ratio) ** -0.5 - 1) + rnd(v, dt, 2)
        e = np.where(a > ea, e, INF)
        e = np.where((ea == 0) & (a <= 0), 0.0, e)
        e = np.where(a < -ea, 0.0, e)
        return finish(v, e, dt)
    if fn == "tanh":
        v = np.tanh(a)
        return finish(v, np.minimum(ea, 2.0) + rnd(v, dt, 4) + 4 * U32 * np.minimum(aa, 1), dt)
    if fn == "sigmoid":
        v = 1.0 / (1.0 + np.exp(-a))
        return finish(v, ea / 4 + rnd(v, dt, 8), dt)
    if fn == "gelu":
        if approximate == "tanh":
            inner = math.sqrt(2 / math.pi) * (a + 0.044715 * a ** 3)
            v = 0.5 * a * (1 + np.tanh(inner))
        else:
            v = 0.5 * a * (1 + _erf(a / math.sqrt(2)))
        # 1 + erf(x) cancels for x << 0: an absolute error of a few f32 ulps times |x|
        e = 1.2 * ea + rnd(v, dt, 4) + 8 * U32 * np.where(np.isfinite(aa), aa, 0)
        return finish(v, e, dt)
    raise AssertionError(fn)


_erf = np.vectorize(math.erf, otypes=[np.float64])


def compare(pred, a, ea, b, eb):
    with np.errstate(invalid="ignore"):
        v = {"lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b, "eq": a == b,
             "ne": a != b}[pred]
        close = np.abs(a - b) <= ea + eb
    e = np.where(close & (ea + eb > 0), INF, 0.0)
    e = np.where(np.isfinite(ea + eb), e, INF)
    return v, np.broadcast_to(e, v.shape)


def cast(a, ea, src, to):
    if src == to:
        return a, ea
    if src == "i1":  # a mask: 1 and 0
        e = np.where(ea > 0, INF, 0.0)
        return (a.astype(np.int64), e) if to == "i32" else (a.astype(np.float64), e)
    if to == "i32":
        if src == "i32":
            return a, ea
        a = np.asarray(a, np.float64)
        with np.errstate(invalid="ignore"):
            lo, hi = np.trunc(a - ea), np.trunc(a + ea)
            t = np.clip(np.nan_to_num(np.trunc(a), nan=0.0, posinf=INT_MAX, neginf=INT_MIN),
                        INT_MIN, INT_MAX)
        e = np.where((lo == hi) | (np.isnan(a) & (ea == 0)) | (np.isinf(a) & (ea == 0)), 0.0,
                     INF)
        # saturation: both ends beyond the range give the same value
        e = np.where(((a - ea) > INT_MAX) | ((a + ea) < INT_MIN), 0.0, e)
        return t.astype(np.int64), e
    if src == "i32":
        v = a.astype(np.float64)
        return finish(v, np.where(ea > 0, INF, rnd(v, to)), to)
    return finish(a, ea + rnd(a, to), to)


# ----------------------------------------------------------------------- reductions

def reduce(fn, a, ea, axis, keepdims, dt):
    axes = tuple(range(a.ndim)) if axis is None else (
        tuple(x % a.ndim for x in axis) if isinstance(axis, tuple) else (axis % a.ndim,))
    k = math.prod(a.shape[i] for i in axes)
    if dt == "i32":
        if fn == "sum":
            v = np.sum(a.astype(np.uint64), axis=axes, keepdims=keepdims)
            e = np.sum(ea, axis=axes, keepdims=keepdims)
        else:
            v = np.max(a, axis=axes, keepdims=keepdims, initial=INT_MIN)
            e = np.max(ea, axis=axes, keepdims=keepdims, initial=0.0)
        return _int(v, e)
    if fn == "max":
        v = np.max(a, axis=axes, keepdims=keepdims, initial=-INF)
        return finish(v, np.max(ea, axis=axes, keepdims=keepdims, initial=0.0), dt)
    v = np.sum(a, axis=axes, keepdims=keepdims)
    mag = np.sum(np.abs(a), axis=axes, keepdims=keepdims)
    e = np.sum(ea, axis=axes, keepdims=keepdims) + acc(k, mag)
    if fn == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            v = v / k
            e = e / k
        return finish(v, e + rnd(v, dt, 1), dt)
    return finish(v, e + rnd(v, dt), dt)


def matmul(a, ea, b, eb, dt):
    if dt == "i32":
        v = np.matmul(a.astype(np.uint64), b.astype(np.uint64))
        return _int(v, np.matmul(ea, np.ones(b.shape)) + np.matmul(np.ones(a.shape), eb))
    k = a.shape[-1]
    with np.errstate(all="ignore"):
        v = np.matmul(a, b)
        aa, ab = np.abs(a), np.abs(b)
        mag = np.matmul(aa, ab)
        e = np.matmul(aa, eb) + np.matmul(ea, ab) + np.matmul(ea, eb)
    return finish(v, e + acc(k, mag) + rnd(v, dt), dt)


def softmax(a, ea, axis, dt):
    ax = axis % a.ndim
    k = a.shape[ax]
    with np.errstate(all="ignore"):
        m = np.max(a, axis=ax, keepdims=True, initial=-INF) if k else 0.0
        x = np.exp(a - m)
        s = x / np.sum(x, axis=ax, keepdims=True)
        worst = np.max(ea, axis=ax, keepdims=True, initial=0.0)
        e = 1.5 * s * (ea + np.sum(s * ea, axis=ax, keepdims=True))
        e = e + s * (16 * U32 + acc(k, 1.0)) + rnd(s, dt)
    e = np.where(worst < 0.5, e, INF)
    return finish(s, e, dt)


def layer_norm(x, ex, scale, es, bias, eb, axis, eps, dt):
    ax = axis % x.ndim
    axes = tuple(range(ax, x.ndim))
    n = math.prod(x.shape[ax:])
    with np.errstate(all="ignore"):
        mu = np.mean(x, axis=axes, keepdims=True)
        d = x - mu
        var = np.mean(d * d, axis=axes, keepdims=True)
        r = 1.0 / np.sqrt(var + eps)
        xhat = d * r
        y = xhat * scale + bias
        # errors: inputs, then the shifted one-pass moments of reduction.py in f32
        emu = np.mean(ex, axis=axes, keepdims=True)
        evar = np.mean((np.abs(d) + ex + emu) ** 2 - d * d, axis=axes, keepdims=True)
        x0 = x[(slice(None),) * ax + (slice(0, 1),) * (x.ndim - ax)]
        s = x - x0
        m1 = np.mean(s, axis=axes, keepdims=True)
        m2 = np.mean(s * s, axis=axes, keepdims=True)
        evar = evar + acc(n, m2 + m1 * m1) + 4 * U32 * (m2 + m1 * m1)
        rel_r = 0.75 * evar / (var + eps) + 4 * U32
        ed = ex + emu + acc(n, np.mean(np.abs(s), axis=axes, keepdims=True)) + \
            4 * U32 * (np.abs(s) + np.abs(m1))
        exhat = ed * r + np.abs(xhat) * rel_r
        ey = exhat * np.abs(scale) + np.abs(xhat) * es + eb + \
            4 * U32 * (np.abs(xhat * scale) + np.abs(bias)) + rnd(y, dt)
        ok = evar < 0.25 * (var + eps)
    ey = np.where(ok, ey, INF)
    return finish(y, ey, dt)


# ----------------------------------------------------------------------- conv / pool

def _conv_nchw(x, w, stride, pad, dil, zero):
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    t, b, l, r = pad
    xp = np.full((n, c, h + t + b, wd + l + r), zero, dtype=x.dtype)
    xp[:, :, t:t + h, l:l + wd] = x
    (sh, sw), (dh, dw) = stride, dil
    oh = (h + t + b - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + l + r - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, f, oh, ow), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i * dh: i * dh + sh * (oh - 1) + 1: sh,
                       j * dw: j * dw + sw * (ow - 1) + 1: sw]
            out = out + np.einsum("nchw,fc->nfhw", patch, w[:, :, i, j])
    return out


def conv2d(x, ex, w, ew, attrs, dt):
    stride = attrs["stride"]
    stride = (stride, stride) if isinstance(stride, int) else tuple(stride)
    dil = attrs["dilation"]
    dil = (dil, dil) if isinstance(dil, int) else tuple(dil)
    pad = padding4(attrs["padding"])
    nhwc = attrs["layout"] == "NHWC"
    if nhwc:
        x, ex = x.transpose(0, 3, 1, 2), np.asarray(ex).transpose(0, 3, 1, 2)
        w, ew = w.transpose(3, 2, 0, 1), np.asarray(ew).transpose(3, 2, 0, 1)
    ex = np.broadcast_to(ex, x.shape)
    ew = np.broadcast_to(ew, w.shape)
    k = w.shape[1] * w.shape[2] * w.shape[3]
    if dt == "i32":
        v = _conv_nchw(x.astype(np.uint64), w.astype(np.uint64), stride, pad, dil, 0)
        e = _conv_nchw(ex, np.ones(w.shape), stride, pad, dil, 0.0) + \
            _conv_nchw(np.ones(x.shape), ew, stride, pad, dil, 0.0)
        v, e = _int(v, e)
    else:
        with np.errstate(all="ignore"):
            v = _conv_nchw(x, w, stride, pad, dil, 0.0)
            ax, aw = np.abs(x), np.abs(w)
            mag = _conv_nchw(ax, aw, stride, pad, dil, 0.0)
            e = _conv_nchw(ex, aw, stride, pad, dil, 0.0) + \
                _conv_nchw(ax, ew, stride, pad, dil, 0.0) + \
                _conv_nchw(ex, ew, stride, pad, dil, 0.0)
        v, e = finish(v, e + acc(k, mag) + rnd(v, dt), dt)
    if nhwc:
        v, e = v.transpose(0, 2, 3, 1), e.transpose(0, 2, 3, 1)
    return v, e


def _windows(x, kernel, stride, pad, fill):
    n, c, h, w = x.shape
    t, b, l, r = pad
    xp = np.full((n, c, h + t + b, w + l + r), fill, dtype=x.dtype)
    xp[:, :, t:t + h, l:l + w] = x
    win = np.lib.stride_tricks.sliding_window_view(xp, kernel, axis=(2, 3))
    return win[:, :, ::stride[0], ::stride[1]]


def pool(x, ex, attrs, dt):
    kernel = attrs["kernel"]
    kernel = (kernel, kernel) if isinstance(kernel, int) else tuple(kernel)
    stride = attrs["stride"]
    stride = kernel if stride is None else ((stride, stride) if isinstance(stride, int)
                                            else tuple(stride))
    pad = padding4(attrs["padding"])
    nhwc = attrs["layout"] == "NHWC"
    ex = np.broadcast_to(ex, x.shape)
    if nhwc:
        x, ex = x.transpose(0, 3, 1, 2), ex.transpose(0, 3, 1, 2)
    ewin = _windows(np.asarray(ex, np.float64), kernel, stride, pad, 0.0)
    if attrs["fn"] == "max_pool2d":
        fill = INT_MIN if dt == "i32" else -INF
        v = _windows(x, kernel, stride, pad, fill).max(axis=(-2, -1))
        e = ewin.max(axis=(-2, -1))
        v, e = _int(v, e) if dt == "i32" else finish(v, e, dt)
    else:
        with np.errstate(all="ignore"):
            s = _windows(x, kernel, stride, pad, 0.0).sum(axis=(-2, -1))
            mag = _windows(np.abs(x), kernel, stride, pad, 0.0).sum(axis=(-2, -1))
            ones = np.ones(x.shape[2:])[None, None]
            cnt = _windows(ones, kernel, stride, pad, 0.0).sum(axis=(-2, -1))
            v = s / cnt
            e = (ewin.sum(axis=(-2, -1)) + acc(kernel[0] * kernel[1], mag)) / cnt
        v, e = finish(v, e + rnd(v, dt, 1), dt)
    if nhwc:
        v, e = v.transpose(0, 2, 3, 1), e.transpose(0, 2, 3, 1)
    return v, e


# ----------------------------------------------------------------------- the program

def _as_ref(array, dtype):
    if dtype == "i32":
        return np.asarray(array).astype(np.int64)
    if dtype == "i1":
        return np.asarray(array).astype(bool)
    return np.asarray(array).astype(np.float64)


def evaluate(prog, inputs, simulate=False) -> dict:
    """``{name: (value, bound)}`` for every node of ``prog`` on ``inputs``.

    ``simulate``: compute float ops in float32 (numpy's order) and round each result
    to its dtype instead (a stand-in for strata, to test the bounds themselves).
    """
    env = {}
    arrays = iter(inputs)
    with np.errstate(all="ignore"):
        for n in prog.nodes:
            v, e = _node(n, env, arrays)
            if simulate and n.dtype in FLOATS:
                v = np.asarray(v).astype(NP[n.dtype]).astype(np.float32)
            env[n.name] = v, e
            assert v.shape == n.shape, (n, v.shape)
    return env


def _node(n, env, arrays):
    at = n.attrs
    vals = [env[a] for a in n.args]
    dt = n.dtype
    if n.op == "input":
        v = _as_ref(next(arrays), dt)
        return v, np.zeros(v.shape)
    if n.op == "const":
        v = _as_ref(np.asarray(at["values"]).astype(NP[dt]), dt)
        return v, np.zeros(v.shape)
    if n.op == "binary":
        if "scalar" in at:  # a Python scalar takes the tensor's dtype
            s = (np.asarray(int(at["scalar"]), np.int64) if vals[0][0].dtype == np.int64
                 else np.asarray(float(at["scalar"])), np.zeros(()))
            (a, ea), (b, eb) = (vals[0], s) if at["side"] == "r" else (s, vals[0])
        else:
            (a, ea), (b, eb) = vals
        if dt == "i32" and at["fn"] == "pow":
            return binary("pow", a, ea, int(at["scalar"]), eb, dt)
        return binary(at["fn"], a, ea, b, eb, dt)
    if n.op == "unary":
        (a, ea), = vals
        return unary(at["fn"], a, ea, dt, at.get("approximate", "none"))
    if n.op == "compare":
        (a, ea) = vals[0]
        if "scalar" in at:
            b, eb = np.asarray(float(at["scalar"])), np.zeros(())
        else:
            b, eb = vals[1]
        return compare(at["pred"], a, ea, b, eb)
    if n.op == "where":
        (c, ec) = vals[0]
        rest = list(vals[1:])
        def scalar(k):
            return np.asarray(float(at[k]) if dt in FLOATS else int(at[k])), np.zeros(())

        t = scalar("true_scalar") if "true_scalar" in at else rest.pop(0)
        f = scalar("false_scalar") if "false_scalar" in at else rest.pop(0)
        v = np.where(c, t[0], f[0])
        e = np.where(c, t[1], f[1])
        e = np.where(np.isfinite(ec), e, INF)
        e = np.broadcast_to(e, v.shape)
        return (_int(v, e) if dt == "i32" else finish(v, e, dt))
    if n.op == "matmul":
        (a, ea), (b, eb) = vals
        return matmul(a, np.broadcast_to(ea, a.shape), b, np.broadcast_to(eb, b.shape), dt)
    if n.op == "reduce":
        (a, ea), = vals
        return reduce(at["fn"], a, np.broadcast_to(ea, a.shape), at["axis"], at["keepdims"], dt)
    if n.op == "softmax":
        (a, ea), = vals
        return softmax(a, np.broadcast_to(ea, a.shape), at["axis"], dt)
    if n.op == "layer_norm":
        (x, ex) = vals[0]
        rest = list(vals[1:])
        one = (np.ones(()), np.zeros(()))
        zero = (np.zeros(()), np.zeros(()))
        s = rest.pop(0) if at["scale"] else one
        b = rest.pop(0) if at["bias"] else zero
        return layer_norm(x, np.broadcast_to(ex, x.shape), s[0], s[1], b[0], b[1], at["axis"],
                          at["eps"], dt)
    if n.op in ("reshape", "transpose", "broadcast_to", "slice", "getitem"):
        (a, ea), = vals
        ea = np.broadcast_to(ea, a.shape)
        return _move(n.op, at, a), _move(n.op, at, ea)
    if n.op == "concat":
        axis = at["axis"]
        v = np.concatenate([x[0] for x in vals], axis=axis)
        e = np.concatenate([np.broadcast_to(x[1], x[0].shape) for x in vals], axis=axis)
        return v, e
    if n.op == "conv2d":
        (x, ex), (w, ew) = vals
        return conv2d(x, ex, w, ew, at, dt)
    if n.op == "pool":
        (x, ex), = vals
        return pool(x, ex, at, dt)
    if n.op == "cast":
        (a, ea), = vals
        return cast(a, np.broadcast_to(ea, a.shape), _src_dtype(a), at["to"])
    raise AssertionError(n.op)


def _move(op, at, z):
    """A shape op's data movement, on values or on bounds alike (numpy's semantics)."""
    if op == "reshape":
        return z.reshape(at["target"])
    if op == "transpose":
        return np.transpose(z, at["perm"])
    if op == "broadcast_to":
        return np.broadcast_to(z, at["shape"])
    if op == "slice":
        return z[tuple(slice(lo, hi, s) for lo, hi, s in
                       zip(at["starts"], at["limits"], at["steps"], strict=True))]
    return z[at["index"]]


def _src_dtype(a):
    return {np.dtype(np.int64): "i32", np.dtype(bool): "i1"}.get(a.dtype, "float")
