# RUN: %PYTHON %s | FileCheck %s

# The explicit builder API: strata.Module().function(...), op builders over the
# function's arguments, ret(), and the module's verification and text.

import numpy as np
from mlir import ir

import strata
from strata.dialect.types import tensor_type
from strata.errors import StrataError
from strata.pipelines.runner import PipelineError, run_pipeline


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


S = strata.TensorSpec


# CHECK-LABEL: TEST: mlp
# CHECK: func.func @mlp(%[[X:[a-z0-9]+]]: tensor<32x64xf32>, %[[W1:[a-z0-9]+]]: tensor<64x16xf32>, %[[W2:[a-z0-9]+]]: tensor<16x4xf32>) -> tensor<32x4xf32> attributes {llvm.emit_c_interface}
# CHECK-NEXT: %[[H:.+]] = "strata.matmul"(%[[X]], %[[W1]]) : (tensor<32x64xf32>, tensor<64x16xf32>) -> tensor<32x16xf32>
# CHECK-NEXT: %[[R:.+]] = "strata.relu"(%[[H]]) : (tensor<32x16xf32>) -> tensor<32x16xf32>
# CHECK-NEXT: %[[Y:.+]] = "strata.matmul"(%[[R]], %[[W2]]) : (tensor<32x16xf32>, tensor<16x4xf32>) -> tensor<32x4xf32>
# CHECK-NEXT: return %[[Y]] : tensor<32x4xf32>
# CHECK: functions: ['mlp']
@run
def mlp():
    m = strata.Module()
    f = m.function("mlp", x=S((32, 64)), w1=S((64, 16)), w2=S((16, 4)))
    x, w1, w2 = f.args
    assert f.arg("w2") is w2
    f.ret(strata.relu(x @ w1) @ w2)
    m.verify()
    print(m)
    print("functions:", m.functions)


# Positional specs, numpy examples and scalars as specs, several results.
# CHECK-LABEL: TEST: specs_and_results
# CHECK: func.func @f(%[[A:[a-z0-9]+]]: tensor<2x?xf16>, %[[B:[a-z0-9]+]]: tensor<3xbf16>, %[[C:[a-z0-9]+]]: tensor<4xi32>, %[[D:[a-z0-9]+]]: tensor<f32>, %[[E:[a-z0-9]+]]: tensor<i32>) -> (tensor<2x?xf16>, tensor<3xbf16>, tensor<4xi32>)
# CHECK-NEXT: %[[NA:.+]] = "strata.neg"(%[[A]]) : (tensor<2x?xf16>) -> tensor<2x?xf16>
# CHECK-NEXT: %[[SB:.+]] = "strata.sqrt"(%[[B]]) : (tensor<3xbf16>) -> tensor<3xbf16>
# CHECK-NEXT: %[[AC:.+]] = "strata.abs"(%[[C]]) : (tensor<4xi32>) -> tensor<4xi32>
# CHECK-NEXT: return %[[NA]], %[[SB]], %[[AC]] : tensor<2x?xf16>, tensor<3xbf16>, tensor<4xi32>
@run
def specs_and_results():
    m = strata.Module()
    f = m.function("f", S((2, None), "f16"), S((3,), "bf16"), np.zeros(4, np.int32), 1.0, 2)
    a, b, c, d, e = f.args
    f.ret(strata.neg(a), strata.sqrt(b), strata.abs(c))
    m.verify()
    print(m)


# CHECK-LABEL: TEST: elementwise_builders
# CHECK: %[[ADD:.+]] = "strata.add"(%arg0, %arg1) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
# CHECK-NEXT: %[[SUB:.+]] = "strata.sub"(%[[ADD]], %arg1)
# CHECK-NEXT: %[[MUL:.+]] = "strata.mul"(%[[SUB]], %arg0)
# CHECK-NEXT: %[[DIV:.+]] = "strata.div"(%[[MUL]], %arg1)
# CHECK-NEXT: %[[MAX:.+]] = "strata.maximum"(%[[DIV]], %arg1)
# CHECK-NEXT: %[[MIN:.+]] = "strata.minimum"(%[[MAX]], %arg0)
# CHECK-NEXT: %[[POW:.+]] = "strata.pow"(%[[MIN]], %arg0)
# CHECK-NEXT: %[[EXP:.+]] = "strata.exp"(%[[POW]])
# CHECK-NEXT: %[[LOG:.+]] = "strata.log"(%[[EXP]])
# CHECK-NEXT: %[[RS:.+]] = "strata.rsqrt"(%[[LOG]])
# CHECK-NEXT: %[[TANH:.+]] = "strata.tanh"(%[[RS]])
# CHECK-NEXT: %[[SIG:.+]] = "strata.sigmoid"(%[[TANH]])
# CHECK-NEXT: %[[G0:.+]] = "strata.gelu"(%[[SIG]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
# CHECK-NEXT: %[[G1:.+]] = "strata.gelu"(%[[G0]]) {approximate = "tanh"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
# CHECK-NEXT: return %[[G1]]
@run
def elementwise_builders():
    m = strata.Module()
    f = m.function("f", S((4, 8)), S((8,)))
    x, y = f.args
    v = strata.pow(strata.minimum(strata.maximum(strata.div(strata.mul(strata.sub(
        strata.add(x, y), y), x), y), y), x), x)
    v = strata.sigmoid(strata.tanh(strata.rsqrt(strata.log(strata.exp(v)))))
    f.ret(strata.gelu(strata.gelu(v), approximate="tanh"))
    m.verify()
    print(m)


# CHECK-LABEL: TEST: compare_builders
# CHECK: "strata.compare"(%arg0, %arg1) {predicate = "eq"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
# CHECK-NEXT: "strata.compare"(%arg0, %arg1) {predicate = "ne"}
# CHECK-NEXT: "strata.compare"(%arg0, %arg1) {predicate = "lt"}
# CHECK-NEXT: "strata.compare"(%arg0, %arg1) {predicate = "le"}
# CHECK-NEXT: "strata.compare"(%arg0, %arg1) {predicate = "gt"}
# CHECK-NEXT: %[[GE:.+]] = "strata.compare"(%arg0, %arg1) {predicate = "ge"}
# CHECK-NEXT: "strata.select"(%[[GE]], %arg0, %arg1) : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
@run
def compare_builders():
    m = strata.Module()
    f = m.function("f", S((4,), "i32"), S((4,), "i32"))
    a, b = f.args
    outs = [fn(a, b) for fn in (strata.equal, strata.not_equal, strata.less, strata.less_equal,
                                strata.greater, strata.greater_equal)]
    f.ret(*outs, strata.where(outs[-1], a, b))
    m.verify()
    print(m)


# CHECK-LABEL: TEST: reductions_and_norms
# CHECK: %[[SM0:.+]] = "strata.softmax"(%arg0) : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
# CHECK-NEXT: %[[SM1:.+]] = "strata.softmax"(%[[SM0]]) {axis = 1 : i64} : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
# Default scale and bias are constants of the normalized shape. (A non-default
# epsilon is left out: frontend layer_norm(epsilon=...) raises a RuntimeError.)
# CHECK-NEXT: %[[ONES:.+]] = "strata.constant"() {value = dense<1.000000e+00> : tensor<4x8xf32>}
# CHECK-NEXT: %[[ZEROS:.+]] = "strata.constant"() {value = dense<0.000000e+00> : tensor<4x8xf32>}
# CHECK-NEXT: %[[LN:.+]] = "strata.layer_norm"(%[[SM1]], %[[ONES]], %[[ZEROS]]) {axis = -2 : i64} : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
# CHECK-NEXT: %[[S:.+]] = "strata.sum"(%arg0) {axes = array<i64: 0, 1, 2>} : (tensor<2x4x8xf32>) -> tensor<f32>
# CHECK-NEXT: %[[M:.+]] = "strata.max"(%arg0) {axes = array<i64: -1>, keepdims = true} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
# CHECK-NEXT: %[[MEAN:.+]] = "strata.mean"(%arg0) {axes = array<i64: 0, 2>} : (tensor<2x4x8xf32>) -> tensor<4xf32>
# CHECK-NEXT: %[[LN2:.+]] = "strata.layer_norm"(%[[LN]], %arg1, %arg1) : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
# CHECK-NEXT: return %[[S]], %[[M]], %[[MEAN]], %[[LN2]]
@run
def reductions_and_norms():
    m = strata.Module()
    f = m.function("f", S((2, 4, 8)), S((8,)))
    x, s = f.args
    y = strata.softmax(strata.softmax(x), axis=1)
    y = strata.layer_norm(y, axis=-2)
    f.ret(strata.sum(x), strata.max(x, axis=-1, keepdims=True), strata.mean(x, axis=(0, 2)),
          strata.layer_norm(y, s, s))
    m.verify()
    print(m)


# CHECK-LABEL: TEST: shape_builders
# CHECK: %[[R:.+]] = "strata.reshape"(%arg0) : (tensor<2x6xf32>) -> tensor<3x4xf32>
# CHECK-NEXT: %[[T:.+]] = "strata.transpose"(%[[R]]) {permutation = array<i64: 1, 0>} : (tensor<3x4xf32>) -> tensor<4x3xf32>
# CHECK-NEXT: %[[B:.+]] = "strata.broadcast_to"(%arg1) : (tensor<3xf32>) -> tensor<4x3xf32>
# CHECK-NEXT: %[[C:.+]] = "strata.concat"(%[[T]], %[[B]]) {axis = -1 : i64} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>
# CHECK-NEXT: %[[S:.+]] = "strata.slice"(%[[C]]) {limits = array<i64: 4, 5>, starts = array<i64: 1, 0>, steps = array<i64: 2, 2>} : (tensor<4x6xf32>) -> tensor<2x3xf32>
# CHECK-NEXT: %[[K:.+]] = "strata.cast"(%[[S]]) : (tensor<2x3xf32>) -> tensor<2x3xi32>
# CHECK-NEXT: %[[K2:.+]] = "strata.cast"(%[[K]]) : (tensor<2x3xi32>) -> tensor<2x3xbf16>
# CHECK-NEXT: return %[[K2]]
@run
def shape_builders():
    m = strata.Module()
    f = m.function("f", S((2, 6)), S((3,)))
    x, v = f.args
    t = strata.transpose(strata.reshape(x, (3, -1)), (1, 0))
    c = strata.concat([t, strata.broadcast_to(v, (4, 3))], axis=-1)
    f.ret(strata.slice(c, [1, 0], [4, 5], [2, 2]).astype("i32").astype("bf16"))
    m.verify()
    print(m)


# CHECK-LABEL: TEST: conv_and_pool
# CHECK: %[[C:.+]] = "strata.conv2d"(%arg0, %arg1) {dilations = array<i64: 1, 1>, layout = "NCHW", padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
# CHECK-NEXT: %[[M:.+]] = "strata.max_pool2d"(%[[C]]) {kernel = array<i64: 2, 2>, layout = "NCHW", padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
# CHECK-NEXT: %[[N:.+]] = "strata.conv2d"(%arg2, %arg3) {dilations = array<i64: 2, 2>, layout = "NHWC", padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 1>} : (tensor<2x9x9x3xf16>, tensor<3x3x3x5xf16>) -> tensor<2x3x5x5xf16>
# CHECK-NEXT: %[[A:.+]] = "strata.avg_pool2d"(%[[N]]) {kernel = array<i64: 3, 3>, layout = "NHWC", padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x5x5xf16>) -> tensor<2x3x5x5xf16>
# CHECK-NEXT: return %[[M]], %[[A]]
@run
def conv_and_pool():
    m = strata.Module()
    f = m.function("f", S((1, 3, 8, 8)), S((4, 3, 3, 3)), S((2, 9, 9, 3), "f16"),
                   S((3, 3, 3, 5), "f16"))
    x, w, y, k = f.args
    a = strata.max_pool2d(strata.conv2d(x, w, padding=1), 2)
    b = strata.conv2d(y, k, stride=(2, 1), dilation=2, layout="NHWC")
    f.ret(a, strata.avg_pool2d(b, 3, stride=1, padding=1, layout="NHWC"))
    m.verify()
    print(m)


# CHECK-LABEL: TEST: constants
# CHECK: %[[A:.+]] = "strata.constant"() {value = dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
# CHECK-NEXT: %[[B:.+]] = "strata.constant"() {value = dense<[7, 8]> : tensor<2xi32>} : () -> tensor<2xi32>
# CHECK-NEXT: %[[C:.+]] = "strata.constant"() {value = dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf16>} : () -> tensor<2xf16>
# CHECK-NEXT: %[[D:.+]] = "strata.constant"() {value = dense<2.500000e-01> : tensor<1xbf16>} : () -> tensor<1xbf16>
# CHECK-NEXT: %[[E:.+]] = "strata.add"(%arg0, %[[A]]) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
# CHECK-NEXT: return %[[E]], %[[B]], %[[C]], %[[D]]
@run
def constants():
    m = strata.Module()
    f = m.function("f", S((2, 2)))
    (x,) = f.args
    a = strata.constant(np.array([[1.0, 2.0], [3.0, 4.0]]))  # f64 becomes f32
    b = strata.constant(np.array([7, 8]))                    # i64 becomes i32
    c = strata.constant([1.5, -2.0], "f16")
    d = strata.constant([0.25], "bf16", like=x)  # rank 0 left out: see the report
    f.ret(x + a, b, c, d)
    m.verify()
    print(m)


# Two functions in one module, each with its own arguments.
# CHECK-LABEL: TEST: two_functions
# CHECK: func.func @first(%arg0: tensor<2xf32>) -> tensor<2xf32>
# CHECK-NEXT: "strata.exp"(%arg0)
# CHECK: func.func @second(%arg0: tensor<3xi32>) -> tensor<3xi32>
# CHECK-NEXT: "strata.relu"(%arg0)
# CHECK: functions: ['first', 'second']
@run
def two_functions():
    m = strata.Module()
    f = m.function("first", S((2,)))
    g = m.function("second", S((3,), "i32"))
    g.ret(strata.relu(g.args[0]))
    f.ret(strata.exp(f.args[0]))
    m.verify()
    print(m)
    print("functions:", m.functions)


# CHECK-LABEL: TEST: builder_errors
# CHECK-NEXT: builder.py:[[# @LINE + 22]]:{{[0-9]+}}: error: matmul: inner dimensions differ (64 vs 32)
# CHECK-NEXT: builder.py:[[# @LINE + 22]]:{{[0-9]+}}: error: function 'f' is already finished (ret() was called)
# CHECK-NEXT: builder.py:[[# @LINE + 22]]:{{[0-9]+}}: error: operands belong to different functions
# CHECK-NEXT: builder.py:[[# @LINE + 22]]:{{[0-9]+}}: error: function 'g': result 0 is not a tensor of this function
# CHECK-NEXT: builder.py:[[# @LINE + 22]]:{{[0-9]+}}: error: transpose: permutation [0, 0] is not a permutation of [0, 2) for a rank-2 input
# CHECK-NEXT: builder.py:[[# @LINE + 22]]:{{[0-9]+}}: error: reshape: cannot reshape 8x64 (512 elements) into [3, -1]
# CHECK-NEXT: builder.py:[[# @LINE + 22]]:{{[0-9]+}}: error: conv2d: layout must be NCHW or NHWC, got 'CHWN'
# CHECK-NEXT: builder.py:[[# @LINE + 22]]:{{[0-9]+}}: error: arg0: numpy dtype complex64 is not supported (use float32, float16, bfloat16, float64, int32, int64 or bool)
@run
def builder_errors():
    m = strata.Module()
    f = m.function("f", S((8, 64)), S((32, 16)))
    x, w = f.args
    g = m.function("g", S((8, 64)))

    def attempt(fn):
        try:
            fn()
            print("no error")
        except StrataError as err:
            print(str(err).split("/")[-1])

    attempt(lambda: x @ w)
    attempt(lambda: (f.ret(x), x + x))
    attempt(lambda: strata.add(f.args[0], g.args[0]))
    attempt(lambda: g.ret(x))
    attempt(lambda: strata.transpose(g.args[0], (0, 0)))
    attempt(lambda: g.args[0].reshape(3, -1))
    attempt(lambda: strata.conv2d(g.args[0], g.args[0], layout="CHWN"))
    attempt(lambda: m.function("h", np.zeros(3, np.complex64)))


# An op that breaks a rule (built below the builders, with the raw MLIR API) is
# caught by Module.verify() and by the strata-verify pass, at its location.
# CHECK-LABEL: TEST: verify_pass
# CHECK-NEXT: verify: builder.py:[[# @LINE + 11]]:3: error: matmul: inner dimensions differ (8 vs 4)
# CHECK-NEXT: pipeline: builder.py:[[# @LINE + 10]]:3: error: matmul: inner dimensions differ (8 vs 4)
# CHECK-NEXT: stage: strata-verify
@run
def verify_pass():
    m = strata.Module()
    f = m.function("f", S((4, 8)))
    (x,) = f.args
    f.ret(x)
    ret = f.op.entry_block.operations[0]
    # The result type is what matmul would give if its inner dims agreed.
    with m.context, ir.Location.file("builder.py", __import__("inspect").currentframe().f_lineno, 3):
        ir.Operation.create("strata.matmul", results=[tensor_type((4, 8), "f32")],
                            operands=[x.value, x.value], ip=ir.InsertionPoint(ret))
    try:
        m.verify()
    except StrataError as err:
        print("verify:", err)
    try:
        run_pipeline(m.mlir.operation, "builtin.module(strata-verify)", reproducer=False)
    except PipelineError as err:
        print("pipeline:", err)
        print("stage:", err.stage)
