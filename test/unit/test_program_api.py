"""The runtime's public seam (runtime/program.py, runtime/jit.py): what the torch backend,
the tuner, measure-both fusion and explain compile through, instead of Program's fields."""

from __future__ import annotations

import numpy as np
import pytest

import strata
from strata import StrataError
from strata.runtime.compiled import CompiledFunction
from strata.runtime.jit import JitFunction
from strata.runtime.program import Program


def two_functions():
    m = strata.Module()
    f = m.function("affine", x=strata.TensorSpec((3, 8)), w=strata.TensorSpec((8, 4)))
    f.ret(f.arg("x") @ f.arg("w") + 1.0)
    g = m.function("double", x=strata.TensorSpec((None, 4)))
    g.ret(g.arg("x") * 2.0)
    return m


@pytest.fixture(scope="module")
def prog():
    return strata.compile(two_functions())


def test_signature_is_the_declared_one(prog):
    assert isinstance(prog, Program)
    assert prog.signature("affine") == ([((3, 8), "f32"), ((8, 4), "f32")], ["x", "w"])
    assert prog.signature("double") == ([((None, 4), "f32")], ["x"])


def test_compile_returns_the_kept_variant_that_calls_run(prog):
    specs, _ = prog.signature("affine")
    compiled = prog.compile(specs, function="affine")
    assert isinstance(compiled, CompiledFunction)
    assert prog.compile(specs, function="affine") is compiled
    assert compiled in prog.compiled_functions()
    x, w = np.ones((3, 8), np.float32), np.full((8, 4), 0.5, np.float32)
    (y,) = compiled.run([x, w])
    np.testing.assert_allclose(y, prog.affine(x, w))
    np.testing.assert_allclose(y, x @ w + 1.0)


def test_compile_specializes_a_dynamic_dim(prog):
    compiled = prog.compile([((5, 4), "f32")], function="double")
    (y,) = compiled.run([np.ones((5, 4), np.float32)])
    assert y.shape == (5, 4) and (y == 2.0).all()


def test_build_compiles_anew_and_keeps_nothing(prog):
    specs, _ = prog.signature("affine")
    kept = prog.compile(specs, function="affine")
    built, remarks, sizes = prog.build(specs, function="affine")
    assert built is not kept and built not in prog.compiled_functions()
    assert isinstance(remarks, list) and sizes
    x, w = np.ones((3, 8), np.float32), np.ones((8, 4), np.float32)
    np.testing.assert_allclose(built.run([x, w])[0], kept.run([x, w])[0])


def test_a_function_must_be_named_where_there_are_several(prog):
    with pytest.raises(StrataError, match="several functions"):
        prog.signature()
    with pytest.raises(StrataError, match="no function 'nope'"):
        prog.compile(function="nope")


def test_name_parameters_names_them_in_the_guards():
    m = strata.Module()
    f = m.function("main", a=strata.TensorSpec((2,)))
    f.ret(f.arg("a") + 1.0)
    p = strata.compile(m)
    p.name_parameters(["weights"])
    assert p.signature() == ([((2,), "f32")], ["weights"])
    with pytest.raises(StrataError, match="argument 'weights'"):
        p(np.ones((3,), np.float32))


def test_a_traced_function_compiles_with_its_own_parameter_names():
    p = strata.compile(lambda x, bias: x + bias, np.ones(3, np.float32), np.ones(3, np.float32))
    assert p.signature()[1] == ["x", "bias"]
    (y,) = p.compile().run([np.ones(3, np.float32), np.full(3, 2.0, np.float32)])
    assert (y == 3.0).all()


def test_jit_compile_variant_then_load_cached():
    def f(x):
        return x * 3.0

    x = np.ones((4,), np.float32)
    built = JitFunction(f).compile_variant(x)
    np.testing.assert_allclose(built(x), x * 3.0)
    loaded = JitFunction(f).load_cached(x)  # the disk cache is on in the tests (conftest)
    if loaded is not None:  # None where no C compiler driver builds cached libraries
        np.testing.assert_allclose(loaded(x), x * 3.0)
