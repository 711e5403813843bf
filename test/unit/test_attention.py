"""strata-attention end to end: fused softmax(Q Kᵀ · scale [causal]) V against float64 numpy.

Odd and edge shapes (one query, 7, 513, head dim 1 and 63, remainder tiles),
causal or not, 1 and 2 threads, the multi-head form PyTorch's attention takes (Q, K, V
sliced from one (batch, seq, 3 x heads x dim) projection, heads split by transposes,
4-d scores; the kernel then reads Q and V and writes its output in place), both vector widths (the tile sizes and
strata-vectorize's registers for 8 and 16 f32 lanes, forced in-process), the
report, no S x S buffer once bufferized, and the cases left on the unfused path
(f16/bf16, an intermediate with another user), which must still be right.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import strata
from strata.passes.attention import AttentionPass, choose_tiles
from strata.passes.fusion.attention_kernel import AttentionShape
from strata.testing import assert_close


def causal_mask(s):
    return np.where(np.tril(np.ones((s, s), bool)), np.float32(0), np.float32(-np.inf))


def module(heads, sq, sk, d, dv=None, *, causal=False, scale=None, dtype="f32", twod=False,
           scores_out=False):
    dv = dv or d
    lead = () if twod else (heads,)
    m = strata.Module()
    f = m.function("attn", q=strata.TensorSpec(lead + (sq, d), dtype),
                   k=strata.TensorSpec(lead + (sk, d), dtype),
                   v=strata.TensorSpec(lead + (sk, dv), dtype))
    q, k, v = f.args
    s = q @ strata.transpose(k, [1, 0] if twod else [0, 2, 1])
    if scale is not None:
        s = s * scale
    if causal:
        s = s + strata.constant(causal_mask(sq).astype(np.float32))
    out = strata.softmax(s) @ v
    if scores_out:
        f.ret(out, s)
    else:
        f.ret(out)
    return m


def reference(q, k, v, scale, causal):
    s = (q.astype(np.float64) @ np.swapaxes(k, -1, -2).astype(np.float64)) * (scale or 1.0)
    if causal:
        s = s + causal_mask(s.shape[-1])
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v.astype(np.float64)


def inputs(shapes, dtype=np.float32, seed=0):
    g = np.random.default_rng(seed)
    return [g.standard_normal(s).astype(dtype) for s in shapes]


def run(heads, sq, sk, d, dv=None, *, causal=False, threads=1, twod=False, scale="auto"):
    dv = dv or d
    scale = 1.0 / math.sqrt(d) if scale == "auto" else scale
    m = module(heads, sq, sk, d, dv, causal=causal, scale=scale, twod=twod)
    lead = () if twod else (heads,)
    q, k, v = inputs([lead + (sq, d), lead + (sk, d), lead + (sk, dv)])
    fused = str(strata.compile(m, compile_to="fused", threads=threads))
    prog = strata.compile(m, threads=threads)
    out = prog(q, k, v)
    assert_close(out, reference(q, k, v, scale, causal), reduction_length=max(sk, d), ops=8)
    return fused


CASES = [  # heads, sq, d, causal; from (2, 65, 16) on large enough for threads
    (1, 1, 4, False), (2, 1, 3, True), (2, 7, 1, False), (3, 7, 5, True),
    (1, 33, 63, False), (2, 65, 16, True), (1, 513, 63, False), (2, 513, 8, True),
    (2, 513, 33, True), (1, 1100, 15, False),
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("heads,seq,d,causal", CASES)
def test_fused_numerics(heads, seq, d, causal, threads):
    fused = run(heads, seq, seq, d, causal=causal, threads=threads)
    assert "linalg.softmax" not in fused and "linalg.batch_matmul" not in fused
    parallel = 2 * heads * seq * seq * 2 * d >= AttentionPass().parallel_flops
    assert ("scf.forall" in fused) == (threads > 1 and parallel)


@pytest.mark.parametrize("causal", [False, True])
def test_two_d_and_value_dim(causal):
    fused = run(1, 40, 40, 12, 5, causal=causal, twod=True, scale=0.3)
    assert "linalg.softmax" not in fused


def test_no_scale_and_different_key_count():
    fused = run(2, 9, 300, 7, 3, scale=None)
    assert "linalg.softmax" not in fused


@pytest.mark.parametrize("lanes", [8, 16])
def test_both_vector_widths(monkeypatch, lanes):
    """The AVX2 (8 lanes) and AVX-512 (16 lanes) tile choices and register tiles,
    forced in-process whatever this machine has (the disk cache is off)."""
    import strata.passes.attention as attention
    import strata.passes.vectorize as vectorize

    monkeypatch.setenv("STRATA_CACHE", "0")
    monkeypatch.setattr(attention, "f32_lanes", lambda *a: lanes)
    monkeypatch.setattr(vectorize, "f32_lanes", lambda *a: lanes)
    run(2, 300, 300, 24, causal=True, threads=2)


def test_choose_tiles():
    shape = AttentionShape(8, 2048, 2048, 64, 64)
    assert choose_tiles(shape, 2, lanes=16, l2_bytes=1 << 20) == (64, 256)
    assert choose_tiles(shape, 2, lanes=8, l2_bytes=256 << 10) == (64, 128)
    bq, bk = choose_tiles(AttentionShape(1, 100, 100, 64, 64), 2, lanes=16, l2_bytes=1 << 20)
    assert (bq, bk) == (8, 100)  # at least 4 query tiles per thread; one key tile of all keys
    assert choose_tiles(AttentionShape(1, 1, 1, 1, 1), 1, lanes=8, l2_bytes=1 << 20) == (1, 1)


def _largest_buffer_bytes(text):
    """The largest static memref in bufferized IR, in bytes."""
    sizes = {"f32": 4, "f16": 2, "bf16": 2, "i8": 1, "i32": 4, "i64": 8}
    best = 0
    for dims, elt in re.findall(r"memref<((?:\d+x)+)(f32|f16|bf16|i8|i32|i64)", text):
        best = max(best, math.prod(int(x) for x in dims.rstrip("x").split("x")) * sizes[elt])
    return best


def test_long_case_has_no_scores_buffer():
    """8 x 2048 x 64: nothing as large as one head's 2048 x 2048 scores is allocated."""
    m = module(8, 2048, 2048, 64, scale=0.125)
    text = str(strata.compile(m, compile_to="bufferized", threads=2))
    assert "2048x2048" not in text
    assert _largest_buffer_bytes(text) < 2048 * 2048 * 4
    unfused = str(strata.compile(m, compile_to="bufferized", threads=2, fusion=False))
    assert _largest_buffer_bytes(unfused) >= 8 * 2048 * 2048 * 4  # the check can fail


def test_report():
    def attn(q, k, v):
        return strata.softmax((q @ strata.transpose(k, [0, 2, 1])) * 0.25) @ v

    f = strata.jit(attn, threads=2)
    q, k, v = inputs([(2, 16, 8)] * 3)
    assert_close(f(q, k, v), reference(q, k, v, 0.25, False), reduction_length=16, ops=8)
    report = "\n".join(f.stats.fusion_report)
    assert "strata-attention: fused 2x16x16 attention (head dim 8, scale 0.25)" in report
    assert "no 16x16 scores in memory" in report


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_half_types_stay_unfused_and_right(dtype):
    import ml_dtypes

    def attn(q, k, v):
        return strata.softmax((q @ strata.transpose(k, [0, 2, 1])) * 0.5) @ v

    f = strata.jit(attn)
    npd = np.float16 if dtype == "f16" else ml_dtypes.bfloat16
    q, k, v = inputs([(2, 9, 4)] * 3, dtype=npd)
    out = f(q, k, v)
    report = "\n".join(f.stats.fusion_report)
    # f16/bf16 scores are widened to f32 around the softmax (casts between the ops):
    # no candidate for strata-attention, which fuses f32 only
    assert "strata-attention: fused" not in report
    assert_close(out, reference(q, k, v, 0.5, False), reduction_length=9, ops=8)


def test_extra_user_stays_unfused_and_right():
    def attn(q, k, v):
        s = (q @ strata.transpose(k, [0, 2, 1])) * 0.5
        return strata.softmax(s) @ v, s

    f = strata.jit(attn)
    q, k, v = inputs([(2, 6, 4)] * 3)
    out, s = f(q, k, v)
    assert "strata-attention: not fused: the scaled or masked scores has 2 users" in "\n".join(f.stats.fusion_report)
    assert_close(out, reference(q, k, v, 0.5, False), reduction_length=6, ops=8)
    assert_close(s, (q.astype(np.float64) @ np.swapaxes(k, -1, -2)) * 0.5, reduction_length=4)


def multi_head(x, nh, d, *, scale, causal=False, merge_output=True, split_q=True):
    """PyTorch's multi-head attention on ``x`` (B, S, 3 * nh * d), as its decomposition
    reaches strata: Q, K, V sliced, heads split by transposes, 4-d scores and softmax."""
    b, s = x.shape[0], x.shape[1]
    w = nh * d

    def heads(i, perm):
        part = x[:, :, i * w:(i + 1) * w].reshape((b, s, nh, d))
        return strata.transpose(part, perm)

    q = heads(0, [0, 2, 1, 3]).reshape((b * nh, s, d)) if split_q else \
        x[:, :, 0:w].reshape((b * nh, s, d))  # not a view of x's heads: read as is
    kt = heads(1, [0, 2, 3, 1]).reshape((b * nh, d, s))
    v = heads(2, [0, 2, 1, 3]).reshape((b * nh, s, d))
    scores = (q @ kt).reshape((b, nh, s, s)) * scale
    if causal:
        scores = scores + strata.constant(causal_mask(s))
    p = strata.softmax(scores).reshape((b * nh, s, s))
    out = p @ v
    if not merge_output:
        return out
    return strata.transpose(out.reshape((b, nh, s, d)), [0, 2, 1, 3]).reshape((b, s, w))


def multi_head_reference(x, nh, d, *, scale, causal=False, merge_output=True, split_q=True):
    b, s = x.shape[0], x.shape[1]
    w = nh * d
    x64 = x.astype(np.float64)

    def heads(i):
        return x64[:, :, i * w:(i + 1) * w].reshape(b, s, nh, d).transpose(0, 2, 1, 3) \
            .reshape(b * nh, s, d)

    q = heads(0) if split_q else x64[:, :, :w].reshape(b * nh, s, d)
    out = reference(q, heads(1), heads(2), scale, causal)
    if not merge_output:
        return out
    return out.reshape(b, nh, s, d).transpose(0, 2, 1, 3).reshape(b, s, w)


MULTI_HEAD = [  # batch, seq, heads, head dim, causal
    (1, 1, 1, 1, False), (3, 7, 5, 3, True), (2, 65, 4, 16, False), (1, 33, 3, 40, True),
    (2, 64, 8, 32, False),
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("b,seq,nh,d,causal", MULTI_HEAD)
def test_multi_head_form_reads_and_writes_in_place(b, seq, nh, d, causal, threads):
    """Fused with Q, V and the output where the projections keep them: no softmax, no
    batch matmul and no head-splitting transpose left but K's."""
    scale = 1.0 / math.sqrt(d)
    (x,) = inputs([(b, seq, 3 * nh * d)])
    m = strata.Module()
    f = m.function("mha", x=strata.TensorSpec(x.shape))
    f.ret(multi_head(f.args[0], nh, d, scale=scale, causal=causal))
    fused = str(strata.compile(m, compile_to="fused", threads=threads))
    if (b, seq, nh, d) != (1, 1, 1, 1):  # all unit dims: the reshapes fold other ways; unfused
        assert "linalg.softmax" not in fused and "linalg.batch_matmul" not in fused
        assert "permutation = [0, 2, 1, 3]" not in fused
        assert f"tensor<{b}x{seq}x{nh}x{d}xf32> to tensor<" in fused  # Q, V tiles in place
    out = strata.compile(m, threads=threads)(x)
    assert_close(out, multi_head_reference(x, nh, d, scale=scale, causal=causal),
                 reduction_length=max(seq, d), ops=8)


@pytest.mark.parametrize("merge_output,split_q", [(False, True), (True, False)])
def test_multi_head_form_in_part(merge_output, split_q):
    """Only some of Q, V and the output are head-split views: those are read or written in
    place, the others as heads-first tensors."""
    b, seq, nh, d = 2, 9, 3, 4
    (x,) = inputs([(b, seq, 3 * nh * d)])
    m = strata.Module()
    f = m.function("mha", x=strata.TensorSpec(x.shape))
    f.ret(multi_head(f.args[0], nh, d, scale=0.5, merge_output=merge_output, split_q=split_q))
    fused = str(strata.compile(m, compile_to="fused", threads=2))
    assert "linalg.softmax" not in fused
    out = strata.compile(m, threads=2)(x)
    assert_close(out, multi_head_reference(x, nh, d, scale=0.5, merge_output=merge_output,
                                           split_q=split_q), reduction_length=seq, ops=8)


def masked_reference(q, k, v, scale, keep):
    """float64 softmax(q kᵀ · scale, -inf where not ``keep``) v; a row that keeps no key is
    NaN (0 / 0), as numpy's and PyTorch's softmax of all -inf is."""
    s = (q.astype(np.float64) @ np.swapaxes(k, -1, -2).astype(np.float64)) * scale
    s = np.where(keep, s, -np.inf)
    with np.errstate(invalid="ignore"):
        p = np.exp(s - s.max(-1, keepdims=True))
        return (p / p.sum(-1, keepdims=True)) @ v.astype(np.float64)


MASKS = {  # SQ x SK -> the keys each query keeps
    "causal": lambda sq, sk: np.tril(np.ones((sq, sk), bool)),
    "padding": lambda sq, sk: np.broadcast_to(np.arange(sk) < sk - sk // 3, (sq, sk)),
    "random": lambda sq, sk: np.random.default_rng(1).random((sq, sk)) < 0.6,
    "first-tile-masked": lambda sq, sk: np.broadcast_to(np.arange(sk) >= min(sk - 1, 20),
                                                        (sq, sk)),
}


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("kind", list(MASKS))
@pytest.mark.parametrize("heads,seq,d,as_bool,keep_where_true", [
    (2, 7, 5, True, True), (3, 33, 8, False, True), (2, 70, 16, True, False)])
def test_runtime_mask(heads, seq, d, as_bool, keep_where_true, kind, threads):
    """A mask given at run time (PyTorch's ``masked_fill(~mask, -inf)`` of a buffer), as a
    bool or an integer tensor, either polarity: fused with the mask as a kernel input.
    Rows whose first key tiles are all masked ("first-tile-masked", 16-key tiles) must not
    turn to NaN."""
    keep = MASKS[kind](seq, seq)
    scale = 1.0 / math.sqrt(d)
    m = strata.Module()
    given = keep if keep_where_true else ~keep
    mask_spec = strata.TensorSpec((seq, seq), "i1" if as_bool else "i32")
    f = m.function("attn", q=strata.TensorSpec((heads, seq, d)),
                   k=strata.TensorSpec((heads, seq, d)), v=strata.TensorSpec((heads, seq, d)),
                   mask=mask_spec)
    q, k, v, mask = f.args
    s = (q @ strata.transpose(k, [0, 2, 1])) * scale
    cond = mask if as_bool else (mask != 0)
    ninf = strata.constant(np.array(-np.inf, np.float32))
    s = strata.where(cond, s, ninf) if keep_where_true else strata.where(cond, ninf, s)
    f.ret(strata.softmax(s) @ v)
    fused = str(strata.compile(m, compile_to="fused", threads=threads))
    assert "linalg.softmax" not in fused and "linalg.batch_matmul" not in fused
    qa, ka, va = inputs([(heads, seq, d)] * 3)
    mask_arg = given if as_bool else given.astype(np.int32)
    prog = strata.compile(m, threads=threads)
    out = prog(qa, ka, va, mask_arg)
    assert_close(out, masked_reference(qa, ka, va, scale, keep), reduction_length=max(seq, d),
                 ops=8)


def test_runtime_mask_with_tiles_past_first(monkeypatch):
    """Small key tiles (block-k 4) so that rows see nothing in several tiles before their
    first kept key; the guards keep every such tile from adding NaN."""
    import strata.passes.attention as attention

    monkeypatch.setenv("STRATA_CACHE", "0")
    monkeypatch.setattr(attention, "choose_tiles", lambda shape, threads: (4, 4))
    heads, seq, d = 2, 19, 4
    keep = np.zeros((seq, seq), bool)
    keep[:, -3:] = True  # only the last 3 keys: 4 whole tiles of nothing first
    m = strata.Module()
    f = m.function("attn", q=strata.TensorSpec((heads, seq, d)),
                   k=strata.TensorSpec((heads, seq, d)), v=strata.TensorSpec((heads, seq, d)),
                   mask=strata.TensorSpec((seq, seq), "i1"))
    q, k, v, mask = f.args
    s = q @ strata.transpose(k, [0, 2, 1])
    f.ret(strata.softmax(strata.where(mask, s, strata.constant(np.array(-np.inf, np.float32))))
          @ v)
    assert "linalg.softmax" not in str(strata.compile(m, compile_to="fused"))
    qa, ka, va = inputs([(heads, seq, d)] * 3)
    out = strata.compile(m)(qa, ka, va, keep)
    assert not np.isnan(out).any()
    assert_close(out, masked_reference(qa, ka, va, 1.0, keep), reduction_length=seq, ops=8)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("sq", [1, 4])
def test_decode_step_runs_unfused_as_dot_products(sq, threads):
    # a decode step (few queries against many keys) is left to the unfused path: its
    # scores are dot products of K's rows, no transposed copy of K
    heads, sk, d = 4, 300, 64
    fused = run(heads, sq, sk, d, threads=threads)
    # the two matmuls are still there (the softmax is strata-row-kernels' by now); K's
    # transpose too, for strata-layout to fold into the scores' matmul
    assert fused.count("linalg.batch_matmul") == 2 and "linalg.transpose" in fused
