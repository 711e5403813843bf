"""Fast restart: a disk-cache hit in a new process needs no MLIR, and recorded traces
(frontend/record.py) name the IR the MLIR trace builds."""

import inspect
import os
import subprocess
import sys

import numpy as np
import pytest

import strata
from strata.frontend.module import trace
from strata.frontend.record import ATTRIBUTES, DIALECT
from strata.frontend.recording import record_trace
from strata.runtime import aot

needs_cc = pytest.mark.skipif(not aot.available(), reason="no C compiler driver (cc)")

CHILD = r"""
import json, sys
import numpy as np
import strata
from strata import demo
rng = np.random.default_rng(int(sys.argv[1]))
args = demo._inputs(rng, "mlp")
f = strata.jit(demo.mlp)
y = f(*args)
err = float(np.max(np.abs(y - demo.np_mlp(*[a.astype(np.float64) for a in args]))))
print(json.dumps({"hits": f.stats.cache_hits, "mlir": "mlir" in sys.modules, "err": err,
                  "again": bool(np.array_equal(f(*args), y))}))
"""


def _child(cache, seed=0, env=None):
    env = {**os.environ, "STRATA_CACHE_DIR": str(cache), **(env or {})}
    env.pop("STRATA_CACHE", None)
    p = subprocess.run([sys.executable, "-c", CHILD, str(seed)], capture_output=True, text=True,
                       env=env, timeout=600)
    assert p.returncode == 0, p.stderr
    import json

    return json.loads(p.stdout.strip().splitlines()[-1])


@needs_cc
def test_a_disk_hit_in_a_new_process_does_not_import_mlir(tmp_path):
    first = _child(tmp_path / "cache")
    assert first["hits"] == 0 and first["mlir"]
    for seed in (0, 1):  # other values, same shapes: the same entry
        again = _child(tmp_path / "cache", seed)
        assert again["hits"] == 1
        assert not again["mlir"], "a disk-cache hit imported the MLIR bindings"
        assert again["err"] < 1e-3 and again["again"]


@needs_cc
def test_a_knob_still_changes_the_key_of_a_restart(tmp_path):
    _child(tmp_path / "cache")
    other = _child(tmp_path / "cache", env={"STRATA_THREADS": "1"})
    assert other["hits"] == 0 and other["mlir"]


def test_import_strata_does_not_import_mlir():
    code = "import sys, strata; strata.jit; strata.TensorSpec; print('mlir' in sys.modules)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "False"


def _w(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


# Functions over much of the op set; each is traced both ways and must record the same.
PROGRAMS = [
    (lambda x, w: strata.relu(x @ w + 1.5) * 2, [_w((3, 5)), _w((5, 4))]),
    (lambda x: strata.softmax(x, axis=0) - strata.layer_norm(x, epsilon=1e-3),
     [_w((4, 6))]),
    (lambda x: (x.sum(axis=1, keepdims=True) + x.max(0) - x.mean()).T, [_w((3, 7))]),
    (lambda x: strata.where(x > 0, x, -x) ** 2 // 3 % 2, [_w((5,))]),
    (lambda x: x.reshape(2, -1).transpose(1, 0)[1:, ::2], [_w((4, 3))]),
    (lambda x: strata.concat([x, x * 3], axis=1).astype("f16").astype("f32"), [_w((2, 3))]),
    (lambda x: strata.broadcast_to(x, (3, 4)) + strata.constant(np.arange(4.0)), [_w((4,))]),
    (lambda x, k: strata.max_pool2d(strata.conv2d(x, k, padding=1), 2) +
     strata.avg_pool2d(x, 2, stride=1, padding=1)[:, :1, :2, :2],
     [_w((1, 2, 4, 4)), _w((1, 2, 3, 3))]),
    (lambda x: strata.gelu(x, approximate="tanh") + strata.gelu(strata.sigmoid(x)) +
     strata.tanh(x) + strata.exp(x) + strata.sqrt(abs(x)) - strata.rsqrt(abs(x) + 1) +
     strata.log(abs(x) + 1) + strata.maximum(x, 0.5) - strata.minimum(x, -0.5), [_w((6,))]),
    (lambda i: (i // 3) + (i % 4) * 2 + (i == 2).astype("i32"), [np.arange(6, dtype=np.int32)]),
    (lambda x, s: x * s + 1, [_w((2, 2)), 3.0]),
]


@pytest.mark.parametrize("fn, args", PROGRAMS)
def test_a_recorded_trace_records_what_the_mlir_trace_builds(fn, args):
    record = record_trace(fn, *args)
    module = trace(fn, *args)
    (built,) = module.records.values()
    assert record.data() == built.data()
    assert record.digest() == built.digest()
    assert [s for s, _ in record.result_specs()] == [
        tuple(r.shape) for r in module.mlir.body.operations[0].type.results]


def test_the_digest_changes_with_what_the_program_computes():
    x, w = _w((3, 5)), _w((5, 4))
    base = record_trace(lambda x, w: strata.relu(x @ w) * 2.0, x, w).digest()
    assert record_trace(lambda x, w: strata.relu(x @ w) * 2.0, x, w).digest() == base
    others = [
        record_trace(lambda x, w: strata.relu(x @ w) * 2.5, x, w),     # a scalar
        record_trace(lambda x, w: strata.relu(x @ w) + 2.0, x, w),     # an op
        record_trace(lambda x, w: strata.relu(w.T @ x.T).T * 2.0, x, w),  # the dataflow
        record_trace(lambda x, w: strata.relu(x @ w) * 2.0, x[:2], w),  # a shape
        record_trace(lambda x, w: strata.relu(x @ w) * 2.0, x.astype(np.float16),
                     w.astype(np.float16)),                              # a dtype
    ]
    assert len({r.digest() for r in others} | {base}) == len(others) + 1
    c = np.ones(4, np.float32)
    c.setflags(write=False)
    d = c.copy()
    d[1] = 2
    d.setflags(write=False)
    assert record_trace(lambda w: w * c, w).digest() != record_trace(lambda w: w * d, w).digest()


def _times(c):
    return lambda x: x * c


@needs_cc
def test_a_changed_captured_constant_misses_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("STRATA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("STRATA_CACHE", raising=False)
    x = _w((3, 4))
    for value, hits in ((1.0, 0), (2.0, 0), (1.0, 1)):
        c = np.full(4, value, np.float32)
        c.setflags(write=False)
        f = strata.jit(_times(c))
        np.testing.assert_allclose(f(x), x * value, rtol=1e-6)
        assert f.stats.cache_hits == hits


@needs_cc
def test_a_function_the_recorder_cannot_run_still_compiles(tmp_path, monkeypatch):
    monkeypatch.setenv("STRATA_CACHE_DIR", str(tmp_path / "cache"))
    x = _w((3, 4))

    def reads_the_mlir_type(x):
        assert str(x.type).startswith("tensor<3x4xf32")
        return x * 2.0

    for hits in (0, 1):
        f = strata.jit(reads_the_mlir_type)
        np.testing.assert_allclose(f(x), x * 2, rtol=1e-6)
        assert f.stats.cache_hits == hits


def test_the_attribute_table_matches_the_generated_builders():
    from strata.dialect.verifier import DEFAULTS, KINDS
    from strata.dialects import _strata_ops_gen as gen
    from strata.dialects import strata as dialect

    for cls in dialect.OP_CLASSES:
        ref = DIALECT.op_class(cls.OPERATION_NAME)
        assert ref.resolve() is cls
        assert getattr(DIALECT, cls.__name__).kind == cls.OPERATION_NAME.split(".", 1)[1]
        base = next(b for b in cls.__mro__ if b.__module__ == gen.__name__)
        params = list(inspect.signature(base.__init__).parameters.values())[2:]
        positional = [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
        attrs = tuple(n for n in positional if n in set(KINDS) | set(DEFAULTS))
        expected = {"reshape": ("shape",), "broadcast_to": ("shape",),
                    "cast": ("dtype",)}.get(ref.kind, attrs)  # given as a shape / dtype
        if ref.kind != "constant":
            assert ATTRIBUTES.get(ref.kind, ()) == expected, ref.kind


def test_the_blas_symbols_are_strata_blas_symbols():
    from strata.passes.blas import SYMBOLS
    from strata.runtime import blas

    assert blas._symbols() == SYMBOLS
