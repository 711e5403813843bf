"""The matmul kernel paths of strata-vectorize for both vector widths, and the forced
target CPU features (``STRATA_CPU_FEATURES``, codegen/host.py).

Each numerics test runs once with the AVX-512 feature set (16 f32 lanes: the 8x32
packed micro-kernel, zmm registers) and once with AVX2 (8 lanes: 6x16, ymm only),
so both code paths run on an AVX-512 host; an AVX2-only host runs the AVX2 half
and skips the other. Odd and edge shapes (M, N, K from 1, 7, 17, 33, 100, 257)
cover the unpacked register tiles (few rows or columns) and the packed panels
(zero-padded partial panels), matmul and batch matmul, f32/f16/bf16 (f16/bf16
accumulate in f32), 1 and 2 threads, with and without a fused epilogue, against a
float64 numpy reference. Generated code only (``blas="never"``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

import strata
from strata.codegen import host
from strata.errors import StrataError
from strata.testing import assert_close

NP = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}


def _has(flag: str) -> bool:
    return flag in host.host_flags().split()


WIDTHS = [
    pytest.param("avx512", marks=pytest.mark.skipif(not _has("avx512f"),
                                                    reason="host has no AVX-512")),
    pytest.param("avx2", marks=pytest.mark.skipif(not _has("avx2"),
                                                  reason="host has no AVX2")),
]

# (M, N, K): few rows / columns (unpacked register tiles), and packed panels with
# partial (padded) panels in every dim
SHAPES = [(1, 7, 17), (7, 257, 33), (257, 1, 100), (33, 17, 257), (100, 100, 257),
          (257, 257, 33), (257, 100, 7), (100, 257, 1),
          # whole panels on both widths (8 x 32 and 6 x 16): the packs and the unpack
          # are vector copies, on threads past parallel-flops; K not a multiple of 8
          (240, 192, 388), (96, 64, 9),
          # whole A panels, padded B panels: masked vector copies of B's and C's last
          # panel (K even), or whole copies (K odd)
          (240, 200, 388), (240, 200, 387)]

# On 2 threads (past parallel-flops): partial panels as masked vector copies on threads;
# 256 rows in 43 six-row panels (AVX2) split unevenly, and into 4 row tiles instead of 3
THREADED_SHAPES = [(256, 256, 256), (258, 250, 260), (1000, 70, 480)]


@pytest.fixture
def features(request, monkeypatch):
    monkeypatch.setenv(host.ENV, request.param)
    return request.param


def _rand(rng, shape, dtype):
    return rng.uniform(-2.0, 2.0, size=shape).astype(NP[dtype])


def _check(actual, a, b, dtype, bias=None, relu=False):
    x, y = np.asarray(a, np.float64), np.asarray(b, np.float64)
    ref, mag = x @ y, np.abs(x) @ np.abs(y)
    if bias is not None:
        ref = ref + np.asarray(bias, np.float64)
        mag = mag + np.abs(np.asarray(bias, np.float64))
    if relu:
        ref = np.maximum(ref, 0)
    assert_close(actual, ref, dtype, reduction_length=a.shape[-1], magnitude=mag,
                 ops=2 if bias is not None else 1, what=f"{a.shape} @ {b.shape}")


@pytest.mark.parametrize("features", WIDTHS, indirect=True)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("mnk", SHAPES, ids=str)
def test_matmul_f32(features, threads, mnk):
    m, n, k = mnk
    rng = np.random.default_rng(m * 1000 + n * 10 + k)
    a, b = _rand(rng, (m, k), "f32"), _rand(rng, (k, n), "f32")
    f = strata.jit(lambda x, y: x @ y, threads=threads, blas="never")
    _check(f(a, b), a, b, "f32")


@pytest.mark.parametrize("features", WIDTHS, indirect=True)
@pytest.mark.parametrize("threads", [1, 2])
def test_matmul_epilogue_and_thread_counts_agree(features, threads):
    rng = np.random.default_rng(3)
    a, b, c = _rand(rng, (257, 100), "f32"), _rand(rng, (100, 257), "f32"), \
        _rand(rng, (257,), "f32")

    def mlp(x, w, bias):
        return strata.relu(x @ w + bias)

    f = strata.jit(mlp, threads=threads, blas="never")
    out = f(a, b, c)
    _check(out, a, b, "f32", bias=c, relu=True)
    # K runs in one order whatever the thread count: results are bit-identical
    g = strata.jit(lambda x, y: x @ y, threads=threads, blas="never")
    one = strata.jit(lambda x, y: x @ y, threads=1, blas="never")
    x, y = _rand(rng, (300, 257), "f32"), _rand(rng, (257, 333), "f32")
    np.testing.assert_array_equal(g(x, y), one(x, y))


# Packed matmuls whose epilogue strata-vectorize computes in C's unpack
# (passes/packed_epilogue.py): x @ w.T of nn.Linear's shapes with whole 8 x 32 and 6 x 16
# tiles (256 rows: 43 six-row panels, unequal chunks on 2 threads with AVX2; 258 rows: a
# partial 8-row tile with AVX-512), each width's packed choice among them
EPILOGUE_SHAPES = [(256, 768, 256), (258, 256, 260)]


@pytest.mark.parametrize("features", WIDTHS, indirect=True)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("mnk", EPILOGUE_SHAPES, ids=str)
def test_packed_epilogue(features, threads, mnk):
    m, n, k = mnk
    rng = np.random.default_rng(m + n + k)
    x, w, bias = _rand(rng, (m, k), "f32"), _rand(rng, (n, k), "f32"), _rand(rng, (n,), "f32")
    r = _rand(rng, (m, n), "f32")
    linear = strata.jit(lambda x, w, b: strata.relu(x @ w.T + b), threads=threads,
                        blas="never")
    _check(linear(x, w, bias), x, w.T, "f32", bias=bias, relu=True)
    # the product as the residual add's second operand
    residual = strata.jit(lambda r, x, w: r + x @ w.T, threads=threads, blas="never")
    _check(residual(r, x, w), x, w.T, "f32", bias=r)
    # an epilogue that narrows to bf16
    narrow = strata.jit(lambda x, w, b: strata.cast(x @ w.T + b, "bf16"), threads=threads,
                        blas="never")
    got = narrow(x, w, bias)
    assert got.dtype == NP["bf16"]
    _check(np.asarray(got, np.float32), x, w.T, "bf16", bias=bias)


_EPILOGUE_CHILD = textwrap.dedent("""
    import sys
    import numpy as np, strata
    rng = np.random.default_rng(4)
    shapes = ((256, 256), (768, 256), (768,), (258, 260), (256, 260), (256,))
    args = [rng.uniform(-2, 2, s).astype(np.float32) for s in shapes]

    def layers(x, w, b, x2, w2, b2):  # nn.Linear + relu; an nn.Linear packed on AVX2
        return strata.relu(x @ w.T + b), x2 @ w2.T + b2

    f = strata.jit(layers, blas="never", threads=2)
    got = f(*args)
    x, w, b, x2, w2, b2 = (a.astype(np.float64) for a in args)
    refs = (np.maximum(x @ w.T + b, 0), x2 @ w2.T + b2)
    err = max(float(np.max(np.abs(g - r)) / np.max(np.abs(r))) for g, r in zip(got, refs))
    print(err)
    sys.exit(0 if err < 1e-5 else 1)
""")


@pytest.mark.parametrize("features", WIDTHS, indirect=True)
@pytest.mark.parametrize("road", ["jit", "disk cache (opt | llc)"])
def test_packed_epilogue_in_a_child_process(features, tmp_path, road):
    """Two nn.Linear layers, one of which each vector width runs on packed panels (the
    epilogue in the unpack, register tiles started from zero), compiled and run in a
    child process on both compile roads: a crash in the transforms or the compiled code
    fails this test, not the runner."""
    env = dict(os.environ, STRATA_CACHE="0") if road == "jit" else \
        dict(os.environ, STRATA_CACHE_DIR=str(tmp_path))
    run = subprocess.run([sys.executable, "-c", _EPILOGUE_CHILD], env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, (run.returncode, run.stdout[-2000:], run.stderr[-2000:])


@pytest.mark.parametrize("features", WIDTHS, indirect=True)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("bmnk", [(4, 192, 96, 240), (3, 96, 256, 128)], ids=str)
def test_packed_batch_epilogue(features, threads, bmnk):
    """A batch matmul's bias add computed in its unpack, per batch: without strata-fuse
    (``fusion=False``) the add is the packed product's only user on both widths."""
    batch, m, n, k = bmnk
    rng = np.random.default_rng(batch + m + n + k)
    a, b = _rand(rng, (batch, m, k), "f32"), _rand(rng, (batch, k, n), "f32")
    bias = _rand(rng, (n,), "f32")
    f = strata.jit(lambda x, y, c: x @ y + c, threads=threads, blas="never", fusion=False)
    _check(f(a, b, bias), a, b, "f32", bias=bias)


@pytest.mark.parametrize("features", WIDTHS, indirect=True)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("bmnk", [(3, 7, 17, 33), (2, 100, 257, 17), (2, 257, 100, 100),
                                  (4, 192, 96, 240)],  # whole panels: copies by batch
                         ids=str)
def test_batch_matmul(features, threads, bmnk):
    batch, m, n, k = bmnk
    rng = np.random.default_rng(batch + m + n + k)
    a, b = _rand(rng, (batch, m, k), "f32"), _rand(rng, (batch, k, n), "f32")
    f = strata.jit(lambda x, y: x @ y, threads=threads, blas="never")
    _check(f(a, b), a, b, "f32")


# Batch dims that broadcast or number more than one (strata-to-linalg: a copy of the
# broadcast operand, the batch dims collapsed, one batch_matmul; an rhs with unit batch
# dims as a matrix): odd sizes, a matrix against a batch, size-1 and missing batch dims
# on either side, rank 4 and 5.
BROADCAST = [((7, 33), (3, 33, 17)), ((1, 7, 33), (3, 33, 17)), ((3, 7, 33), (1, 33, 17)),
             ((2, 3, 17, 9), (2, 3, 9, 33)), ((2, 3, 17, 9), (3, 9, 33)),
             ((2, 1, 17, 9), (1, 3, 9, 33)), ((2, 3, 17, 9), (1, 9, 33)),
             ((1, 100), (2, 2, 100, 7)), ((2, 1, 3, 5, 8), (4, 1, 8, 6)),
             ((33,), (3, 33, 17)), ((2, 3, 17, 9), (9,))]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", ["f32", "bf16", "f16"])
@pytest.mark.parametrize("shapes", BROADCAST, ids=str)
def test_broadcast_batch_matmul(threads, dtype, shapes):
    rng = np.random.default_rng(len(shapes[0]) * 10 + len(shapes[1]))
    a, b = _rand(rng, shapes[0], dtype), _rand(rng, shapes[1], dtype)
    f = strata.jit(lambda x, y: x @ y, threads=threads, blas="never")
    got = f(a, b)
    assert got.shape == np.matmul(a.astype(np.float32), b.astype(np.float32)).shape
    _check(got, a, b, dtype)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", ["f32", "bf16", "f16"])
@pytest.mark.parametrize("shapes", [((7, 33), (33,)), ((257, 1000), (1000,)),
                                    ((1100, 1000), (1000,)), ((3, 5, 100), (100,)),
                                    ((9, 8), (8,))], ids=str)
def test_matrix_vector(threads, dtype, shapes):
    """``[...,M,K] @ [K]`` as a row reduction: odd K (a partial last vector), rows on
    threads (1100 x 1000 is past parallel-elements), batched rows, K under a vector."""
    rng = np.random.default_rng(shapes[0][-1])
    a, b = _rand(rng, shapes[0], dtype), _rand(rng, shapes[1], dtype)
    got = strata.jit(lambda x, y: x @ y, threads=threads)(a, b)
    assert got.shape == shapes[0][:-1] + shapes[1][1:]
    _check(got, a, b, dtype)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", ["f32", "bf16", "f16"])
@pytest.mark.parametrize("shapes", [((1, 33), (257, 33)), ((33,), (65, 33)),
                                    ((1, 1, 1000), (300, 1000)), ((1, 7), (1, 7)),
                                    ((1, 4096), (2048, 4096))], ids=str)
def test_row_times_transposed_weight(threads, dtype, shapes):
    """``x @ w.T`` for one row x (nn.Linear's weight, N x K): ``w @ x``'s row reduction
    over w's rows as stored. Odd K (a partial last vector), a 1-D and a 3-D row, a 1 x 1
    weight, and 2048 rows (past parallel-elements: rows on threads)."""
    rng = np.random.default_rng(shapes[1][0] + shapes[1][1])
    x, w = _rand(rng, shapes[0], dtype), _rand(rng, shapes[1], dtype)
    got = strata.jit(lambda x, w: x @ w.T, threads=threads)(x, w)
    assert got.shape == shapes[0][:-1] + shapes[1][:1]
    _check(got, x, w.T, dtype)


def test_row_times_transposed_weight_with_other_uses_of_the_transpose():
    """The transposed weight also feeds a full matmul (it stays for that one), and a
    second row against it: both results right."""
    rng = np.random.default_rng(5)
    x, rows, w = _rand(rng, (1, 40), "f32"), _rand(rng, (9, 40), "f32"), _rand(rng, (24, 40), "f32")

    def two(x, rows, w):
        t = w.T
        return x @ t, rows @ t

    one, many = strata.jit(two)(x, rows, w)
    _check(one, x, w.T, "f32")
    _check(many, rows, w.T, "f32")


def test_broadcast_batch_matmul_dynamic_rows_and_columns():
    """Static batch dims that broadcast (or number two) with dynamic M / N: the batch
    copy and the collapsed batch keep the dynamic sizes."""
    rng = np.random.default_rng(3)
    for sa, sb in (((1, 0, 9), (3, 9, 0)), ((2, 3, 0, 9), (2, 3, 9, 0)), ((0, 9), (2, 9, 0))):
        f = strata.jit(lambda x, y: x @ y,
                       dynamic={"x": [len(sa) - 2], "y": [len(sb) - 1]})
        for m, n in ((5, 7), (33, 17)):
            shape_a = sa[:-2] + (m, 9)
            shape_b = sb[:-1] + (n,)
            a, b = _rand(rng, shape_a, "f32"), _rand(rng, shape_b, "f32")
            _check(f(a, b), a, b, "f32")


def test_broadcast_batch_matmul_i32():
    rng = np.random.default_rng(5)
    a = rng.integers(-50, 50, size=(2, 3, 7, 9), dtype=np.int32)
    for b in (rng.integers(-50, 50, size=(3, 9, 5), dtype=np.int32),
              rng.integers(-50, 50, size=(9,), dtype=np.int32)):
        got = strata.jit(lambda x, y: x @ y)(a, b)
        np.testing.assert_array_equal(got, np.matmul(a.astype(np.int64), b).astype(np.int32))


# Few rows against a B larger than 1 MiB (passes/skinny_tiles.py): 16-deep K tiles across
# N (K not a multiple of 16 in some), up to 7-row register tiles 4 (AVX-512) or 2 (AVX2)
# vectors wide, M split into even tiles with a remainder (13 -> 5+5+3, 32 -> 6x5+2), N
# split by threads (2048 -> 2 x 1024; 2016 -> 3 x 672 with AVX-512), and an N that no
# register tile divides (2000: the default tiles).
SKINNY = [(1, 512, 600), (7, 1024, 300), (13, 512, 1024), (32, 2048, 160), (7, 2048, 2048),
          (7, 2016, 300), (7, 2000, 300)]


@pytest.mark.parametrize("features", WIDTHS, indirect=True)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("mnk", SKINNY, ids=str)
def test_skinny_matmul(features, threads, mnk):
    m, n, k = mnk
    rng = np.random.default_rng(m + n + k)
    a, b = _rand(rng, (m, k), "f32"), _rand(rng, (k, n), "f32")
    f = strata.jit(lambda x, y: x @ y, threads=threads, blas="never")
    _check(f(a, b), a, b, "f32")


@pytest.mark.parametrize("features", WIDTHS, indirect=True)
def test_skinny_batch_and_epilogue(features):
    rng = np.random.default_rng(5)
    a, b = _rand(rng, (2, 7, 300), "f32"), _rand(rng, (2, 300, 1024), "f32")
    f = strata.jit(lambda x, y: x @ y, threads=2, blas="never")
    _check(f(a, b), a, b, "f32")
    x, w, bias = _rand(rng, (7, 300), "f32"), _rand(rng, (300, 1024), "f32"), \
        _rand(rng, (1024,), "f32")
    g = strata.jit(lambda x, w, c: strata.relu(x @ w + c), threads=2, blas="never")
    _check(g(x, w, bias), x, w, "f32", bias=bias, relu=True)
    # B read transposed (nn.Linear's x @ w.T): the default tiles
    wt = np.ascontiguousarray(w.T)
    h = strata.jit(lambda x, wt: x @ strata.transpose(wt, [1, 0]), blas="never")
    _check(h(x, wt), x, w, "f32")


def test_skinny_tiles_choice():
    from strata.passes.skinny_tiles import skinny_tiles

    # (cache tile, register tile) per (m, n, k, lanes, threads, batches)
    assert skinny_tiles(7, 4096, 4096, 16) == ((7, 4096, 16), (7, 64))
    assert skinny_tiles(7, 4096, 4096, 8) == ((7, 4096, 16), (7, 16))
    assert skinny_tiles(7, 4096, 4096, 16, threads=2) == ((7, 2048, 16), (7, 64))
    assert skinny_tiles(7, 4096, 4096, 16, threads=2, batches=2) == ((7, 4096, 16), (7, 64))
    assert skinny_tiles(13, 512, 1024, 16) == ((13, 512, 16), (5, 64))
    assert skinny_tiles(32, 2048, 160, 8) == ((32, 2048, 16), (6, 16))
    assert skinny_tiles(7, 4000, 4096, 16) == ((7, 4000, 16), (7, 32))    # half width
    assert skinny_tiles(7, 2016, 300, 16, threads=2) == ((7, 672, 16), (7, 32))
    assert skinny_tiles(7, 2000, 300, 16) is None      # no register tile divides N
    assert skinny_tiles(7, 512, 512, 16) is None       # B of 1 MiB stays in L2
    assert skinny_tiles(7, 4096, 8, 16) is None        # K below one cache tile


@pytest.mark.parametrize("features", WIDTHS, indirect=True)
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("mnk", [(7, 33, 17), (100, 257, 33)], ids=str)
def test_matmul_low_precision(features, dtype, mnk):
    m, n, k = mnk
    rng = np.random.default_rng(11)
    a, b = _rand(rng, (m, k), dtype), _rand(rng, (k, n), dtype)
    f = strata.jit(lambda x, y: x @ y, blas="never")
    _check(f(a, b), a, b, dtype)


# --------------------------------------------------------------------- forcing features

def test_forced_lanes(monkeypatch):
    monkeypatch.setenv(host.ENV, "avx2")
    if _has("avx2"):
        assert host.f32_lanes() == 8
        assert host.llvm_target() == ("x86-64-v3", "-avx512f")
    monkeypatch.setenv(host.ENV, "native")
    assert host.llvm_target() is None
    assert host.target_flags() == host.host_flags()


def test_unknown_feature_set_is_a_clear_error(monkeypatch):
    monkeypatch.setenv(host.ENV, "avx9000")
    with pytest.raises(StrataError, match="STRATA_CPU_FEATURES='avx9000': expected one of native"):
        host.f32_lanes()


def test_features_the_host_lacks_are_refused(monkeypatch):
    monkeypatch.setattr(host, "host_flags", lambda: "fpu sse2 avx avx2 fma")
    monkeypatch.setattr(host, "_x86", lambda machine=None: True)
    monkeypatch.setenv(host.ENV, "avx512")
    with pytest.raises(StrataError, match="no avx512f"):
        host.llvm_target()


def test_forced_features_are_in_the_cache_key(monkeypatch):
    from strata.runtime import cache

    monkeypatch.delenv(host.ENV, raising=False)
    native = cache.key_parts("ir", "f", {})
    monkeypatch.setenv(host.ENV, "avx2" if _has("avx2") else "native")
    forced = cache.key_parts("ir", "f", {})
    if _has("avx2"):
        assert native["cpu"] != forced["cpu"] and forced["cpu"]["target"] == "avx2"


_SCRIPT = textwrap.dedent("""
    import subprocess, sys
    import numpy as np, strata
    import mlir.execution_engine as ee
    made = []
    real = ee.ExecutionEngine
    def spy(*a, **k):
        made.append(real(*a, **k))
        return made[-1]
    ee.ExecutionEngine = spy  # strata's Engine imports it when it makes one
    a = np.ones((100, 33), np.float32); b = np.ones((33, 70), np.float32)
    r = strata.jit(lambda x, y: x @ y, blas="never")(a, b)
    assert (r == 33).all()
    made[-1].dump_to_object_file(sys.argv[1])
""")


@pytest.mark.skipif(shutil.which("objdump") is None, reason="no objdump")
@pytest.mark.skipif(not _has("avx512f"), reason="host has no AVX-512")
@pytest.mark.parametrize("forced, zmm", [("avx2", False), ("avx512", True)])
def test_jit_code_uses_the_forced_registers(tmp_path, forced, zmm):
    obj = tmp_path / "code.o"
    env = dict(os.environ, STRATA_CPU_FEATURES=forced, STRATA_CACHE="0")
    subprocess.run([sys.executable, "-c", _SCRIPT, str(obj)], env=env, check=True,
                   timeout=300)
    text = subprocess.run(["objdump", "-d", str(obj)], capture_output=True, text=True,
                          check=True).stdout
    assert ("zmm" in text) == zmm
    assert "vfmadd" in text


_BF16_SCRIPT = textwrap.dedent("""
    import sys
    import ml_dtypes, numpy as np, strata
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (7, 33)).astype(ml_dtypes.bfloat16)
    b = rng.uniform(-1, 1, (33, 17)).astype(ml_dtypes.bfloat16)
    y = strata.jit(lambda a, b: a @ b)(a, b)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    err = float(np.max(np.abs(y.astype(np.float64) - ref)))
    print(y.dtype, err)
    sys.exit(0 if y.dtype == ml_dtypes.bfloat16 and err < 0.1 else 1)
""")


@pytest.mark.skipif(not _has("avx2"), reason="host has no AVX2")
def test_bf16_library_from_disk_in_a_new_process(tmp_path):
    """Without AVX-512 BF16 the code calls MLIR's float16 helpers (__truncsfbf2); a cached
    library must name their library itself: a new process that loads it before anything
    else loaded MLIR's runtime (the compile, then a disk hit) must find them."""
    env = dict(os.environ, STRATA_CPU_FEATURES="avx2", STRATA_CACHE_DIR=str(tmp_path))
    for what in ("compile", "disk hit"):
        run = subprocess.run([sys.executable, "-c", _BF16_SCRIPT], env=env,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, (what, run.stdout, run.stderr[-3000:])


@pytest.mark.parametrize("features", WIDTHS, indirect=True)
@pytest.mark.parametrize("mnk", THREADED_SHAPES, ids=str)
def test_matmul_f32_threaded_partial_panels(features, mnk):
    m, n, k = mnk
    rng = np.random.default_rng(m + n + k)
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    f = strata.jit(lambda a, b: a @ b, threads=2, blas="never")
    _check(f(a, b), a, b, "f32")


# x @ w.T (PyTorch's nn.Linear), x.T @ w and x.T @ w.T: strata-layout folds the transpose
# into the matmul and the packs read the operand as it is (B's N x K rows through vector
# transposes); the unpacked register tiles (few rows or columns) read it transposed
ORDERS = {"b_t": lambda x, w: x @ w.T, "a_t": lambda x, w: x.T @ w,
          "both_t": lambda x, w: x.T @ w.T}


@pytest.mark.parametrize("features", WIDTHS, indirect=True)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("mnk", [(7, 257, 33), (100, 100, 257), (257, 100, 7),
                                 (240, 192, 388), (240, 200, 387), (256, 256, 256)], ids=str)
def test_matmul_f32_transposed_operands(features, threads, order, mnk):
    m, n, k = mnk
    rng = np.random.default_rng(m + 3 * n + 7 * k)
    a = _rand(rng, (k, m) if order != "b_t" else (m, k), "f32")
    b = _rand(rng, (n, k) if order != "a_t" else (k, n), "f32")
    f = strata.jit(ORDERS[order], threads=threads, blas="never")
    x = a.T if order != "b_t" else a
    y = b.T if order != "a_t" else b
    _check(f(a, b), x, y, "f32")


@pytest.mark.parametrize("features", WIDTHS, indirect=True)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("mnk", [(96, 1024, 512), (64, 130, 70), (16, 128, 64), (48, 512, 256),
                                 (256, 1024, 1024)], ids=str)
def test_linear_layer_transposed_weight(features, threads, mnk):
    # relu(x @ w.T + b): the matmul on packed panels (w read as it is), the epilogue as
    # its own loop, or BLAS-free register tiles with a transposed copy of w (small); with
    # AVX-512 the whole-tile shapes but 64 x 130 x 70 run weight-stationary, (w @ x^T)^T
    # (passes/weight_stationary.py)
    m, n, k = mnk
    rng = np.random.default_rng(m + n + k)
    x, w, bias = _rand(rng, (m, k), "f32"), _rand(rng, (n, k), "f32"), _rand(rng, (n,), "f32")
    f = strata.jit(lambda x, w, b: strata.relu(x @ w.T + b), threads=threads, blas="never")
    _check(f(x, w, bias), x, w.T, "f32", bias=bias, relu=True)


# B packed one cache tile (256 deep x 256 wide) at a time inside the product's loops
# (strata-vectorize's stream-b): K more than one tile and N whole tiles, with rows in
# partial panels (100, 300), B as it is and transposed (x @ w.T), with the epilogue in
# C's unpack; 768 columns are 3 N tiles, which 2 threads cannot share evenly (packed
# whole there), 512 are 2 (one N tile per thread)
@pytest.mark.parametrize("features", WIDTHS, indirect=True)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("mnk", [(100, 512, 512), (72, 768, 768), (300, 256, 1024)], ids=str)
def test_matmul_f32_streamed_b(features, threads, mnk):
    m, n, k = mnk
    rng = np.random.default_rng(m + 5 * n + 3 * k)
    a, b, w = _rand(rng, (m, k), "f32"), _rand(rng, (k, n), "f32"), _rand(rng, (n, k), "f32")
    bias = _rand(rng, (n,), "f32")
    plain = strata.jit(lambda x, y: x @ y, threads=threads, blas="never")
    _check(plain(a, b), a, b, "f32")
    linear = strata.jit(lambda x, w, b: strata.relu(x @ w.T + b), threads=threads,
                        blas="never")
    _check(linear(a, w, bias), a, w.T, "f32", bias=bias, relu=True)


# At most DOT_ROWS rows against a transposed B (one token's x @ w.T, a decode step's
# q @ k.T): each output a dot product of two contiguous rows, vectorized along K in
# partial sums (strata-vectorize's dot rows); K odd, shorter than two vectors, long
@pytest.mark.parametrize("features", WIDTHS, indirect=True)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("mnk", [(1, 7, 16), (3, 300, 100), (4, 1000, 1024), (1, 4096, 4096)],
                         ids=str)
def test_dot_rows(features, threads, mnk):
    m, n, k = mnk
    rng = np.random.default_rng(m + 7 * n + k)
    x, w = _rand(rng, (m, k), "f32"), _rand(rng, (n, k), "f32")
    f = strata.jit(lambda x, w: x @ w.T, threads=threads, blas="never")
    _check(f(x, w), x, w.T, "f32")
    heads = 3
    q, keys = _rand(rng, (heads, m, k), "f32"), _rand(rng, (heads, n, k), "f32")
    g = strata.jit(lambda q, keys: (q @ strata.transpose(keys, [0, 2, 1])) * 0.5,
                   threads=threads)  # blas="auto": the cost model keeps it generated
    ref = np.einsum("hmk,hnk->hmn", q.astype(np.float64), keys.astype(np.float64)) * 0.5
    assert_close(g(q, keys), ref, "f32", reduction_length=k, ops=2,
                 magnitude=np.einsum("hmk,hnk->hmn", np.abs(q).astype(np.float64),
                                     np.abs(keys).astype(np.float64)) * 0.5)
