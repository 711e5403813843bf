"""Generated code or numpy's OpenBLAS for matmuls (strata-fuse blas=..., strata-blas).

Both paths are forced (``blas="always"`` / ``"never"``) on odd and edge shapes,
with 1 and 2 threads, through the JIT (``STRATA_CACHE=0``) and through the
shared libraries of the disk cache and of ``export_library``, and compared with
float64 numpy. ``blas="auto"`` is checked for what the cost model reports.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import strata
from strata.runtime import aot
from strata.runtime import blas as rblas
from strata.testing import assert_close

pytestmark = pytest.mark.skipif(rblas.library() is None,
                                reason="numpy ships no OpenBLAS (libscipy_openblas64_) here")

SHAPES = [(1, 1, 1), (7, 33, 4096), (300, 300, 300), (5, 1, 9), (1, 17, 3), (33, 65, 17)]


def _rand(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def _check_matmul(y, a, b, what=""):
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    assert_close(y, a64 @ b64, reduction_length=a.shape[-1],
                 magnitude=np.abs(a64) @ np.abs(b64), what=what)


@pytest.fixture(params=["jit", "aot"])
def path(request, monkeypatch):
    """The JIT (no disk cache) or a cached shared library (linked against OpenBLAS)."""
    if request.param == "jit":
        monkeypatch.setenv("STRATA_CACHE", "0")
    elif not aot.available():
        pytest.skip("no C compiler driver (cc)")
    return request.param


@pytest.mark.parametrize("blas", ["always", "never"])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("m,n,k", SHAPES)
def test_matmul_both_paths_match_numpy(path, blas, threads, m, n, k):
    rng = np.random.default_rng(m * 7 + n * 3 + k)
    a, b = _rand(rng, m, k), _rand(rng, k, n)
    f = strata.jit(lambda x, y: x @ y, blas=blas, threads=threads)
    _check_matmul(f(a, b), a, b, f"{path} blas={blas} threads={threads} {m}x{n}x{k}")
    report = "\n".join(f.stats.fusion_report)
    if blas == "always":
        assert "BLAS sgemm for linalg.matmul at " in report and "blas=always" in report, report
    else:
        assert "BLAS" not in report, report


@pytest.mark.parametrize("blas", ["always", "never"])
def test_epilogue_stays_a_loop_after_the_call(path, blas):
    rng = np.random.default_rng(1)
    x, w, b = _rand(rng, 37, 70), _rand(rng, 70, 45), _rand(rng, 45)
    f = strata.jit(lambda x, w, b: strata.relu(x @ w + b), blas=blas)
    y = f(x, w, b)
    ref = np.maximum(x.astype(np.float64) @ w + b, 0.0)
    assert_close(y, ref, reduction_length=70, ops=2,
                 magnitude=np.abs(x).astype(np.float64) @ np.abs(w) + np.abs(b))
    report = "\n".join(f.stats.fusion_report)
    if blas == "always":
        assert re.search(r"its epilogue linalg\.generic at \S+ runs as its own loop", report), report
        assert "tiled linalg.generic" not in report, report
    else:
        assert "tiled linalg.generic" in report, report


def test_threads_agree_to_rounding(path):
    """Unlike generated code, OpenBLAS blocks K differently in its threaded and sequential
    drivers: 1 and 2 threads agree to rounding, not bit for bit (measured)."""
    rng = np.random.default_rng(2)
    a, b = _rand(rng, 300, 513), _rand(rng, 513, 260)
    one = strata.jit(lambda x, y: x @ y, blas="always", threads=1)(a, b)
    two = strata.jit(lambda x, y: x @ y, blas="always", threads=2)(a, b)
    _check_matmul(one, a, b, "threads=1")
    _check_matmul(two, a, b, "threads=2")
    # the same call again gives the same bits
    np.testing.assert_array_equal(two, strata.jit(lambda x, y: x @ y, blas="always",
                                                  threads=2)(a, b))


def test_numpys_thread_count_is_restored():
    lib = ctypes.CDLL(rblas.library())
    before = lib.scipy_openblas_get_num_threads64_()
    try:
        lib.scipy_openblas_set_num_threads64_(1)
        rng = np.random.default_rng(3)
        a, b = _rand(rng, 64, 64), _rand(rng, 64, 64)
        f = strata.jit(lambda x, y: x @ y, blas="always", threads=2)
        f(a, b)
        assert lib.scipy_openblas_get_num_threads64_() == 1
    finally:
        lib.scipy_openblas_set_num_threads64_(before)


@pytest.mark.parametrize("case", ["b_transposed", "a_transposed", "both_transposed"])
def test_transposed_operands_become_cblas_arguments(path, case):
    """strata-layout folds a transpose into the matmul's maps; the call passes Trans (112)."""
    rng = np.random.default_rng(4)
    a, b = _rand(rng, 23, 41), _rand(rng, 41, 19)
    fn, args = {
        "b_transposed": (lambda x, wt: x @ wt.T, (a, np.ascontiguousarray(b.T))),
        "a_transposed": (lambda xt, w: xt.T @ w, (np.ascontiguousarray(a.T), b)),
        "both_transposed": (lambda xt, wt: xt.T @ wt.T,
                            (np.ascontiguousarray(a.T), np.ascontiguousarray(b.T))),
    }[case]
    bufferized = str(strata.compile(fn, *args, blas="always", compile_to="bufferized").mlir)
    assert "call @scipy_cblas_sgemm64_" in bufferized and "linalg.matmul" not in bufferized
    assert "arith.constant 112 : i32" in bufferized, bufferized
    _check_matmul(strata.jit(fn, blas="always")(*args), a, b, case)


def test_batch_and_folded_batch_matmuls(path):
    rng = np.random.default_rng(5)
    a, b = _rand(rng, 3, 7, 5), _rand(rng, 3, 5, 9)
    _check_matmul(strata.jit(lambda x, y: x @ y, blas="always")(a, b), a, b, "batch")
    c, d = _rand(rng, 2, 3, 4, 5), _rand(rng, 5, 6)  # [..., M, K] @ [K, N]: one matmul
    _check_matmul(strata.jit(lambda x, y: x @ y, blas="always")(c, d), c, d, "folded")


def test_sliced_operands(path):
    """A row slice is a view at an offset (pointer + 4 x offset); a strided column slice
    has two non-unit strides and is copied before the call."""
    rng = np.random.default_rng(6)
    x, w = _rand(rng, 20, 30), _rand(rng, 15, 11)
    rows = strata.jit(lambda x, w: x[3:18, ::2] @ w, blas="always")(x, w)
    _check_matmul(rows, x[3:18, ::2], w)
    cols = strata.jit(lambda x, w: x[1:, 5:20] @ w, blas="always")(x, w)
    _check_matmul(cols, x[1:, 5:20], w)


def test_auto_reports_its_choice_with_predicted_costs():
    rng = np.random.default_rng(7)
    small = strata.jit(lambda x, y: x @ y, threads=1)
    small(_rand(rng, 8, 8), _rand(rng, 8, 8))
    # a large matmul with an epilogue: generated code on packed panels, the epilogue as its
    # own loop (tiling it into the matmul would keep the panels out)
    big = strata.jit(lambda x, y: strata.relu(x @ y), threads=1)
    big(_rand(rng, 192, 1024), _rand(rng, 1024, 1024))
    # a transposed weight (nn.Linear): the packs read it as it is, as a BLAS call would
    linear = strata.jit(lambda x, y: strata.relu(x @ y.T), threads=1)
    linear(_rand(rng, 96, 512), _rand(rng, 1024, 512))
    pattern = (r"remark: strata-fuse: \[[0-9a-f]+\] {} linalg\.matmul at \S+ \({}; the cost "
               r"model\): predicted BLAS [0-9.]+ [mu]s, generated [0-9.]+ [mu]s")
    assert re.search(pattern.format("generated code for", "8x8x8"),
                     "\n".join(small.stats.fusion_report)), small.stats.fusion_report
    report = "\n".join(big.stats.fusion_report)
    assert re.search(pattern.format("generated code for", "192x1024x1024") +
                     r"; its epilogue linalg\.generic at \S+ runs as its own loop", report), report
    assert re.search(r"not tiling linalg\.generic at \S+ with linalg\.matmul at \S+: the matmul "
                     r"runs on packed panels and the epilogue as its own loop \(predicted "
                     r"[0-9.]+ ms; tiled together [0-9.]+ ms\)", report), report
    assert re.search(pattern.format("generated code for", "96x1024x512") +
                     r"; its epilogue linalg\.generic at \S+ runs as its own loop",
                     "\n".join(linear.stats.fusion_report)), linear.stats.fusion_report


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("lanes", [8, 16])
def test_cost_model_prices_a_transposed_operand_only_where_it_is_copied(threads, lanes):
    from strata.passes.fusion.blas import TRANSPOSE_BW, estimate

    m, n, k = 96, 1024, 512
    plain = estimate(1, m, n, k, epilogue=True, threads=threads, lanes=lanes)
    linear = estimate(1, m, n, k, epilogue=True, threads=threads, lanes=lanes,
                      transposed=n * k)
    # whole panels: packed (the pack reads the transposed rows), the epilogue its own loop,
    # at the cost of the untransposed op's packed way
    assert linear.unfuse and not linear.blas_wins, linear
    unfused = estimate(1, m, n, k, epilogue=False, threads=threads, lanes=lanes)
    assert linear.generated_us <= plain.generated_us
    assert linear.generated_us > unfused.generated_us  # the epilogue's trip through memory
    # a partial panel (N = 1000): the tiled epilogue reads the weight through a copy
    odd = estimate(1, m, 1000, k, epilogue=True, threads=threads, lanes=lanes,
                   transposed=1000 * k)
    odd_plain = estimate(1, m, 1000, k, epilogue=True, threads=threads, lanes=lanes)
    assert not odd.unfuse and odd.blas_wins, odd
    assert odd.generated_us == pytest.approx(odd_plain.generated_us + 8.0 * 1000 * k /
                                             TRANSPOSE_BW)
    # without an epilogue the packed op folds the transpose in: no copy to pay
    bare = estimate(1, m, n, k, epilogue=False, threads=threads, lanes=lanes,
                    transposed=n * k)
    assert bare.generated_us == unfused.generated_us


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("lanes", [8, 16])
def test_cost_model_keeps_the_packed_kernel_for_large_plain_matmuls(threads, lanes):
    from strata.passes.fusion.blas import estimate

    for m, n, k in [(256, 256, 256), (1024, 1024, 1024), (256, 1024, 1024), (2048, 2048, 2048)]:
        cost = estimate(1, m, n, k, epilogue=False, threads=threads, lanes=lanes)
        assert not cost.blas_wins, (m, n, k, cost)
        # within 25% of each other either way: both run near the FMA peak
        assert 0.75 < cost.blas_us / cost.generated_us < 1.25, (m, n, k, cost)
    # an epilogue: generated code keeps its packed panels and runs the epilogue after them
    # (tiling it in would keep the matmul unpacked, where BLAS wins out of cache)
    # (M = 1152: whole panels of 8 rows with AVX-512 and of 6 with AVX2)
    cost = estimate(1, 1152, 1024, 1024, epilogue=True, threads=threads, lanes=lanes)
    assert cost.unfuse and not cost.blas_wins, cost
    plain = estimate(1, 1152, 1024, 1024, epilogue=False, threads=threads, lanes=lanes)
    assert cost.generated_us > plain.generated_us  # the epilogue's extra trip through memory
    for unpackable in (estimate(1, 1152, 1024, 1024, epilogue=True, threads=threads,
                                lanes=lanes, packable=False),
                       estimate(1, 1152, 1000, 1024, epilogue=True, threads=threads,
                                lanes=lanes)):  # N = 1000: a partial panel
        assert not unpackable.unfuse and unpackable.blas_wins, unpackable
    # a small matmul keeps its epilogue tiled in
    assert not estimate(1, 8, 16, 8, epilogue=True, threads=threads, lanes=lanes).unfuse
    # a few rows against a large weight: generated (OpenBLAS packs the whole weight)
    assert not estimate(1, 4, 1024, 1024, epilogue=False, threads=threads,
                        lanes=lanes).blas_wins


def test_measure_times_both_ways():
    rng = np.random.default_rng(8)
    a, b = _rand(rng, 192, 160), _rand(rng, 160, 128)
    f = strata.jit(lambda x, y: x @ y, fusion="measure", threads=1)
    _check_matmul(f(a, b), a, b)
    measured = [r for r in f.stats.fusion_report if r.startswith("strata-fuse measure:")]
    assert len(measured) == 1, f.stats.fusion_report
    assert re.match(r"strata-fuse measure: \[[0-9a-f]+\] predicted (BLAS|generated) \(BLAS "
                    r"[0-9.]+ [mu]s, generated [0-9.]+ [mu]s\); measured BLAS [0-9.]+ us, "
                    r"generated [0-9.]+ us -> (BLAS|generated)", measured[0]), measured[0]


def test_cache_key_names_the_library(tmp_path, monkeypatch):
    if not aot.available():
        pytest.skip("no C compiler driver (cc)")
    monkeypatch.setenv("STRATA_CACHE_DIR", str(tmp_path))
    rng = np.random.default_rng(9)
    a, b = _rand(rng, 16, 16), _rand(rng, 16, 16)
    for blas in ("always", "never"):
        strata.jit(lambda x, y: x @ y, blas=blas)(a, b)
    keys = [json.load(open(tmp_path / e / "meta.json"))["key"]["options"]
            for e in os.listdir(tmp_path) if (tmp_path / e / "meta.json").exists()]
    assert len(keys) == 2, keys
    with_blas = [k for k in keys if k.get("blas") == "always"]
    assert with_blas and with_blas[0]["blas_library"] == rblas.identity(), keys
    assert os.path.basename(rblas.library()) in rblas.identity()
    assert [k for k in keys if "blas" not in k], keys


def test_exported_library_links_openblas(tmp_path):
    if not aot.available():
        pytest.skip("no C compiler driver (cc)")
    rng = np.random.default_rng(10)
    x, w = _rand(rng, 40, 50), _rand(rng, 50, 30)
    lib = tmp_path / "mm.so"
    header = strata.export_library(lambda x, w: x @ w, x, w, path=str(lib), blas="always")
    assert os.path.basename(rblas.library()) in open(header).read()
    # Loaded in a fresh process that never imported numpy: the rpath finds OpenBLAS.
    script = (
        "import ctypes, sys\n"
        f"lib = ctypes.CDLL({str(lib)!r})\n"
        "assert 'numpy' not in sys.modules\n"
        "print('loaded')\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0 and "loaded" in out.stdout, out.stderr
    plain = tmp_path / "plain.so"
    header = strata.export_library(lambda x, w: x @ w, x, w, path=str(plain))
    assert "OpenBLAS" not in open(header).read()


def test_exported_library_runs(tmp_path):
    if not aot.available():
        pytest.skip("no C compiler driver (cc)")

    def mm(x, w):
        return x @ w

    rng = np.random.default_rng(11)
    x, w = _rand(rng, 40, 50), _rand(rng, 50, 30)
    lib = tmp_path / "mm.so"
    strata.export_library(mm, x, w, path=str(lib), blas="always")
    kernel = aot.SharedLibrary(str(lib)).kernel("mm", [(40, 50), (50, 30), (40, 30)])
    y = np.empty((40, 30), np.float32)
    kernel([x, w, y])
    _check_matmul(y, x, w)


def test_modes_are_checked(monkeypatch):
    with pytest.raises(strata.StrataError, match=r"unknown blas mode 'sometimes' \(modes: auto, "
                       r"always, never\)"):
        strata.jit(lambda x: x, blas="sometimes")
    monkeypatch.setattr(rblas, "library", lambda: None)
    assert rblas.resolve_mode("auto", "<test>") == "never"
    with pytest.raises(strata.StrataError, match="blas='always' needs the OpenBLAS numpy ships"):
        strata.jit(lambda x: x, blas="always")
