"""strata.take / strata.gather against numpy on odd shapes, every dtype, edge indices."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import strata

NP = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "i32": np.int32}


def reference(x, ids, axis):
    """numpy's take after strata's index rule: negative + dim, then clamped into range."""
    n = x.shape[axis]
    ids = np.where(ids < 0, ids.astype(np.int64) + n, ids)
    return np.take(x.astype(np.float64), np.clip(ids, 0, n - 1), axis=axis)


def _data(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == "i32":
        return rng.integers(-2 ** 31, 2 ** 31 - 1, shape, dtype=np.int64).astype(np.int32)
    return (rng.standard_normal(shape) * 100).astype(NP[dtype])


@pytest.mark.parametrize("dtype", sorted(NP))
@pytest.mark.parametrize("shape,axis,ids_shape", [
    ((13, 7), 0, (3, 5)),       # an embedding lookup
    ((3, 11, 5), 1, (9,)),      # a middle axis
    ((3, 5, 7), -1, (2, 3)),    # the last axis, 2-D indices
    ((1, 1), 0, (4,)),          # one row, picked again and again
    ((17,), 0, ()),             # a scalar index: the axis disappears
])
def test_matches_numpy(dtype, shape, axis, ids_shape):
    x = _data(shape, dtype, seed=len(shape))
    n = shape[axis]
    rng = np.random.default_rng(3)
    ids = rng.integers(-n, n, ids_shape).astype(np.int32)
    flat = ids.reshape(-1)
    edges = [0, n - 1, -1, -n, n, n + 5, -n - 1, 2 ** 31 - 1, -(2 ** 31)]  # in, and out of range
    flat[:min(len(edges), flat.size)] = edges[:flat.size]
    got = strata.jit(lambda t, i: strata.take(t, i, axis=axis))(x, ids)
    want = reference(x, ids, axis % len(shape))
    assert got.dtype == x.dtype and got.shape == want.shape
    assert np.array_equal(got.astype(np.float64), want)  # picks, never rounds


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", sorted(NP))
@pytest.mark.parametrize("shape,axis,ids_shape", [
    ((50, 1000), 0, (4, 33)),      # rows past a vector: vector chunks, a masked last one
    ((2100, 520), 0, (2100,)),     # >= parallel-elements: rows on threads
    ((3, 70, 129), 1, (5,)),       # a middle axis, rows of 129
    ((6, 40, 64), -1, (48,)),      # the last axis: an index per element
])
def test_wide_rows(dtype, threads, shape, axis, ids_shape):
    """Gathers whose output rows are at least a vector wide run as vector loads
    (strata-vectorize's gather schedule); edge and out-of-range indices too."""
    x = _data(shape, dtype, seed=shape[-1])
    n = shape[axis]
    ids = np.random.default_rng(7).integers(-n, n, ids_shape).astype(np.int32)
    flat = ids.reshape(-1)
    edges = [0, n - 1, -1, -n, n, -n - 1, 2 ** 31 - 1]
    flat[:min(len(edges), flat.size)] = edges[:flat.size]
    got = strata.jit(lambda t, i: strata.take(t, i, axis=axis), threads=threads)(x, ids)
    assert np.array_equal(got.astype(np.float64), reference(x, ids, axis % len(shape)))


def test_flattened_axis_none_and_constant_indices():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) * 0.5
    got = strata.jit(lambda t: strata.take(t, [5, -1, 23, 30]))(x)
    assert np.array_equal(got, reference(x.reshape(-1), np.array([5, -1, 23, 30]), 0))


def test_dynamic_sizes():
    m = strata.Module()
    f = m.function("main", t=strata.TensorSpec((None, 6), "f32"),
                   ids=strata.TensorSpec((None,), "i32"))
    f.ret(strata.take(f.args[0], f.args[1], axis=0) * 2.0)
    prog = strata.compile(m)
    t = _data((9, 6), "f32", 1)
    ids = np.array([8, 0, -2, 40, 3], np.int32)
    assert np.array_equal(prog(t, ids), (reference(t, ids, 0) * 2.0).astype(np.float32))


@pytest.mark.parametrize("consumer", ["broadcast", "transpose"])
def test_consumers_with_other_loops(consumer):
    """The gather's body reads its loop indices: strata-fuse does not merge it into a
    consumer whose loops differ (a broadcast into more dims, a transposed read)."""
    t = _data((2, 10), "f32", 2)
    ids = np.array([1, 9, -3], np.int32)
    y = _data((5, 2, 3), "f32", 4)
    if consumer == "broadcast":
        fn, want = (lambda t, i, y: strata.take(t, i, axis=1) + y), reference(t, ids, 1) + y
    else:
        fn = lambda t, i, y: strata.transpose(strata.take(t, i, axis=1)) + y[0].T  # noqa: E731
        want = reference(t, ids, 1).T + y[0].T
    got = strata.jit(fn)(t, ids, y)
    assert np.allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("call,message", [
    (lambda t: strata.take(t, strata.constant(np.zeros(3, np.float32))),
     r"gather: indices element type f32 is not supported \(expected i32 or i64\)"),
    (lambda t: strata.take(t, [0], axis=2),
     r"gather: axis 2 is out of range for a rank-2 tensor"),
])
def test_bad_arguments_are_located_errors(call, message):
    with pytest.raises(strata.StrataError, match=message) as info:
        strata.jit(call)(np.ones((3, 4), np.float32))
    assert "test_gather.py" in str(info.value)
