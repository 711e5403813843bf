"""float64 is a real dtype (f64): arguments, every op family, promotion of f32 operands and
captured float64 arrays beside f64 tensors, against a float64 reference at float64's
rounding, on both vector widths, 1 and 2 threads, generated code and OpenBLAS; and through
the torch backend. (f64 math calls libm: strata-expand-math's polynomials are f32 only.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

import strata
from strata.codegen import host


def _has(flag: str) -> bool:
    return flag in host.host_flags().split()


WIDTHS = [
    pytest.param("avx512", marks=pytest.mark.skipif(not _has("avx512f"),
                                                    reason="host has no AVX-512")),
    pytest.param("avx2", marks=pytest.mark.skipif(not _has("avx2"), reason="host has no AVX2")),
]

R = np.random.default_rng(7)


def _a(*shape):
    return R.standard_normal(shape)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


_ERF = np.vectorize(math.erf)

# name: (strata function, float64 reference, arguments, K of a reduction in it)
CASES = {
    "elementwise": (lambda x, y: strata.tanh(x * y + 1.5) - strata.exp(-x * x),
                    lambda x, y: np.tanh(x * y + 1.5) - np.exp(-x * x), (_a(37, 19), _a(19)), 1),
    "log_sqrt": (lambda x, y: strata.log(strata.abs(x) + 0.5) + strata.sqrt(y * y),
                 lambda x, y: np.log(np.abs(x) + 0.5) + np.sqrt(y * y), (_a(37, 19), _a(19)), 1),
    "gelu": (lambda x, y: strata.gelu(x), lambda x, y: 0.5 * x * (1 + _ERF(x / math.sqrt(2))),
             (_a(33, 17), _a(1)), 1),
    "matmul_odd": (lambda x, y: x @ y, lambda x, y: x @ y, (_a(37, 19), _a(19, 23)), 19),
    "mlp": (lambda x, y: strata.relu(x @ y + 1.0), lambda x, y: np.maximum(x @ y + 1.0, 0),
            (_a(130, 256), _a(256, 300)), 256),
    "softmax": (lambda x, y: strata.softmax(x, axis=-1), lambda x, y: _softmax(x),
                (_a(67, 1000), _a(1)), 1000),
    "reductions": (lambda x, y: x.sum(axis=0) + x.mean(axis=0) * x.max(axis=0),
                   lambda x, y: x.sum(0) + x.mean(0) * x.max(0), (_a(1001, 37), _a(1)), 1001),
    "attention": (lambda q, k: strata.softmax(q @ strata.transpose(k, (0, 2, 1)) / 8.0,
                                              axis=-1) @ k,
                  lambda q, k: _softmax(q @ k.transpose(0, 2, 1) / 8.0) @ k,
                  (_a(3, 129, 64), _a(3, 129, 64)), 129),
    "layer_norm": (lambda x, y: strata.layer_norm(x),
                   lambda x, y: (x - x.mean(-1, keepdims=True)) / np.sqrt(
                       x.var(-1, keepdims=True) + 1e-5), (_a(65, 513), _a(1)), 513),
}


@pytest.fixture
def features(request, monkeypatch):
    monkeypatch.setenv(host.ENV, request.param)
    monkeypatch.setenv("STRATA_CACHE", "0")
    return request.param


@pytest.mark.parametrize("features", WIDTHS, indirect=True)
@pytest.mark.parametrize("options", [{"threads": 1}, {"threads": 2, "blas": "always"},
                                     {"threads": 2, "fusion": False}], ids=str)
@pytest.mark.parametrize("name", sorted(CASES))
def test_f64_ops_at_float64_rounding(name, options, features):
    fn, ref, args, k = CASES[name]
    got = strata.jit(fn, **options)(*args)
    want = ref(*args)
    assert got.dtype == np.float64 and got.shape == want.shape
    # float64's unit roundoff times the reduction length and a few ops, relative to the
    # magnitude (sums of |terms| where a dot product cancels)
    scale = max(1.0, float(np.abs(want).max()))
    assert np.abs(got - want).max() <= 64 * k * 2.0**-53 * scale * 8, (
        np.abs(got - want).max())


def test_f32_operands_and_captured_f64_arrays_promote_to_f64():
    x = _a(5, 7)
    w = _a(7)  # a float64 array captured beside an f64 tensor stays float64
    w.setflags(write=False)
    y = _a(5, 7).astype(np.float32)
    got = strata.jit(lambda x, y: x * w + y)(x, y)
    assert got.dtype == np.float64
    assert np.array_equal(got, x * w + y.astype(np.float64))


def test_torch_float64_runs_in_strata():
    torch = pytest.importorskip("torch")
    from strata.torch.backend import strata_backend

    x = torch.randn(6, 9, dtype=torch.float64)
    lin = torch.nn.Linear(9, 4).double()
    record = []

    def fn(t):
        return torch.softmax(lin(t).tanh(), dim=-1)

    with torch.no_grad():
        got = torch.compile(fn, backend=lambda gm, i: strata_backend(gm, i, record=record))(x)
        want = fn(x)
    assert got.dtype == torch.float64 and (got - want).abs().max().item() < 1e-14
    assert [s.kind for g in record for s in g.subgraphs] == ["strata"]
