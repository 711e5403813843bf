"""The rows of ``bench/suite.py``: each program as strata, numpy, PyTorch and JAX write it.

A row names the work, builds its inputs from a seed, and gives the program once
per system (``None`` where a system has no way to write it). The deployment peers
reuse them: JAX (XLA) and IREE run the row's ``jax`` function, ONNX Runtime and
OpenVINO its ``torch`` function exported to ONNX. The report holds strata against
the best f32 peer measured (issue 38's goal table): ``best_goal`` (1.0, and 1.2 on
the ``fused`` rows: MLP, attention, softmax, chain). ``peer`` and ``goal`` are the
older comparison (issues 12/13: one named peer), kept with the row. ``deploy``
marks the rows issue 38 names (``suite.py --deploy``). ``limit`` names the
machine limit the row is also measured against (``fma``: GFLOP/s against the FMA
peak; ``copy``: GB/s against the copy bandwidth) with ``limit_goal`` the fraction
aimed at. ``variants`` are extra strata configurations reported as their own
systems (``strata gen``: the generated kernels alone, no BLAS call).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Row", "rows", "by_name"]


@dataclass
class Row:
    name: str
    group: str
    shapes: list[tuple[int, ...]]
    strata: Callable
    numpy: Callable | None = None
    torch: Callable | None = None          # takes torch tensors (from ``torch_args``)
    # torch tensors in the row's (strata's) layout -> the torch function's arguments (layout
    # views); None = as is. Inside the exported ONNX graph too, so ORT / OpenVINO take the
    # same memory layout as strata
    torch_in: Callable | None = None
    torch_out: Callable | None = None      # torch result -> the layout strata returns
    jax: Callable | None = None            # takes jax arrays (jax.numpy / jax.nn / jax.lax)
    torch_compile: bool = False            # also time torch.compile(torch)
    flops: float = 0.0
    bytes: float = 0.0                     # bytes a streaming kernel must read + write
    peer: str = "numpy"                    # numpy | torch | torch.compile
    goal: float = 1.0                      # strata speed / peer speed aimed at
    limit: str | None = None               # fma | copy
    limit_goal: float | None = None
    threads: tuple[int, ...] = (2,)        # strata / peer thread counts measured
    variants: dict = field(default_factory=dict)  # label -> strata.jit keyword arguments
    # per argument, default float32; "int32": indices into the first argument's first dim
    dtypes: tuple[str, ...] | None = None
    scale: tuple[float, ...] | None = None  # per argument multiplier of the N(0, 1) inputs
    quick: bool = False                    # part of ``--quick``
    fused: bool = False                    # a fused row: the goal vs the best peer is 1.2
    deploy: bool = False                   # one of issue 38's rows (``suite.py --deploy``)

    @property
    def best_goal(self) -> float:
        """strata's speed over the best f32 peer's aimed at (issue 38)."""
        return 1.2 if self.fused else 1.0

    def inputs(self, seed: int = 0) -> list[np.ndarray]:
        g = np.random.default_rng(seed)
        out = []
        for i, s in enumerate(self.shapes):
            if self.dtypes is not None and self.dtypes[i] == "int32":
                out.append(g.integers(0, self.shapes[0][0], s).astype(np.int32))
                continue
            a = g.standard_normal(s, dtype=np.float32)
            if self.scale is not None:
                a *= np.float32(self.scale[i])
            out.append(a)
        return out


def _strata():
    import strata

    return strata


def _t():
    import torch

    return torch


def _f():
    import torch.nn.functional as F

    return F


def _jnp():
    import jax.numpy as jnp

    return jnp


def _jax():
    import jax

    return jax


# ---- matmul -------------------------------------------------------------------------------

def _matmul_row(m, n, k, *, odd=False, quick=False, batch=None, deploy=False):
    shapes = [(m, k), (k, n)] if batch is None else [(batch, m, k), (batch, k, n)]
    label = f"{m}x{n}x{k}" if batch is None else f"{batch}x{m}x{n}x{k}"
    return Row(
        name=("matmul " if batch is None else "batch matmul ") + label,
        group="matmul", shapes=shapes,
        strata=lambda a, b: a @ b, numpy=lambda a, b: a @ b,
        torch=lambda a, b: a @ b, jax=lambda a, b: a @ b,
        flops=2.0 * (batch or 1) * m * n * k, peer="numpy", goal=0.8 if odd else 0.9,
        limit="fma", threads=(1, 2), variants={"strata gen": {"blas": "never"}}, quick=quick,
        deploy=deploy, torch_compile=deploy)


# ---- decode: one token against a weight or a KV cache (bandwidth-bound) -----------------

def _decode_matvec_row(k=4096, n=4096):
    """``x @ w`` for one token: the whole weight read once, 2 flops per 4 bytes."""
    return Row(
        name=f"decode x@w 1x{n}x{k}", group="decode", shapes=[(1, k), (k, n)],
        strata=lambda x, w: x @ w, numpy=lambda x, w: x @ w, torch=lambda x, w: x @ w,
        jax=lambda x, w: x @ w, flops=2.0 * k * n, bytes=4.0 * (k * n + k + n),
        peer="numpy", goal=1.0, limit="copy", limit_goal=0.9, threads=(1, 2),
        torch_compile=True, deploy=True)


def _decode_attention_row(heads=32, keys=4096, dim=128):
    """One query per head against a KV cache of ``keys`` tokens: K and V read once."""
    return _attention_row(heads, 1, dim, keys=keys)


# ---- conv2d -------------------------------------------------------------------------------

def _conv_row(n, c, hw, f, k, stride, layout="NCHW", relu=True, quick=False, groups=1,
              bias=False, deploy=False):
    pad = k // 2
    oh = (hw + 2 * pad - k) // stride + 1
    cg = c // groups  # input channels each filter sees
    if layout == "NCHW":
        shapes = [(n, c, hw, hw), (f, cg, k, k)]
    else:
        shapes = [(n, hw, hw, c), (k, k, cg, f)]
    if bias:
        shapes.append((f,))

    def strata_fn(x, w, b=None):
        s = _strata()
        y = s.conv2d(x, w, stride=stride, padding=pad, layout=layout, groups=groups)
        if b is not None:
            y = y + (s.reshape(b, (b.shape[0], 1, 1)) if layout == "NCHW" else b)
        return s.relu(y) if relu else y

    def torch_in(x, w, *b):
        if layout == "NCHW":
            return [x, w, *b]
        # the same memory seen as NCHW / FCHW tensors in channels_last strides
        return [x.permute(0, 3, 1, 2), w.permute(3, 2, 0, 1), *b]

    def torch_fn(x, w, b=None):
        y = _f().conv2d(x, w, b, stride=stride, padding=pad, groups=groups)
        return _t().relu(y) if relu else y

    def jax_fn(x, w, b=None):
        dims = ("NCHW", "OIHW", "NCHW") if layout == "NCHW" else ("NHWC", "HWIO", "NHWC")
        y = _jax().lax.conv_general_dilated(x, w, (stride, stride), [(pad, pad)] * 2,
                                            dimension_numbers=dims, feature_group_count=groups)
        if b is not None:
            y = y + (b[:, None, None] if layout == "NCHW" else b)
        return _jnp().maximum(y, 0) if relu else y

    kind = "" if groups == 1 else ("depthwise " if groups == c == f else f"groups={groups} ")
    return Row(
        name=f"conv2d {kind}{k}x{k}/{stride} {n}x{c}x{hw}x{hw}->{f} {layout}" + (" +bias" * bias)
        + (" +relu" * relu),
        group="conv2d", shapes=shapes, strata=strata_fn, torch=torch_fn,
        torch_in=None if layout == "NCHW" else torch_in,
        torch_out=None if layout == "NCHW" else (lambda y: y.permute(0, 2, 3, 1)), jax=jax_fn,
        flops=2.0 * n * f * oh * oh * cg * k * k, peer="torch", goal=0.8, limit="fma",
        scale=(1.0, 1.0 / math.sqrt(cg * k * k), 1.0)[:len(shapes)], quick=quick,
        deploy=deploy, torch_compile=deploy)


# ---- attention ----------------------------------------------------------------------------

def _attention_row(heads, seq, dim, quick=False, deploy=False, keys=None):
    """``softmax(q @ k.T * scale) @ v`` per head; ``keys``: a decode step's KV cache
    length (``seq`` queries against it, a bandwidth-bound row), else ``seq``."""
    scale = 1.0 / math.sqrt(dim)

    def strata_fn(q, k, v):
        s = _strata()
        return s.softmax((q @ s.transpose(k, [0, 2, 1])) * scale) @ v

    def numpy_fn(q, k, v):
        s = (q @ k.transpose(0, 2, 1)) * np.float32(scale)
        e = np.exp(s - s.max(-1, keepdims=True))
        return (e / e.sum(-1, keepdims=True)) @ v

    def torch_fn(q, k, v):
        return _t().softmax((q @ k.transpose(1, 2)) * scale, -1) @ v

    def jax_fn(q, k, v):
        return _jax().nn.softmax((q @ k.transpose(0, 2, 1)) * scale, axis=-1) @ v

    if keys is not None:
        return Row(
            name=f"decode attention {heads}x{seq}x{keys}x{dim}", group="decode",
            shapes=[(heads, seq, dim), (heads, keys, dim), (heads, keys, dim)],
            strata=strata_fn, numpy=numpy_fn, torch=torch_fn, jax=jax_fn,
            flops=4.0 * heads * seq * keys * dim,
            bytes=4.0 * heads * (2 * keys * dim + 2 * seq * dim), peer="torch", goal=1.0,
            limit="copy", limit_goal=0.9, threads=(1, 2), torch_compile=True, deploy=True)
    return Row(
        name=f"attention {heads}x{seq}x{dim}", group="attention",
        shapes=[(heads, seq, dim)] * 3, strata=strata_fn, numpy=numpy_fn, torch=torch_fn,
        jax=jax_fn, torch_compile=True, flops=4.0 * heads * seq * seq * dim,
        peer="torch.compile", goal=1.3, quick=quick, fused=True, deploy=deploy)


# ---- rows: softmax and norms ---------------------------------------------------------------

def _row_kernels(n):
    def softmax(x):
        return _strata().softmax(x)

    def softmax_np(x):
        e = np.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    def log_softmax(x):
        s = _strata()
        m = s.max(x, axis=-1, keepdims=True)
        return x - m - s.log(s.sum(s.exp(x - m), axis=-1, keepdims=True))

    def log_softmax_np(x):
        m = x.max(-1, keepdims=True)
        return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))

    def layer_norm(x, g, b):
        return _strata().layer_norm(x, g, b)

    def layer_norm_np(x, g, b):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + np.float32(1e-5)) * g + b

    def rms_norm(x, g):
        s = _strata()
        return x * s.rsqrt(s.mean(x * x, axis=-1, keepdims=True) + 1e-6) * g

    def rms_norm_np(x, g):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + np.float32(1e-6)) * g

    def layer_norm_jax(x, g, b):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) * _jax().lax.rsqrt(var + 1e-5) * g + b

    def rms_norm_jax(x, g):
        return x * _jax().lax.rsqrt((x * x).mean(-1, keepdims=True) + 1e-6) * g

    common = dict(group="rows", peer="torch.compile", goal=2.0, limit="copy", limit_goal=0.6,
                  torch_compile=True, bytes=2.0 * 4 * n * n)
    return [
        Row(name=f"softmax {n}x{n}", shapes=[(n, n)], strata=softmax, numpy=softmax_np,
            torch=lambda x: _t().softmax(x, -1), jax=lambda x: _jax().nn.softmax(x, axis=-1),
            quick=True, fused=True, deploy=True, **common),
        Row(name=f"log_softmax {n}x{n}", shapes=[(n, n)], strata=log_softmax,
            numpy=log_softmax_np, torch=lambda x: _t().log_softmax(x, -1),
            jax=lambda x: _jax().nn.log_softmax(x, axis=-1), fused=True, **common),
        Row(name=f"layer_norm {n}x{n}", shapes=[(n, n), (n,), (n,)], strata=layer_norm,
            numpy=layer_norm_np,
            torch=lambda x, g, b: _f().layer_norm(x, (x.shape[-1],), g, b, 1e-5),
            jax=layer_norm_jax, deploy=True, **common),
        Row(name=f"rms_norm {n}x{n}", shapes=[(n, n), (n,)], strata=rms_norm,
            numpy=rms_norm_np, torch=lambda x, g: _f().rms_norm(x, (x.shape[-1],), g, 1e-6),
            jax=rms_norm_jax, **common),
    ]


# ---- numpy-API ops that once fell off the fast paths ---------------------------------------

def _api_rows():
    """Ops a numpy user writes whose lowering used to leave them as scalar loops (a
    broadcast or rank-4 matmul as a contraction generic, a last-axis argmax, a matrix-
    vector product, a gather, a reduction over H and W, a reversed leading axis):
    strata against numpy (and torch eager), 2 threads."""
    def api(name, shapes, strata_fn, numpy_fn, torch_fn=None, flops=0.0, nbytes=0.0,
            jax_fn=None, **kw):
        limit = "fma" if flops else "copy"
        return Row(name=name, group="numpy API", shapes=shapes, strata=strata_fn,
                   numpy=numpy_fn, torch=torch_fn, jax=jax_fn, flops=flops, bytes=nbytes,
                   peer="numpy", goal=1.0, limit=limit, **kw)

    def matmul(a, b):
        return a @ b

    def take(x, i):
        return _strata().take(x, i, axis=0)

    return [
        api("matmul broadcast [64,576] @ [8,576,1024]", [(64, 576), (8, 576, 1024)],
            matmul, matmul, matmul, flops=2.0 * 8 * 64 * 576 * 1024, jax_fn=matmul),
        api("matmul heads [4,8,256,64] @ [4,8,64,256]", [(4, 8, 256, 64), (4, 8, 64, 256)],
            matmul, matmul, matmul, flops=2.0 * 32 * 256 * 64 * 256, jax_fn=matmul),
        api("matrix-vector 4096x4096 @ 4096", [(4096, 4096), (4096,)],
            matmul, matmul, matmul, nbytes=4.0 * 4096 * 4097, jax_fn=matmul),
        api("one row @ w.T 1x1024 @ (4096x1024).T (a linear layer, one token)",
            [(1, 1024), (4096, 1024)], lambda x, w: x @ w.T, lambda x, w: x @ w.T,
            lambda x, w: x @ w.T, nbytes=4.0 * 4096 * 1025, jax_fn=lambda x, w: x @ w.T),
        api("argmax last axis 4096x1024", [(4096, 1024)],
            lambda x: _strata().argmax(x, axis=-1), lambda x: x.argmax(-1),
            lambda x: x.argmax(-1), nbytes=4.0 * 4096 * 1025,
            jax_fn=lambda x: _jnp().argmax(x, axis=-1)),
        api("take 4096 rows of 32000x1024 (embedding)", [(32000, 1024), (4096,)], take,
            lambda x, i: np.take(x, i, axis=0), lambda x, i: x[i.long()],
            nbytes=2.0 * 4 * 4096 * 1024, dtypes=("float32", "int32"),
            jax_fn=lambda x, i: _jnp().take(x, i, axis=0)),
        api("mean over H, W 16x256x28x28 (global average pool)", [(16, 256, 28, 28)],
            lambda x: _strata().mean(x, axis=(2, 3)), lambda x: x.mean(axis=(2, 3)),
            lambda x: x.mean((2, 3)), nbytes=4.0 * 16 * 256 * 28 * 28,
            jax_fn=lambda x: x.mean(axis=(2, 3))),
        api("flip rows 4096x1024", [(4096, 1024)], lambda x: _strata().flip(x, axis=0),
            lambda x: np.ascontiguousarray(x[::-1]), lambda x: x.flip(0),
            nbytes=2.0 * 4 * 4096 * 1024, jax_fn=lambda x: _jnp().flip(x, axis=0)),
    ]


# ---- elementwise ---------------------------------------------------------------------------

def _chain_row(n):
    def strata_fn(x, w, b):
        s = _strata()
        return s.tanh(s.relu(x * w + b) * 0.5 + 0.1) * 2.0

    def numpy_fn(x, w, b):
        return np.tanh(np.maximum(x * w + b, np.float32(0)) * np.float32(0.5)
                       + np.float32(0.1)) * np.float32(2)

    def torch_fn(x, w, b):
        t = _t()
        return t.tanh(t.relu(x * w + b) * 0.5 + 0.1) * 2.0

    def jax_fn(x, w, b):
        jnp = _jnp()
        return jnp.tanh(jnp.maximum(x * w + b, 0) * 0.5 + 0.1) * 2.0

    return Row(name=f"chain tanh(relu(x*w+b)*.5+.1)*2 {n}x{n}", group="elementwise",
               shapes=[(n, n), (n,), (n,)], strata=strata_fn, numpy=numpy_fn, torch=torch_fn,
               jax=jax_fn, torch_compile=True, bytes=2.0 * 4 * n * n, peer="torch.compile",
               goal=1.0, limit="copy", limit_goal=0.7, quick=True, fused=True, deploy=True)


# ---- models --------------------------------------------------------------------------------

def _mlp_row():
    def strata_fn(x, w1, b1, w2):
        s = _strata()
        return s.relu(x @ w1 + b1) @ w2

    def numpy_fn(x, w1, b1, w2):
        return np.maximum(x @ w1 + b1, np.float32(0)) @ w2

    def torch_fn(x, w1, b1, w2):
        return _t().relu(x @ w1 + b1) @ w2

    def jax_fn(x, w1, b1, w2):
        return _jax().nn.relu(x @ w1 + b1) @ w2

    m, k, h, n = 256, 1024, 4096, 1024
    return Row(name=f"MLP relu(x@w1+b1)@w2 {m}x{k}x{h}x{n}", group="models",
               shapes=[(m, k), (k, h), (h,), (h, n)], strata=strata_fn, numpy=numpy_fn,
               torch=torch_fn, jax=jax_fn, flops=2.0 * m * h * (k + n), peer="torch", goal=1.0,
               limit="fma", scale=(1.0, 1 / 32, 1.0, 1 / 64), fused=True, deploy=True,
               torch_compile=True)


def _demo_rows():
    from strata import demo

    rows = []
    for kind, fn, ref in (("mlp", "mlp", "np_mlp"), ("encoder", "encoder_block",
                                                     "np_encoder_block")):
        shapes = [a.shape for a in demo._inputs(np.random.default_rng(0), kind)]

        def inputs(seed=0, kind=kind):
            return demo._inputs(np.random.default_rng(seed), kind)

        row = Row(name=f"demo {fn}", group="models", shapes=shapes,
                  strata=getattr(demo, fn), numpy=getattr(demo, ref), peer="numpy",
                  goal=1.0, quick=kind == "mlp")
        row.inputs = inputs
        rows.append(row)
    return rows


def rows() -> list[Row]:
    return [
        *[_matmul_row(s, s, s, quick=s == 256, deploy=s == 1024) for s in (256, 512, 1024, 2048)],
        _matmul_row(1000, 1000, 1000, odd=True),
        _matmul_row(7, 4096, 4096, odd=True),
        _matmul_row(4096, 7, 4096, odd=True),
        _matmul_row(512, 512, 512, batch=8),
        _decode_matvec_row(),
        _decode_attention_row(),
        _conv_row(1, 64, 56, 64, 3, 1, quick=True),
        _conv_row(1, 64, 56, 64, 3, 1, bias=True, deploy=True),       # issue 38's conv row
        _conv_row(1, 64, 56, 64, 3, 1, layout="NHWC"),
        _conv_row(1, 64, 56, 64, 1, 1),
        _conv_row(1, 64, 56, 128, 3, 2),
        _conv_row(1, 256, 56, 64, 1, 1),
        _conv_row(1, 256, 56, 512, 1, 2),
        _conv_row(1, 128, 28, 128, 3, 1, layout="NHWC"),
        _conv_row(1, 256, 14, 256, 3, 1),
        _conv_row(1, 32, 112, 32, 3, 1, layout="NHWC", groups=32),   # MobileNet depthwise
        _conv_row(1, 128, 56, 128, 3, 1, groups=32),                  # ResNeXt-50 32x4d
        _attention_row(8, 512, 64, quick=True, deploy=True),
        _attention_row(8, 2048, 64),
        *_row_kernels(4096),
        _chain_row(4096),
        *_api_rows(),
        _mlp_row(),
        *_demo_rows(),
    ]


def by_name(name: str) -> Row:
    for r in rows():
        if r.name == name:
            return r
    raise KeyError(name)
