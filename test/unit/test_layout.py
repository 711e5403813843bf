"""strata-layout numerics: programs compiled with the pass on and off agree with numpy.

Each program is traced, lowered to linalg (with fusion, as in the CPU pipeline),
run through ``strata-layout{<options>}`` and the rest of the pipeline (vectorize,
bufferize, LLVM), and JIT-compiled; the result is compared with a float64 numpy
reference. The IR is checked too: the options under test must have changed it.

Measured on the 2-core AVX2 machine (f32, single thread, best of 5 runs):
    conv 1x16x32x32 * 16x16x3x3: NCHW 1.75 ms, NHWC 1.68 ms; 1x32x28x28 * 32x32x3x3:
    NCHW 5.7 ms, NHWC 5.9 ms (convs are not vectorized by strata-vectorize, so the
    layout barely matters; a 1x16x32x32 transpose costs 0.05 ms).
    matmul 256x512x512: see test_packed_matmul_speed (printed with -s).
"""

from __future__ import annotations

import re
import time

import numpy as np
import pytest

import strata
from strata.pipelines.runner import run_pipeline
from strata.runtime.engine import Engine

REST = ("strata-vectorize, func.func(loop-invariant-subset-hoisting), canonicalize, cse, "
        "strata-bufferize, strata-lower-to-llvm")


def _pipeline(layout):
    mid = f"strata-layout{{{layout}}}, " if layout is not None else ""
    return ("builtin.module(strata-to-linalg, canonicalize, cse, "
            "func.func(linalg-fuse-elementwise-ops), canonicalize, cse, " + mid + REST + ")")


def build(fn, args, layout):
    """``(callable, linalg IR after strata-layout)`` for ``fn`` traced on ``args``."""
    module = strata.compile(fn, *args, compile_to="strata").mlir
    fname = None
    for op in module.body.operations:
        if op.operation.name == "func.func":
            fname = str(op.attributes["sym_name"]).strip('"')
    text = None
    if layout is not None:
        probe = strata.compile(fn, *args, compile_to="strata").mlir
        run_pipeline(probe.operation, _pipeline(layout).split("strata-vectorize")[0].rstrip(", ")
                     + ")")
        text = str(probe)
    run_pipeline(module.operation, _pipeline(layout))
    engine = Engine(module)
    out_shapes = [np.shape(r) for r in _ref_shapes(fn, args)]
    kernel = engine.kernel(fname, [a.shape for a in args] + out_shapes)

    def call(*xs):
        outs = [np.empty(s, np.float32) for s in out_shapes]
        kernel(list(xs) + outs)
        return outs[0] if len(outs) == 1 else outs

    call.engine = engine
    return call, text


def _ref_shapes(fn, args):
    r = strata.compile(fn, *args)(*args)
    return r if isinstance(r, tuple) else (r,)


def conv_ref(x, w, stride=1, pad=0):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, f, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            out += np.einsum("nchw,fc->nfhw", patch, w[:, :, i, j])
    return out


def maxpool_ref(x, k):
    n, c, h, w = x.shape
    return x[:, :, :h // k * k, :w // k * k].reshape(n, c, h // k, k, w // k, k).max(axis=(3, 5))


RNG = np.random.default_rng(7)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def check(fn, args, ref, layouts, must_contain=(), must_not_contain=(), atol=1e-4):
    for layout in layouts:
        call, text = build(fn, args, layout)
        got = call(*args)
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=atol, err_msg=str(layout))
        if text is not None:
            for s in must_contain:
                assert s in text, (layout, s, text)
            for s in must_not_contain:
                assert s not in text, (layout, s, text)


W2 = RNG.standard_normal((6, 4, 3, 3)).astype(np.float32)
W1 = np.ascontiguousarray(W2[:4, :3])


def conv_chain(x, w1, b):
    y = strata.relu(strata.conv2d(x, w1, stride=2, padding=1) + b)
    y = strata.max_pool2d(y, 2)
    return strata.conv2d(y, strata.constant(W2), stride=1, padding=(1, 0, 2, 1))


def test_conv_chain_nchw_stride_padding():
    x, w1, b = rand(2, 3, 17, 15), rand(4, 3, 3, 3), rand(1, 4, 1, 1)
    y = np.maximum(conv_ref(x, w1, 2, 1) + b, 0)
    y = maxpool_ref(y, 2)
    y = np.pad(y, ((0, 0), (0, 0), (1, 0), (2, 1)))
    ref = conv_ref(y, W2)
    check(conv_chain, (x, w1, b), ref, [None, "conv-layout=keep", "conv-layout=auto"])
    check(conv_chain, (x, w1, b), ref, ["conv-layout=nhwc"],
          must_contain=["linalg.conv_2d_nhwc_hwcf", "pooling_nhwc_max"],
          must_not_contain=["conv_2d_nchw"])


def nhwc_model(x, b):
    t = strata.transpose(x, (0, 3, 1, 2))
    y = strata.relu(strata.conv2d(t, strata.constant(W1), padding=1) + b)
    y = strata.avg_pool2d(y, 2, padding=1)
    y = strata.conv2d(y, strata.constant(W2), padding=1)
    return strata.transpose(y, (0, 2, 3, 1))


def test_nhwc_model_whole_sequence():
    x, b = rand(1, 12, 10, 3), rand(1, 4, 1, 1)
    w1 = W1
    xt = x.transpose(0, 3, 1, 2).astype(np.float64)
    y = np.maximum(conv_ref(xt, w1, 1, 1) + b, 0)
    yp = np.pad(y, ((0, 0), (0, 0), (1, 1), (1, 1)))
    cnt = np.pad(np.ones_like(y), ((0, 0), (0, 0), (1, 1), (1, 1)))
    n, c, h, w = yp.shape
    s = yp[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).sum(axis=(3, 5))
    k = cnt[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).sum(axis=(3, 5))
    ref = conv_ref(s / k, W2, 1, 1).transpose(0, 2, 3, 1)
    check(nhwc_model, (x, b), ref, [None])
    check(nhwc_model, (x, b), ref, ["conv-layout=auto"],
          must_contain=["conv_2d_nhwc_hwcf", "pooling_nhwc_sum"],
          must_not_contain=["linalg.transpose", "conv_2d_nchw"])


def around_elementwise(x, y):
    t = strata.transpose(x, (1, 0))
    z = strata.transpose(strata.tanh(t) + y, (1, 0))  # transpose -> elementwise -> inverse
    return z * 2.0, strata.sum(strata.transpose(x, (1, 0)) * 3.0, axis=0)


def test_transposes_around_elementwise():
    x, y = rand(5, 7), rand(7, 5)
    ref = (np.tanh(x) + y.T) * 2.0
    check(lambda x, y: around_elementwise(x, y)[0], (x, y), ref, [None, ""],
          must_not_contain=["linalg.transpose"])
    check(lambda x, y: around_elementwise(x, y)[1], (x, y), (x.T * 3.0).sum(axis=0),
          [None, ""], must_not_contain=["linalg.transpose"])


def transposed_mm(a, b):
    return strata.relu(strata.transpose(a, (1, 0)) @ b)


def const_transposed_mm(a):
    return a @ strata.transpose(strata.constant(WB), (1, 0))


WB = RNG.standard_normal((24, 40)).astype(np.float32)


def test_matmul_with_transposed_operand():
    a, b = rand(40, 33), rand(40, 24)
    check(transposed_mm, (a, b), np.maximum(a.T @ b, 0), [None, ""],
          must_contain=["linalg.matmul indexing_maps"], must_not_contain=["linalg.transpose"])
    a3, b3 = rand(19, 40), rand(24, 40)
    check(lambda a, b: a @ strata.transpose(b, (1, 0)), (a3, b3), a3 @ b3.T, [None, ""],
          must_contain=["linalg.matmul indexing_maps"], must_not_contain=["linalg.transpose"])
    a2 = rand(19, 40)
    check(const_transposed_mm, (a2,), a2 @ WB.T, [None, ""],
          must_not_contain=["linalg.transpose"])


WP = RNG.standard_normal((37, 29)).astype(np.float32)


def packed(a, b):
    return a @ b, a @ strata.constant(WP) + 1.0


@pytest.mark.parametrize("m", [1, 13, 16])
def test_packed_matmul_odd_sizes(m):
    a, b = rand(m, 37), rand(37, 21)
    for opts in ["pack-matmul=true", "pack-matmul=true block-m=4 block-n=8 block-k=4"]:
        call, text = build(packed, (a, b), opts)
        r1, r2 = call(a, b)
        np.testing.assert_allclose(r1, a @ b, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(r2, a @ WP + 1.0, rtol=1e-4, atol=1e-4)
        assert "linalg.pack" in text and "linalg.unpack" in text
        # the constant weight is packed at compile time: a (twice) and b are packed at run time
        assert re.search(r"arith\.constant dense<[^>]*> : tensor<\d+x\d+x\d+x\d+xf32>", text)
        assert text.count("linalg.pack ") == 3, text


def _best(call, args, n=5):
    call(*args)
    best = 1e9
    for _ in range(n):
        t = time.perf_counter()
        call(*args)
        best = min(best, time.perf_counter() - t)
    return best


def test_packed_matmul_speed():
    a, b = rand(256, 512), rand(512, 512)
    mm = lambda a, b: a @ b  # noqa: E731
    plain, _ = build(mm, (a, b), "")
    pk, _ = build(mm, (a, b), "pack-matmul=true")
    np.testing.assert_allclose(pk(a, b), a @ b, rtol=1e-3, atol=1e-3)
    tp, tk = _best(plain, (a, b)), _best(pk, (a, b))
    print(f"\nmatmul 256x512x512: vectorized {tp * 1e3:.2f} ms, packed 8x16x1 {tk * 1e3:.2f} ms")
