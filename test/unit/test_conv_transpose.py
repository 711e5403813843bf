"""strata.conv_transpose2d against a float64 reference (a scatter of each input element
times the filter, written here from the definition), on the im2col + matmul and the
direct paths, NCHW and NHWC, f32/f16/bf16, both vector widths; the torch importer's
``ConvTranspose2d``; located errors."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import strata
from strata.codegen import host
from strata.passes import conv_to_matmul
from strata.testing import assert_close

DTYPES = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}


def _has(flag):
    return flag in host.host_flags().split()


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _pad4(p):
    return [p] * 4 if isinstance(p, int) else (
        [p[0], p[0], p[1], p[1]] if len(p) == 2 else list(p))


def conv_transpose_ref(x, w, stride, padding, output_padding, dilation, groups):
    """NCHW ``x`` [N, C, H, W], ``w`` [C, F/G, KH, KW], float64: every input element
    scattered into the full result, then the padding taken off."""
    n, c, h, wd = x.shape
    _, fg, kh, kw = w.shape
    sh, sw = _pair(stride)
    dh, dw = _pair(dilation)
    top, bottom, left, right = _pad4(padding)
    oph, opw = _pair(output_padding)
    cg = c // groups
    full_h = (h - 1) * sh + dh * (kh - 1) + 1 + oph
    full_w = (wd - 1) * sw + dw * (kw - 1) + 1 + opw
    out = np.zeros((n, fg * groups, full_h + top, full_w + left))
    for g in range(groups):
        xg = x[:, g * cg:(g + 1) * cg]
        wg = w[g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                contrib = np.einsum("nchw,cf->nfhw", xg, wg[:, :, i, j])
                out[:, g * fg:(g + 1) * fg, i * dh:i * dh + (h - 1) * sh + 1:sh,
                    j * dw:j * dw + (wd - 1) * sw + 1:sw] += contrib
    oh, ow = full_h - top - bottom, full_w - left - right
    return out[:, :, top:top + oh, left:left + ow]


# (x NCHW shape, F, (kh, kw), stride, padding, output_padding, dilation, groups)
CASES = [
    ((1, 3, 5, 5), 4, (3, 3), 1, 0, 0, 1, 1),                    # stride 1, no padding
    ((2, 8, 5, 7), 4, (3, 3), 2, 1, 1, 1, 1),                    # the U-Net upsampler, N > 1
    ((1, 4, 6, 5), 6, (3, 2), (2, 3), (1, 0), (1, 2), 1, 2),     # odd, asymmetric, groups
    ((1, 3, 5, 5), 4, (3, 3), 2, (3, 1, 0, 2), 0, 1, 1),         # padding > K - 1: a crop
    ((1, 5, 4, 6), 3, (3, 3), 2, 1, 0, 2, 1),                    # dilation 2
    ((1, 4, 6, 5), 4, (4, 4), 2, 1, 0, 1, 4),                    # depthwise
    ((1, 16, 9, 9), 8, (2, 2), 2, 0, 0, 1, 1),                   # 2x2 stride 2 (no overlap)
]


def _data(case, dtype, seed):
    xs, f, k, stride, padding, out_pad, dil, g = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(xs).astype(dtype)
    w = rng.standard_normal((xs[1], f // g, *k)).astype(dtype)
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    args = (stride, padding, out_pad, dil, g)
    return x, w, conv_transpose_ref(x64, w64, *args), conv_transpose_ref(
        np.abs(x64), np.abs(w64), *args)


def _fn(case, layout):
    _, _, _, stride, padding, out_pad, dil, g = case

    def f(x, w):
        return strata.conv_transpose2d(x, w, stride=stride, padding=padding,
                                       output_padding=out_pad, dilation=dil, layout=layout,
                                       groups=g)
    return f


def _nhwc(x, w, *refs):
    return (np.ascontiguousarray(x.transpose(0, 2, 3, 1)),
            np.ascontiguousarray(w.transpose(2, 3, 1, 0)),  # [KH, KW, F/G, C]
            *(r.transpose(0, 2, 3, 1) for r in refs))


@pytest.fixture
def no_cache(monkeypatch):
    monkeypatch.setenv("STRATA_CACHE", "0")


@pytest.mark.parametrize("features", [
    "native", pytest.param("avx2", marks=pytest.mark.skipif(not _has("avx2"),
                                                            reason="no AVX2"))])
@pytest.mark.parametrize("path", ["im2col", "direct"])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_reference(no_cache, monkeypatch, case, layout, path, features):
    if features == "avx2":
        monkeypatch.setenv("STRATA_CPU_FEATURES", "avx2")
    rate = 1e-6 if path == "im2col" else 1e12
    monkeypatch.setattr(conv_to_matmul, "DIRECT_RATE", rate)
    monkeypatch.setattr(conv_to_matmul, "GROUPED_NCHW_DIRECT_RATE", rate)
    x, w, ref, mag = _data(CASES[case], np.float32, 20 + case)
    if layout == "NHWC":
        x, w, ref, mag = _nhwc(x, w, ref, mag)
    y = strata.jit(_fn(CASES[case], layout), threads=2)(x, w)
    k = CASES[case][2]
    assert_close(y, ref, reduction_length=x.size // x.shape[0] * k[0] * k[1] // max(
        1, y.size // y.shape[0]) + k[0] * k[1] * 16, magnitude=mag, what=f"case {case}")


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("case", [1, 2])
def test_low_precision(no_cache, case, layout, dtype):
    x, w, ref, mag = _data(CASES[case], DTYPES[dtype], 7)
    if layout == "NHWC":
        x, w, ref, mag = _nhwc(x, w, ref, mag)
    y = strata.jit(_fn(CASES[case], layout))(x, w)
    assert y.dtype == DTYPES[dtype]
    assert_close(y, ref, DTYPES[dtype], reduction_length=1, magnitude=mag)


@pytest.mark.parametrize("kwargs,message", [
    (dict(output_padding=2, stride=2), r"output_padding \[2, 2\] must be smaller than the "
     r"stride \[2, 2\] or the dilation \[1, 1\]"),
    (dict(padding=5), r"padding \[5, 5, 5, 5\] leaves no output along height"),
    (dict(groups=3), r"input channels 4 are not divisible by groups=3"),
    (dict(layout="NCWH"), r"layout must be NCHW or NHWC"),
])
def test_bad_arguments_are_located_errors(kwargs, message):
    x = np.ones((1, 4, 3, 3), np.float32)
    w = np.ones((4, 2, 3, 3), np.float32)
    with pytest.raises(strata.StrataError, match=message) as info:
        strata.jit(lambda a, b: strata.conv_transpose2d(a, b, **kwargs))(x, w)
    assert "test_conv_transpose.py" in str(info.value)


def test_torch_conv_transpose2d():
    torch = pytest.importorskip("torch")
    import strata.torch  # noqa: F401 - registers the backend

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1),
        torch.nn.ReLU(),
        torch.nn.ConvTranspose2d(4, 6, (2, 3), stride=(1, 2), dilation=(2, 1), groups=2,
                                 bias=False)).eval()
    x = torch.randn(2, 8, 7, 9)
    with torch.no_grad():
        want = model(x)
        ep = torch.export.export(model, (x,))
        module = strata.from_torch(ep)
        assert str(module).count("strata.conv_transpose2d") == 2
        got = strata.compile(module)(*strata.torch.arguments(ep, x))
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-4)


def test_torch_einsum_imports_as_one_matmul():
    torch = pytest.importorskip("torch")
    import strata.torch  # noqa: F401

    class Scores(torch.nn.Module):
        def forward(self, q, k):
            return torch.einsum("bhqd,bhkd->bhqk", q, k)

    q, k = torch.randn(2, 3, 5, 4), torch.randn(2, 3, 6, 4)
    ep = torch.export.export(Scores(), (q, k))
    module = strata.from_torch(ep)
    assert str(module).count("strata.matmul") == 1
    got = strata.compile(module)(*strata.torch.arguments(ep, q, k))
    np.testing.assert_allclose(got, torch.einsum("bhqd,bhkd->bhqk", q, k).numpy(),
                               rtol=1e-5, atol=1e-5)


def test_torch_backend_runs_conv_transpose_in_strata():
    torch = pytest.importorskip("torch")
    import strata.torch as st

    torch.manual_seed(1)
    model = torch.nn.Sequential(
        torch.nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1),
        torch.nn.ReLU()).eval()
    x = torch.randn(2, 8, 7, 9)
    with torch.no_grad():
        report = str(st.explain(model, x))
        assert "0 in eager PyTorch" in report and "aten.convolution" in report
        got = torch.compile(model, backend="strata")(x)
        np.testing.assert_allclose(got.numpy(), model(x).numpy(), rtol=1e-4, atol=1e-4)
