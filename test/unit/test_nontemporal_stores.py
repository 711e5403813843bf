"""Non-temporal output stores (strata-nontemporal-stores) vs float64, on both vector widths.

The pass's size limit is lowered (``min-bytes`` 64 KiB) so that small odd shapes
take the non-temporal path; a wrapper counts the stores it rewrote, so each case
also says whether the path ran. Row kernels (layer_norm, rms_norm, log_softmax)
the split elementwise chain and a softmax past strata-row-kernels' ``stream-bytes``
(written once) write their outputs with it; a smaller softmax (which reads its
output back) and rows whose offsets are not 64-byte multiples do not.
A caller's ``out=`` array that is not 64-byte aligned runs the plain copy of the
loop (the base is tested at run time). The AVX2 width is forced by patching
``f32_lanes`` (vector shapes) and, in a subprocess, by ``STRATA_CPU_FEATURES=avx2``
(the instructions: 32-byte ``vmovntps``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import strata
from strata.passes import lower_to_llvm, nontemporal_stores, parallelize, row_fuse, row_kernels
from strata.testing import assert_close

REWRITTEN: list[int] = []


@pytest.fixture(params=[8, 16], ids=["avx2", "avx512"])
def lanes(request, monkeypatch):
    monkeypatch.setenv("STRATA_CACHE", "0")
    for module in (row_kernels, row_fuse, parallelize):
        monkeypatch.setattr(module, "f32_lanes", lambda: request.param)
    real = nontemporal_stores.NontemporalStoresPass
    store = real._store

    def counting(write, align):
        REWRITTEN.append(align)
        store(write, align)

    # (the pipeline runs the pass from its text: the class, not an instance, is patched)
    monkeypatch.setattr(real, "_store", staticmethod(counting))
    monkeypatch.setattr(lower_to_llvm, "NontemporalStoresPass",
                        lambda min_bytes: real(min_bytes=64 << 10))
    REWRITTEN.clear()
    return request.param


def layer_norm_ref(x, g, b, eps=1e-5):
    m = x.mean(-1, keepdims=True)
    return (x - m) / np.sqrt(((x - m) ** 2).mean(-1, keepdims=True) + eps) * g + b


def rms_norm_ref(x, g):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * g


def log_softmax_ref(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def chain_ref(x, w, b):
    return np.tanh(np.maximum(x * w + b, 0) * 0.5 + 0.1) * 2


def _inputs(shape, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
    g = rng.standard_normal(shape[-1]).astype(np.float32)
    b = rng.standard_normal(shape[-1]).astype(np.float32)
    return x, g, b


def _norms(x, g, b):
    rms = x * strata.rsqrt(strata.mean(x * x, axis=-1, keepdims=True) + 1e-6) * g
    return strata.layer_norm(x, g, b), rms


def _chain(x, w, b):
    return strata.tanh(strata.relu(x * w + b) * 0.5 + 0.1) * 2.0


def _check_norms(x, g, b, ln, rms):
    n, xd = x.shape[-1], x.astype(np.float64)
    assert_close(ln, layer_norm_ref(xd, g, b), "f32", reduction_length=n, ops=6,
                 magnitude=np.abs(g) * 4 + np.abs(b), what="layer_norm")
    assert_close(rms, rms_norm_ref(xd, g), "f32", reduction_length=n, ops=5,
                 magnitude=np.abs(g) * 4, what="rms_norm")


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(129, 256), (3, 67, 512)], ids=str)
def test_norms(shape, threads, lanes):
    x, g, b = _inputs(shape)
    ln, rms = strata.jit(_norms, threads=threads)(x, g, b)
    _check_norms(x, g, b, ln, rms)
    assert REWRITTEN and set(REWRITTEN) == {64}


@pytest.mark.parametrize("threads", [1, 2])
def test_log_softmax(threads, lanes):
    x, _, _ = _inputs((200, 384), 1)
    ls = strata.jit(lambda x: strata.log(strata.softmax(x, axis=-1)), threads=threads)(x)
    xd = x.astype(np.float64)
    assert_close(ls, log_softmax_ref(xd), "f32", reduction_length=384, ops=4,
                 magnitude=np.abs(xd) + 1, what="log_softmax")
    assert REWRITTEN


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n", [256, 37])
def test_softmax_written_once(n, threads, lanes, monkeypatch):
    """A softmax past ``stream-bytes`` computes its exponentials twice and writes its
    output once (rows of 256: non-temporal stores; rows of 37: plain, with the masked
    tail); edge rows keep their float64 answers."""
    from strata.pipelines import levels

    real = levels.RowKernelsPass
    monkeypatch.setattr(levels, "RowKernelsPass", lambda **kw: real(stream_bytes=1, **kw))
    x, _, _ = _inputs((160, n), 6)
    x[0] = -np.inf                      # all -inf: NaN, as in float64
    x[1, 5] = -np.inf                   # one -inf: exactly 0 there
    x[2] = 88.0                         # exp would overflow without the max shift
    x[3, 3] = np.nan                    # NaN propagates to the row
    s = strata.jit(lambda x: strata.softmax(x, axis=-1), threads=threads)(x)
    assert np.isnan(s[0]).all() and np.isnan(s[3]).all() and s[1, 5] == 0.0
    xd = x[4:].astype(np.float64)
    e = np.exp(xd - xd.max(-1, keepdims=True))
    assert_close(s[4:], e / e.sum(-1, keepdims=True), "f32", reduction_length=n, ops=4)
    assert_close(s[1:3], np.exp(x[1:3] - x[1:3].max(-1, keepdims=True)) /
                 np.exp(x[1:3] - x[1:3].max(-1, keepdims=True)).sum(-1, keepdims=True),
                 "f32", reduction_length=n, ops=4)
    assert bool(REWRITTEN) == (n == 256)


def test_chain(lanes):
    # 258 rows: well above strata-parallelize's parallel-work for this body (130 rows sat
    # just above it, and fell below once the tanh expansion lost two integer ops)
    x, w, b = _inputs((258, 1024), 2)
    y = strata.jit(_chain, threads=2)(x, w, b)
    assert_close(y, chain_ref(x.astype(np.float64), w, b), "f32", ops=6, what="chain")
    assert REWRITTEN


@pytest.mark.parametrize("shape", [(130, 1024), (70, 1000)], ids=str)
def test_chain_one_thread(shape, lanes, monkeypatch):
    """One thread: strata-parallelize splits nothing but vectorizes an op of at least its
    ``stream-bytes`` (lowered here to 64 KiB) whose rows are whole vectors, so its
    writes stream; rows of 1000 stay with LLVM (plain stores). An unaligned ``out=``
    takes the plain loop: the same numbers."""
    from strata.pipelines import levels

    real = parallelize.ParallelizePass
    monkeypatch.setattr(levels, "ParallelizePass",
                        lambda **kw: real(stream_bytes=64 << 10, **kw))
    x, w, b = _inputs(shape, 6)
    f = strata.jit(_chain, threads=1)
    ref = chain_ref(x.astype(np.float64), w, b)
    assert_close(f(x, w, b), ref, "f32", ops=6, what="chain")
    assert bool(REWRITTEN) == (shape[-1] == 1024)
    buf = np.empty(x.size + 32, np.float32)
    base = (-buf.ctypes.data % 64) // 4 + 1
    out = buf[base:base + x.size].reshape(x.shape)
    assert f(x, w, b, out=out) is out
    assert_close(out, ref, "f32", ops=6, what="chain, unaligned out=")


def test_plain_where_not_provable(lanes):
    """Rows of 1000 f32 (4000 bytes: row starts not 64-byte multiples, a masked tail)
    and a softmax (its output is read back): no non-temporal store."""
    x, g, b = _inputs((70, 1000), 3)
    ln, rms = strata.jit(_norms, threads=2)(x, g, b)
    _check_norms(x, g, b, ln, rms)
    x2, _, _ = _inputs((300, 256), 4)
    s = strata.jit(lambda x: strata.softmax(x, axis=-1), threads=2)(x2)
    e = np.exp(x2 - x2.max(-1, keepdims=True))
    assert_close(s, e / e.sum(-1, keepdims=True), "f32", reduction_length=256, ops=4)
    assert REWRITTEN == []


@pytest.mark.parametrize("threads", [1, 2])
def test_unaligned_out(threads, lanes):
    """An ``out=`` array 4 bytes off a 64-byte boundary runs the plain loop; an aligned
    one the non-temporal loop: the same numbers."""
    x, g, b = _inputs((129, 256), 5)
    f = strata.jit(lambda x, g, b: strata.layer_norm(x, g, b), threads=threads)
    buf = np.empty(x.size + 32, np.float32)
    base = (-buf.ctypes.data % 64) // 4
    for skew in (0, 1, 3):
        out = buf[base + skew:base + skew + x.size].reshape(x.shape)
        out[:] = np.nan
        y = f(x, g, b, out=out)
        assert y is out
        assert_close(y, layer_norm_ref(x.astype(np.float64), g, b), "f32",
                     reduction_length=256, ops=6, magnitude=np.abs(g) * 4 + np.abs(b),
                     what=f"skew {skew}")


_AVX2 = textwrap.dedent("""
    import numpy as np, strata
    from strata.passes import lower_to_llvm, nontemporal_stores
    real = nontemporal_stores.NontemporalStoresPass
    lower_to_llvm.NontemporalStoresPass = lambda min_bytes: real(min_bytes=1 << 16)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((129, 512)).astype(np.float32)
    g, b = rng.standard_normal(512).astype(np.float32), rng.standard_normal(512).astype(np.float32)
    y = strata.jit(lambda x, g, b: strata.layer_norm(x, g, b), threads=2)(x, g, b)
    m = x.astype(np.float64).mean(-1, keepdims=True)
    ref = (x - m) / np.sqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-5) * g + b
    z = strata.jit(lambda x, w, b: strata.tanh(strata.relu(x * w + b) * 0.5 + 0.1) * 2.0,
                   threads=2)(x, g, b)
    zref = np.tanh(np.maximum(x.astype(np.float64) * g + b, 0) * 0.5 + 0.1) * 2
    print(float(np.abs(y - ref).max()), float(np.abs(z - zref).max()))
""")


def test_avx2_target():
    """Code generated for an AVX2-only CPU (32-byte vmovntps) runs right on this host."""
    env = dict(os.environ, STRATA_CPU_FEATURES="avx2", STRATA_CACHE="0")
    p = subprocess.run([sys.executable, "-c", _AVX2], capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    ln_err, chain_err = map(float, p.stdout.split())
    assert ln_err < 1e-4 and chain_err < 1e-5
