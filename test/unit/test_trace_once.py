"""A cold compile runs the user's function once: the disk cache's key comes from a
recording of the trace (no MLIR), and on a miss that recording's steps are replayed as
MLIR instead of running the function a second time (a print in it prints once)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import strata


def _counted():
    calls = []

    def model(x, w):
        calls.append(1)
        h = strata.relu(x @ w + 1.0) * np.float32(0.5)
        return strata.softmax(h, axis=-1), (h.sum(axis=0) + np.arange(3, dtype=np.float32))

    return model, calls


@pytest.mark.parametrize("cache", ["disk", "off"])
def test_body_runs_once_per_cold_compile(cache, monkeypatch, tmp_path):
    monkeypatch.setenv("STRATA_CACHE_DIR", str(tmp_path))
    if cache == "off":
        monkeypatch.setenv("STRATA_CACHE", "0")
    model, calls = _counted()
    f = strata.jit(model)
    x, w = np.ones((4, 5), np.float32), np.full((5, 3), 0.1, np.float32)
    first = f(x, w)
    assert len(calls) == 1
    f(x, w)
    assert len(calls) == 1          # warm: no trace
    f(np.ones((6, 5), np.float32), w)
    assert len(calls) == 2          # a new shape: one more run
    # a new process-like jit object over the same disk cache: a hit runs the body once
    model2, calls2 = _counted()
    again = strata.jit(model2)(x, w)
    assert len(calls2) == 1
    for a, b in zip(first, again, strict=True):
        assert np.array_equal(a, b)


def test_replayed_module_is_the_traced_one():
    """The replay builds the IR tracing builds, locations included."""
    from strata.frontend.module import replay, trace
    from strata.frontend.recording import record_trace

    model, _ = _counted()
    x, w = np.ones((4, 5), np.float32), np.ones((5, 3), np.float32)
    kept = []
    record_trace(model, x, w, scope=kept)
    replayed = replay(kept[0])
    traced = trace(model, x, w)
    assert replayed is not None

    def ops(module):  # each op with its location (the function's own is the calling line)
        return [line for line in module.text(debug_info=True).splitlines()
                if not line.startswith("#loc1 =") and "func.func" not in line]

    assert ops(replayed) == ops(traced)
    assert any(line.startswith("#loc") for line in ops(traced))


def test_print_in_a_jitted_function_prints_once(tmp_path):
    code = textwrap.dedent("""
        import numpy as np, strata
        @strata.jit
        def f(x):
            print("tracing")
            return x * 2.0
        f(np.ones(3, np.float32))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env={**__import__("os").environ,
                                           "STRATA_CACHE_DIR": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("tracing") == 1, out.stdout
