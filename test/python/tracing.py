# RUN: %PYTHON %s | FileCheck %s

# Tracing Python functions over Tensor proxies into strata IR: operators,
# methods, numpy indexing, scalar promotion, source locations and errors.

import re

import numpy as np

import strata


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


def f32(*shape):
    return np.ones(shape, np.float32)


# CHECK-LABEL: TEST: arithmetic_operators
# CHECK: func.func @fn(%[[X:[a-z0-9]+]]: tensor<4x8xf32>, %[[Y:[a-z0-9]+]]: tensor<8xf32>) -> tensor<4x8xf32>
# CHECK-NEXT: %[[ADD:.+]] = "strata.add"(%[[X]], %[[Y]]) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
# CHECK-NEXT: %[[SUB:.+]] = "strata.sub"(%[[ADD]], %[[Y]]) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
# CHECK-NEXT: %[[MUL:.+]] = "strata.mul"(%[[SUB]], %[[X]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
# CHECK-NEXT: %[[DIV:.+]] = "strata.div"(%[[MUL]], %[[Y]]) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
# CHECK-NEXT: %[[POW:.+]] = "strata.pow"(%[[DIV]], %[[X]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
# CHECK-NEXT: %[[NEG:.+]] = "strata.neg"(%[[POW]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
# CHECK-NEXT: return %[[NEG]] : tensor<4x8xf32>
@run
def arithmetic_operators():
    def fn(x, y):
        return -((((x + y) - y) * x) / y) ** x

    print(strata.trace(fn, f32(4, 8), f32(8)))


# Python scalars become rank-0 constants of the other operand's dtype, on either side.
# CHECK-LABEL: TEST: scalar_promotion
# CHECK: func.func @fn(%[[X:[a-z0-9]+]]: tensor<3xf32>, %[[I:[a-z0-9]+]]: tensor<3xi32>)
# CHECK-NEXT: %[[C2:.+]] = "strata.constant"() {value = dense<2.000000e+00> : tensor<f32>} : () -> tensor<f32>
# CHECK-NEXT: %[[A:.+]] = "strata.mul"(%[[C2]], %[[X]]) : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
# CHECK-NEXT: %[[C1:.+]] = "strata.constant"() {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
# CHECK-NEXT: %[[B:.+]] = "strata.sub"(%[[C1]], %[[A]]) : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
# CHECK-NEXT: %[[CH:.+]] = "strata.constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
# CHECK-NEXT: %[[C:.+]] = "strata.pow"(%[[B]], %[[CH]]) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
# CHECK-NEXT: %[[C3:.+]] = "strata.constant"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
# CHECK-NEXT: %[[D:.+]] = "strata.add"(%[[I]], %[[C3]]) : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
# CHECK-NEXT: %[[C4:.+]] = "strata.constant"() {value = dense<4> : tensor<i32>} : () -> tensor<i32>
# CHECK-NEXT: %[[E:.+]] = "strata.floor_div"(%[[C4]], %[[D]]) : (tensor<i32>, tensor<3xi32>) -> tensor<3xi32>
# CHECK-NEXT: return %[[C]], %[[E]] : tensor<3xf32>, tensor<3xi32>
@run
def scalar_promotion():
    def fn(x, i):
        return (1 - 2 * x) ** 0.5, 4 // (i + 3)

    print(strata.trace(fn, f32(3), np.ones(3, np.int32)))


# CHECK-LABEL: TEST: numpy_scalars
# CHECK: %[[C:.+]] = "strata.constant"() {value = dense<3.000000e+00> : tensor<f32>}
# CHECK-NEXT: "strata.mul"(%[[C]], %arg0)
@run
def numpy_scalars():
    print(strata.trace(lambda x: np.float32(3) * x, f32(2)))


# CHECK-LABEL: TEST: matmul_and_methods
# CHECK: func.func @fn(%[[X:[a-z0-9]+]]: tensor<4x8xf32>, %[[W:[a-z0-9]+]]: tensor<8x6xf32>) -> (tensor<8x4xf32>, tensor<3x2x4xf32>, tensor<4xf32>, tensor<4x1xf32>, tensor<f32>)
# CHECK-NEXT: %[[M:.+]] = "strata.matmul"(%[[X]], %[[W]]) : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
# CHECK-NEXT: %[[T:.+]] = "strata.transpose"(%[[X]]) {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
# CHECK-NEXT: %[[R:.+]] = "strata.reshape"(%[[M]]) : (tensor<4x6xf32>) -> tensor<3x2x4xf32>
# CHECK-NEXT: %[[S:.+]] = "strata.sum"(%[[M]]) {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4xf32>
# CHECK-NEXT: %[[MX:.+]] = "strata.max"(%[[M]]) {axes = array<i64: -1>, keepdims = true} : (tensor<4x6xf32>) -> tensor<4x1xf32>
# CHECK-NEXT: %[[MEAN:.+]] = "strata.mean"(%[[M]]) {axes = array<i64: 0, 1>} : (tensor<4x6xf32>) -> tensor<f32>
# CHECK-NEXT: return %[[T]], %[[R]], %[[S]], %[[MX]], %[[MEAN]]
@run
def matmul_and_methods():
    def fn(x, w):
        m = x @ w
        return x.T, m.reshape(3, -1, 4), m.sum(axis=1), m.max(axis=-1, keepdims=True), m.mean()

    print(strata.trace(fn, f32(4, 8), f32(8, 6)))


# CHECK-LABEL: TEST: matmul_shapes
# CHECK: "strata.matmul"(%arg0, %arg1) : (tensor<8xf32>, tensor<8x3xf32>) -> tensor<3xf32>
# CHECK: "strata.matmul"(%arg2, %arg3) : (tensor<2x1x4x8xf32>, tensor<5x8x3xf32>) -> tensor<2x5x4x3xf32>
@run
def matmul_shapes():
    print(strata.trace(lambda v, m, a, b: (v @ m, a @ b), f32(8), f32(8, 3), f32(2, 1, 4, 8),
                       f32(5, 8, 3)))


# numpy basic indexing becomes strata.slice (normalized bounds) and strata.reshape.
# CHECK-LABEL: TEST: indexing
# CHECK: func.func @fn(%[[X:[a-z0-9]+]]: tensor<4x8xf32>)
# x[1:3, ::2]
# CHECK-NEXT: %[[S0:.+]] = "strata.slice"(%[[X]]) {limits = array<i64: 3, 8>, starts = array<i64: 1, 0>, steps = array<i64: 1, 2>} : (tensor<4x8xf32>) -> tensor<2x4xf32>
# x[0]
# CHECK-NEXT: %[[S1:.+]] = "strata.slice"(%[[X]]) {limits = array<i64: 1, 8>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : (tensor<4x8xf32>) -> tensor<1x8xf32>
# CHECK-NEXT: %[[R1:.+]] = "strata.reshape"(%[[S1]]) : (tensor<1x8xf32>) -> tensor<8xf32>
# x[None]: no slice, only a reshape
# CHECK-NEXT: %[[R2:.+]] = "strata.reshape"(%[[X]]) : (tensor<4x8xf32>) -> tensor<1x4x8xf32>
# x[-1, 1:-1]
# CHECK-NEXT: %[[S3:.+]] = "strata.slice"(%[[X]]) {limits = array<i64: 4, 7>, starts = array<i64: 3, 1>, steps = array<i64: 1, 1>} : (tensor<4x8xf32>) -> tensor<1x6xf32>
# CHECK-NEXT: %[[R3:.+]] = "strata.reshape"(%[[S3]]) : (tensor<1x6xf32>) -> tensor<6xf32>
# x[..., ::3, None]
# CHECK-NEXT: %[[S4:.+]] = "strata.slice"(%[[X]]) {limits = array<i64: 4, 8>, starts = array<i64: 0, 0>, steps = array<i64: 1, 3>} : (tensor<4x8xf32>) -> tensor<4x3xf32>
# CHECK-NEXT: %[[R4:.+]] = "strata.reshape"(%[[S4]]) : (tensor<4x3xf32>) -> tensor<4x3x1xf32>
# x[:, :] is x itself
# CHECK-NEXT: return %[[S0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[X]]
@run
def indexing():
    def fn(x):
        return x[1:3, ::2], x[0], x[None], x[-1, 1:-1], x[..., ::3, None], x[:, :]

    print(strata.trace(fn, f32(4, 8)))


# CHECK-LABEL: TEST: dynamic_dims
# CHECK: func.func @fn(%[[X:[a-z0-9]+]]: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<2x8xf32>, tensor<?xf32>)
# CHECK-NEXT: %[[C:.+]] = "strata.constant"() {value = dense<1.000000e+00> : tensor<f32>}
# CHECK-NEXT: %[[A:.+]] = "strata.add"(%[[X]], %[[C]]) : (tensor<?x8xf32>, tensor<f32>) -> tensor<?x8xf32>
# CHECK-NEXT: %[[S:.+]] = "strata.slice"(%[[A]]) {limits = array<i64: 2, 8>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : (tensor<?x8xf32>) -> tensor<2x8xf32>
# CHECK-NEXT: %[[R:.+]] = "strata.sum"(%[[A]]) {axes = array<i64: 1>} : (tensor<?x8xf32>) -> tensor<?xf32>
# CHECK-NEXT: return %[[A]], %[[S]], %[[R]]
@run
def dynamic_dims():
    def fn(x):
        y = x + 1.0
        return y, y[0:2], y.sum(axis=1)

    print(strata.trace(fn, strata.TensorSpec((None, 8))))


# CHECK-LABEL: TEST: comparisons_and_where
# CHECK: %[[LT:.+]] = "strata.compare"(%arg0, %arg1) {predicate = "lt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
# CHECK-NEXT: %[[GE:.+]] = "strata.compare"(%arg0, %arg1) {predicate = "ge"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
# CHECK-NEXT: %[[W:.+]] = "strata.select"(%[[LT]], %arg0, %arg1) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
# CHECK-NEXT: return %[[GE]], %[[W]]
@run
def comparisons_and_where():
    def fn(x, y):
        lt, ge = x < y, x >= y
        return ge, strata.where(lt, x, y)

    print(strata.trace(fn, f32(4), f32(4)))


# == and != build comparisons like < does; where takes two scalars (f32 for floats);
# a bool mask casts to numbers.
# CHECK-LABEL: TEST: equality_and_masks
# CHECK: %[[EQ:.+]] = "strata.compare"(%arg0, %arg1) {predicate = "eq"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
# CHECK-NEXT: %[[C1:.+]] = "strata.constant"() {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
# CHECK-NEXT: %[[NE:.+]] = "strata.compare"(%arg0, %[[C1]]) {predicate = "ne"} : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
# CHECK-NEXT: %[[ONE:.+]] = "strata.constant"() {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
# CHECK-NEXT: %[[ZERO:.+]] = "strata.constant"() {value = dense<0.000000e+00> : tensor<f32>} : () -> tensor<f32>
# CHECK-NEXT: %[[W:.+]] = "strata.select"(%[[EQ]], %[[ONE]], %[[ZERO]]) : (tensor<4xi1>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
# CHECK-NEXT: %[[F:.+]] = "strata.cast"(%[[NE]]) : (tensor<4xi1>) -> tensor<4xf16>
# CHECK-NEXT: return %[[W]], %[[F]]
@run
def equality_and_masks():
    def fn(x, y):
        eq, ne = x == y, x != 1.0
        return strata.where(eq, 1.0, 0.0), ne.astype("f16")

    print(strata.trace(fn, f32(4), f32(4)))


# numpy's division operators: / on integers is true division in f32 (a cast, then
# strata.div); // and % are strata.floor_div and strata.mod, on either side.
# CHECK-LABEL: TEST: division_operators
# CHECK: func.func @fn(%[[I:[a-z0-9]+]]: tensor<2x3xi32>, %[[J:[a-z0-9]+]]: tensor<3xi32>)
# CHECK-NEXT: %[[FI:.+]] = "strata.cast"(%[[I]]) : (tensor<2x3xi32>) -> tensor<2x3xf32>
# CHECK-NEXT: %[[FJ:.+]] = "strata.cast"(%[[J]]) : (tensor<3xi32>) -> tensor<3xf32>
# CHECK-NEXT: %[[D:.+]] = "strata.div"(%[[FI]], %[[FJ]]) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
# CHECK-NEXT: %[[Q:.+]] = "strata.floor_div"(%[[I]], %[[J]]) : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
# CHECK-NEXT: %[[C7:.+]] = "strata.constant"() {value = dense<7> : tensor<i32>} : () -> tensor<i32>
# CHECK-NEXT: %[[R:.+]] = "strata.mod"(%[[C7]], %[[J]]) : (tensor<i32>, tensor<3xi32>) -> tensor<3xi32>
# CHECK-NEXT: %[[H:.+]] = "strata.constant"() {value = dense<5.000000e-01> : tensor<f32>} : () -> tensor<f32>
# CHECK-NEXT: %[[FJ2:.+]] = "strata.cast"(%[[J]]) : (tensor<3xi32>) -> tensor<3xf32>
# CHECK-NEXT: %[[D2:.+]] = "strata.div"(%[[FJ2]], %[[H]]) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
# CHECK-NEXT: return %[[D]], %[[Q]], %[[R]], %[[D2]]
@run
def division_operators():
    def fn(i, j):
        return i / j, i // j, 7 % j, j / 0.5

    print(strata.trace(fn, np.ones((2, 3), np.int32), np.ones(3, np.int32)))


# The traced function's name, also for lambdas (main) and an explicit name=.
# CHECK-LABEL: TEST: function_names
# CHECK: func.func @main(
# CHECK: func.func @explicit(
# CHECK: functions: ['main', 'explicit']
@run
def function_names():
    m = strata.trace(lambda x: -x, f32(2))
    strata.trace(lambda x: -x, f32(2), name="explicit", module=m)
    print(m)
    print("functions:", m.functions)


# Each op is located at the Python line (and column) that created it.
# CHECK-LABEL: TEST: locations
# CHECK: #loc{{[0-9]+}} = loc("{{.*}}tracing.py":[[# @LINE + 14]]:25)
# CHECK: strata.matmul at tracing.py:[[# @LINE + 13]]:25
# CHECK-NEXT: strata.relu at tracing.py:[[# @LINE + 12]]:13
# CHECK-NEXT: strata.constant at tracing.py:[[# @LINE + 12]]:16
# CHECK-NEXT: strata.mul at tracing.py:[[# @LINE + 11]]:16
# CHECK-NEXT: all in this file: True
@run
def locations():
    import os

    loc_re = re.compile(r'^#(loc\d*) = loc\("([^"]*)":(\d+):(\d+)\)$', re.M)
    op_re = re.compile(r'"(strata\.\w+)".* loc\(#(loc\d+)\)$', re.M)

    def fn(x, w):
        y = strata.relu(x @ w)
        return y * 2.0

    text = strata.trace(fn, f32(2, 3), f32(3, 4)).text(debug_info=True)
    print("\n".join(line for line in text.splitlines() if line.startswith("#loc")))
    aliases = {name: (path, line, col) for name, path, line, col in loc_re.findall(text)}
    files = set()
    for op, ref in op_re.findall(text):
        path, line, col = aliases[ref]
        files.add(path)
        print(f"{op} at {os.path.basename(path)}:{line}:{col}")
    print("all in this file:", files == {os.path.abspath(__file__)})


# A broken rule raises StrataError at the user's line, in MLIR's diagnostic form.
# CHECK-LABEL: TEST: matmul_error
# CHECK: StrataError: {{.*}}tracing.py:[[# @LINE + 6]]:16: error: matmul: inner dimensions differ (64 vs 32)
# CHECK-NEXT: location: {{.*}}tracing.py:[[# @LINE + 5]]:16
# CHECK-NEXT: message: matmul: inner dimensions differ (64 vs 32)
@run
def matmul_error():
    def fn(x, w):
        return x @ w

    try:
        strata.trace(fn, f32(8, 64), f32(32, 16))
    except strata.StrataError as err:
        print("StrataError:", str(err))
        print("location:", err.location)
        print("message:", err.message)


# CHECK-LABEL: TEST: other_errors
# CHECK-NEXT: tracing.py:[[# @LINE + 10]]:20: error: add: shapes 4 and 3 cannot be broadcast (dim -1 has sizes 3 vs 4)
# CHECK-NEXT: tracing.py:[[# @LINE + 10]]:20: error: cannot use the non-integer 1.5 with an i32 tensor
# CHECK-NEXT: tracing.py:[[# @LINE + 10]]:20: error: index 5 is out of bounds for dim 0 of size 4
# CHECK-NEXT: tracing.py:[[# @LINE + 10]]:20: error: slice step cannot be zero
# CHECK-NEXT: tracing.py:[[# @LINE + 10]]:20: error: exp: operand element type i32 is not supported (expected one of f32, f16, bf16, f64)
# CHECK-NEXT: tracing.py:[[# @LINE + 10]]:20: error: a traced tensor has no truth value: use strata.where for data-dependent choices
# CHECK-NEXT: tracing.py:[[# @LINE + 14]]:13: error: traced function 'main' must return strata tensors, got int
@run
def other_errors():
    cases = [
        (lambda x: x + x[0:3], (f32(4),)),
        (lambda i: i + 1.5, (np.ones(4, np.int32),)),
        (lambda x: x[5], (f32(4),)),
        (lambda x: x[::0], (f32(4),)),
        (lambda i: strata.exp(i), (np.ones(4, np.int32),)),
        (lambda x: x if x else x, (f32(4),)),
        (lambda x: 3, (f32(4),)),
    ]
    for fn, args in cases:
        try:
            strata.trace(fn, *args)
            print("no error")
        except strata.StrataError as err:
            print(str(err).split("/")[-1])
