"""Functions served by test/unit/test_serve.py and bench/serve_bench.py, in a module of
their own so that Ray Serve replicas import them by name (this folder is on their
PYTHONPATH), with their float64 numpy references."""

import numpy as np

import strata

D_IN, D_HID, D_OUT = 16, 32, 8


def mlp(x, w1, b1, w2, b2):
    return strata.relu(x @ w1 + b1) @ w2 + b2


def np_mlp(x, w1, b1, w2, b2):
    f = [np.asarray(a, np.float64) for a in (x, w1, b1, w2, b2)]
    return np.maximum(f[0] @ f[1] + f[2], 0) @ f[3] + f[4]


def weights(seed=0, d_in=D_IN, d_hid=D_HID, d_out=D_OUT):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((d_in, d_hid)).astype(np.float32) / float(np.sqrt(d_in)),
            rng.standard_normal(d_hid).astype(np.float32),
            rng.standard_normal((d_hid, d_out)).astype(np.float32) / float(np.sqrt(d_hid)),
            rng.standard_normal(d_out).astype(np.float32))


def two_heads(x, m, w):
    """Two inputs, two results: the result batch axes differ (dim 0 and dim 1)."""
    h = x @ w + m
    return strata.softmax(h, axis=-1), strata.transpose(h, (1, 0))


def np_two_heads(x, m, w):
    h = np.asarray(x, np.float64) @ np.asarray(w, np.float64) + m
    e = np.exp(h - h.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True), h.T


def column_sum(x):
    """Not row-independent: a row of the result sees every row of the batch."""
    return strata.sum(x, axis=0, keepdims=True) + x
