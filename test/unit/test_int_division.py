"""numpy's division semantics: / (true division), // (floor_divide) and % (remainder).

Integer division by zero and INT_MIN // -1 used to kill the process (SIGFPE), so
every case with integer operands runs in a subprocess: a signal fails the test
instead of the test runner. The subprocess checks its results against numpy and
prints one line per case. Float cases cannot trap and run here; they must match
np.floor_divide / np.remainder bit for bit (NaN positions, signed zeros, infs).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import warnings

import ml_dtypes
import numpy as np
import pytest

import strata
from strata.testing import assert_close

I32_MIN, I32_MAX = -2**31, 2**31 - 1
# Divisor and dividend values that exercise every branch: zero, -1 (the INT_MIN
# overflow), both signs, the extremes and exact multiples.
EXTREMES = [0, 1, -1, 2, -2, 3, -3, 7, -7, I32_MIN, I32_MIN + 1, I32_MAX, I32_MAX - 1]

# The program each integer case runs in a fresh interpreter: helpers to check
# strata's results against numpy's int32 semantics.
PRELUDE = """
import warnings
import numpy as np, strata
from strata.testing import assert_close
warnings.simplefilter("ignore")  # numpy warns about x // 0 and INT_MIN // -1

def ref(a, b):
    a, b = np.asarray(a, np.int32), np.asarray(b, np.int32)
    return np.floor_divide(a, b), np.remainder(a, b), a.astype(np.float64) / b

def check(name, got, a, b):
    q, r, d = got
    eq, er, ed = ref(a, b)
    assert q.dtype == np.int32 and r.dtype == np.int32 and d.dtype == np.float32, name
    np.testing.assert_array_equal(q, eq, err_msg=name + ": //")
    np.testing.assert_array_equal(r, er, err_msg=name + ": %")
    assert_close(d, ed, "f32", ops=2, what=name + ": /")  # f32(a) / f32(b): two roundings
    print("ok", name)
"""


def run_isolated(code: str, timeout=300) -> str:
    """Runs ``PRELUDE + code`` in a fresh interpreter; fails (not crashes) on a signal."""
    p = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code)],
                       capture_output=True, text=True, timeout=timeout, env=dict(os.environ))
    if p.returncode < 0:
        pytest.fail(f"the subprocess was killed by {signal.Signals(-p.returncode).name}\n"
                    f"{p.stdout}\n{p.stderr}")
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def test_traced_int_division_by_zero_and_int_min_over_minus_one():
    """The reported crash: x / y, x // y and x % y traced with strata.jit on int32."""
    out = run_isolated(f"""
        f = strata.jit(lambda a, b: (a // b, a % b, a / b))
        ext = np.array({EXTREMES}, np.int32)
        a, b = np.meshgrid(ext, ext)   # every extreme against every other, 0 and -1 included
        check("extremes", f(a, b), a, b)
        a = np.array([[7, -7, 0, {I32_MIN}, {I32_MIN}, 5]], np.int32)
        b = np.array([[0, 0, 0, -1, 0, -1]], np.int32)
        check("zeros and -1", f(a, b), a, b)
    """)
    assert out.split() == ["ok", "extremes", "ok", "zeros", "and", "-1"]


@pytest.mark.parametrize("shapes", [
    ((7, 13), (7, 13)),       # odd dims
    ((1, 33), (5, 1)),        # size-1 dims broadcast both ways
    ((3, 1, 17), (17,)),      # rank broadcast
    ((), (2, 9)),             # a scalar dividend
    ((67, 129), (129,)),      # large enough for vectorized loops with remainders
], ids=str)
def test_int_division_broadcasting_matches_numpy(shapes):
    (sa, sb) = shapes
    out = run_isolated(f"""
        f = strata.jit(lambda a, b: (a // b, a % b, a / b))
        rng = np.random.default_rng(7)
        a = rng.integers(-1000, 1000, size={sa!r}).astype(np.int32)
        b = rng.integers(-9, 10, size={sb!r}).astype(np.int32)   # zeros and -1 included
        if b.size:
            b.flat[0] = 0
        check("random", f(a, b), a, b)
        big = rng.choice(np.array({EXTREMES}, np.int32), size={sa!r}).astype(np.int32)
        check("extremes", f(big, b), big, b)
    """)
    assert out.count("ok") == 2, out


def test_int_scalars_on_either_side():
    """x // 0, x % 0, 7 // x, x / 0 with Python scalars (rank-0 constants)."""
    out = run_isolated(f"""
        f = strata.jit(lambda x: (x // 0, x % 0, x / 0, 7 // x, -7 % x, 1 / x, x // -1,
                                  *divmod(x, 3), x % -1))
        x = np.array([{I32_MIN}, -7, -1, 0, 1, 7, {I32_MAX}], np.int32)
        got = f(x)
        q0, r0, d0 = ref(x, 0)
        q7, _, _ = ref(7, x)
        _, r7, _ = ref(-7, x)
        _, _, d1 = ref(1, x)
        qm1, rm1, _ = ref(x, -1)
        q3, r3, _ = ref(x, 3)
        for name, g, e in [("x//0", got[0], q0), ("x%0", got[1], r0), ("7//x", got[3], q7),
                           ("-7%x", got[4], r7), ("x//-1", got[6], qm1),
                           ("divmod q", got[7], q3), ("divmod r", got[8], r3),
                           ("x%-1", got[9], rm1)]:
            np.testing.assert_array_equal(g, e, err_msg=name)
        assert_close(got[2], d0, "f32", what="x/0")
        assert_close(got[5], d1, "f32", what="1/x")
        print("ok")
    """)
    assert out.strip() == "ok"


def test_builder_api_int_division():
    """The same ops built without tracing: strata.floor_divide, remainder/mod, div."""
    out = run_isolated("""
        m = strata.Module()
        fn = m.function("f", a=strata.TensorSpec((None, 5), "i32"), b=strata.TensorSpec((5,), "i32"))
        a, b = fn.args
        fn.ret(strata.floor_divide(a, b), strata.remainder(a, b), strata.div(a, b),
               strata.mod(a, b))
        prog = strata.compile(m)
        a = np.array([[7, -7, LO, LO, 0], [HI, -1, 3, LO, -5]], np.int32)
        b = np.array([0, 2, -1, 0, -3], np.int32)
        q, r, d, r2 = prog(a, b)
        check("builder", (q, r, d), a, b)
        np.testing.assert_array_equal(r2, r)
    """.replace("LO", str(I32_MIN)).replace("HI", str(I32_MAX)))
    assert out.strip() == "ok builder"


def test_hand_written_ir_never_traps(tmp_path):
    """strata-opt rejects integer strata.div with a located error (no signal); floor_div
    and mod written by hand compile and run on zero divisors."""
    src = tmp_path / "div.mlir"
    src.write_text(
        'func.func @f(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {\n'
        '  %0 = "strata.div"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>\n'
        '  return %0 : tensor<4xi32>\n}\n')
    opt = os.path.join(os.path.dirname(sys.executable), "strata-opt")
    for args in (["--strata-to-linalg"], ["--compile-to=llvm"]):
        p = subprocess.run([opt, str(src), *args], capture_output=True, text=True, timeout=300)
        assert p.returncode == 1, (p.returncode, p.stderr)
        assert f"{src}:2:8: error: div: operand element type i32 is not supported" in p.stderr
        assert "strata.floor_div" in p.stderr and "Traceback" not in p.stderr
    out = run_isolated("""
        # (llvm.emit_c_interface: without it strata.compile(text) finds no function 'f')
        text = '''
        func.func @f(%a: tensor<6xi32>, %b: tensor<6xi32>) -> (tensor<6xi32>, tensor<6xi32>)
            attributes {llvm.emit_c_interface} {
          %0 = "strata.floor_div"(%a, %b) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
          %1 = "strata.mod"(%a, %b) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
          return %0, %1 : tensor<6xi32>, tensor<6xi32>
        }'''
        prog = strata.compile(text)
        a = np.array([7, -7, LO, LO, 0, HI], np.int32)
        b = np.array([0, 0, -1, 0, 0, -1], np.int32)
        q, r = prog(a, b)
        eq, er, _ = ref(a, b)
        np.testing.assert_array_equal(q, eq)
        np.testing.assert_array_equal(r, er)
        print("ok")
    """.replace("LO", str(I32_MIN)).replace("HI", str(I32_MAX)))
    assert out.strip() == "ok"


# ---------------------------------------------------------------------------- floats

FLOATS = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.0, -7.0, 0.1, -0.3, 7.5, 1e-30,
           -1e30, 3e38, 1e-45, 65504.0, np.inf, -np.inf, np.nan]


def same_bits(got, want) -> bool:
    """Equal as numpy compares floats, plus: NaN where numpy has NaN, and the sign of zero."""
    g = np.asarray(got).astype(np.float32)
    w = np.asarray(want).astype(np.float32)
    if g.shape != w.shape or not np.array_equal(np.isnan(g), np.isnan(w)):
        return False
    g, w = np.where(np.isnan(g), 0, g), np.where(np.isnan(w), 0, w)
    return np.array_equal(g.view(np.uint32), w.view(np.uint32))


def assert_same_bits(got, want, what):
    if not same_bits(got, want):
        bad = np.argwhere(~((got.astype(np.float32) == want.astype(np.float32)) |
                            (np.isnan(got.astype(np.float32)) &
                             np.isnan(want.astype(np.float32)))))
        pytest.fail(f"{what}: differs from numpy at {bad[:5].tolist()}")


@strata.jit
def float_division(a, b):
    return a // b, a % b, *divmod(a, b)


def numpy_floor_mod(a, b):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.floor_divide(a, b), np.remainder(a, b)


@pytest.mark.parametrize("dtype", FLOATS)
def test_float_floor_divide_and_remainder_special_values(dtype):
    """Every pair of special values (zeros of both signs, inf, NaN, tiny, huge)."""
    with np.errstate(over="ignore"):  # 3e38 is inf in f16, as intended
        a, b = (v.astype(FLOATS[dtype]) for v in np.meshgrid(SPECIAL, SPECIAL))
    q, r, dq, dr = float_division(a, b)
    eq, er = numpy_floor_mod(a, b)
    assert q.dtype == eq.dtype and r.dtype == er.dtype
    assert_same_bits(q, eq, f"{dtype} //")
    assert_same_bits(r, er, f"{dtype} %")
    assert_same_bits(dq, eq, f"{dtype} divmod quotient")
    assert_same_bits(dr, er, f"{dtype} divmod remainder")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shapes", [((7, 13), (13,)), ((1, 33), (5, 1)), ((3, 1, 17), ()),
                                    ((67, 129), (67, 1))], ids=str)
def test_float_floor_divide_and_remainder_broadcasting(dtype, shapes):
    rng = np.random.default_rng(11)
    a = np.asarray(rng.standard_normal(shapes[0]) * 50).astype(FLOATS[dtype])
    b = np.asarray(rng.standard_normal(shapes[1]) * 4).astype(FLOATS[dtype])
    if b.size:
        b.flat[0] = 0.0
    q, r, _, _ = float_division(a, b)
    eq, er = numpy_floor_mod(a, b)
    assert_same_bits(q, eq, f"{dtype} //")
    assert_same_bits(r, er, f"{dtype} %")


@pytest.mark.parametrize("dtype", FLOATS)
def test_float_scalars_on_either_side(dtype):
    f = strata.jit(lambda x: (x // 0.0, x % 0.0, 2.5 // x, -2.5 % x, x % 1.5))
    with np.errstate(over="ignore"):
        x = np.array(SPECIAL).astype(FLOATS[dtype])
    got = f(x)
    z, h = np.array(0.0, FLOATS[dtype]), np.array(1.5, FLOATS[dtype])
    refs = [numpy_floor_mod(x, z)[0], numpy_floor_mod(x, z)[1],
            numpy_floor_mod(np.array(2.5, FLOATS[dtype]), x)[0],
            numpy_floor_mod(np.array(-2.5, FLOATS[dtype]), x)[1], numpy_floor_mod(x, h)[1]]
    for i, (g, e) in enumerate(zip(got, refs, strict=True)):
        assert_same_bits(g, e, f"{dtype} result {i}")


def test_true_division_of_ints_is_f32():
    """numpy's / on integers is true division; strata's result is f32 (numpy: float64)."""
    m = strata.trace(lambda i, j: i / j, np.ones(3, np.int32), np.ones(3, np.int32))
    text = str(m)
    assert text.count('"strata.cast"') == 2 and "-> tensor<3xf32>" in text
    rng = np.random.default_rng(3)
    a = rng.integers(-2**20, 2**20, size=(5, 7)).astype(np.int32)
    b = rng.integers(1, 100, size=(7,)).astype(np.int32)
    d = strata.jit(lambda i, j: (i / j, i / 2.5))(a, b)
    assert d[0].dtype == np.float32
    assert_close(d[0], a.astype(np.float64) / b, "f32", ops=2)
    assert_close(d[1], a.astype(np.float64) / 2.5, "f32", ops=2)


def test_integer_div_rejected_with_a_pointer_to_floor_div():
    text = ('func.func @f(%a: tensor<4xi32>) -> tensor<4xi32> {\n'
            '  %0 = "strata.div"(%a, %a) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>\n'
            '  return %0 : tensor<4xi32>\n}\n')
    with pytest.raises(strata.StrataError) as ei:
        strata.parse(text).verify()
    assert ":2:8: error: div: operand element type i32 is not supported" in str(ei.value)
    assert "strata.floor_div" in str(ei.value)
