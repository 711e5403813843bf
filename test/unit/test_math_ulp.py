"""Maximum ulp error of strata-expand-math's polynomials against float64.

Each function is compiled on its own (strata-expand-math, then
strata-lower-to-llvm) as a loop over a buffer, in scalar form and as
``vector<8xf32>`` / ``vector<16xf32>`` ops (the AVX2 and AVX-512 widths; LLVM
splits a vector wider than the host's registers), and run on a dense sweep of
f32 inputs: every exponent with many mantissas, denormals, +-0, +-inf, NaN and
the edges of each approximation's pieces. The bounds are the ones the pass's
docstring documents. sigmoid is measured through strata.sigmoid (exp inside).
"""

from __future__ import annotations

import ctypes
import math

import numpy as np
import pytest
from mlir import ir
from mlir.runtime import get_ranked_memref_descriptor

import strata
from strata.context import new_context
from strata.pipelines.runner import run_pipeline
from strata.runtime.engine import Engine

_erf = np.vectorize(math.erf, otypes=[np.float64])

# name -> (math op, float64 reference, documented max ulp, domain filter)
FUNCS = {
    "exp": ("math.exp", np.exp, 1.0),
    "log": ("math.log", np.log, 1.0),
    "tanh": ("math.tanh", np.tanh, 2.5),
    "erf": ("math.erf", _erf, 1.5),
}
TINY = float(np.finfo(np.float32).tiny)


def sweep() -> np.ndarray:
    """About 1.2M f32 values: all exponents x 4096 mantissas, both signs, edges."""
    rng = np.random.default_rng(0)
    exps = np.arange(0, 255, dtype=np.uint32)
    mant = np.concatenate([np.arange(0, 1 << 23, (1 << 23) // 2048, dtype=np.uint32),
                           rng.integers(0, 1 << 23, 2048, dtype=np.uint32)])
    bits = (exps[:, None] << 23 | mant[None, :]).ravel()
    pos = bits.view(np.float32)
    dense = np.linspace(-10, 10, 200_001, dtype=np.float32)
    edges = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, TINY, -TINY, 1e-45, -1e-45,
                      88.72283, 88.7229, -87.33654, -87.34, -103.9, 0.625, 0.875, 1.0, 2.25, 4.0,
                      np.float32(math.sqrt(0.5)), 1.0000001, 0.99999994,
                      np.finfo(np.float32).max, -np.finfo(np.float32).max], np.float32)
    x = np.concatenate([pos, -pos, dense, edges]).astype(np.float32)
    n = -(-x.size // 64) * 64
    return np.concatenate([x, np.full(n - x.size, 1.0, np.float32)])


def ulp_errors(y: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|y - ref| in units of the f32 spacing at ref. Where ref is below the smallest normal
    (exp's results there flush to 0) the error is absolute, in units of that normal."""
    ref32 = np.abs(ref.astype(np.float32))
    spacing = np.spacing(np.maximum(ref32, np.float32(TINY))).astype(np.float64)
    with np.errstate(invalid="ignore"):
        err = np.abs(y.astype(np.float64) - ref) / spacing
    # exact, both NaN, or both the same f32 rounding of ref (an overflow to inf included)
    same = (y.astype(np.float64) == ref) | (np.isnan(y) & np.isnan(ref)) | \
        (y == ref.astype(np.float32))
    subnormal = np.abs(ref) < TINY
    with np.errstate(invalid="ignore"):
        err = np.where(subnormal, np.abs(y.astype(np.float64) - ref) / TINY, err)
    return np.where(same, 0.0, np.where(np.isnan(err), np.inf, err))


def _kernel_text(op: str, width: int) -> str:
    """func @f(x, y): y[i] = op(x[i]), ``width`` elements per step (0: scalar)."""
    if width:
        t = f"vector<{width}xf32>"
        load = f"%v = vector.load %x[%i] : memref<?xf32>, {t}"
        store = f"vector.store %r, %y[%i] : memref<?xf32>, {t}"
        step = width
    else:
        t = "f32"
        load = "%v = memref.load %x[%i] : memref<?xf32>"
        store = "memref.store %r, %y[%i] : memref<?xf32>"
        step = 1
    return f"""
func.func @f(%x: memref<?xf32>, %y: memref<?xf32>) attributes {{llvm.emit_c_interface}} {{
  %c0 = arith.constant 0 : index
  %s = arith.constant {step} : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %s {{
    {load}
    %r = {op} %v : {t}
    {store}
  }}
  return
}}"""


def run_math(op: str, width: int, x: np.ndarray, attrs: str = "",
             relu: bool = False) -> np.ndarray:
    """``op`` of every element of ``x`` (``op(max(x, +0))`` with ``relu``: an argument
    passes/signs.py knows is never negative)."""
    ctx = new_context()
    with ctx, ir.Location.unknown():
        text = _kernel_text(op, width)
        if attrs:  # discardable attributes on the math op (strata.nonpositive)
            text = text.replace(f"{op} %v :", f"{op} %v {{{attrs}}} :")
        if relu:
            t = f"vector<{width}xf32>" if width else "f32"
            zero = f"dense<0.0> : {t}" if width else "0.0 : f32"
            text = text.replace(f"%r = {op} %v :", f"%z = arith.constant {zero}\n"
                                f"    %p = arith.maximumf %v, %z : {t}\n"
                                f"    %r = {op} %p :")
        module = ir.Module.parse(text)
        if relu:  # the expansion for a never-negative argument: no abs, no sign
            run_pipeline(module.operation, "strata-expand-math", reproducer=False)
            assert "math.copysign" not in str(module) and "math.absf" not in str(module)
        run_pipeline(module.operation, "strata-expand-math, strata-lower-to-llvm",
                     reproducer=False)
        text = str(module)
        assert "llvm.call @" + op.split(".")[1] + "f" not in text  # no libm call left
        engine = Engine(module)
        y = np.empty_like(x)
        args = [ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(a))) for a in (x, y)]
        engine.engine.invoke("f", *args)
    return y


@pytest.fixture(scope="module")
def inputs():
    return sweep()


@pytest.mark.parametrize("width", [0, 8, 16])
@pytest.mark.parametrize("name", sorted(FUNCS))
def test_max_ulp(name, width, inputs):
    op, ref_fn, bound = FUNCS[name]
    x = inputs
    with np.errstate(all="ignore"):
        ref = ref_fn(x.astype(np.float64))
    y = run_math(op, width, x)
    err = ulp_errors(y, ref)
    worst = int(np.argmax(err))
    print(name, width, "max ulp", err[worst])
    assert err[worst] <= bound, (name, width, float(x[worst]), float(y[worst]), ref[worst],
                                 float(err[worst]))
    # the special values exactly
    for v in (np.nan, np.inf, -np.inf, 0.0, -0.0):
        i = np.flatnonzero((x == v) | (np.isnan(x) & np.isnan(v)))[0]
        with np.errstate(all="ignore"):
            expect = ref_fn(np.float64(v))
        if np.isnan(expect):
            assert np.isnan(y[i]), (name, v, y[i])
        else:
            assert y[i] == expect, (name, v, y[i], expect)


def test_sigmoid_ulp(inputs):
    x = inputs[np.isfinite(inputs)]
    x = x[: x.size // 64 * 64].reshape(-1, 64)
    y = strata.jit(strata.sigmoid)(x)
    with np.errstate(over="ignore"):
        ref = 1.0 / (1.0 + np.exp(-x.astype(np.float64)))
    err = ulp_errors(y, ref)
    worst = int(np.argmax(err))
    print("sigmoid max ulp", err.ravel()[worst])
    assert err.ravel()[worst] <= 2.5, (float(x.ravel()[worst]), float(y.ravel()[worst]))


@pytest.mark.parametrize("width", [0, 8, 16])
def test_exp_nonpositive_ulp(width, inputs):
    """exp marked strata.nonpositive (strata-attention), on the sweep's x <= 0 and NaN:
    the same bound as exp, 0 for -inf and below the underflow bound."""
    x = inputs[~(inputs > 0)]
    x = np.concatenate([x, np.full(-x.size % 64, -1.0, np.float32)])
    ref = np.exp(x.astype(np.float64))
    y = run_math("math.exp", width, x, attrs="strata.nonpositive")
    err = ulp_errors(y, ref)
    worst = int(np.argmax(err))
    assert err[worst] <= FUNCS["exp"][2], (width, float(x[worst]), float(y[worst]), ref[worst])
    assert y[x == -np.inf].tolist() == [0.0] and np.isnan(y[np.isnan(x)]).all()
    assert (y[x == 0] == 1.0).all()


@pytest.mark.parametrize("width", [0, 8, 16])
def test_tanh_of_nonnegative_ulp(width, inputs):
    """tanh(max(x, 0)): its argument is never negative, so strata-expand-math drops the
    abs and the sign (build_tanh_nonnegative); the same bound as tanh, NaN kept, +0 for
    every x <= 0, 1 for +inf."""
    x = np.concatenate([inputs, np.full(-inputs.size % 64, 1.0, np.float32)])
    ref = np.tanh(np.maximum(x.astype(np.float64), 0.0))
    y = run_math("math.tanh", width, x, relu=True)
    err = ulp_errors(y, ref)
    worst = int(np.argmax(err))
    assert err[worst] <= FUNCS["tanh"][2], (width, float(x[worst]), float(y[worst]), ref[worst])
    assert np.isnan(y[np.isnan(x)]).all() and (y[x == np.inf] == 1.0).all()
    nonpositive = x <= 0
    assert (y[nonpositive] == 0.0).all() and not np.signbit(y[nonpositive]).any()
