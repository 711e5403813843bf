"""The Python front end: both builder APIs, op locations and user-facing errors."""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

import strata
from strata.dialect.types import shape_of
from strata.errors import StrataError, format_location
from strata.parsing import parse_module
from strata.passes.verify import strata_diagnostics

HERE = os.path.abspath(__file__)
STRATA_DIR = os.path.dirname(os.path.abspath(strata.__file__))


def here() -> int:
    """The line number of the caller."""
    return inspect.currentframe().f_back.f_lineno


def strata_ops(m):
    """``(op name, ir op)`` of every op in every function of module ``m``, in order."""
    out = []
    for fn in m.mlir.body.operations:
        for op in fn.regions[0].blocks[0].operations:
            out.append((op.operation.name, op.operation))
    return out


def returned(m):
    return [shape_of(v.type) for name, op in strata_ops(m) if name == "func.return"
            for v in op.operands]


def assert_verifies(m):
    """An op that builds also verifies, in memory and after a round trip through text."""
    m.verify()
    from strata.context import new_context

    reparsed = parse_module(m.text(debug_info=True), "<roundtrip>", new_context())
    assert strata_diagnostics(reparsed) == []


def user_line(excinfo, filename=HERE):
    """The line of the innermost traceback frame in ``filename`` (the user's call)."""
    line = None
    tb = excinfo.tb
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename) == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    assert line is not None, "the user's frame is not in the traceback"
    return line


def assert_error_at(excinfo, message_regex, filename=HERE):
    err = excinfo.value
    line = user_line(excinfo, filename)
    text = str(err)
    assert re.match(rf"^{re.escape(filename)}:{line}:\d+: error: ", text), text
    assert re.search(message_regex, err.message), err.message
    assert err.location.startswith(f"{filename}:{line}:")
    assert "Traceback" not in text


# --------------------------------------------------------------------------- building


def test_module_api_builds_ops_types_and_locations():
    m = strata.Module()
    f = m.function("mlp", x=strata.TensorSpec((32, 64)), w=strata.TensorSpec((64, 16)),
                   b=strata.TensorSpec((16,)))
    x, w, b = f.args
    assert (x.shape, x.dtype, w.shape, b.ndim) == ((32, 64), "f32", (64, 16), 1)
    h = x @ w; l_mm = here()  # noqa: E702
    y = strata.relu(h + b); l_relu = here()  # noqa: E702
    f.ret(y); l_ret = here()  # noqa: E702
    text = str(m)
    assert "func.func @mlp(%arg0: tensor<32x64xf32>, %arg1: tensor<64x16xf32>, " \
           "%arg2: tensor<16xf32>) -> tensor<32x16xf32>" in text
    assert re.search(r'"strata.matmul"\(%arg0, %arg1\) : \(tensor<32x64xf32>, '
                     r'tensor<64x16xf32>\) -> tensor<32x16xf32>', text)
    assert re.search(r'"strata.add"\(%0, %arg2\) : \(tensor<32x16xf32>, tensor<16xf32>\) '
                     r'-> tensor<32x16xf32>', text)
    assert '"strata.relu"(%1) : (tensor<32x16xf32>) -> tensor<32x16xf32>' in text
    assert m.functions == ["mlp"]

    names = [n for n, _ in strata_ops(m)]
    assert names == ["strata.matmul", "strata.add", "strata.relu", "func.return"]
    locs = [format_location(op.location) for _, op in strata_ops(m)]
    assert locs[0] == f"{HERE}:{l_mm}:9"  # the column of `x @ w`
    assert locs[1].startswith(f"{HERE}:{l_relu}:")
    assert locs[2].startswith(f"{HERE}:{l_relu}:")
    assert locs[3].startswith(f"{HERE}:{l_ret}:")
    debug = m.text(debug_info=True)
    assert f'loc("{HERE}":{l_mm}:9)' in debug
    assert f'loc("{HERE}":{l_relu}:' in debug
    assert_verifies(m)


def test_trace_builds_the_same_ops():
    def mlp(x, w):
        return strata.relu(x @ w)

    m = strata.trace(mlp, np.ones((32, 64), np.float32), np.ones((64, 16), np.float32))
    assert m.functions == ["mlp"]
    assert [n for n, _ in strata_ops(m)] == ["strata.matmul", "strata.relu", "func.return"]
    assert returned(m) == [((32, 16), "f32")]
    line = inspect.getsourcelines(mlp)[1] + 1
    for name, op in strata_ops(m)[:2]:
        assert format_location(op.location).startswith(f"{HERE}:{line}:"), name
    assert_verifies(m)


def test_trace_names_lambdas_main_and_takes_tuples_and_scalars():
    m = strata.trace(lambda a, b: (a * b, a - b, -a), np.ones((2, 3), np.int32), 2)
    assert m.functions == ["main"]
    assert returned(m) == [((2, 3), "i32")] * 3
    text = str(m)
    assert "func.func @main(%arg0: tensor<2x3xi32>, %arg1: tensor<i32>)" in text
    for op in ("strata.mul", "strata.sub", "strata.neg"):
        assert op in text
    m2 = strata.trace(lambda s: s * 2.0, 1.5, name="scale")
    assert m2.functions == ["scale"] and returned(m2) == [((), "f32")]


def test_many_ops_build_verify_and_match_numpy_shapes():
    x = np.zeros((2, 3, 8, 8), np.float32)

    def model(x):
        y = strata.conv2d(x, np.ones((4, 3, 3, 3), np.float32), padding=1)
        y = strata.max_pool2d(y, 2)
        y = strata.avg_pool2d(y, 2, stride=1, padding=(1, 0))
        z = y.reshape(2, -1)
        z = strata.softmax(strata.layer_norm(z) * 0.5, axis=0)
        t = strata.where(z > 0.1, z, strata.sigmoid(z))
        t = strata.concat([t, strata.gelu(t, approximate="tanh")], axis=1)
        u = strata.broadcast_to(t.mean(axis=1, keepdims=True), (3, 2, 1))
        return t.T[::2, 1], u.astype("bf16"), strata.exp(x).max(axis=(-1, 0))

    m = strata.trace(model, x)

    def out(size, k, stride, lo, hi):  # the documented OH formula
        return (size + lo + hi - k) // stride + 1

    conv = (2, 4, out(8, 3, 1, 1, 1), out(8, 3, 1, 1, 1))
    pool = conv[:2] + (out(conv[2], 2, 2, 0, 0), out(conv[3], 2, 2, 0, 0))
    avg = pool[:2] + (out(pool[2], 2, 1, 1, 1), out(pool[3], 2, 1, 0, 0))
    z = np.zeros(avg).reshape(2, -1)
    t = np.concatenate([z, z], axis=1)
    assert returned(m) == [(t.T[::2, 1].shape, "f32"),
                           (np.broadcast_to(t.mean(axis=1, keepdims=True), (3, 2, 1)).shape,
                            "bf16"),
                           (np.zeros(x.shape).max(axis=(-1, 0)).shape, "f32")]
    names = {n for n, _ in strata_ops(m)}
    for op in ("conv2d", "max_pool2d", "avg_pool2d", "reshape", "layer_norm", "softmax",
               "compare", "select", "sigmoid", "concat", "gelu", "mean", "broadcast_to",
               "transpose", "slice", "cast", "exp", "max", "constant"):
        assert f"strata.{op}" in names, op
    assert_verifies(m)


def test_several_functions_in_one_module():
    m = strata.Module()
    f = m.function("f", strata.TensorSpec((4,), "i32"))
    g = m.function("g", strata.TensorSpec((None, 4), "f16"))
    (a,) = f.args
    (b,) = g.args
    assert g.arg_names == ["arg0"] and g.arg("arg0") is b
    g.ret(b * b)
    f.ret(a + 1, a)
    assert m.functions == ["f", "g"]
    text = str(m)
    assert "func.func @g(%arg0: tensor<?x4xf16>) -> tensor<?x4xf16>" in text
    assert "func.func @f(%arg0: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>)" in text
    assert_verifies(m)


def test_half_precision_examples():
    a16 = np.ones((2, 4), np.float16)
    abf = np.ones((4, 3), ml_dtypes.bfloat16)
    m = strata.trace(lambda x, y: (x @ x.T * 2, y.T @ y + 1.5, x.astype("bf16") @ y),
                     a16, abf)
    assert returned(m) == [((2, 2), "f16"), ((3, 3), "bf16"), ((2, 3), "bf16")]
    text = str(m)
    assert "tensor<2x4xf16>" in text and "tensor<4x3xbf16>" in text
    assert "dense<1.500000e+00> : tensor<bf16>" in text
    assert_verifies(m)


# --------------------------------------------------------------------------- constants


def test_numpy_array_operands_become_constants():
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    m = strata.trace(lambda x: (x + arr, arr * x), np.ones((2, 3), np.float32))
    consts = [op for n, op in strata_ops(m) if n == "strata.constant"]
    assert len(consts) == 2
    for op in consts:
        assert shape_of(op.results[0].type) == ((2, 3), "f32")
        assert "dense<[[0.000000e+00, 1.000000e+00, 2.000000e+00], [3.000000e+00, " \
               "4.000000e+00, 5.000000e+00]]> : tensor<2x3xf32>" in str(op)
    # float64 / int64 arrays get the same dtype mapping as strata.constant
    m = strata.trace(lambda x: x + np.ones(3), np.ones(3, np.float32))
    assert returned(m) == [((3,), "f32")]
    assert_verifies(m)


def test_constant_inside_trace():
    def fn(x):
        c = strata.constant(np.full((3,), 2.5)); line = here()  # noqa: E702
        fn.line = line
        return x * c + strata.constant(np.array([1, 2, 3]), "f32"), strata.constant(
            np.arange(4))

    m = strata.trace(fn, np.ones((3,), np.float32))
    consts = [op for n, op in strata_ops(m) if n == "strata.constant"]
    assert [shape_of(c.results[0].type) for c in consts] == [((3,), "f32"), ((3,), "f32"),
                                                             ((4,), "i32")]
    assert format_location(consts[0].location).startswith(f"{HERE}:{fn.line}:")
    assert returned(m) == [((3,), "f32"), ((4,), "i32")]
    assert_verifies(m)


def test_constant_needs_a_function():
    with pytest.raises(StrataError) as ei:
        strata.constant(np.ones(3))
    assert_error_at(ei, "no strata function is being built")
    with pytest.raises(StrataError) as ei:
        strata.trace(lambda x: x + strata.constant(np.ones(2, np.int8)),
                     np.ones(2, np.float32))
    assert_error_at(ei, r"constant: element type i8 is not supported")


@pytest.mark.parametrize("dtype,value", [("f32", 2), ("f32", np.int64(2)), ("f16", 0.5),
                                         ("bf16", np.float32(3.0)), ("i32", 2),
                                         ("i32", 3.0), ("i32", -7), ("i32", np.int16(4))])
def test_scalars_take_the_tensor_dtype(dtype, value):
    spec = strata.TensorSpec((2,), dtype)
    m = strata.trace(lambda x: (x + value, value * x, x // value), spec)  # / of i32 is f32
    assert returned(m) == [((2,), dtype)] * 3
    consts = [op for n, op in strata_ops(m) if n == "strata.constant"]
    assert consts and all(shape_of(c.results[0].type) == ((), dtype) for c in consts)
    assert_verifies(m)


@pytest.mark.parametrize("value,msg", [
    (2.5, r"cannot use the non-integer 2.5 with an i32 tensor"),
    (float("nan"), r"non-integer nan"),
    (float("inf"), r"non-integer inf"),
    (2 ** 40, r"out of range for an i32 tensor"),
])
def test_bad_scalars_for_int_tensors(value, msg):
    with pytest.raises(StrataError) as ei:
        strata.trace(lambda x: x + value, strata.TensorSpec((2,), "i32"))
    assert_error_at(ei, msg)


# --------------------------------------------------------------------------- user errors


MODEL = '''\
import strata


def project(h, w):
    scale = h * 2.0
    return scale @ w


def model(x, w):
    return project(x, w)
'''


@pytest.fixture
def model_module(tmp_path, monkeypatch):
    (tmp_path / "strata_user_model.py").write_text(MODEL)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("strata_user_model", None)
    mod = importlib.import_module("strata_user_model")
    yield mod, str(tmp_path / "strata_user_model.py")
    sys.modules.pop("strata_user_model", None)


def test_matmul_error_points_at_the_user_file(model_module):
    mod, path = model_module
    lines = MODEL.splitlines()
    lineno = next(i for i, t in enumerate(lines, 1) if "@" in t)
    col = lines[lineno - 1].index("scale @ w") + 1
    with pytest.raises(StrataError) as ei:
        strata.trace(mod.model, np.ones((8, 64), np.float32), np.ones((32, 16), np.float32))
    err = ei.value
    assert str(err) == f"{path}:{lineno}:{col}: error: matmul: inner dimensions differ " \
                       "(64 vs 32)"
    assert str(err).startswith(path)
    assert err.location == f"{path}:{lineno}:{col}"
    assert err.message == "matmul: inner dimensions differ (64 vs 32)"
    # No chained internal exception, and below the user's frame only the front end's.
    assert err.__cause__ is None and err.__context__ is None
    frames = []
    tb = ei.tb
    while tb is not None:
        frames.append(os.path.abspath(tb.tb_frame.f_code.co_filename))
        tb = tb.tb_next
    last_user = max(i for i, f in enumerate(frames) if f == path)
    below = frames[last_user + 1:]
    # (the operator and the builder that raised; no frame of the rules or the IR layer)
    frontend = os.path.join(STRATA_DIR, "frontend") + os.sep
    assert below and all(f.startswith(frontend) for f in below), below
    assert len(below) <= 2, below
    # The next frame out is the helper's caller in the same file.
    assert frames.count(path) >= 2


def test_model_file_ops_are_located_in_the_model_file(model_module):
    mod, path = model_module
    m = strata.trace(mod.model, np.ones((8, 64), np.float32), np.ones((64, 16), np.float32))
    lines = MODEL.splitlines()
    mul_line = next(i for i, t in enumerate(lines, 1) if "* 2.0" in t)
    mm_line = next(i for i, t in enumerate(lines, 1) if "@" in t)
    locs = {n: format_location(op.location) for n, op in strata_ops(m)}
    assert locs["strata.mul"].startswith(f"{path}:{mul_line}:")
    assert locs["strata.constant"].startswith(f"{path}:{mul_line}:")
    assert locs["strata.matmul"] == f"{path}:{mm_line}:{lines[mm_line - 1].index('scale') + 1}"


F32 = strata.TensorSpec((2, 3))


@pytest.mark.parametrize("fn,msg", [
    (lambda x: x + x.astype("i32"), r"^add: operand element types differ \(f32 vs i32\)$"),
    (lambda x: x @ x.astype("f16").T, r"^matmul: operand element types differ \(f32 vs f16\)$"),
    (lambda x: strata.exp(x.astype("i32")), r"^exp: operand element type i32 is not supported"),
    (lambda x: x.astype("i8"), r"^cast: result element type i8 is not supported"),
    (lambda x: x.sum(axis=2), r"^sum: axis 2 is out of range for a rank-2 tensor"),
    (lambda x: x.mean(axis=(0, -2)), r"^mean: axes \[0, -2\] repeat an axis"),
    (lambda x: strata.softmax(x, axis=-3), r"^softmax: axis -3 is out of range"),
    (lambda x: x.transpose(0, 0), r"^transpose: permutation \[0, 0\] is not a permutation"),
    (lambda x: x.transpose(0, 1, 2), r"^transpose: permutation \[0, 1, 2\]"),
    (lambda x: x[2], r"^index 2 is out of bounds for dim 0 of size 2$"),
    (lambda x: x[0, -4], r"^index -4 is out of bounds for dim 1 of size 3$"),
    (lambda x: x[0, 0, 0], r"^too many indices for a rank-2 tensor: 3$"),
    (lambda x: x[:, 1:2:0], r"^slice step cannot be zero$"),
    (lambda x: x[..., ...], r"single ellipsis"),
    (lambda x: x[True], r"boolean indices are not supported"),
    (lambda x: x["a"], r"unsupported index 'a'"),
    (lambda x: x.reshape(4, -1), r"^reshape: cannot reshape 2x3 \(6 elements\)"),
    (lambda x: x.reshape(5), r"^reshape: cannot reshape 2x3 \(6 elements\) into 5 "),
    (lambda x: x.reshape(-1, -1), r"at most one dim may be -1"),
    (lambda x: x + np.ones((3, 2), np.float32), r"^add: shapes 2x3 and 3x2 cannot be broadcast"),
    (lambda x: x + "s", r"cannot use a str as a tensor operand"),
    (lambda x: strata.where(x, x, x), r"^select: condition element type must be i1"),
    (lambda x: strata.concat([x, x.T], axis=0), r"^concat: inputs differ in dim 1"),
    (lambda x: strata.broadcast_to(x, (3,)), r"^broadcast_to: cannot broadcast 2x3"),
    (lambda x: strata.gelu(x, approximate="erf"), r"^gelu: approximate must be one of"),
    (lambda x: strata.conv2d(x, x), r"^conv2d: input and filter must have rank 4"),
    (lambda x: strata.max_pool2d(x.reshape(1, 1, 2, 3), 2, padding=2),
     r"^max_pool2d: padding \[2, 2, 2, 2\] must be smaller than the kernel"),
    (lambda x: strata.layer_norm(x, np.ones(2, np.float32), np.zeros(3, np.float32)),
     r"^layer_norm: scale has shape 2 but the normalized dims are 3"),
])
def test_user_errors_are_located_at_the_call(fn, msg):
    with pytest.raises(StrataError) as ei:
        strata.trace(fn, F32)
    assert_error_at(ei, msg)


def test_tensor_of_a_finished_function():
    m = strata.Module()
    f = m.function("f", x=F32)
    (x,) = f.args
    f.ret(x)
    with pytest.raises(StrataError) as ei:
        x + 1
    assert_error_at(ei, r"function 'f' is already finished \(ret\(\) was called\)")
    with pytest.raises(StrataError) as ei:
        f.ret(x)
    assert_error_at(ei, "already finished")
    leaked = {}
    strata.trace(lambda t: leaked.setdefault("t", t) * 2, F32)
    with pytest.raises(StrataError) as ei:
        strata.relu(leaked["t"])
    assert_error_at(ei, "already finished")


def test_mixing_functions_is_an_error():
    m = strata.Module()
    f = m.function("f", x=F32)
    g = m.function("g", y=F32)
    with pytest.raises(StrataError) as ei:
        f.args[0] + g.args[0]
    assert_error_at(ei, "operands belong to different functions")
    with pytest.raises(StrataError) as ei:
        f.ret(g.args[0])
    assert_error_at(ei, r"function 'f': result 0 is not a tensor of this function")
    g.ret(g.args[0])
    f.ret(f.args[0])


@pytest.mark.parametrize("result", [3, None, "x", np.ones(2)])
def test_returning_a_non_tensor(result):
    with pytest.raises(StrataError) as ei:
        strata.trace(lambda x: result, F32)
    assert_error_at(ei, rf"traced function 'main' must return strata tensors, got "
                        rf"{type(result).__name__}")
    with pytest.raises(StrataError) as ei:
        strata.trace(lambda x: (x, result), F32)
    assert_error_at(ei, rf"got Tensor, {type(result).__name__}")
    m = strata.Module()
    f = m.function("f", x=F32)
    with pytest.raises(StrataError) as ei:
        f.ret(f.args[0], result)
    assert_error_at(ei, r"result 1 is not a tensor of this function")
    f.ret(f.args[0])


def test_bool_of_a_tensor():
    def branchy(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(StrataError) as ei:
        strata.trace(branchy, F32)
    assert_error_at(ei, r"has no truth value: use strata.where")
    assert user_line(ei) == inspect.getsourcelines(branchy)[1] + 1
    with pytest.raises(StrataError):
        strata.trace(lambda x: x if x else x, F32)


@pytest.mark.parametrize("example,msg", [
    (np.ones(2, np.complex64), r"numpy dtype complex64 is not supported"),
    (np.ones(2, np.uint16), r"numpy dtype uint16 is not supported"),
    (True, r"bool arguments are not supported"),
    ([1.0, 2.0], r"expected a numpy array, a Python scalar or a TensorSpec, got list"),
])
def test_bad_examples(example, msg):
    with pytest.raises(StrataError) as ei:
        strata.trace(lambda x: x, example)
    assert_error_at(ei, msg)


def test_failed_trace_leaves_no_open_function():
    with pytest.raises(StrataError):
        strata.trace(lambda x: x @ x, F32)
    with pytest.raises(StrataError, match="no strata function is being built"):
        strata.constant(np.ones(2, np.float32))


def test_error_message_format_of_the_module_text():
    src = textwrap.dedent('''\
        func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
          %0 = "strata.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
          return %0 : tensor<4x8xf32>
        }
        ''')
    from strata.context import new_context

    diags = strata_diagnostics(parse_module(src, "in.mlir", new_context()))
    assert [str(d) for d in diags] == [
        "in.mlir:2:8: error: matmul: inner dimensions differ (8 vs 4)"]


def test_concat_of_different_sizes_verifies():
    m = strata.trace(lambda x, y: (strata.concat([x, y], axis=0),
                                   strata.concat([y, x, y, np.ones((1, 4), np.float32)], -2)),
                     np.ones((6, 4), np.float32), np.ones((2, 4), np.float32))
    x, y = np.zeros((6, 4)), np.zeros((2, 4))
    ref = [np.concatenate([x, y], axis=0).shape, np.concatenate([y, x, y, y[:1]], -2).shape]
    assert returned(m) == [(r, "f32") for r in ref]
    assert [n for n, _ in strata_ops(m)].count("strata.concat") == 1 + 3
    assert_verifies(m)


def test_module_verify_reports_mlir_errors_too():
    from mlir import ir

    m = strata.Module()
    f = m.function("f", x=F32)
    f.ret(f.args[0] * 2)
    m.verify()
    with m.context, ir.Location.unknown():  # break the function type behind its back
        wrong = ir.FunctionType.get([f.args[0].type], [ir.RankedTensorType.get(
            [7], ir.F32Type.get())])
        f.op.attributes["function_type"] = ir.TypeAttr.get(wrong)
    with pytest.raises(StrataError) as ei:
        m.verify()
    assert re.search(r"error: .*(type|match)", str(ei.value)), str(ei.value)
