"""Zero-size dims: a matmul over K = 0 (with and without a fused epilogue) aborted the
process in MLIR's tiling; torch's any/all over an empty dim gave the opposite of eager.
The compiles run in a child process, so an abort fails the test, not the runner."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

_CHILD = textwrap.dedent("""
    import numpy as np, strata
    for m, k, n in [(8, 16, 32), (64, 128, 64), (37, 5, 19)]:
        x = np.ones((m, k), np.float32); w = np.ones((k, n), np.float32)
        b = np.arange(n, dtype=np.float32)
        got = strata.jit(lambda x, w, b: strata.relu(x[:, :0] @ w[:0] + b))(x, w, b)
        assert np.array_equal(got, np.broadcast_to(b, (m, n))), got
        got = strata.jit(lambda x, w: x[:, :0] @ w[:0])(x, w)
        assert got.shape == (m, n) and not got.any()
        got = strata.jit(lambda x, w: strata.exp(x[:0] @ w) * 2.0)(x, w)
        assert got.shape == (0, n)
    print("ok")
""")


def test_matmul_over_no_elements_is_zeros():
    out = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True,
                         timeout=600, env=dict(os.environ))
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), (
        f"exit {out.returncode}\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}")


def test_torch_any_all_of_an_empty_dim():
    torch = pytest.importorskip("torch")
    for shape in [(0, 4), (3, 0)]:
        x = torch.randn(*shape)
        for fn in (lambda t: (t > 0).any(0), lambda t: (t > 0).all(0),
                   lambda t: (t > 0).any(), lambda t: (t > 0).all(1)):
            torch._dynamo.reset()
            assert torch.equal(torch.compile(fn, backend="strata")(x), fn(x))


def test_torch_cat_of_empty_parts():
    """Every part empty: an IndexError in the converter before (a fallback now says so;
    this must run in strata)."""
    torch = pytest.importorskip("torch")
    from strata.torch.backend import strata_backend

    x = torch.randn(3, 4)
    record = []
    fn = lambda t: torch.cat([t[:0], t[:0]], 0) * 2  # noqa: E731
    got = torch.compile(fn, backend=lambda gm, i: strata_backend(gm, i, record=record))(x)
    assert got.shape == (0, 4)
    assert all(s.kind == "strata" for g in record for s in g.subgraphs)
