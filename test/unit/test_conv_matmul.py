"""Convolutions as im2col + matmul (strata-conv-to-matmul), against a float64 reference.

The cost model's direct-conv rate is patched (the passes run in this process,
and ``STRATA_CACHE=0`` keeps compiled code out of the disk cache) so that every
conv takes the path under test, whatever its size: im2col + matmul, or direct.
Both BLAS modes and 1 and 2 threads; f32, f16 and bf16; NCHW and NHWC; odd
shapes, C = 1, F = 1, stride 2, dilation 2, asymmetric padding, N > 1.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from test_numerics import conv2d_ref

import strata
from strata.passes import conv_to_matmul
from strata.runtime import blas as rblas
from strata.testing import assert_close

BF16 = ml_dtypes.bfloat16

CASES = [  # (x NCHW shape, filter FCHW shape, stride, padding, dilation)
    ((1, 3, 9, 9), (4, 3, 3, 3), 1, 1, 1),               # odd H/W, padded
    ((2, 5, 13, 11), (7, 5, 3, 3), 2, 1, 1),             # N > 1, stride 2
    ((1, 2, 12, 13), (3, 2, 3, 3), (1, 2), (2, 0, 1, 3), 2),  # asymmetric pad, dilation 2
    ((1, 1, 7, 9), (6, 1, 3, 3), 1, 0, 1),               # C = 1
    ((2, 4, 7, 7), (1, 4, 3, 3), 1, 1, 1),               # F = 1
    ((1, 16, 9, 7), (24, 16, 1, 1), 1, 0, 1),            # 1x1: a reshaped view
    ((2, 8, 9, 9), (5, 8, 1, 1), 2, 0, 1),               # 1x1 stride 2: a copy
    ((1, 3, 32, 48), (7, 3, 16, 16), 16, 0, 1),          # patches (kernel = stride): a transpose
    ((2, 5, 12, 8), (6, 5, 4, 2), (4, 2), 0, 1),         # rectangular patches, N > 1
]
PATHS = [("never", 1), ("always", 2)]


@pytest.fixture
def im2col(monkeypatch):
    """Every conv predicted slower direct: the im2col + matmul path is taken."""
    monkeypatch.setenv("STRATA_CACHE", "0")
    monkeypatch.setattr(conv_to_matmul, "DIRECT_RATE", 1e-6)
    monkeypatch.setattr(conv_to_matmul, "VECTORIZED_DIRECT_FACTOR", 1e9)


@pytest.fixture
def direct(monkeypatch):
    monkeypatch.setenv("STRATA_CACHE", "0")
    monkeypatch.setattr(conv_to_matmul, "DIRECT_RATE", 1e12)


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _pad4(p):
    return [p] * 4 if isinstance(p, int) else (
        [p[0], p[0], p[1], p[1]] if len(p) == 2 else list(p))


conv_ref = conv2d_ref  # NCHW x, FCHW w, float64, a direct sum over the window


def _data(case, seed, dtype=np.float32):
    xs, ws, stride, padding, dilation = CASES[case]
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(xs).astype(dtype)
    w = rng.standard_normal(ws).astype(dtype)
    args = (_pair(stride), _pad4(padding), _pair(dilation))
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    return x, w, conv_ref(x64, w64, *args), conv_ref(np.abs(x64), np.abs(w64), *args)


def _nhwc(x, w, *refs):
    return (np.ascontiguousarray(x.transpose(0, 2, 3, 1)),
            np.ascontiguousarray(w.transpose(2, 3, 1, 0)),
            *(r.transpose(0, 2, 3, 1) for r in refs))


def _report(f):
    return "\n".join(f.stats.fusion_report)


@pytest.mark.parametrize("blas,threads", PATHS)
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_im2col_matches_reference(im2col, case, layout, blas, threads):
    x, w, ref, mag = _data(case, 100 + case)
    if layout == "NHWC":
        x, w, ref, mag = _nhwc(x, w, ref, mag)
    _, ws, stride, padding, dilation = CASES[case]
    f = strata.jit(lambda x, w: strata.conv2d(x, w, stride=stride, padding=padding,
                                              dilation=dilation, layout=layout),
                   blas=blas, threads=threads)
    assert_close(f(x, w), ref, reduction_length=ws[1] * ws[2] * ws[3], magnitude=mag,
                 what=f"case {case} {layout} blas={blas} threads={threads}")
    report = _report(f)
    assert "strata-conv-to-matmul: linalg.conv_2d_" in report, report
    view = ws[2:] == (1, 1) and stride == 1
    assert ("as a reshaped view" in report) == view, report
    # blas=always: every matmul is a call, the batch_matmul of NCHW N > 1 (one filter
    # matrix for all images) included
    assert ("BLAS sgemm for linalg." in report) == (blas == "always"), report


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_direct_path_is_unchanged(direct, layout):
    x, w, ref, mag = _data(1, 7)
    if layout == "NHWC":
        x, w, ref, mag = _nhwc(x, w, ref, mag)
    f = strata.jit(lambda x, w: strata.conv2d(x, w, stride=2, padding=1, layout=layout))
    assert_close(f(x, w), ref, reduction_length=45, magnitude=mag)
    assert "kept linalg.conv_2d_" in _report(f) and " direct (" in _report(f)


@pytest.mark.parametrize("blas,threads", PATHS + [("always", 1), ("never", 2)])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_epilogue_bias_relu_residual(im2col, layout, blas, threads):
    """conv + bias, relu, + residual: the epilogue moves onto the matmul's iteration space
    (fused into the generated kernel, or its own loop after a BLAS call)."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 6, 11, 9)).astype(np.float32)
    w = rng.standard_normal((6, 6, 3, 3)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    conv = conv_ref(x.astype(np.float64), w.astype(np.float64), (1, 1), [1] * 4, (1, 1))
    mag = conv_ref(np.abs(x).astype(np.float64), np.abs(w).astype(np.float64), (1, 1),
                   [1] * 4, (1, 1))
    ref = np.maximum(conv + b.reshape(1, 6, 1, 1), 0) + x
    bshape = (1, 6, 1, 1)
    if layout == "NHWC":
        x, w, ref, mag = _nhwc(x, w, ref, mag)
        bshape = (1, 1, 1, 6)

    def layer(x, w, b):
        y = strata.conv2d(x, w, padding=1, layout=layout) + b.reshape(*bshape)
        return strata.relu(y) + x

    f = strata.jit(layer, blas=blas, threads=threads)
    assert_close(f(x, w, b), ref, reduction_length=54, ops=3,
                 magnitude=mag + np.abs(b).max() + np.abs(x))
    report = _report(f)
    assert "strata-conv-to-matmul: linalg.conv_2d_" in report, report
    if blas == "never":
        assert "fused into each tile" in report, report


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("blas", ["always", "never"])
def test_low_precision_accumulates_in_f32(im2col, dtype, layout, blas):
    np_dtype = np.float16 if dtype == "f16" else BF16
    x, w, ref, mag = _data(2, 9, np_dtype)
    if layout == "NHWC":
        x, w, ref, mag = _nhwc(x, w, ref, mag)
    f = strata.jit(lambda x, w: strata.conv2d(x, w, stride=(1, 2), padding=(2, 0, 1, 3),
                                              dilation=2, layout=layout), blas=blas)
    y = f(x, w)
    assert y.dtype == np_dtype
    # f32 accumulation: the only error beyond f32 rounding is the final rounding to dtype
    assert_close(y, ref, dtype, reduction_length=1, magnitude=mag)
    assert "strata-conv-to-matmul: linalg.conv_2d_" in _report(f)


def test_cost_model_keeps_tiny_and_single_channel_convs_direct():
    small = conv_to_matmul._Conv(False, 1, 1, 6, 6, 1, 3, 3, 4, 4, (1, 1), (1, 1))
    assert not conv_to_matmul.estimate(small).im2col_wins
    resnet = conv_to_matmul._Conv(False, 1, 64, 58, 58, 64, 3, 3, 56, 56, (1, 1), (1, 1))
    cost = conv_to_matmul.estimate(resnet, blas="auto", threads=2)
    assert cost.im2col_wins and cost.copy_us > 0
    pointwise = conv_to_matmul._Conv(True, 1, 64, 56, 56, 64, 1, 1, 56, 56, (1, 1), (1, 1))
    assert pointwise.no_copy and conv_to_matmul.estimate(pointwise).copy_us == 0


@pytest.mark.skipif(rblas.library() is None, reason="numpy ships no OpenBLAS here")
@pytest.mark.parametrize("vectorized", [True, False])
def test_resnet_layer_reports_its_choice(monkeypatch, vectorized):
    """The ResNet-18 layer1 conv: kept direct in register tiles (its 56-pixel rows are
    32 + 16 + 8) by the cost model; with that path priced out, converted, and strata-fuse
    then chooses between BLAS and generated code for the matmul, both in the report."""
    monkeypatch.setenv("STRATA_CACHE", "0")
    if not vectorized:
        monkeypatch.setattr(conv_to_matmul, "VECTORIZED_DIRECT_FACTOR", 1e9)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 64, 56, 56)).astype(np.float32)
    w = (rng.standard_normal((64, 64, 3, 3)) / 24).astype(np.float32)
    f = strata.jit(lambda x, w: strata.relu(strata.conv2d(x, w, padding=1)))
    y = f(x, w)
    ref = np.maximum(conv_ref(x.astype(np.float64), w.astype(np.float64), (1, 1), [1] * 4,
                              (1, 1)), 0)
    mag = conv_ref(np.abs(x).astype(np.float64), np.abs(w).astype(np.float64), (1, 1),
                   [1] * 4, (1, 1))
    assert_close(y, ref, reduction_length=576, magnitude=mag)
    report = _report(f)
    if vectorized:
        assert "kept linalg.conv_2d_nchw_fchw at" in report and "direct (NCHW 1x64x58x58 -> " \
               "1x64x56x56, 3x3; the cost model): predicted" in report, report
        assert "direct in register tiles" in report and "for linalg.matmul" not in report, \
            report
        return
    assert "as an im2col copy of 6.89 MiB + 64x3136x576 matmul (NCHW 1x64x58x58 -> " \
           "1x64x56x56, 3x3; the cost model): predicted" in report, report
    assert "for linalg.matmul at" in report and "(64x3136x576; the cost model)" in report, report


TILE_CASES = [  # (x NCHW, filter FCHW, stride, padding, dilation, threads,
    #              output rows per tile with NCHW (128-pixel tiles), NHWC (64))
    ((1, 8, 20, 20), (16, 8, 3, 3), 1, 1, 1, 1, 5, 2),       # 400 pixels: 4 tiles of 5 rows
    ((1, 32, 40, 40), (64, 32, 3, 3), 1, 1, 1, 2, 2, 1),     # parallel: 80 of 1600 pixels
    ((4, 32, 32, 32), (64, 32, 3, 3), 1, 1, 1, 2, 4, 2),     # N > 1, parallel
    ((2, 5, 13, 11), (7, 5, 3, 3), 2, 1, 1, 2, 7, 7),        # N > 1, stride 2, odd sizes
    ((1, 2, 40, 13), (3, 2, 3, 3), (1, 2), (2, 0, 1, 3), 2, 1, 2, 2),  # dilation 2, asymmetric
]


@pytest.mark.parametrize("epilogue", [True, False])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("case", range(len(TILE_CASES)))
def test_epilogue_tiles_copy_their_own_windows(im2col, case, dtype, layout, epilogue):
    """conv + bias + relu (or the conv alone: its matmul is tiled by itself) as generated
    code: each output tile of whole rows copies its own input windows inside the tile
    loop (strata-fuse, fusion/im2col.py), no pixels x K matrix is materialized, and the
    result matches float64."""
    xs, ws, stride, padding, dilation, threads, *rows = TILE_CASES[case]
    rows = rows[layout == "NHWC"]
    rng = np.random.default_rng(40 + case)
    x = rng.standard_normal(xs).astype(dtype)
    w = (rng.standard_normal(ws) / 4).astype(dtype)
    b = rng.standard_normal(ws[0]).astype(dtype)
    args = (_pair(stride), _pad4(padding), _pair(dilation))
    conv = conv_ref(x.astype(np.float64), w.astype(np.float64), *args)
    mag = conv_ref(np.abs(x).astype(np.float64), np.abs(w).astype(np.float64), *args)
    ref = np.maximum(conv + b.astype(np.float64).reshape(1, -1, 1, 1), 0) if epilogue else conv
    n, (_, c, kh, kw) = xs[0], ws
    oh, ow = ref.shape[2:]
    bshape = (1, -1, 1, 1)
    whole = f"{n}x{c}x{kh}x{kw}x{oh}x{ow}"
    tile = f"1x{c}x{kh}x{kw}x{rows}x{ow}"
    if layout == "NHWC":
        x, w, ref, mag = _nhwc(x, w, ref, mag)
        bshape = (1, 1, 1, -1)
        whole = f"{n}x{oh}x{ow}x{kh}x{kw}x{c}"
        tile = f"1x{rows}x{ow}x{kh}x{kw}x{c}"

    def layer(x, w, b):
        y = strata.conv2d(x, w, stride=stride, padding=padding, dilation=dilation,
                          layout=layout)
        return strata.relu(y + b.reshape(*bshape)) if epilogue else y  # b unused

    f = strata.jit(layer, blas="never", threads=threads)
    y = f(x, w, b)
    assert y.dtype == dtype
    assert_close(y, ref, dtype, reduction_length=ws[1] * ws[2] * ws[3], ops=2,
                 magnitude=mag + np.abs(b).max())
    report = _report(f)
    # f16: the cast back from the f32 matmul is an epilogue of its own
    bare = not epilogue and dtype == np.float32
    assert ("it has no elementwise epilogue" in report) == bare, report
    assert f"each output tile copies its own im2col windows ({tile})" in report, report
    assert f"the {whole} matrix is not materialized" in report, report
    fused = str(strata.compile(layer, x, w, b, compile_to="fused", blas="never",
                               threads=threads))
    assert f"tensor<{tile}xf32>" in fused and f"tensor<{whole}xf32>" not in fused, fused
    assert "strata.max_opt_level = 2" in fused  # LLVM -O3 spent seconds on these copies
    loop = "scf.forall" if threads > 1 and case in (1, 2) else "scf.for"
    body = fused[fused.index(loop):]
    assert f"tensor<{tile}xf32>" in body, fused


def test_opt_level_cap():
    """A module's ``strata.max_opt_level`` (set by strata-fuse where tiles copy their own
    im2col windows) lowers the JIT's LLVM level; without it the caller's level stands."""
    from mlir import ir

    from strata.context import new_context
    from strata.runtime.engine import capped_opt_level

    with new_context():
        capped = ir.Module.parse("module attributes {strata.max_opt_level = 2 : i64} {}")
        plain = ir.Module.parse("module {}")
        assert [capped_opt_level(capped, o) for o in (3, 2, 1)] == [2, 2, 1]
        assert [capped_opt_level(plain, o) for o in (3, 1)] == [3, 1]
