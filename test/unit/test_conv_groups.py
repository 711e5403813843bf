"""Grouped and depthwise conv2d (``groups=``) against a float64 reference.

Paths: grouped convs as im2col + one batch_matmul over the groups
(strata-conv-to-matmul, forced by patching the direct rates as in
test_conv_matmul.py) and as linalg's grouped named ops (direct); depthwise convs
through strata-vectorize-depthwise (NHWC register tiles; NCHW between transposes),
for both vector widths (``STRATA_CPU_FEATURES=avx2`` forces 8 lanes on an AVX-512
host). f32, f16 and bf16; odd shapes, stride 2, dilation 2, asymmetric padding,
N > 1, channel multipliers, channel counts that are no multiple of the vector width.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from test_numerics import conv2d_ref

import strata
from strata.codegen import host
from strata.passes import conv_to_matmul
from strata.passes.vectorize_depthwise import register_tile
from strata.testing import assert_close

BF16 = ml_dtypes.bfloat16
DTYPES = {"f32": np.float32, "f16": np.float16, "bf16": BF16}


def _has(flag):
    return flag in host.host_flags().split()


FEATURES = [
    pytest.param("native", id="native"),
    pytest.param("avx2", marks=pytest.mark.skipif(not _has("avx2"), reason="no AVX2"),
                 id="avx2"),
]

# (x NCHW shape, groups, F, (kh, kw), stride, padding, dilation)
GROUPED = [
    ((1, 6, 9, 11), 3, 9, (3, 3), 1, 1, 1),              # odd H/W, 3 groups of 2 -> 3
    ((1, 8, 13, 9), 4, 4, (3, 3), 2, (1, 0, 2, 1), 1),   # stride 2, asymmetric padding
    ((1, 12, 10, 10), 2, 6, (3, 3), 1, 2, 2),            # dilation 2
    ((2, 4, 7, 7), 2, 6, (1, 1), 1, 0, 1),               # N > 1, 1x1
]
DEPTHWISE = [
    ((1, 32, 17, 15), 1, (3, 3), 1, 1, 1),               # two AVX-512 vectors of channels
    ((1, 24, 12, 11), 1, (3, 3), 2, 1, 1),               # 24: no multiple of 16, stride 2
    ((2, 5, 9, 8), 1, (3, 3), 1, (0, 2, 1, 0), 2),        # odd C, N > 1, dilation 2
    ((1, 48, 8, 14), 1, (5, 5), 1, 2, 1),                 # 5x5 window
    ((1, 4, 9, 9), 2, (3, 3), 1, 1, 1),                  # channel multiplier 2
]


@pytest.fixture
def no_cache(monkeypatch):
    monkeypatch.setenv("STRATA_CACHE", "0")


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _pad4(p):
    return [p] * 4 if isinstance(p, int) else (
        [p[0], p[0], p[1], p[1]] if len(p) == 2 else list(p))


def grouped_ref(x, w, groups, stride, padding, dilation):
    """NCHW x, FCHW w (w.shape[1] = C / groups), float64: one direct conv per group."""
    c, f = x.shape[1], w.shape[0]
    cg, fg = c // groups, f // groups
    return np.concatenate([conv2d_ref(x[:, g * cg:(g + 1) * cg], w[g * fg:(g + 1) * fg],
                                      stride, padding, dilation)
                           for g in range(groups)], axis=1)


def _data(xs, groups, f, k, stride, padding, dilation, seed, dtype=np.float32):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(xs).astype(dtype)
    w = rng.standard_normal((f, xs[1] // groups, *k)).astype(dtype)
    args = (_pair(stride), _pad4(padding), _pair(dilation))
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    return (x, w, grouped_ref(x64, w64, groups, *args),
            grouped_ref(np.abs(x64), np.abs(w64), groups, *args))


def _nhwc(x, w, *refs):
    return (np.ascontiguousarray(x.transpose(0, 2, 3, 1)),
            np.ascontiguousarray(w.transpose(2, 3, 1, 0)),
            *(r.transpose(0, 2, 3, 1) for r in refs))


def _report(f):
    return "\n".join(f.stats.fusion_report)


def _conv(groups, stride, padding, dilation, layout, relu=False):
    def f(x, w):
        y = strata.conv2d(x, w, stride=stride, padding=padding, dilation=dilation,
                          layout=layout, groups=groups)
        return strata.relu(y) if relu else y
    return f


@pytest.mark.parametrize("path", ["im2col", "direct"])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("case", range(len(GROUPED)))
def test_grouped_matches_reference(no_cache, monkeypatch, case, layout, path):
    xs, g, f, k, stride, padding, dilation = GROUPED[case]
    rate = 1e-6 if path == "im2col" else 1e12
    monkeypatch.setattr(conv_to_matmul, "DIRECT_RATE", rate)
    monkeypatch.setattr(conv_to_matmul, "GROUPED_NCHW_DIRECT_RATE", rate)
    x, w, ref, mag = _data(xs, g, f, k, stride, padding, dilation, 10 + case)
    if layout == "NHWC":
        x, w, ref, mag = _nhwc(x, w, ref, mag)
    fn = strata.jit(_conv(g, stride, padding, dilation, layout), threads=2)
    assert_close(fn(x, w), ref, reduction_length=xs[1] // g * k[0] * k[1], magnitude=mag,
                 what=f"case {case} {layout} {path}")
    report = _report(fn)
    im2col = path == "im2col" and (layout == "NHWC" or xs[0] == 1)  # NCHW N > 1: direct
    grouped_op = "conv_2d_ngchw_gfchw" if layout == "NCHW" else "conv_2d_nhwgc_gfhwc"
    assert grouped_op in report and (" batch_matmul (" in report) == im2col, report
    assert (f"{g} groups" in report) == (im2col or xs[0] == 1 or layout == "NHWC"), report


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_grouped_low_precision_accumulates_in_f32(no_cache, monkeypatch, dtype, layout):
    monkeypatch.setattr(conv_to_matmul, "DIRECT_RATE", 1e-6)
    monkeypatch.setattr(conv_to_matmul, "GROUPED_NCHW_DIRECT_RATE", 1e-6)
    xs, g, f, k, stride, padding, dilation = GROUPED[1]
    x, w, ref, mag = _data(xs, g, f, k, stride, padding, dilation, 3, DTYPES[dtype])
    if layout == "NHWC":
        x, w, ref, mag = _nhwc(x, w, ref, mag)
    y = strata.jit(_conv(g, stride, padding, dilation, layout))(x, w)
    assert y.dtype == DTYPES[dtype]
    assert_close(y, ref, DTYPES[dtype], reduction_length=1, magnitude=mag)


@pytest.mark.parametrize("features", FEATURES)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("case", range(len(DEPTHWISE)))
def test_depthwise_matches_reference(no_cache, monkeypatch, case, layout, threads, features):
    monkeypatch.setenv(host.ENV, features)
    xs, mult, k, stride, padding, dilation = DEPTHWISE[case]
    c = xs[1]
    x, w, ref, mag = _data(xs, c, c * mult, k, stride, padding, dilation, 20 + case)
    ref, mag = np.maximum(ref, 0), mag
    if layout == "NHWC":
        x, w, ref, mag = _nhwc(x, w, ref, mag)
    fn = strata.jit(_conv(c, stride, padding, dilation, layout, relu=True), threads=threads)
    assert_close(fn(x, w), ref, reduction_length=k[0] * k[1], ops=2, magnitude=mag,
                 what=f"case {case} {layout} threads={threads} {features}")
    report = _report(fn)
    # multiplier 1: the depthwise fast path (NHWC named op; NCHW through transposes)
    assert ("strata-vectorize-depthwise: linalg.depthwise_conv_2d" in report) == (mult == 1), \
        report


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_depthwise_low_precision(no_cache, dtype, layout):
    xs, _, k, stride, padding, dilation = DEPTHWISE[1]
    c = xs[1]
    x, w, ref, mag = _data(xs, c, c, k, stride, padding, dilation, 5, DTYPES[dtype])
    if layout == "NHWC":
        x, w, ref, mag = _nhwc(x, w, ref, mag)
    fn = strata.jit(_conv(c, stride, padding, dilation, layout))
    y = fn(x, w)
    assert y.dtype == DTYPES[dtype]
    assert_close(y, ref, DTYPES[dtype], reduction_length=1, magnitude=mag)
    # bf16 stays scalar (LLVM's x86 backend and bf16 vectors, see strata-vectorize)
    fast = "strata-vectorize-depthwise: linalg.depthwise_conv_2d" in _report(fn)
    assert fast == (dtype == "f16"), _report(fn)


@pytest.mark.parametrize("lanes", [8, 16])
def test_register_tiles_fit_and_divide(lanes):
    for ow, c, kw, stride in [(112, 32, 3, 1), (56, 64, 3, 2), (14, 512, 3, 1), (7, 6, 5, 1),
                              (13, 24, 3, 1), (1, 1, 1, 1)]:
        cols, ct = register_tile(ow, c, kw, stride, lanes)
        vecs = -(-ct // lanes)
        assert ow % cols == 0 and 1 <= cols <= ow
        assert c % ct == 0 or ct == lanes
        assert vecs * (cols + (cols - 1) * stride + 2 * kw) <= (32 if lanes == 16 else 16)


def test_torch_grouped_conv_imports():
    torch = pytest.importorskip("torch")
    import strata.torch as st

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.dw = torch.nn.Conv2d(6, 6, 3, padding=1, groups=6)
            self.g = torch.nn.Conv2d(6, 9, 3, stride=2, groups=3, bias=False)

        def forward(self, x):
            return self.g(torch.relu(self.dw(x)))

    m = M().eval()
    x = torch.randn(1, 6, 11, 10)
    with torch.no_grad():
        ref = m(x).double().numpy()
        ep = torch.export.export(m, (x,))
    module = st.from_torch(ep)
    assert "groups = 6" in str(module.mlir) and "groups = 3" in str(module.mlir)
    got = strata.compile(module)(*st.arguments(ep, x))
    got = got[0] if isinstance(got, (tuple, list)) else got
    np.testing.assert_allclose(np.asarray(got), ref, rtol=1e-4, atol=1e-4)


def test_cost_model_keeps_grouped_nchw_direct_and_takes_nhwc_to_matmuls():
    """ResNeXt's 3x3 layer (32 groups of 4): the NCHW grouped loops beat im2col (whose copy
    is 9x the input for a K = 36 matmul); the NHWC ones (4-wide inner loop) do not."""
    nchw = conv_to_matmul._Conv(False, 1, 128, 58, 58, 128, 3, 3, 56, 56, (1, 1), (1, 1), 32)
    nhwc = conv_to_matmul._Conv(True, 1, 128, 58, 58, 128, 3, 3, 56, 56, (1, 1), (1, 1), 32)
    assert not conv_to_matmul.estimate(nchw).im2col_wins
    assert conv_to_matmul.estimate(nhwc).im2col_wins
