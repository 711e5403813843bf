"""Row kernels (strata-row-kernels, strata-row-fuse) and split elementwise chains vs float64.

softmax, log(softmax) (the log-softmax kernel), layer_norm, an rms_norm written
from strata ops and the elementwise chain, on odd row lengths (the masked last
step, rows shorter than a vector), rows of -inf and large values, f16/bf16,
threads 1 and 2, and both vector widths: the AVX2 width (8 lanes) is forced on
any host by patching ``f32_lanes`` where the passes read it, with the disk
cache off so that nothing compiled for another width is reused.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import strata
from strata.passes import parallelize, row_fuse, row_kernels
from strata.testing import assert_close

NP = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}
LENGTHS = [1, 3, 17, 4097]


@pytest.fixture(params=[8, 16], ids=["avx2", "avx512"])
def lanes(request, monkeypatch):
    monkeypatch.setenv("STRATA_CACHE", "0")
    for module in (row_kernels, row_fuse, parallelize):
        monkeypatch.setattr(module, "f32_lanes", lambda: request.param)
    return request.param


def softmax_ref(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def log_softmax_ref(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def layer_norm_ref(x, g, b, eps=1e-5):
    m = x.mean(-1, keepdims=True)
    return (x - m) / np.sqrt(((x - m) ** 2).mean(-1, keepdims=True) + eps) * g + b


def rms_norm_ref(x, g):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * g


def _jit(threads):
    log_softmax = strata.jit(lambda x: strata.log(strata.softmax(x, axis=-1)), threads=threads)
    plain = strata.jit(lambda x: strata.softmax(x, axis=-1), threads=threads)

    def softmax(x):
        # two functions: in one, the shared softmax would have two users (no log kernel)
        return plain(x), log_softmax(x)

    def norms(x, g, b):
        rms = x * strata.rsqrt(strata.mean(x * x, axis=-1, keepdims=True) + 1e-6) * g
        return strata.layer_norm(x, g, b), rms

    return softmax, strata.jit(norms, threads=threads)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n", LENGTHS)
def test_rows_f32(n, threads, lanes):
    rng = np.random.default_rng(n)
    rows = 5 if n > 100 else 300  # with threads=2, enough elements to run the rows on threads
    x = (rng.standard_normal((rows, n)) * 4 + 3).astype(np.float32)
    g = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    softmax, norms = _jit(threads)
    xd = x.astype(np.float64)
    s, ls = softmax(x)
    assert_close(s, softmax_ref(xd), "f32", reduction_length=n, ops=4, what="softmax")
    assert_close(ls, log_softmax_ref(xd), "f32", reduction_length=n, ops=4,
                 magnitude=np.abs(xd) + 1, what="log_softmax")
    ln, rms = norms(x, g, b)
    assert_close(ln, layer_norm_ref(xd, g, b), "f32", reduction_length=n, ops=6,
                 magnitude=np.abs(g) * 4 + np.abs(b), what="layer_norm")
    assert_close(rms, rms_norm_ref(xd, g), "f32", reduction_length=n, ops=5,
                 magnitude=np.abs(g) * 4, what="rms_norm")


def _edge_rows(n=37):
    x = np.random.default_rng(0).standard_normal((6, n)).astype(np.float32)
    x[0] = -np.inf                      # all -inf: NaN, as in float64
    x[1, 5] = -np.inf                   # one -inf: exactly 0 there
    x[2] *= 1e30                        # huge values: still one max per row
    x[3] = 88.0                         # exp would overflow without the max shift
    x[4, :] = -1e30
    x[4, 7] = 0.0                       # one finite, the rest far below: a one-hot
    x[5, 3] = np.nan                    # NaN propagates to the row
    return x


def _check_edge_rows(x, s, ls):
    n = x.shape[-1]
    with np.errstate(invalid="ignore"):
        xd = x.astype(np.float64)
        ref, lref = softmax_ref(xd), log_softmax_ref(xd)
    assert np.isnan(s[0]).all() and np.isnan(s[5]).all()
    assert np.isnan(ls[0]).all() and np.isnan(ls[5]).all()
    assert s[1, 5] == 0.0 and ls[1, 5] == -np.inf
    assert s[4, 7] == 1.0 and ls[4, 7] == 0.0
    assert_close(s[1:5], ref[1:5], "f32", reduction_length=n, ops=4, what="softmax")
    finite = np.isfinite(lref[1:5])
    assert_close(ls[1:5][finite], lref[1:5][finite], "f32", reduction_length=n, ops=4,
                 magnitude=np.abs(xd[1:5][finite]) + 1, what="log_softmax")


@pytest.mark.parametrize("threads", [1, 2])
def test_softmax_edge_rows(threads, lanes):
    x = _edge_rows()
    softmax, _ = _jit(threads)
    _check_edge_rows(x, *softmax(x))


@pytest.mark.parametrize("threads", [1, 2])
def test_softmax_from_ops_edge_rows(threads, lanes):
    """Written from ops, exp(x - max(x)) takes the non-positive expansion
    (passes/nonpositive_exps.py): the same NaN, -inf, one-hot and overflow rows."""
    x = _edge_rows()
    s = strata.jit(_softmax_ops, threads=threads)(x)
    ls = strata.jit(_log_softmax_ops, threads=threads)(x)
    _check_edge_rows(x, s, ls)


def _x_minus_max(x):
    return x - strata.max(x, axis=-1, keepdims=True)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n", [16, 37, 100])
def test_row_max_nan(n, threads, lanes):
    """A row max whose NaN reaches the row anyway (log-softmax from ops: through the
    sum) is swept NaN-skipping (passes/nan_rows.py); x - max(x) alone keeps the
    NaN-propagating max. Either way each row is NaN exactly where float64 says so:
    NaN first, in the masked tail, last, everywhere, and next to -inf."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((7, n)).astype(np.float32)
    x[0, 0] = np.nan
    x[1, n - 1] = np.nan
    x[2, n - n % 16 if n % 16 else n - 3] = np.nan
    x[3] = np.nan
    x[4] = -np.inf
    x[4, 2] = np.nan
    ls = strata.jit(_log_softmax_ops, threads=threads)(x)
    d = strata.jit(_x_minus_max, threads=threads)(x)
    xd = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        lref, dref = log_softmax_ref(xd), xd - xd.max(-1, keepdims=True)
    assert np.array_equal(np.isnan(ls), np.isnan(lref))
    assert np.array_equal(np.isnan(d), np.isnan(dref))
    assert np.isnan(ls[:5]).all() and np.isnan(d[:5]).all()
    assert_close(ls[5:], lref[5:], "f32", reduction_length=n, ops=4,
                 magnitude=np.abs(xd[5:]) + 1, what="log_softmax")
    assert_close(d[5:], dref[5:], "f32", ops=1, magnitude=np.abs(xd[5:]) + 1, what="x - max")


def test_online_rows(monkeypatch):
    """Rows longer than online-bytes: the online max/sum (forced by a small limit)."""
    monkeypatch.setenv("STRATA_CACHE", "0")
    real = row_kernels.RowKernelsPass
    monkeypatch.setattr("strata.pipelines.levels.RowKernelsPass",
                        lambda threads=1: real(threads=threads, online_bytes=64))
    x = (np.random.default_rng(3).standard_normal((9, 1001)) * 10).astype(np.float32)
    x[2, :500] = -np.inf
    for threads in (1, 2):
        softmax, _ = _jit(threads)
        s, ls = softmax(x)
        xd = x.astype(np.float64)
        assert_close(s, softmax_ref(xd), "f32", reduction_length=1001, ops=6, what="online")
        finite = np.isfinite(ls)
        assert_close(ls[finite], log_softmax_ref(xd)[finite], "f32", reduction_length=1001,
                     ops=6, magnitude=np.abs(xd[finite]) + 1, what="online log")


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(2, 3, 65), (3, 5, 7, 17), (4, 128, 300)], ids=str)
def test_norms_higher_rank(shape, threads):
    rng = np.random.default_rng(11)
    x = (rng.standard_normal(shape) * 3 + 5).astype(np.float32)
    g = rng.standard_normal(shape[-1]).astype(np.float32)
    b = rng.standard_normal(shape[-1]).astype(np.float32)
    _, norms = _jit(threads)
    xd = x.astype(np.float64)
    ln, rms = norms(x, g, b)
    n = shape[-1]
    assert_close(ln, layer_norm_ref(xd, g, b), "f32", reduction_length=n, ops=6,
                 magnitude=np.abs(g) * 4 + np.abs(b), what="layer_norm")
    assert_close(rms, rms_norm_ref(xd, g), "f32", reduction_length=n, ops=5,
                 magnitude=np.abs(g) * 4, what="rms_norm")


def _softmax_ops(x):
    m = strata.max(x, axis=-1, keepdims=True)
    e = strata.exp(x - m)
    return e / strata.sum(e, axis=-1, keepdims=True)


def _log_softmax_ops(x):
    m = strata.max(x, axis=-1, keepdims=True)
    return x - m - strata.log(strata.sum(strata.exp(x - m), axis=-1, keepdims=True))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(5, 1), (9, 17), (300, 4097), (2, 3, 33)], ids=str)
def test_softmax_written_from_ops(shape, threads, lanes):
    """strata-row-fuse with two reduction sweeps (max, then a sum that needs it)."""
    rng = np.random.default_rng(4)
    x = (rng.standard_normal(shape) * 5).astype(np.float32)
    x.reshape(-1, shape[-1])[0, 0] = -np.inf
    s = strata.jit(_softmax_ops, threads=threads)(x)
    ls = strata.jit(_log_softmax_ops, threads=threads)(x)
    xd = x.astype(np.float64)
    n = shape[-1]
    with np.errstate(invalid="ignore"):  # a row of one -inf: NaN, like strata's
        ref, lref = softmax_ref(xd), log_softmax_ref(xd)
    assert_close(s, ref, "f32", reduction_length=n, ops=4, what="softmax")
    finite = np.isfinite(lref)
    assert np.array_equal(np.isfinite(ls), finite)
    assert_close(ls[finite], lref[finite], "f32", reduction_length=n, ops=4,
                 magnitude=np.abs(xd[finite]) + 1, what="log_softmax")


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n", [16, 17, 24, 40, 64, 100])
def test_softmax_of_an_intermediate(n, threads, lanes):
    """The input is a matmul's result (the output may take its buffer) or an
    expression computed in the sweeps (x * 0.5 + b), in every tail shape."""
    rng = np.random.default_rng(n)
    x = rng.standard_normal((37, 8)).astype(np.float32)
    w = rng.standard_normal((8, n)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    mm = strata.jit(lambda x, w: strata.softmax(x @ w, axis=-1), threads=threads)
    lmm = strata.jit(lambda x, w: strata.log(strata.softmax(x @ w, axis=-1)), threads=threads)
    expr = strata.jit(lambda y, b: strata.softmax(y * 0.5 + b, axis=-1), threads=threads)
    s = x.astype(np.float64) @ w
    assert_close(mm(x, w), softmax_ref(s), "f32", reduction_length=n, ops=12, what="matmul")
    assert_close(lmm(x, w), log_softmax_ref(s), "f32", reduction_length=n, ops=12,
                 magnitude=np.abs(s) + 1, what="log matmul")
    y = (s * 3).astype(np.float32)
    assert_close(expr(y, b), softmax_ref(y.astype(np.float64) * 0.5 + b), "f32",
                 reduction_length=n, ops=6, what="expression")


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_rows_low_precision(dtype):
    rng = np.random.default_rng(7)
    x = rng.uniform(-4, 4, (3, 4, 33)).astype(NP[dtype])
    g = rng.uniform(-2, 2, 33).astype(NP[dtype])
    b = rng.uniform(-2, 2, 33).astype(NP[dtype])
    softmax, norms = _jit(1)
    xd, gd, bd = (a.astype(np.float64) for a in (x, g, b))
    s, _ = softmax(x)
    assert_close(s, softmax_ref(xd), dtype, reduction_length=33, ops=4)
    ln, rms = norms(x, g, b)
    assert_close(ln, layer_norm_ref(xd, gd, bd), dtype, reduction_length=33, ops=6,
                 magnitude=np.abs(gd) * 4 + np.abs(bd))
    assert_close(rms, rms_norm_ref(xd, gd), dtype, reduction_length=33, ops=5,
                 magnitude=np.abs(gd) * 4)


@pytest.mark.parametrize("threads", [1, 2])
def test_chain_split_and_vectorized(threads, lanes):
    """The fused chain with 0-d constants (inlined, then split over threads and vectorized)."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((512, 1024)).astype(np.float32) * 3
    w = rng.standard_normal(1024).astype(np.float32)
    b = rng.standard_normal(1024).astype(np.float32)
    chain = strata.jit(lambda x, w, b: strata.tanh(strata.relu(x * w + b) * 0.5 + 0.1) * 2.0,
                       threads=threads)
    xd = x.astype(np.float64)
    ref = np.tanh(np.maximum(xd * w + b, 0) * 0.5 + 0.1) * 2.0
    assert_close(chain(x, w, b), ref, "f32", ops=8, magnitude=np.abs(xd * w) + 1)


def test_kernels_are_used():
    """The fused level of softmax and layer_norm holds one row loop and no linalg op."""
    m = strata.Module()
    f = m.function("f", x=strata.TensorSpec((64, 4096)), g=strata.TensorSpec((4096,)),
                   b=strata.TensorSpec((4096,)))
    x, g, b = f.args
    f.ret(strata.softmax(x, axis=-1), strata.layer_norm(x, g, b))
    text = str(strata.compile(m, compile_to="fused", threads=2))
    assert text.count("= scf.forall (") == 2
    assert "linalg.generic" not in text and "linalg.softmax" not in text


# Outputs of 16 MiB or more are written once (strata-row-kernels' stream-bytes): the
# exponentials kept in a scratch row, the output stored by the last sweep only (past the
# cache, strata-nontemporal-stores). 4096 rows split into one block per thread; 4099
# rows do not split evenly (a row per task, each with its scratch row); 1025 columns end
# in a masked step; rows of -inf, NaN and huge values among them.
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(4096, 1024), (4099, 1025)], ids=str)
def test_softmax_written_once(shape, threads, lanes):
    rng = np.random.default_rng(shape[0])
    x = rng.standard_normal(shape).astype(np.float32) * 4
    x[1, :] = -np.inf
    x[2, 7] = np.nan
    x[3, 5] = 3e38
    plain = strata.jit(lambda x: strata.softmax(x, axis=-1), threads=threads)
    out = plain(x)
    xd = x.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        ref = softmax_ref(xd)
    assert np.isnan(out[1]).all() and np.isnan(out[2]).all()
    keep = np.ones(shape[0], bool)
    keep[[1, 2]] = False
    assert_close(out[keep], ref[keep], "f32", reduction_length=shape[1], ops=4,
                 magnitude=np.ones_like(ref[keep]), what=f"softmax {shape}")
