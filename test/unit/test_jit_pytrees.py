"""strata.jit takes keyword arguments and trees of arrays (dicts, lists, tuples, named
tuples, dataclasses, None) as arguments and results (runtime/pytree.py), against numpy."""

import dataclasses
import os
import subprocess
import sys
import textwrap
from typing import NamedTuple

import numpy as np
import pytest

import strata
from strata.runtime.pytree import flatten, leaf_names, unflatten

RNG = np.random.default_rng(7)


def _f32(*shape):
    return RNG.standard_normal(shape, dtype=np.float32)


@dataclasses.dataclass
class Layer:
    w: np.ndarray
    b: np.ndarray


class Pair(NamedTuple):
    first: object
    second: object


def test_dict_params_keywords_and_dict_results():
    params = {"w1": _f32(9, 17), "b1": _f32(17), "w2": _f32(17, 5)}
    x = _f32(3, 9)

    @strata.jit
    def mlp(params, x, *, scale):
        h = strata.relu(x @ params["w1"] + params["b1"])
        return {"y": h @ params["w2"] * scale, "h": h}

    out = mlp(params, x, scale=np.float32(0.5))
    h = np.maximum(x.astype(np.float64) @ params["w1"] + params["b1"], 0)
    assert sorted(out) == ["h", "y"]
    np.testing.assert_allclose(out["h"], h, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out["y"], h @ params["w2"] * 0.5, rtol=1e-5, atol=1e-5)
    # another scale: the same tree and shapes, no new compile
    out = mlp(params, x, scale=np.float32(2.0))
    np.testing.assert_allclose(out["y"], h @ params["w2"] * 2.0, rtol=1e-5, atol=1e-5)
    assert mlp.stats.compiles == 1
    # the dict built in another order is the same tree (keys sorted, as in JAX)
    mlp({"w2": params["w2"], "b1": params["b1"], "w1": params["w1"]}, x,
        scale=np.float32(1.0))
    assert mlp.stats.compiles == 1
    # a keyword passed positionally's sibling: x by keyword is another tree
    out = mlp(params, x=x, scale=np.float32(1.0))
    np.testing.assert_allclose(out["y"], h @ params["w2"], rtol=1e-5, atol=1e-5)
    assert mlp.stats.compiles == 2


def test_dataclasses_lists_named_tuples_and_none():
    layers = [Layer(_f32(6, 6), _f32(6)) for _ in range(3)]
    x = _f32(4, 6)

    @strata.jit
    def stack(layers, x):
        for layer in layers:
            x = strata.tanh(x @ layer.w + layer.b)
        return Pair(x, [x * 2.0, None])

    out = stack(layers, x)
    ref = x.astype(np.float64)
    for layer in layers:
        ref = np.tanh(ref @ layer.w + layer.b)
    assert isinstance(out, Pair) and isinstance(out.second, list)
    np.testing.assert_allclose(out.first, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out.second[0], 2 * ref, rtol=1e-5, atol=1e-5)
    assert out.second[1] is None
    # one layer fewer: another tree, another compile, still right
    out = stack(layers[:2], x)
    ref = np.tanh(np.tanh(x.astype(np.float64) @ layers[0].w + layers[0].b) @ layers[1].w
                  + layers[1].b)
    np.testing.assert_allclose(out.first, ref, rtol=1e-5, atol=1e-5)
    assert stack.stats.compiles == 2


def test_out_arrays_follow_the_result_leaves():
    @strata.jit
    def both(d):
        return {"s": d["a"] + d["b"], "p": d["a"] * d["b"]}

    a, b = _f32(5, 7), _f32(5, 7)
    p, s = np.empty_like(a), np.empty_like(a)
    out = both({"a": a, "b": b}, out=(p, s))  # leaves in tree order: "p", then "s"
    np.testing.assert_allclose(p, a * b, rtol=1e-6)
    np.testing.assert_allclose(s, a + b, rtol=1e-6)
    assert out["p"] is p and out["s"] is s


def test_errors_are_located_at_the_users_line():
    @strata.jit
    def bad(params, x):
        return x @ params["w"]  # the line the error names

    with pytest.raises(strata.StrataError) as e:
        bad({"w": _f32(8, 3)}, _f32(2, 9))
    line = bad.fn.__code__.co_firstlineno + 2
    assert f"{__file__}:{line}:" in str(e.value)
    assert "inner dimensions differ (9 vs 8)" in str(e.value)


def test_result_structure_must_not_follow_shapes():
    @strata.jit
    def shifty(d):
        x = d["x"]
        return x * 2.0 if x.shape[0] == 2 else (x, x)

    shifty({"x": _f32(2, 3)})
    with pytest.raises(strata.StrataError, match="changed structure"):
        shifty({"x": _f32(3, 3)})


def test_unsortable_dict_keys_are_refused():
    @strata.jit
    def f(d):
        return d[1] + d["a"]

    with pytest.raises(strata.StrataError, match="dict keys must be sortable"):
        f({1: _f32(2), "a": _f32(2)})


def test_flatten_round_trip_and_leaf_names():
    value = ((Pair({"b": 1, "a": [2, 3]}, None), Layer(4, 5)), {"scale": 6})
    leaves, tree = flatten(value)
    assert leaves == [2, 3, 1, 4, 5, 6]
    assert unflatten(tree, leaves) == value
    assert tree.leaves == 6
    assert leaf_names(tree, ["p", "layer"]) == ["p_first_a_0", "p_first_a_1", "p_first_b",
                                               "layer_w", "layer_b", "scale"]


def test_a_tree_call_hits_the_disk_cache_in_a_new_process(tmp_path):
    """The flat function's trace is the user's: a second process loads the entry."""
    script = textwrap.dedent("""
        import numpy as np, strata
        @strata.jit
        def f(p, *, x):
            return {"y": strata.relu(x @ p["w"] + p["b"])}
        g = np.random.default_rng(0)
        p = {"w": g.standard_normal((6, 4), dtype=np.float32),
             "b": g.standard_normal(4, dtype=np.float32)}
        x = g.standard_normal((3, 6), dtype=np.float32)
        y = f(p, x=x)["y"]
        ref = np.maximum(x.astype(np.float64) @ p["w"] + p["b"], 0)
        assert np.allclose(y, ref, rtol=1e-5, atol=1e-5), (y, ref)
        print(f.stats.cache_hits)
    """)
    env = dict(os.environ, STRATA_CACHE_DIR=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr[-2000:]
    assert [r.stdout.split()[-1] for r in runs] == ["0", "1"]
