"""Dynamic dims: marked ones, automatic dynamic after a second value, the recompile limit,
and the four-costs report."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import strata

R = np.random.default_rng(0)
W = R.standard_normal((13, 8)).astype(np.float32)
B = R.standard_normal(8).astype(np.float32)


def _model(x, w, b):
    return strata.softmax(strata.relu(x @ w + b), axis=-1), (x * 2.0).sum(axis=0)


def _ref(x, w=W, b=B):
    h = np.maximum(x.astype(np.float64) @ w + b, 0)
    e = np.exp(h - h.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True), (x.astype(np.float64) * 2).sum(0)


def _check(f, n):
    x = R.standard_normal((n, 13)).astype(np.float32)
    y, s = f(x, W, B)
    ey, es = _ref(x)
    assert y.shape == (n, 8) and s.shape == (13,)
    np.testing.assert_allclose(y, ey, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s, es, rtol=1e-5, atol=1e-4)


def test_automatic_dynamic_compiles_once_more_for_a_changing_dim(caplog):
    f = strata.jit(_model, automatic_dynamic=True)
    with caplog.at_level(logging.INFO, logger="strata.recompiles"):
        for n in (3, 5, 7, 64, 5, 2, 130):
            _check(f, n)
    assert f.stats.compiles == 2
    assert f.variants()[-1] == (((None, 13), "f32"), ((13, 8), "f32"), ((8,), "f32"))
    assert "compiling for (5x13xf32, 13x8xf32, 8xf32) with 'x' dim 0 dynamic: argument 'x' " \
           "dim 0: 3 -> 5" in caplog.text


def test_marked_dims_are_dynamic_from_the_first_call():
    f = strata.jit(_model, dynamic={"x": [0]})
    for n in (4, 9, 33):
        _check(f, n)
    assert f.stats.compiles == 1
    assert f.variants() == [(((None, 13), "f32"), ((13, 8), "f32"), ((8,), "f32"))]


def test_size_one_never_takes_a_dynamic_variant():
    # A dynamic dim is assumed not to broadcast: a size-1 call gets an exact variant,
    # so numpy's broadcasting still holds.
    f = strata.jit(lambda x, y: x + y * 2.0, dynamic={"x": [0], "y": [0]})
    for n, m in ((4, 4), (6, 6), (1, 5), (5, 1)):
        x = R.standard_normal((n, 3)).astype(np.float32)
        y = R.standard_normal((m, 3)).astype(np.float32)
        np.testing.assert_allclose(f(x, y), x + y * 2, rtol=1e-6)
    assert f.stats.compiles == 3  # one dynamic, and one for each size-1 broadcast


def test_a_function_that_cannot_trace_with_a_dynamic_dim_keeps_static_variants(caplog):
    f = strata.jit(lambda x: x.reshape(x.shape[0] * 4) * 2.0, automatic_dynamic=True)
    with caplog.at_level(logging.INFO, logger="strata.recompiles"):
        for n in (2, 3, 5):
            x = np.ones((n, 4), np.float32)
            np.testing.assert_array_equal(f(x), np.full(n * 4, 2, np.float32))
    assert f.stats.compiles == 3
    assert "cannot compile 'x' dim 0 dynamic (TypeError" in caplog.text


def test_past_the_recompile_limit_changing_dims_become_dynamic_with_a_warning():
    f = strata.jit(lambda x: x * 2.0, max_recompiles=3)
    for n in (2, 3, 4):
        f(np.ones(n, np.float32))
    with pytest.warns(strata.StrataPerformanceWarning, match="<lambda>: 3 variants compiled "
                      "for changing shapes; further shapes use one variant"):
        np.testing.assert_array_equal(f(np.ones(5, np.float32)), np.full(5, 2, np.float32))
    np.testing.assert_array_equal(f(np.ones(9, np.float32)), np.full(9, 2, np.float32))
    assert f.stats.compiles == 4 and f.variants()[-1] == (((None,), "f32"),)


def test_the_recompile_limit_names_the_shapes_seen():
    f = strata.jit(lambda x: x.reshape(x.shape[0] * 2) * 2.0, max_recompiles=3)
    for n in (2, 3, 4):
        f(np.ones((n, 2), np.float32))
    with pytest.raises(strata.StrataError, match=r"test_dynamic.py:\d+:\d+: error: <lambda>: "
                       r"recompile limit reached \(3 variants of these dtypes and ranks; shapes "
                       r"seen: \(2x2xf32\), \(3x2xf32\), \(4x2xf32\); now \(5x2xf32\)\)"):
        f(np.ones((5, 2), np.float32))
    np.testing.assert_array_equal(f(np.ones((3, 2), np.float32)), np.full(6, 2, np.float32))
    # other dtypes or ranks are other programs, with a limit of their own
    np.testing.assert_array_equal(f(np.ones((5, 2), np.int32)), np.full(10, 2))


def test_report_measures_the_four_costs():
    f = strata.jit(_model, automatic_dynamic=True)
    x = R.standard_normal((6, 13)).astype(np.float32)
    report = f.report(x, W, B)
    costs = report.as_dict()
    assert list(costs) == ["cold compile", "restart (disk hit)", "warm call",
                           "new shape, compiled", "new shape, dynamic variant"]
    assert all(v > 0 for v in costs.values())
    text = str(report)
    assert "first call with dim 0 of 'x' changed (6 -> 7)" in text
    assert f.stats.compiles == 0  # measured on fresh copies, not on f


def test_bad_dynamic_marks_are_errors():
    with pytest.raises(strata.StrataError, match="dynamic: 'y' is not a parameter of _model"):
        strata.jit(_model, dynamic={"y": [0]})
    with pytest.raises(strata.StrataError, match="dims of 'x' must be non-negative ints"):
        strata.jit(_model, dynamic={"x": [-1]})
    with pytest.raises(strata.StrataError, match="max_recompiles must be a positive integer"):
        strata.jit(_model, max_recompiles=0)


def test_dynamic_variant_from_many_threads():
    f = strata.jit(_model, dynamic={"x": [0]})
    errors = []

    def worker(t):
        try:
            for i in range(30):
                _check(f, 2 + (t * 7 + i) % 40)
        except AssertionError as e:
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert not errors and f.stats.compiles == 1


def test_a_dynamic_variant_comes_back_from_the_disk_cache(tmp_path):
    code = ("import numpy as np, strata\n"
            "f = strata.jit(lambda x: strata.relu(x) * 3.0, dynamic={'x': [0]})\n"
            "for n in (5, 9):\n"
            "    x = np.arange(n * 2, dtype=np.float32).reshape(n, 2) - 4\n"
            "    assert np.array_equal(f(x), np.maximum(x, 0) * 3)\n"
            "print(f.stats.compiles, f.stats.cache_hits)\n")
    env = {**os.environ, "STRATA_CACHE_DIR": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    again = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert first.stdout.split() == ["1", "0"], first.stderr[-2000:]
    assert again.stdout.split() == ["1", "1"], again.stderr[-2000:]


@pytest.mark.parametrize("how", ["marked", "automatic"])
def test_dynamic_reshape_checks_divisibility_at_call_time(how):
    """A dynamic variant of ``x.reshape(-1, 4)`` assumed the size divides by 4: 10
    elements gave a (2, 4) result, dropping two. Now the call is refused at the user's
    line, as numpy refuses the reshape; divisible sizes still run on the variant."""
    opts = {"dynamic": {"x": [0]}} if how == "marked" else {"automatic_dynamic": True}
    f = strata.jit(lambda x: x.reshape(-1, 4) * 2.0, **opts)
    for n in (8, 12, 20):
        x = np.arange(n, dtype=np.float32)
        assert np.array_equal(f(x), x.reshape(-1, 4) * 2.0)
    with pytest.raises(strata.StrataError, match=r"test_dynamic\.py:\d+:\d+: error: reshape: "
                       r"cannot reshape 10 .* not a multiple of 4"):
        f(np.arange(10, dtype=np.float32))
    g = strata.jit(lambda x: x.reshape(2, 4) + 1.0, **opts)
    g(np.ones(8, np.float32))
    g(np.ones(8, np.float32))
    with pytest.raises(strata.StrataError, match="cannot reshape 10"):
        g(np.ones(10, np.float32))
