"""What the README promises about thread counts, checked.

Generated code splits whole tiles and rows over threads, never a reduction: with
``blas="never"`` every thread count gives the same bits. With ``blas="auto"`` the cost
model's choice between generated code and OpenBLAS depends on the thread count (for
64x1024 @ 1024x64 it picks OpenBLAS on one thread and generated code on two), so results
for different counts agree to a float32 matmul's rounding bound, not bit for bit.
"""

import numpy as np
import pytest

import strata
from strata.testing import assert_close


def _matmul(a, b):
    return a @ b


def _attention(q, k, v):
    return strata.softmax((q @ strata.transpose(k, (0, 2, 1))) / 8.0, axis=-1) @ v


CASES = [
    # (function, operand shapes, K of its reduction)
    (_matmul, [(64, 1024), (1024, 64)], 1024),   # the library on 1 thread, generated on 2
    (_matmul, [(64, 512), (512, 128)], 512),
    (_matmul, [(37, 300), (300, 51)], 300),      # odd: partial tiles
    (_attention, [(4, 96, 64)] * 3, 96),
]


def _args(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in shapes]


def _reference(fn, args):
    a64 = [a.astype(np.float64) for a in args]
    if fn is _matmul:
        return a64[0] @ a64[1]
    q, k, v = a64
    s = q @ k.transpose(0, 2, 1) / 8.0
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


@pytest.mark.parametrize("fn,shapes,k", CASES, ids=lambda c: getattr(c, "__name__", None))
def test_generated_code_is_bit_identical_for_every_thread_count(fn, shapes, k):
    args = _args(shapes)
    one = strata.jit(fn, threads=1, blas="never")(*args)
    two = strata.jit(fn, threads=2, blas="never")(*args)
    assert np.array_equal(one, two), f"max difference {np.abs(one - two).max()}"


@pytest.mark.parametrize("fn,shapes,k", CASES, ids=lambda c: getattr(c, "__name__", None))
def test_auto_blas_agrees_to_rounding_across_thread_counts(fn, shapes, k):
    args = _args(shapes, seed=1)
    want = _reference(fn, args)
    magnitude = None
    if fn is _matmul:  # a dot product's error scales with sum |a_i b_i|
        magnitude = np.abs(args[0].astype(np.float64)) @ np.abs(args[1].astype(np.float64))
    for threads in (1, 2):
        got = strata.jit(fn, threads=threads, blas="auto")(*args)
        assert_close(got, want, reduction_length=k, magnitude=magnitude,
                     what=f"{fn.__name__} threads={threads}")
