"""Shape inference of the strata ops against numpy's own rules.

numpy is the reference throughout: every rule is exercised on random shapes
(size-1 dims, size-0 dims, rank 0) and compared with what numpy computes for
``np.empty`` arrays of those shapes, both when it succeeds and when it fails.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import strata
from strata.dialect import shapes as S
from strata.errors import StrataError

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
FRONTEND_SETTINGS = settings(max_examples=120, deadline=None, derandomize=True,
                             suppress_health_check=[HealthCheck.too_slow])

dims = st.sampled_from([0, 1, 1, 2, 3, 4, 5])
shapes = st.lists(dims, min_size=0, max_size=5).map(tuple)
nonscalar_shapes = st.lists(dims, min_size=1, max_size=5).map(tuple)


def np_result(fn):
    """``("ok", value)`` or ``("error", None)`` for a numpy reference computation."""
    try:
        return "ok", fn()
    except (ValueError, IndexError, TypeError):
        return "error", None


def strata_result(fn):
    try:
        return "ok", fn()
    except (S.ShapeError, StrataError):
        return "error", None


def assert_same(np_fn, strata_fn, what):
    expected = np_result(np_fn)
    got = strata_result(strata_fn)
    assert got == expected, f"{what}: strata gives {got}, numpy gives {expected}"


# --------------------------------------------------------------------------- broadcasting


@st.composite
def shape_groups(draw, n_min=2, n_max=3):
    """Shapes that are often broadcast-compatible (derived from one base shape)."""
    base = draw(shapes)
    out = []
    for _ in range(draw(st.integers(n_min, n_max))):
        if draw(st.booleans()):
            out.append(draw(shapes))  # independent: usually incompatible
            continue
        drop = draw(st.integers(0, len(base)))
        s = [1 if draw(st.integers(0, 3)) == 0 else d for d in base[drop:]]
        out.append(tuple(s))
    return out


@SETTINGS
@given(shape_groups())
def test_broadcast_shapes_matches_numpy(group):
    assert_same(lambda: tuple(np.broadcast_shapes(*group)),
                lambda: S.broadcast_shapes("add", *group), f"broadcast {group}")


@SETTINGS
@given(shape_groups(2, 2), st.sampled_from(S.BINARY_OPS))
def test_elementwise_matches_numpy(pair, op):
    a, b = pair
    dtype = "i32" if op in S.INT_ONLY_OPS else "f32"  # the bitwise ops take integers only
    expected = np_result(lambda: (np.add(np.zeros(a), np.zeros(b)).shape, dtype))
    assert strata_result(lambda: S.elementwise(op, a, b, dtype, dtype)) == expected


@SETTINGS
@given(shape_groups(3, 3))
def test_select_matches_numpy_where(group):
    c, t, f = group
    expected = np_result(lambda: (np.where(np.zeros(c, bool), np.zeros(t), np.zeros(f)).shape,
                                  "i32"))
    assert strata_result(lambda: S.select(c, t, f, "i1", "i32", "i32")) == expected


def test_broadcast_error_message_names_shapes():
    with pytest.raises(S.ShapeError, match=r"add: shapes 2x3 and 4x3 cannot be broadcast "
                                           r"\(dim -2 has sizes 2 vs 4\)"):
        S.broadcast_shapes("add", (2, 3), (4, 3))
    with pytest.raises(ValueError):  # numpy agrees it is an error
        np.broadcast_shapes((2, 3), (4, 3))


def test_elementwise_dtype_rules():
    with pytest.raises(S.ShapeError, match=r"operand element types differ \(f32 vs i32\)"):
        S.elementwise("add", (2,), (2,), "f32", "i32")
    with pytest.raises(S.ShapeError, match="element type i1 is not supported"):
        S.elementwise("add", (2,), (2,), "i1", "i1")
    assert S.compare((2, 1), (3,), "i32", "i32", "lt") == (np.broadcast_shapes((2, 1), (3,)),
                                                           "i1")
    with pytest.raises(S.ShapeError, match="unknown predicate"):
        S.compare((2,), (2,), "f32", "f32", "lte")
    with pytest.raises(S.ShapeError, match="condition element type must be i1"):
        S.select((2,), (2,), (2,), "f32", "f32", "f32")


# --------------------------------------------------------------------------- matmul


@st.composite
def matmul_pairs(draw):
    k = draw(dims)
    batch = draw(st.lists(dims, max_size=3))

    def operand(rank, last_two):
        if rank == 0:
            return ()
        if rank == 1:
            return (k,)
        nb = rank - 2
        if draw(st.integers(0, 4)) == 0:  # unrelated batch dims
            b = draw(st.lists(dims, min_size=nb, max_size=nb))
        else:  # a suffix of the common batch, with some dims replaced by 1
            tail = batch[len(batch) - nb:] if nb <= len(batch) else [1] * (nb - len(batch)) + batch
            b = [1 if draw(st.integers(0, 2)) == 0 else d for d in tail]
        return tuple(b) + last_two

    a = operand(draw(st.integers(0, 4)), (draw(dims), k))
    b = operand(draw(st.integers(0, 4)), (k, draw(dims)))
    if draw(st.integers(0, 4)) == 0 and len(b) >= 1:  # break the inner dim now and then
        b = b[:-2] + (draw(dims),) + b[-1:] if len(b) >= 2 else (draw(dims),)
    return a, b


@SETTINGS
@given(matmul_pairs())
def test_matmul_matches_numpy(pair):
    a, b = pair
    expected = np_result(lambda: (np.matmul(np.zeros(a), np.zeros(b)).shape, "f32"))
    assert strata_result(lambda: S.matmul(a, b, "f32", "f32")) == expected, pair


@pytest.mark.parametrize("a,b", [((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)),
                                 ((5, 1, 2, 3), (4, 3, 6)), ((0, 2, 3), (3, 0)),
                                 ((2, 3), (4, 3)), ((7, 2, 3), (5, 3, 2)), ((), (3,))])
def test_matmul_cases(a, b):
    expected = np_result(lambda: (np.matmul(np.zeros(a), np.zeros(b)).shape, "f16"))
    assert strata_result(lambda: S.matmul(a, b, "f16", "f16")) == expected


def test_matmul_inner_dim_message():
    with pytest.raises(S.ShapeError, match=r"^matmul: inner dimensions differ \(64 vs 32\)$"):
        S.matmul((8, 64), (32, 16), "f32", "f32")
    with pytest.raises(S.ShapeError, match="operand element types differ"):
        S.matmul((2, 2), (2, 2), "f32", "bf16")


# --------------------------------------------------------------------------- reductions


@st.composite
def reduce_cases(draw):
    shape = draw(shapes)
    r = len(shape)
    axes = draw(st.lists(st.integers(-r - 1, r), max_size=r + 1))
    if draw(st.booleans()):  # mostly valid, distinct axes
        axes = draw(st.lists(st.integers(-r, r - 1) if r else st.nothing(), max_size=r,
                             unique_by=lambda a: a % r if r else a))
    return shape, axes, draw(st.booleans())


@SETTINGS
@given(reduce_cases(), st.sampled_from(S.REDUCE_OPS))
def test_reduce_matches_numpy_sum(case, op):
    shape, axes, keepdims = case
    expected = np_result(
        lambda: (np.sum(np.zeros(shape), axis=tuple(axes), keepdims=keepdims).shape, "f32"))
    got = strata_result(lambda: S.reduce(op, shape, "f32", axes, keepdims))
    assert got == expected, (shape, axes, keepdims)


def test_reduce_dtype_rules():
    assert S.reduce("sum", (2, 3), "i32", [0], False) == ((3,), "i32")
    assert S.reduce("max", (2, 3), "i32", [-1], True) == ((2, 1), "i32")
    with pytest.raises(S.ShapeError, match="mean: operand element type i32"):
        S.reduce("mean", (2, 3), "i32", [0], False)
    with pytest.raises(S.ShapeError, match=r"sum: axes \[1, -1\] repeat an axis"):
        S.reduce("sum", (2, 3), "f32", [1, -1], False)


@FRONTEND_SETTINGS
@given(reduce_cases(), st.sampled_from(["sum", "max", "mean"]))
def test_reduce_through_frontend(case, op):
    shape, axes, keepdims = case
    expected = np_result(lambda: np.sum(np.zeros(shape), axis=tuple(axes),
                                        keepdims=keepdims).shape)
    out = {}

    def fn(x):
        out["y"] = getattr(x, op)(axis=axes, keepdims=keepdims)
        return out["y"]

    got = strata_result(lambda: strata.trace(fn, strata.TensorSpec(shape)) and out["y"].shape)
    assert got == expected


# --------------------------------------------------------------------------- transpose / reshape


@st.composite
def transpose_cases(draw):
    shape = draw(shapes)
    perm = list(draw(st.permutations(range(len(shape)))))
    mode = draw(st.integers(0, 3))
    if mode == 0 and perm:  # a repeated axis
        perm[draw(st.integers(0, len(perm) - 1))] = perm[0]
    elif mode == 1:  # wrong length or out of range
        perm = draw(st.lists(st.integers(0, len(shape) + 1), max_size=len(shape) + 1))
    return shape, perm


@SETTINGS
@given(transpose_cases())
def test_transpose_matches_numpy(case):
    shape, perm = case
    expected = np_result(lambda: (np.transpose(np.zeros(shape), perm).shape, "f32"))
    assert strata_result(lambda: S.transpose(shape, "f32", perm)) == expected, case


@FRONTEND_SETTINGS
@given(shapes, st.data())
def test_transpose_frontend_negative_axes(shape, data):
    r = len(shape)
    perm = [p - r if data.draw(st.booleans()) else p
            for p in data.draw(st.permutations(range(r)))]
    m = strata.trace(lambda x: x.transpose(perm) if perm else x.T, strata.TensorSpec(shape, "i32"))
    ret = _returned_types(m)
    assert ret == [(np.transpose(np.zeros(shape), perm or None).shape, "i32")]


@st.composite
def reshape_cases(draw):
    shape = draw(shapes)
    n = int(np.prod(shape))
    if draw(st.booleans()):  # a shuffled factorization of n: often valid
        factors = []
        m = n
        for p in (2, 3, 5):
            while m and m % p == 0:
                factors.append(p)
                m //= p
        target = factors + ([0] if n == 0 else []) + [1] * draw(st.integers(0, 2))
        target = draw(st.permutations(target)) if target else []
        target = list(target)
    else:
        target = draw(st.lists(dims, max_size=4))
    if target and draw(st.booleans()):
        target[draw(st.integers(0, len(target) - 1))] = -1
    if draw(st.integers(0, 6)) == 0:
        target.append(-1)
    return shape, target


@SETTINGS
@given(reshape_cases())
def test_reshape_rule_matches_numpy(case):
    shape, target = case
    assume(-1 not in target)  # the rule takes resolved targets; -1 is the front end's job
    expected = np_result(lambda: (np.reshape(np.zeros(shape), target).shape, "bf16"))
    assert strata_result(lambda: S.reshape(shape, "bf16", tuple(target))) == expected


@FRONTEND_SETTINGS
@given(reshape_cases())
def test_reshape_frontend_matches_numpy(case):
    shape, target = case
    expected = np_result(lambda: np.reshape(np.zeros(shape), target).shape)
    out = {}

    def fn(x):
        out["y"] = x.reshape(target)
        return out["y"]

    got = strata_result(lambda: strata.trace(fn, strata.TensorSpec(shape)) and out["y"].shape)
    assert got == expected, case


def test_reshape_negative_size_rejected():
    with pytest.raises(S.ShapeError, match="negative size"):
        S.reshape((6,), "f32", (-2, -3))


# --------------------------------------------------------------------------- concat


@st.composite
def concat_cases(draw):
    base = list(draw(shapes))
    n = draw(st.integers(1, 4))
    axis = draw(st.integers(-len(base) - 1, len(base)))
    out = []
    for _ in range(n):
        s = list(base)
        if base and -len(base) <= axis < len(base):
            s[axis] = draw(dims)
        if draw(st.integers(0, 5)) == 0:
            s = list(draw(shapes))
        out.append(tuple(s))
    return out, axis


@SETTINGS
@given(concat_cases())
def test_concat_matches_numpy(case):
    group, axis = case
    expected = np_result(
        lambda: (np.concatenate([np.zeros(s) for s in group], axis=axis).shape, "f32"))
    got = strata_result(lambda: S.concat(group, ["f32"] * len(group), axis))
    assert got == expected, case


def test_concat_needs_inputs_and_same_dtype():
    with pytest.raises(S.ShapeError, match="at least one input"):
        S.concat([], [], 0)
    with pytest.raises(S.ShapeError, match="element types differ"):
        S.concat([(2,), (2,)], ["f32", "f16"], 0)


# --------------------------------------------------------------------------- slicing


index_items = st.one_of(
    st.integers(-6, 6),
    st.builds(slice, st.none() | st.integers(-7, 7), st.none() | st.integers(-7, 7),
              st.none() | st.integers(1, 4)),
    st.none(),
    st.just(Ellipsis),
)


@FRONTEND_SETTINGS
@given(shapes, st.lists(index_items, max_size=6), st.booleans())
def test_getitem_matches_numpy_basic_indexing(shape, items, bare):
    index = items[0] if bare and len(items) == 1 else tuple(items)
    expected = np_result(lambda: np.zeros(shape)[index].shape)
    out = {}

    def fn(x):
        out["y"] = x[index]
        return out["y"]

    got = strata_result(lambda: strata.trace(fn, strata.TensorSpec(shape, "i32"))
                        and out["y"].shape)
    assert got == expected, (shape, index)
    if got[0] == "ok":
        assert out["y"].dtype == "i32"


@SETTINGS
@given(shapes, st.data())
def test_slice_rule_matches_numpy(shape, data):
    starts, limits, steps = [], [], []
    for d in shape:
        lo = data.draw(st.integers(0, d + 1))
        hi = data.draw(st.integers(0, d + 1))
        starts.append(lo)
        limits.append(hi)
        steps.append(data.draw(st.integers(0, 3)))
    valid = all(0 <= lo <= hi <= d and s >= 1
                for d, lo, hi, s in zip(shape, starts, limits, steps, strict=True))
    got = strata_result(lambda: S.slice_(shape, "f32", starts, limits, steps))
    if not valid:
        assert got == ("error", None)
    else:
        index = tuple(slice(*t) for t in zip(starts, limits, steps, strict=True))
        assert got == ("ok", (np.zeros(shape)[index].shape, "f32"))


def test_slice_rule_entry_count():
    with pytest.raises(S.ShapeError, match="starts has 1 entries for a rank-2 input"):
        S.slice_((2, 3), "f32", [0], [1, 1], [1, 1])


# --------------------------------------------------------------------------- conv / pool


def brute_force_out(size, k, stride, dil, lo, hi):
    """Counts the window positions directly; None if no window fits."""
    padded = size + lo + hi
    span = dil * (k - 1) + 1
    starts = [p for p in range(0, padded) if p % stride == 0 and p + span <= padded]
    return len(starts) if starts else None


def window_view_out(size, k, stride, dil, lo, hi):
    """The same count via numpy's sliding_window_view on a padded array."""
    span = dil * (k - 1) + 1
    padded = np.zeros(size + lo + hi)
    try:
        return np.lib.stride_tricks.sliding_window_view(padded, span)[::stride].shape[0]
    except ValueError:
        return None


conv_params = st.fixed_dictionaries({
    "n": dims, "c": st.integers(1, 3), "f": st.integers(1, 3),
    "h": st.integers(0, 9), "w": st.integers(0, 9), "kh": st.integers(1, 4),
    "kw": st.integers(1, 4), "stride": st.tuples(st.integers(1, 3), st.integers(1, 3)),
    "dil": st.tuples(st.integers(1, 3), st.integers(1, 3)),
    "pad": st.tuples(*[st.integers(0, 3)] * 4), "layout": st.sampled_from(S.LAYOUTS),
    "fc_delta": st.sampled_from([0, 0, 0, 1]),
})


@SETTINGS
@given(conv_params)
def test_conv2d_output_size_brute_force(p):
    fc = p["c"] + p["fc_delta"]
    if p["layout"] == "NCHW":
        inp, flt = (p["n"], p["c"], p["h"], p["w"]), (p["f"], fc, p["kh"], p["kw"])
    else:
        inp, flt = (p["n"], p["h"], p["w"], p["c"]), (p["kh"], p["kw"], fc, p["f"])
    t, b, l, r = p["pad"]
    oh = brute_force_out(p["h"], p["kh"], p["stride"][0], p["dil"][0], t, b)
    ow = brute_force_out(p["w"], p["kw"], p["stride"][1], p["dil"][1], l, r)
    assert oh == window_view_out(p["h"], p["kh"], p["stride"][0], p["dil"][0], t, b)
    got = strata_result(lambda: S.conv2d(inp, flt, ["f32", "f32"], list(p["stride"]),
                                         list(p["pad"]), list(p["dil"]), p["layout"]))
    if oh is None or ow is None or fc != p["c"]:
        assert got == ("error", None)
    else:
        shape = (p["n"], p["f"], oh, ow) if p["layout"] == "NCHW" else (p["n"], oh, ow, p["f"])
        assert got == ("ok", (shape, "f32"))


@SETTINGS
@given(conv_params, st.sampled_from(S.POOL_OPS))
def test_pool2d_output_size_brute_force(p, op):
    c = p["c"]
    inp = (p["n"], c, p["h"], p["w"]) if p["layout"] == "NCHW" else (p["n"], p["h"], p["w"], c)
    t, b, l, r = p["pad"]
    kh, kw = p["kh"], p["kw"]
    oh = brute_force_out(p["h"], kh, p["stride"][0], 1, t, b)
    ow = brute_force_out(p["w"], kw, p["stride"][1], 1, l, r)
    got = strata_result(lambda: S.pool2d(op, inp, "f16", [kh, kw], list(p["stride"]),
                                         list(p["pad"]), p["layout"]))
    if oh is None or ow is None or max(t, b) >= kh or max(l, r) >= kw:
        assert got == ("error", None)
    else:
        shape = (p["n"], c, oh, ow) if p["layout"] == "NCHW" else (p["n"], oh, ow, c)
        assert got == ("ok", (shape, "f16"))


@pytest.mark.parametrize("bad", [
    dict(strides=[0, 1]), dict(strides=[1]), dict(padding=[-1, 0, 0, 0]), dict(padding=[0, 0]),
    dict(dilations=[1, 0]), dict(layout="NHCW"),
])
def test_conv2d_attribute_rules(bad):
    kw = dict(strides=[1, 1], padding=[0, 0, 0, 0], dilations=[1, 1], layout="NCHW")
    kw.update(bad)
    with pytest.raises(S.ShapeError, match="^conv2d: "):
        S.conv2d((1, 2, 5, 5), (3, 2, 3, 3), ["f32", "f32"], **kw)


def test_pool_dtype_rules():
    assert S.pool2d("max_pool2d", (1, 1, 4, 4), "i32", [2, 2], [2, 2], [0] * 4, "NCHW")[1] == "i32"
    with pytest.raises(S.ShapeError, match="avg_pool2d: operand element type i32"):
        S.pool2d("avg_pool2d", (1, 1, 4, 4), "i32", [2, 2], [2, 2], [0] * 4, "NCHW")


# --------------------------------------------------------------------------- dynamic dims


def concretize(shape, rng):
    return tuple(rng.choice([0, 1, 2, 3, 5]) if d is None else d for d in shape)


def with_dynamic(shape, rng):
    return tuple(None if rng.random() < 0.35 else d for d in shape)


def assert_dynamic_sound(rule, np_fn, static_args, rng, trials=8):
    """A rule on dynamic dims must agree with numpy on every concretization numpy accepts.

    Each static result dim must be what numpy gives; a dynamic (None) result dim may be
    anything. And if the rule rejects the dynamic shapes, no concretization may succeed.
    """
    try:
        got, _ = rule(*static_args)
    except S.ShapeError:
        got = None
    for _ in range(trials):
        concrete = [concretize(s, rng) for s in static_args]
        status, ref = np_result(lambda concrete=concrete: np_fn(*concrete))
        if status != "ok":
            continue
        assert got is not None, f"rule rejects {static_args} but numpy accepts {concrete}"
        assert len(got) == len(ref)
        for g, r in zip(got, ref, strict=True):
            assert g is None or g == r, (static_args, concrete, got, ref)


@pytest.mark.parametrize("seed", range(4))
def test_dynamic_dims_are_sound(seed):
    rng = random.Random(seed)
    for _ in range(60):
        a = with_dynamic(tuple(rng.choice([0, 1, 1, 2, 3]) for _ in range(rng.randint(0, 3))),
                         rng)
        b = with_dynamic(tuple(rng.choice([0, 1, 1, 2, 3]) for _ in range(rng.randint(0, 3))),
                         rng)
        assert_dynamic_sound(lambda x, y: (S.broadcast_shapes("add", x, y), None),
                             lambda x, y: np.broadcast_shapes(x, y), [a, b], rng)
        assert_dynamic_sound(lambda x, y: S.matmul(x, y, "f32", "f32"),
                             lambda x, y: np.matmul(np.zeros(x), np.zeros(y)).shape, [a, b], rng)
        if a and a[-1:] == b[-1:] or len(a) == len(b):
            assert_dynamic_sound(
                lambda x, y: S.concat([x, y], ["f32", "f32"], 0),
                lambda x, y: np.concatenate([np.zeros(x), np.zeros(y)], 0).shape, [a, b], rng)


def test_dynamic_dims_documented_behaviour():
    # "a dynamic dim against 1 stays dynamic, against n > 1 is n"
    assert S.broadcast_shapes("add", (None,), (1,)) == (None,)
    assert S.broadcast_shapes("add", (None, 1), (4, 5)) == (4, 5)
    assert S.broadcast_shapes("add", (None,), (None,)) == (None,)
    # inner dims: dynamic is compatible with anything
    assert S.matmul((2, None), (7, 3), "f32", "f32") == ((2, 3), "f32")
    # reshape: checked only where both shapes are static
    assert S.reshape((None, 4), "f32", (3, 5)) == ((3, 5), "f32")
    # concat: a dynamic size along the axis makes the result dynamic there
    assert S.concat([(None, 3), (2, 3)], ["f32"] * 2, 0) == ((None, 3), "f32")
    assert S.concat([(None, 3), (2, None)], ["f32"] * 2, 1) == ((2, None), "f32")
    # conv/pool: a dynamic spatial dim gives a dynamic output dim
    assert S.conv2d((1, 3, None, 8), (4, 3, 3, 3), ["f32"] * 2, [1, 1], [0] * 4, [1, 1],
                    "NCHW") == ((1, 4, None, 6), "f32")
    # slices of a dynamic dim take their extent from the bounds
    assert S.slice_((None,), "f32", [2], [10], [3]) == ((3,), "f32")


def test_dynamic_dims_through_frontend():
    spec = strata.TensorSpec((None, 6))
    out = {}

    def fn(x):
        out["r"] = x.reshape(-1, 3)
        out["s"] = x[1:4, ::2]
        out["i"] = x[0]
        return out["r"], out["s"], out["i"]

    strata.trace(fn, spec)
    assert out["r"].shape == (None, 3)
    assert out["s"].shape == (3, 3)
    assert out["i"].shape == (6,)
    for bad in (lambda x: x[-1], lambda x: x[1:], lambda x: x[-3:5]):
        with pytest.raises(StrataError, match="dynamic dim 0"):
            strata.trace(bad, spec)


def _returned_types(m):
    from strata.dialect.types import shape_of

    types = []
    for op in m.mlir.body.operations:
        for inner in op.regions[0].blocks[0].operations:
            if inner.operation.name == "func.return":
                types += [shape_of(v.type) for v in inner.operation.operands]
    return types
