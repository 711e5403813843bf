"""Next-row prefetches (strata-prefetch-rows) in compiled kernels, vs float64.

The elementwise chain ``tanh(relu(x*w+b)*.5+.1)*2`` over rows of a buffer of at least
``prefetch-bytes`` is vectorized by strata-parallelize (split over 2 threads, or in one
loop with ``stream-bytes`` on 1), and its reads of x prefetch the next row. Run on both
vector widths (the lanes strata-parallelize vectorizes for), with odd row counts (a
thread's last row clamps its prefetch), a softmax beside it (several sweeps: no
prefetch), and with the pass off (bit-identical results: a prefetch changes nothing
but timing). The threshold is lowered so that small buffers take the pass.
"""

from __future__ import annotations

import numpy as np
import pytest

import strata
from strata.passes import lower_to_llvm, parallelize, prefetch_rows, row_kernels
from strata.testing import assert_close

PREFETCHED: list[int] = []


@pytest.fixture(params=[8, 16], ids=["avx2", "avx512"])
def lanes(request, monkeypatch):
    monkeypatch.setenv("STRATA_CACHE", "0")
    for module in (row_kernels, parallelize):
        monkeypatch.setattr(module, "f32_lanes", lambda: request.param)
    real = prefetch_rows.PrefetchRowsPass
    prefetch = real._prefetch

    def counting(read, view, offsets, loop):
        PREFETCHED.append(1)
        prefetch(read, view, offsets, loop)

    # (the pipeline makes the pass from its text: the class, not an instance, is patched)
    monkeypatch.setattr(real, "_prefetch", staticmethod(counting))
    monkeypatch.setattr(lower_to_llvm, "PrefetchRowsPass",
                        lambda min_bytes: real(min_bytes=64 << 10))
    PREFETCHED.clear()
    return request.param


def _chain(x, w, b):
    return strata.tanh(strata.relu(x * w + b) * 0.5 + 0.1) * 2.0


def _ref(x, w, b):
    x = x.astype(np.float64)
    return np.tanh(np.maximum(x * w + b, 0.0) * 0.5 + 0.1) * 2.0


def _inputs(shape, seed=0):
    g = np.random.default_rng(seed)
    return (g.standard_normal(shape).astype(np.float32),
            g.standard_normal(shape[-1:]).astype(np.float32),
            g.standard_normal(shape[-1:]).astype(np.float32))


@pytest.mark.parametrize("shape", [(259, 1024), (301, 2048)], ids=str)
def test_chain_two_threads(shape, lanes):
    x, w, b = _inputs(shape)
    y = strata.jit(_chain, threads=2)(x, w, b)
    assert_close(y, _ref(x, w, b), "f32", ops=6, what="chain")
    assert PREFETCHED


def test_chain_one_thread_streamed(lanes, monkeypatch):
    # one loop over the rows (strata-parallelize's stream-bytes, lowered to this size)
    from strata.pipelines import levels

    real = parallelize.ParallelizePass
    monkeypatch.setattr(levels, "ParallelizePass",
                        lambda **kw: real(stream_bytes=64 << 10, **kw))
    x, w, b = _inputs((130, 1024), 1)
    y = strata.jit(_chain, threads=1)(x, w, b)
    assert_close(y, _ref(x, w, b), "f32", ops=6, what="chain")
    assert PREFETCHED


def test_prefetch_changes_no_result(lanes, monkeypatch):
    x, w, b = _inputs((259, 1024), 2)
    with_prefetch = strata.jit(_chain, threads=2)(x, w, b)
    assert PREFETCHED
    monkeypatch.setattr(lower_to_llvm, "PrefetchRowsPass",
                        lambda min_bytes: prefetch_rows.PrefetchRowsPass(min_bytes=0))
    without = strata.jit(_chain, threads=2)(x, w, b)
    np.testing.assert_array_equal(with_prefetch, without)


def test_softmax_sweeps_take_none(lanes):
    x = _inputs((300, 1024), 3)[0]
    y = strata.jit(lambda a: strata.softmax(a, axis=-1), threads=2)(x)
    e = np.exp(x - x.max(-1, keepdims=True))
    assert_close(y, e / e.sum(-1, keepdims=True), "f32", ops=4, what="softmax")
    assert not PREFETCHED
