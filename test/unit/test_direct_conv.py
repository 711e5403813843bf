"""Direct NCHW convs in register tiles (passes/direct_conv.py) against float64, on both
vector widths (``STRATA_CPU_FEATURES``), 1 and 2 threads, with and without an epilogue:
the path is checked taken (the cost model's remark, the vector.contract of its register
tile), and shapes it does not take stay on the im2col path."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from test_numerics import conv2d_ref

import strata
from strata.codegen import host
from strata.testing import assert_close


def _has(flag: str) -> bool:
    return flag in host.host_flags().split()


WIDTHS = [
    pytest.param("avx512", 16, marks=pytest.mark.skipif(not _has("avx512f"),
                                                        reason="host has no AVX-512")),
    pytest.param("avx2", 8, marks=pytest.mark.skipif(not _has("avx2"),
                                                     reason="host has no AVX2")),
]

# (x NCHW, filter FCHW, stride, padding (top, bottom, left, right), dilation)
CASES = [
    ((4, 32, 32, 32), (64, 32, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),  # ResNet-like, N > 1
    ((1, 8, 16, 16), (8, 8, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),      # 8 channels: small tile
    ((2, 6, 21, 32), (24, 6, 3, 3), (2, 1), (1, 1, 1, 1), (1, 1)),     # stride 2 in height only
    ((1, 4, 20, 32), (12, 4, 3, 3), (1, 1), (0, 3, 2, 2), (2, 2)),     # dilation 2, asymmetric
    ((1, 16, 9, 34), (16, 16, 1, 3), (1, 1), (0, 0, 0, 0), (1, 1)),    # 1x3, no padding
    ((2, 10, 7, 16), (20, 10, 5, 5), (1, 1), (2, 2, 2, 2), (1, 1)),    # 5x5, 20 channels
    ((1, 16, 6, 56), (32, 16, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1)),    # 56 = 32 + 16 + 8
    ((1, 4, 5, 22), (8, 4, 3, 3), (1, 1), (1, 1, 0, 0), (1, 1)),       # 20 = 16 + 4: im2col
]
TAKEN = [0, 1, 2, 3, 4, 5, 6]  # the cases run direct (20 columns end in 4 with 16 lanes;
#                                with 8 lanes 20 = 16 + 4 too: not direct either)


def _data(case, seed):
    xs, ws, stride, padding, dilation = CASES[case]
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(xs).astype(np.float32)
    w = (rng.standard_normal(ws) / 4).astype(np.float32)
    b = rng.standard_normal(ws[0]).astype(np.float32)
    args = (stride, padding, dilation)
    conv = conv2d_ref(x.astype(np.float64), w.astype(np.float64), *args)
    mag = conv2d_ref(np.abs(x).astype(np.float64), np.abs(w).astype(np.float64), *args)
    return x, w, b, conv, mag


def _layer(case, epilogue):
    _, _, stride, padding, dilation = CASES[case]

    def layer(x, w, b):
        y = strata.conv2d(x, w, stride=stride, padding=padding, dilation=dilation)
        return strata.relu(y + b.reshape(1, -1, 1, 1)) if epilogue else y

    return layer


def _tiles(lanes, f, ow):
    """The register tiles (rows x columns) expected for ``ow`` output columns: whole
    tiles of 2 vectors, then 1, then half a vector (at least 8 columns)."""
    tiles, left, width = [], ow, 2 * lanes
    while width >= 8:
        if left >= width:
            rows = (16 if lanes == 16 else 8) // max(1, width // lanes)
            while f % rows:
                rows //= 2
            tiles.append((rows, width))
            left %= width
        width //= 2
    return tiles


@pytest.mark.parametrize("features,lanes", WIDTHS)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("epilogue", [True, False])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_direct_conv_matches_float64(monkeypatch, case, epilogue, threads, features, lanes):
    monkeypatch.setenv("STRATA_CACHE", "0")
    monkeypatch.setenv(host.ENV, features)
    x, w, b, conv, mag = _data(case, 70 + case)
    ref = np.maximum(conv + b.astype(np.float64).reshape(1, -1, 1, 1), 0) if epilogue else conv
    layer = _layer(case, epilogue)
    f = strata.jit(layer, blas="never", threads=threads)
    assert_close(f(x, w, b), ref, np.float32, reduction_length=int(np.prod(w.shape[1:])),
                 ops=2, magnitude=mag + np.abs(b).max())
    report = "\n".join(f.stats.fusion_report)
    assert ("kept linalg.conv_2d_nchw_fchw" in report) == (case in TAKEN), report
    if case not in TAKEN:
        return
    ir = str(strata.compile(layer, x, w, b, compile_to="bufferized", blas="never",
                            threads=threads))
    assert "linalg.conv_2d" not in ir, ir
    for m, n in _tiles(lanes, w.shape[0], ref.shape[3]):
        assert f"into vector<{m}x{n}xf32>" in ir, (m, n, ir)
    assert "memref.copy" not in ir, ir  # the padding is a vectorizable linalg.copy
    assert "strata.max_opt_level = 2" in ir  # LLVM -O3 spent seconds on these loops


def test_conv_on_threads_without_epilogue(monkeypatch):
    """A direct conv not tiled by strata-fuse (no epilogue) gets its (image, rows) tiles
    on threads from strata-vectorize."""
    monkeypatch.setenv("STRATA_CACHE", "0")
    x, w, b, conv, mag = _data(0, 3)
    ir = str(strata.compile(_layer(0, False), x, w, b, compile_to="bufferized", blas="never",
                            threads=2))
    assert "scf.forall (%" in ir and ") in (4, 8)" in ir, ir


@pytest.mark.parametrize("xs,ws,stride,why", [
    ((1, 8, 16, 30), (8, 8, 3, 3), 1, "OW not a multiple of the lanes"),
    ((1, 8, 34, 66), (8, 8, 3, 3), 2, "width stride 2"),
    ((1, 3, 18, 34), (8, 3, 3, 3), 1, "an odd number of input channels"),
])
def test_other_convs_take_im2col(monkeypatch, xs, ws, stride, why):
    monkeypatch.setenv("STRATA_CACHE", "0")
    rng = np.random.default_rng(5)
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    f = strata.jit(lambda x, w: strata.relu(strata.conv2d(x, w, stride=stride)),
                   blas="never")
    ref = np.maximum(conv2d_ref(x.astype(np.float64), w.astype(np.float64), (stride, stride),
                                (0, 0, 0, 0), (1, 1)), 0)
    mag = conv2d_ref(np.abs(x).astype(np.float64), np.abs(w).astype(np.float64),
                     (stride, stride), (0, 0, 0, 0), (1, 1))
    assert_close(f(x, w), ref, np.float32, reduction_length=int(np.prod(ws[1:])), ops=2,
                 magnitude=mag)
    report = "\n".join(f.stats.fusion_report)
    assert "direct in register tiles" not in report and "im2col copy" in report, (why, report)


_CHILD = textwrap.dedent("""
    import sys
    import numpy as np, strata
    sys.path.insert(0, sys.argv[1])
    from test_numerics import conv2d_ref
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 16, 12, 56)).astype(np.float32)
    w1 = (rng.standard_normal((16, 16, 3, 3)) / 8).astype(np.float32)
    w2 = (rng.standard_normal((16, 16, 3, 3)) / 8).astype(np.float32)

    def block(x, w1, w2):  # conv, relu, conv, residual, relu: a ResNet block, 56 columns
        y = strata.relu(strata.conv2d(x, w1, padding=1))
        return strata.relu(strata.conv2d(y, w2, padding=1) + x)

    f = strata.jit(block, blas="never", threads=2)
    got = f(x, w1, w2)
    y = np.maximum(conv2d_ref(x.astype(np.float64), w1.astype(np.float64), (1, 1),
                              (1, 1, 1, 1), (1, 1)), 0)
    ref = np.maximum(conv2d_ref(y, w2.astype(np.float64), (1, 1), (1, 1, 1, 1), (1, 1)) + x, 0)
    report = "\\n".join(f.stats.fusion_report)
    assert report.count("kept linalg.conv_2d_nchw_fchw") == 2, report
    err = float(np.max(np.abs(got - ref)) / np.max(np.abs(ref)))
    print(err)
    sys.exit(0 if err < 1e-5 else 1)
""")


@pytest.mark.parametrize("road", ["jit", "disk cache (opt | llc)"])
def test_conv_block_in_a_child_process(tmp_path, road):
    """Two direct convs in column pieces, the first's epilogue writing into the second's
    padded input, compiled and run in a child process (a crash in the transforms or the
    compiled code fails this test, not the runner), on both compile roads."""
    env = dict(os.environ, STRATA_CACHE="0") if road == "jit" else \
        dict(os.environ, STRATA_CACHE_DIR=str(tmp_path))
    run = subprocess.run([sys.executable, "-c", _CHILD, os.path.dirname(__file__)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, (run.returncode, run.stdout[-2000:], run.stderr[-2000:])
