"""strata-attention on both vector widths, forced with ``STRATA_CPU_FEATURES``.

Each case runs once with the AVX-512 feature set (16 f32 lanes: its key tiles and
zmm register tiles) and once with AVX2 (8 lanes, ymm only), so both code paths
run on an AVX-512 host; an AVX2-only host runs the AVX2 half and skips the other.
Odd shapes: sequence lengths that are not a multiple of any tile (remainder query
and key tiles), head dim 80 (not a power of two: 5 vectors of 16, 10 of 8), a
value dim different from the head dim, causal or not, 1 and 2 threads; f16 and
bf16 (left on the unfused path, computed in f32 between casts) must be right
too. Against a float64 numpy reference. Also: the fused kernel's tile matmuls
stay generated code even with ``blas="always"`` (a BLAS call per tile would nest
OpenBLAS's threads inside the kernel's ``scf.forall``).
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from test_attention import causal_mask, inputs, module, reference

import strata
from strata.codegen import host
from strata.testing import assert_close


def _has(flag: str) -> bool:
    return flag in host.host_flags().split()


WIDTHS = [
    pytest.param("avx512", marks=pytest.mark.skipif(not _has("avx512f"),
                                                    reason="host has no AVX-512")),
    pytest.param("avx2", marks=pytest.mark.skipif(not _has("avx2"),
                                                  reason="host has no AVX2")),
]


@pytest.fixture
def features(request, monkeypatch):
    monkeypatch.setenv(host.ENV, request.param)
    monkeypatch.setenv("STRATA_CACHE", "0")
    return request.param


# heads, sq, sk, d, dv, causal, threads: the 2-thread cases pass parallel-flops (2^25)
CASES = [
    (1, 1, 1, 80, 80, False, 1),
    (2, 37, 37, 80, 80, True, 1),
    (3, 300, 300, 80, 80, True, 2),     # 300 = 256 + 44 keys; 300 = 4 x 64 + 44 queries
    (2, 300, 300, 80, 80, False, 2),
    (2, 129, 263, 80, 24, False, 1),    # more keys than queries, value dim 24
    (1, 517, 517, 33, 33, True, 2),     # odd head dim, remainder tiles both ways
]


@pytest.mark.parametrize("features", WIDTHS, indirect=True)
@pytest.mark.parametrize("heads,sq,sk,d,dv,causal,threads", CASES, ids=str)
def test_fused_odd_shapes(features, heads, sq, sk, d, dv, causal, threads):
    scale = 1.0 / math.sqrt(d)
    m = module(heads, sq, sk, d, dv, causal=causal, scale=scale)
    fused = str(strata.compile(m, compile_to="fused", threads=threads))
    assert "linalg.softmax" not in fused and "linalg.batch_matmul" not in fused
    q, k, v = inputs([(heads, sq, d), (heads, sk, d), (heads, sk, dv)], seed=sq)
    out = strata.compile(m, threads=threads)(q, k, v)
    assert_close(out, reference(q, k, v, scale, causal), reduction_length=max(sk, d), ops=8,
                 what=f"{features} {heads}x{sq}x{sk}x{d}x{dv}")


@pytest.mark.parametrize("features", WIDTHS, indirect=True)
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("causal", [False, True])
def test_half_types(features, dtype, causal):
    npd = np.float16 if dtype == "f16" else ml_dtypes.bfloat16
    heads, s, d = 2, 45, 80
    scale = 1.0 / math.sqrt(d)
    mask = causal_mask(s).astype(npd)

    def attn(q, k, v):
        x = (q @ strata.transpose(k, [0, 2, 1])) * scale
        if causal:
            x = x + strata.constant(mask)
        return strata.softmax(x) @ v

    q, k, v = inputs([(heads, s, d)] * 3, dtype=npd, seed=7)
    out = strata.jit(attn)(q, k, v)
    assert out.dtype == npd
    assert_close(out, reference(q, k, v, scale, causal), reduction_length=max(s, d),
                 ops=8, what=f"{features} {dtype}")


@pytest.mark.parametrize("threads", [1, 2])
def test_tiles_never_call_blas(threads):
    m = module(2, 300, 300, 64, scale=0.125)
    text = str(strata.compile(m, compile_to="bufferized", threads=threads, blas="always"))
    assert "scf.for" in text or "scf.forall" in text
    assert "sgemm" not in text
    q, k, v = inputs([(2, 300, 64)] * 3)
    out = strata.compile(m, threads=threads, blas="always")(q, k, v)
    assert_close(out, reference(q, k, v, 0.125, False), reduction_length=300, ops=8)


def test_nan_in_a_row_propagates():
    """A NaN score makes its row NaN (the row max's reduction must not hide it: the
    exponentials and the row sum carry it); other rows stay finite and right."""
    m = module(1, 40, 40, 16, scale=0.25)
    q, k, v = inputs([(1, 40, 16)] * 3)
    q[0, 3, 5] = np.nan
    out = strata.compile(m)(q, k, v)
    assert np.isnan(out[0, 3]).all()
    good = np.ones(40, bool)
    good[3] = False
    ref = reference(q, k, v, 0.25, False)
    assert_close(out[0, good], ref[0, good], reduction_length=40, ops=8)
