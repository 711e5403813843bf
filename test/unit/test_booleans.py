"""Bool results: numpy bool arrays from every entry point, and through every level.

Comparisons are stored as i8 0/1 (lowering/booleans.py), so a function returning
one must lower to the LLVM dialect (it used to abort on an MLIR assertion about
i1 stores), and the runtime hands numpy bool arrays to the compiled code as is.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import strata

STRATA_OPT = os.path.join(os.path.dirname(sys.executable), "strata-opt")

CASES = {
    "compare": (lambda a, b: a < b, lambda a, b: a < b),
    "transposed": (lambda a, b: (a >= b).T, lambda a, b: (a >= b).T),
    "reshaped": (lambda a, b: (a > b).reshape(-1), lambda a, b: (a > b).reshape(-1)),
    "broadcast": (lambda a, b: a[0] <= b, lambda a, b: a[0] <= b),
    "sliced": (lambda a, b: (a < b)[1:, ::2], lambda a, b: (a < b)[1:, ::2]),
    "repeated": (lambda a, b: (a < b, a > b, a < b), lambda a, b: (a < b, a > b, a < b)),
    "mixed": (lambda a, b: (strata.where(a < b, a, b), a < b),
              lambda a, b: (np.where(a < b, a, b), a < b)),
}


def _args(shape=(3, 5)):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal(shape).astype(np.float32)
    a[0, 0] = np.nan  # every comparison with NaN is False
    b[1, 1] = a[1, 1]
    return a, b


@pytest.mark.parametrize("fusion", [True, False], ids=["fused", "unfused"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_bool_results_are_numpy_bools(name, fusion):
    fn, ref = CASES[name]
    a, b = _args()
    got, want = strata.jit(fn, fusion=fusion)(a, b), ref(a, b)
    got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def test_repeated_bool_results_are_distinct_arrays():
    a, b = _args()
    first, _, third = strata.jit(CASES["repeated"][0])(a, b)
    assert first is not third and not np.shares_memory(first, third)


def test_compile_to_llvm_with_a_bool_result_in_a_subprocess():
    code = ("import numpy as np, strata\n"
            "x = np.ones((4, 4), np.float32)\n"
            "m = strata.compile(lambda a, b: (a < b, a.T > b), x, x, compile_to='llvm')\n"
            "text = str(m)\n"
            "print('llvm.func' in text, 'i1>' in text)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout.split() == ["True", "False"]


def test_strata_opt_compiles_bool_arguments_and_results_to_llvm(tmp_path):
    src = tmp_path / "bools.mlir"
    src.write_text("""
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xf32>) {
  %0 = "strata.compare"(%a, %b) {predicate = "lt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = "strata.select"(%m, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xi1>, tensor<4xf32>
}
""")
    p = subprocess.run([STRATA_OPT, "--compile-to=llvm", str(src)], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    assert "llvm.func @f(" in p.stdout and "Traceback" not in p.stderr


def test_bool_argument_through_the_builder_api():
    m = strata.Module()
    f = m.function("pick", c=strata.TensorSpec((2, 3), "i1"), x=strata.TensorSpec((2, 3)))
    c, x = f.args
    f.ret(strata.where(c, x, -x), c)
    prog = strata.compile(m)
    mask = np.array([[True, False, True], [False, False, True]])
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    got, echoed = prog(mask, x)
    np.testing.assert_array_equal(got, np.where(mask, x, -x))
    assert echoed.dtype == np.bool_
    np.testing.assert_array_equal(echoed, mask)
