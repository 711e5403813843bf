"""strata-row-blocks end to end: dynamic-batch variants run as static blocks of rows.

Each dynamic path (matmul M with a fused epilogue, row reductions, elementwise chains,
integer ops, a batch dim on axis 1 of the result) against a float64 numpy reference at
odd sizes (1 keeps an exact variant; 7 runs only padded tail blocks; 97 and 1000 run
full blocks, tail blocks and a padded rest), in f32, f16 and bf16; and the fallback for
a program that is not row-independent.
"""

from __future__ import annotations

import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import strata
from strata.testing import assert_close

SIZES = (1, 7, 97, 1000)
NP = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}
R = np.random.default_rng(0)
W1 = (R.standard_normal((33, 70)) * 0.2).astype(np.float32)
B1 = R.standard_normal(70).astype(np.float32)
W2 = (R.standard_normal((70, 5)) * 0.2).astype(np.float32)


def _mlp(x, w1, b1, w2):
    return strata.relu(x @ w1 + b1) @ w2


def _mlp_ref(x, w1, b1, w2):
    return np.maximum(x @ w1 + b1, 0) @ w2


def _rows(x, g, b):
    return strata.softmax(strata.layer_norm(x, g, b) * 2.0, axis=-1), x.max(axis=-1)


def _rows_ref(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    h = ((x - m) / np.sqrt(v + 1e-5) * g + b) * 2.0
    e = np.exp(h - h.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True), x.max(-1)


def _lowered(fn, specs, level="linalg"):
    m = strata.Module()
    f = m.function("f", **{k: strata.TensorSpec(s, d) for k, (s, d) in specs.items()})
    f.ret(fn(*f.args))
    return str(strata.compile(m, compile_to=level))


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
def test_matmul_epilogue_in_blocks(dtype):
    t = NP[dtype]
    args = [W1.astype(t), B1.astype(t), W2.astype(t)]
    f = strata.jit(_mlp, dynamic={"x": [0]})
    for n in SIZES:
        x = R.standard_normal((n, 33)).astype(t)
        ref = _mlp_ref(*[a.astype(np.float64) for a in [x] + args])
        assert_close(f(x, *args), ref, dtype, reduction_length=70, ops=3,
                     magnitude=np.abs(ref).max(), what=f"{dtype} n={n}")
    assert f.stats.compiles == 2  # size 1 exact, then one dynamic variant


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_row_reductions_in_blocks(dtype):
    t = NP[dtype]
    g = (1 + R.standard_normal(40) * 0.1).astype(t)
    b = (R.standard_normal(40) * 0.1).astype(t)
    f = strata.jit(_rows, dynamic={"x": [0]})
    for n in SIZES:
        x = R.standard_normal((n, 40)).astype(t)
        ref_s, ref_m = _rows_ref(*[a.astype(np.float64) for a in (x, g, b)])
        s, m = f(x, g, b)
        assert_close(s, ref_s, dtype, reduction_length=40, ops=8, what=f"softmax n={n}")
        assert_close(m, ref_m, dtype, what=f"max n={n}")


def test_elementwise_integer_and_transposed_batch():
    def fn(x, k):
        return (x // k + x % k).T, strata.exp(strata.cast(x, "f32") * 0.01)

    f = strata.jit(fn, dynamic={"x": [0]})
    k = np.array([3, -2, 5, 1, 7], np.int32)
    for n in SIZES:
        x = R.integers(-1000, 1000, (n, 5)).astype(np.int32)
        a, e = f(x, k)
        np.testing.assert_array_equal(a, (x // k + x % k).T)
        assert_close(e, np.exp(x.astype(np.float64) * 0.01), "f32", ops=2)


def test_dynamic_ir_runs_static_blocks():
    text = _lowered(_mlp, {"x": ((None, 33), "f32"), "w1": ((33, 70), "f32"),
                           "b1": ((70,), "f32"), "w2": ((70, 5), "f32")})
    assert "func.func private @f__rows64(%arg0: tensor<64x33xf32>" in text
    assert "func.func private @f__rows8(%arg0: tensor<8x33xf32>" in text
    assert "func.call @f__rows64" in text and "tensor.pad" in text
    # the static blocks get the static kernels: register tiles, vector contractions
    text = _lowered(_mlp, {"x": ((None, 33), "f32"), "w1": ((33, 70), "f32"),
                           "b1": ((70,), "f32"), "w2": ((70, 5), "f32")}, "bufferized")
    assert "vector.contract" in text or "vector.fma" in text


def test_not_row_independent_keeps_the_dynamic_code():
    def fn(x, w):
        return (x @ w).sum(axis=0)

    text = _lowered(fn, {"x": ((None, 6), "f32"), "w": ((6, 3), "f32")})
    assert "__rows" not in text
    f = strata.jit(fn, dynamic={"x": [0]})
    w = R.standard_normal((6, 3)).astype(np.float32)
    for n in (7, 97):
        x = R.standard_normal((n, 6)).astype(np.float32)
        assert_close(f(x, w), (x.astype(np.float64) @ w).sum(0), "f32", reduction_length=n * 6)


def test_avx2_code_path():
    """The static blocks take the host's kernel parameters: the AVX2 ones here."""
    code = (
        "import numpy as np, strata\n"
        "from test_row_blocks import _mlp, _mlp_ref, W1, B1, W2\n"
        "f = strata.jit(_mlp, dynamic={'x': [0]})\n"
        "for n in (7, 97):\n"
        "    x = np.random.default_rng(n).standard_normal((n, 33)).astype(np.float32)\n"
        "    ref = _mlp_ref(*[a.astype(np.float64) for a in (x, W1, B1, W2)])\n"
        "    err = np.abs(f(x, W1, B1, W2) - ref).max() / np.abs(ref).max()\n"
        "    assert err < 1e-5, err\n"
        "print('ok')\n")
    env = {**os.environ, "STRATA_CPU_FEATURES": "avx2",
           "PYTHONPATH": os.path.dirname(__file__)}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=600)
    assert p.returncode == 0 and "ok" in p.stdout, p.stderr[-2000:]


def test_alternating_shapes_from_threads_keep_their_own_descriptors():
    """The warm path of a dynamic variant sets a thread's descriptor shapes only when
    its shape changes: shapes alternating across threads must not leak into each other."""
    import threading

    f = strata.jit(lambda x, w: strata.relu(x @ w), dynamic={"x": [0]})
    xs = {n: R.standard_normal((n, 33)).astype(np.float32) for n in (3, 7, 97, 130)}
    refs = {n: np.maximum(x.astype(np.float64) @ W1, 0) for n, x in xs.items()}
    for x in xs.values():
        f(x, W1)
    bad = []

    def work(order):
        for _ in range(30):
            for n in order:
                y = f(xs[n], W1)
                if y.shape != refs[n].shape or np.abs(y - refs[n]).max() > 1e-3:
                    bad.append(n)

    threads = [threading.Thread(target=work, args=(o,)) for o in
               ((3, 97), (97, 7), (130, 3, 7), (7, 130))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert bad == []
