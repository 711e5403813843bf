"""strata.cumsum / flip / negative-step slices / pad / scatter / scatter_add / index_put
against numpy (float64 references) on odd and edge shapes, in f32, f16, bf16 and i32."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import strata

NP = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "i32": np.int32}
DTYPES = sorted(NP)


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "i32":
        return rng.integers(-50, 50, shape).astype(np.int32)
    return rng.standard_normal(shape).astype(NP[dtype])


def _close(got, want, dtype, n_terms=1):
    """Exact for i32; for floats a tolerance that grows with the number of terms summed
    (each partial sum of f16/bf16 is rounded once from an f32 accumulator)."""
    assert got.dtype == NP[dtype] and got.shape == want.shape
    if dtype == "i32":
        assert np.array_equal(got.astype(np.int64), want)
        return
    eps = {"f32": 2 ** -23, "f16": 2 ** -10, "bf16": 2 ** -7}[dtype]
    scale = np.abs(want) + np.sqrt(n_terms) * (1e-6 if dtype == "f32" else 0)
    tol = eps * scale + n_terms * 2 ** -23 * 8
    assert np.all(np.abs(got.astype(np.float64) - want) <= tol + 1e-30), \
        np.max(np.abs(got.astype(np.float64) - want) - tol)


# --- cumsum ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axis", [
    ((7,), 0), ((3, 13), 1), ((3, 13), 0), ((2, 5, 9), 1), ((2, 5, 9), -1),
    ((1, 1), 0), ((1, 17), 1), ((4, 1), 1), ((3, 0), 0), ((0, 4), 1),
])
def test_cumsum_matches_numpy(dtype, shape, axis):
    x = _data(shape, dtype, seed=len(shape))
    got = strata.jit(lambda t: strata.cumsum(t, axis=axis))(x)
    want = np.cumsum(x.astype(np.float64), axis=axis)
    if dtype == "i32":
        want = want.astype(np.int64)
    _close(got, want, dtype, n_terms=shape[axis] if shape else 1)


def test_cumsum_flattened_and_long_axis():
    x = _data((3, 4, 5), "f32", 1)
    got = strata.jit(lambda t: strata.cumsum(t))(x)
    _close(got, np.cumsum(x.astype(np.float64)), "f32", n_terms=60)
    y = _data((2, 3001), "bf16", 2)  # bf16 partial sums keep an f32 accumulator
    got = strata.jit(lambda t: strata.cumsum(t, axis=1))(y)
    f32_sums = np.cumsum(y.astype(np.float32), axis=1)  # in order, in f32, as strata's
    assert np.array_equal(got, f32_sums.astype(ml_dtypes.bfloat16))


def test_cumsum_i32_wraps():
    x = np.array([2 ** 31 - 1, 1, 5], np.int32)
    got = strata.jit(lambda t: strata.cumsum(t))(x)
    assert got.tolist() == [2 ** 31 - 1, -(2 ** 31), -(2 ** 31) + 5]


def test_cumsum_dynamic_axis():
    m = strata.Module()
    f = m.function("main", t=strata.TensorSpec((3, None), "f32"))
    f.ret(strata.cumsum(f.args[0], axis=1) + 1.0)
    prog = strata.compile(m)
    for n in (1, 6, 11):
        x = _data((3, n), "f32", n)
        _close(prog(x), np.cumsum(x.astype(np.float64), axis=1) + 1.0, "f32", n_terms=n + 1)


# --- flip and negative steps -----------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axes", [
    ((7,), None), ((3, 5), 0), ((3, 5), (0, 1)), ((2, 3, 4), -1), ((2, 3, 4), (0, 2)),
    ((1, 1), None), ((1, 6), 1), ((0, 3), 0),
])
def test_flip_matches_numpy(dtype, shape, axes):
    x = _data(shape, dtype, 3)
    got = strata.jit(lambda t: strata.flip(t, axes))(x)
    assert got.dtype == x.dtype and np.array_equal(got, np.flip(x, axes))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axes", [((33, 100), 0), ((1100, 1000), 0), ((33, 100), 1),
                                        ((5, 7, 70), (0, 1)), ((5, 7, 70), (1, 2))], ids=str)
def test_flip_wide_rows(dtype, threads, shape, axes):
    """Rows at least a vector wide: reversed outer axes copy whole rows as vector loads
    (strata-vectorize's gather schedule, masked last chunk, rows on threads past
    parallel-elements); a reversed last axis stays LLVM's loop."""
    x = _data(shape, dtype, 5)
    got = strata.jit(lambda t: strata.flip(t, axes), threads=threads)(x)
    assert np.array_equal(got, np.flip(x, axes))


@pytest.mark.parametrize("index", [
    np.s_[::-1], np.s_[5:1:-2], np.s_[::-3], np.s_[-2::-1], np.s_[1:5:-1], np.s_[3:2:-1],
    np.s_[::-1, 1::2], np.s_[:, ::-1], np.s_[2, ::-2], np.s_[None, ::-1, ...],
    np.s_[8:-12:-3, :0:-1],
])
@pytest.mark.parametrize("dtype", ["f32", "i32"])
def test_negative_steps_match_numpy(index, dtype):
    x = _data((9, 7), dtype, 4)
    got = strata.jit(lambda t: t[index])(x)
    want = x[index]
    assert got.shape == want.shape and np.array_equal(got, want)


def test_negative_step_on_a_dynamic_dim_is_a_located_error():
    m = strata.Module()
    f = m.function("main", t=strata.TensorSpec((None, 3), "f32"))
    with pytest.raises(strata.StrataError, match="negative slice step on dynamic dim 0") as e:
        f.args[0][::-1]
    assert "test_index_ops.py" in str(e.value)
    f.ret(f.args[0])  # no function left open for later tests


# --- pad -------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,width,value", [
    ((5,), (2, 3), 0.0), ((3, 4), ((1, 0), (2, 3)), -1.0), ((2, 3, 4), 1, 7.0),
    ((1, 1), ((0, 2), (3, 0)), 2.0), ((3, 0), ((1, 1), (0, 2)), 5.0),
    ((4, 6), ((-1, 2), (1, -3)), 3.0),   # negative widths crop (PyTorch's F.pad)
    ((4, 6), ((0, 0), (0, 0)), 0.0),
])
def test_pad_matches_numpy(dtype, shape, width, value):
    x = _data(shape, dtype, 5)
    got = strata.jit(lambda t: strata.pad(t, width, value=value))(x)
    w = np.asarray(width)
    pairs = [tuple(w.tolist())] * len(shape) if w.ndim == 1 else \
        [(int(w), int(w))] * len(shape) if w.ndim == 0 else [tuple(p) for p in w.tolist()]
    crop = tuple(slice(max(-lo, 0), s - max(-hi, 0)) for s, (lo, hi) in zip(shape, pairs, strict=True))
    want = np.pad(x[crop], [(max(lo, 0), max(hi, 0)) for lo, hi in pairs],
                  constant_values=np.asarray(value).astype(x.dtype))
    assert got.dtype == x.dtype and np.array_equal(got, want)


def test_pad_dynamic_dim():
    m = strata.Module()
    f = m.function("main", t=strata.TensorSpec((None, 3), "f32"))
    f.ret(strata.pad(f.args[0], ((2, 1), (0, 1)), value=-2.0) * 2.0)
    prog = strata.compile(m)
    x = _data((5, 3), "f32", 6)
    assert np.array_equal(prog(x), np.pad(x, ((2, 1), (0, 1)), constant_values=-2.0) * 2)


@pytest.mark.parametrize("call,message", [
    (lambda t: strata.pad(t, ((1, 1), (0, 0), (0, 0))), r"pad: pad_width .* does not fit"),
    (lambda t: strata.pad(t, ((-3, -2), (0, 0))), r"crop more than the 4 elements of dim 0"),
    (lambda t: strata.pad(strata.cast(t, "i32"), 1, value=0.5),
     r"pad: pad_value 0.5 is not an i32 value"),
])
def test_pad_bad_arguments_are_located_errors(call, message):
    with pytest.raises(strata.StrataError, match=message) as info:
        strata.jit(call)(np.ones((4, 5), np.float32))
    assert "test_index_ops.py" in str(info.value)


# --- scatter, scatter_add, index_put ---------------------------------------------------------


def _scatter_reference(x, ids, upd, axis, add):
    out = x.astype(np.float64).copy()
    n = x.shape[axis]
    for p in np.ndindex(*ids.shape):
        i = int(ids[p])
        i = i + n if i < 0 else i
        if not 0 <= i < n:
            continue
        q = list(p)
        q[axis] = i
        q = tuple(q)
        out[q] = out[q] + float(upd[p]) if add else float(upd[p])
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("add", [True, False])
@pytest.mark.parametrize("shape,ids_shape,axis", [
    ((6, 4), (9, 4), 0), ((6, 4), (3, 2), 0), ((3, 7), (3, 11), 1), ((2, 5, 3), (2, 4, 3), 1),
    ((1, 1), (5, 1), 0), ((5,), (0,), 0),
])
def test_scatter_matches_reference(dtype, add, shape, ids_shape, axis):
    x = _data(shape, dtype, 7)
    upd = _data(ids_shape, dtype, 8)
    n = shape[axis]
    ids = np.random.default_rng(9).integers(-n, n, ids_shape).astype(np.int32)
    fn = strata.scatter_add if add else strata.scatter
    got = strata.jit(lambda t, i, u: fn(t, i, u, axis=axis))(x, ids, upd)
    want = _scatter_reference(x, ids, upd, axis, add)
    if add:
        if dtype != "i32":  # one rounding per update added; duplicates: a few
            tol = {"f32": 1e-5, "f16": 4e-3, "bf16": 3e-2}[dtype]
            assert got.dtype == x.dtype
            assert np.allclose(got.astype(np.float64), want, rtol=tol, atol=tol * 4)
            return
    if not add:  # duplicates: the last update in row-major order wins
        assert got.dtype == x.dtype
    assert np.array_equal(got.astype(np.float64), want)


def test_scatter_runtime_out_of_range_indices_are_skipped():
    x = np.zeros((4, 2), np.float32)
    ids = np.array([[0, 9], [-1, -5], [4, 1]], np.int32)
    upd = np.ones((3, 2), np.float32)
    got = strata.jit(lambda t, i, u: strata.scatter_add(t, i, u, axis=0))(x, ids, upd)
    assert got.tolist() == [[1, 0], [0, 1], [0, 0], [1, 0]]


def test_scatter_leaves_its_input_alone():
    """The scatter loops write in place into a copy, never into the caller's array."""
    x = _data((5, 3), "f32", 12)
    before = x.copy()
    ids = np.array([[1, 0, 4]], np.int32)
    got = strata.jit(lambda t, i: strata.scatter(t, i, strata.constant(
        np.full((1, 3), 9.0, np.float32)), axis=0))(x, ids)
    assert np.array_equal(x, before)
    before[ids[0], [0, 1, 2]] = 9.0
    assert np.array_equal(got, before)


def test_index_put_matches_numpy():
    x = _data((6, 3), "f32", 10)
    ids = np.array([4, 0, -1], np.int32)
    vals = _data((3, 3), "f32", 11)
    got = strata.jit(lambda t, i, v: strata.index_put(t, i, v))(x, ids, vals)
    want = x.copy()
    want[ids] = vals
    assert np.array_equal(got, want)
    got = strata.jit(lambda t, i: strata.index_put(t, i, 2.0, accumulate=True))(x, ids)
    want = x.copy()
    np.add.at(want, ids, 2.0)
    assert np.array_equal(got, want)


@pytest.mark.parametrize("call,message", [
    (lambda t: strata.scatter_add(t, [[0, 4]], strata.constant(np.ones((1, 2), np.float32))),
     r"scatter_add: index 4 is out of range for axis 0 of size 4"),
    (lambda t: strata.scatter(t, [[0, -5]], strata.constant(np.ones((1, 2), np.float32))),
     r"scatter: index -5 is out of range for axis 0 of size 4"),
    (lambda t: strata.index_put(t, [1, 7], 1.0),
     r"index_put: index 7 is out of range for axis 0 of size 4"),
    (lambda t: strata.scatter_add(t, [[0, 1]], strata.constant(np.ones((1, 2), np.float32)), axis=2),
     r"scatter_add: axis 2 is out of range for a rank-2 tensor"),
])
def test_constant_indices_out_of_range_are_located_errors(call, message):
    with pytest.raises(strata.StrataError, match=message) as info:
        strata.jit(call)(np.ones((4, 5), np.float32))
    assert "test_index_ops.py" in str(info.value)


@pytest.mark.parametrize("build,reason", [
    (lambda t: strata.cumsum(t, axis=1) * 2.0, ""),
    (lambda t: strata.flip(t, -1) + 1.0, ""),
    (lambda t: strata.pad(t, ((0, 0), (2, 1)), value=3.0), ""),
    (lambda t: strata.cumsum(t, axis=0), "a cumsum along the batch dim"),
    (lambda t: strata.flip(t, 0), "a reverse of the batch dim"),
    (lambda t: strata.pad(t, ((1, 0), (0, 0))), "a pad of the batch dim"),
])
def test_dynamic_batch_dim_row_blocks(build, reason):
    """strata-row-blocks runs these ops in static blocks of rows unless they mix rows."""
    from strata.dialect.rows import dynamic_arg_axes, row_plan

    m = strata.Module()
    f = m.function("main", t=strata.TensorSpec((None, 5), "f32"))
    f.ret(build(f.args[0]))
    fn = next(op for op in m.mlir.body.operations if op.operation.name == "func.func")
    plan = row_plan(fn.operation, dynamic_arg_axes(fn.operation))
    assert plan.reason == reason
    prog = strata.compile(m)
    for n in (1, 7, 70):
        x = _data((n, 5), "f32", n)
        assert np.array_equal(prog(x), strata.jit(build)(x))


def _softmax64(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", ["matmul-flip-relu", "matmul-cumsum0", "relu-cumsum1",
                                  "pad-matmul", "softmax-cumsum", "matmul-scatter_add"])
def test_in_fused_programs(name, threads):
    """Beside matmuls (tiled, with fused epilogues), softmax row kernels and elementwise
    chains, on one and two threads."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal((128, 96)).astype(np.float32)
    w = rng.standard_normal((96, 160)).astype(np.float32)
    ids = rng.integers(0, 128, (40, 160)).astype(np.int32)
    u = rng.standard_normal((40, 160)).astype(np.float32)
    a64, w64 = a.astype(np.float64), w.astype(np.float64)
    mm = a64 @ w64
    added = mm.copy()
    np.add.at(added, (ids, np.arange(160)[None]), u)
    fn, args, want = {
        "matmul-flip-relu": (lambda a, w: strata.relu(strata.flip(a @ w, 1)) * 2.0, (a, w),
                             np.maximum(np.flip(mm, 1), 0) * 2),
        "matmul-cumsum0": (lambda a, w: strata.cumsum(a @ w + 1.0, axis=0), (a, w),
                           np.cumsum(mm + 1, axis=0)),
        "relu-cumsum1": (lambda a, w: strata.cumsum(strata.relu(a @ w), axis=1), (a, w),
                         np.cumsum(np.maximum(mm, 0), axis=1)),
        "pad-matmul": (lambda a, w: strata.pad(a, ((0, 0), (0, 4))) @
                       strata.pad(w, ((0, 4), (0, 0)), value=5.0), (a, w), mm),
        "softmax-cumsum": (lambda a: strata.cumsum(strata.softmax(a), axis=-1), (a,),
                           np.cumsum(_softmax64(a64), axis=-1)),
        "matmul-scatter_add": (lambda a, w, i, u: strata.tanh(strata.scatter_add(
            a @ w, i, u, axis=0)), (a, w, ids, u), np.tanh(added)),
    }[name]
    got = strata.jit(fn, threads=threads)(*args)
    assert got.shape == want.shape
    assert np.abs(got - want).max() <= 2e-5 * max(1.0, np.abs(want).max())


def test_bool_masks_flip_and_pad():
    x = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)
    got = strata.jit(lambda t: strata.where(strata.pad(strata.flip(t > 0, 1), ((1, 0), (0, 1)),
                                                       value=True), 1.0, 0.0))(x)
    want = np.pad(np.flip(x > 0, 1), ((1, 0), (0, 1)), constant_values=True).astype(np.float32)
    assert np.array_equal(got, want)
