"""Shape buckets (strata.jit(buckets=...)): padded to a bucket, sliced back, checked sound."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import strata
from strata.runtime.buckets import bucket_size
from strata.testing import assert_close

R = np.random.default_rng(1)
NP = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}
W = (R.standard_normal((24, 9)) * 0.3).astype(np.float32)
G = (1 + R.standard_normal(9) * 0.1).astype(np.float32)


def _model(x, w, g):
    h = x @ w
    return strata.softmax(h, axis=-1), strata.layer_norm(h, g, g * 0.0).T


def _ref(x, w, g):
    h = x @ w
    e = np.exp(h - h.max(-1, keepdims=True))
    m = h.mean(-1, keepdims=True)
    v = ((h - m) ** 2).mean(-1, keepdims=True)
    return e / e.sum(-1, keepdims=True), ((h - m) / np.sqrt(v + 1e-5) * g).T


def test_bucket_sizes():
    assert [bucket_size(n, "pow2") for n in (1, 2, 3, 7, 8, 97, 1000)] == \
        [1, 2, 4, 8, 8, 128, 1024]
    assert [bucket_size(n, (16, 64)) for n in (1, 16, 17, 64, 65)] == [16, 16, 64, 64, 65]


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
def test_pow2_buckets_match_float64_at_odd_sizes(dtype):
    t = NP[dtype]
    f = strata.jit(_model, buckets={"x": {0: "pow2"}})
    w, g = W.astype(t), G.astype(t)
    for n in (1, 7, 97, 1000, 100):
        x = R.standard_normal((n, 24)).astype(t)
        s, ln = f(x, w, g)
        es, eln = _ref(*[a.astype(np.float64) for a in (x, w, g)])
        assert s.shape == (n, 9) and ln.shape == (9, n)
        assert_close(s, es, dtype, reduction_length=24, ops=6, what=f"softmax n={n}")
        assert_close(ln, eln, dtype, reduction_length=24, ops=8, magnitude=3.0,
                     what=f"layer_norm n={n}")
    # buckets 1, 8, 128, 1024 (100 reuses 128)
    assert f.stats.compiles == 4
    costs = f.bucket_costs()
    assert costs["calls"] == 5 and costs["padded_calls"] == 4
    assert costs["rows"] == 1 + 7 + 97 + 1000 + 100
    assert costs["padded_rows"] == 1 + 31 + 24 + 28
    assert costs["buckets"] == {1: 1, 8: 1, 128: 2, 1024: 1}
    assert costs["pad_slice_seconds"] > 0


def test_listed_buckets_and_sizes_above_them():
    f = strata.jit(lambda x, w: strata.relu(x @ w) + 1.0, buckets={"x": {0: [16, 64]}})
    for n in (5, 16, 40, 70):
        x = R.standard_normal((n, 24)).astype(np.float32)
        assert_close(f(x, W), np.maximum(x.astype(np.float64) @ W, 0) + 1, "f32",
                     reduction_length=24)
    assert f.stats.compiles == 3  # 16, 64 and the exact 70
    assert f.bucket_costs()["buckets"] == {16: 2, 64: 1, 70: 1}


@pytest.mark.parametrize("fn, reason", [
    (lambda x: x.sum(axis=0), "a reduction over the batch dim"),
    (lambda x: strata.softmax(x, axis=0), "a softmax over the batch dim"),
    (lambda x: x.T @ x, "the batch dim is the matmul's reduction (K) dim"),
    (lambda x: (x * 2.0, strata.constant(np.ones(3, np.float32)) + 1.0),
     "a result does not depend on the batch rows"),
])
def test_unsound_padding_is_refused_with_the_reason(fn, reason):
    f = strata.jit(fn, buckets={"x": {0: "pow2"}})
    with pytest.raises(strata.StrataError, match="buckets: padding 'x' dim 0 could change "
                       "the results") as e:
        f(np.ones((5, 3), np.float32))
    assert reason in str(e.value)
    assert "test_buckets.py" in str(e.value)  # located at the user's call


def test_exact_bucket_sizes_need_no_analysis():
    f = strata.jit(lambda x: x.sum(axis=0), buckets={"x": {0: "pow2"}})
    np.testing.assert_allclose(f(np.ones((8, 3), np.float32)), [8, 8, 8])


@pytest.mark.parametrize("buckets, message", [
    ({"y": {0: "pow2"}}, "'y' is not a parameter"),
    ({"x": {0: "pow3"}}, "must be 'pow2' or a list of positive sizes"),
    ({"x": {0: [0, 4]}}, "must be 'pow2' or a list of positive sizes"),
    ({"x": {-1: "pow2"}}, "must be a non-negative int"),
    ({"x": "pow2"}, "must map one dim to a rule"),
])
def test_bad_bucket_rules(buckets, message):
    with pytest.raises(strata.StrataError, match=message):
        strata.jit(lambda x: x * 2.0, buckets=buckets)


def test_report_has_the_pad_cost():
    f = strata.jit(lambda x, w: x @ w, buckets={"x": {0: "pow2"}})
    report = f.report(R.standard_normal((5, 24)).astype(np.float32), W)
    assert "bucket pad + slice" in report.as_dict()
