# RUN: %PYTHON %s | FileCheck %s

# strata.dialects.strata: the op classes generated from dialects/StrataOps.td, extended by
# subclassing to infer result types with the shape rules; the frontend builds through them.

import numpy as np
from mlir import ir
from mlir.dialects import func

import strata
from strata.context import new_context
from strata.dialect.shapes import ShapeError
from strata.dialect.types import tensor_type
from strata.dialects import strata as ops


def run(f):
    print("\nTEST:", f.__name__)
    f()
    return f


def _function(ctx, *types):
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        f = func.FuncOp("f", ([tensor_type(*t) for t in types], []))
    return module, f.add_entry_block()


# CHECK-LABEL: TEST: inferred_results
# CHECK: "strata.matmul"(%arg0, %arg1) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
# CHECK: "strata.sum"(%{{.+}}) {axes = array<i64: 1>, keepdims = true} : (tensor<4x2xf32>) -> tensor<4x1xf32>
# CHECK: "strata.transpose"(%arg0) {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
# CHECK: "strata.reshape"(%arg0) : (tensor<4x8xf32>) -> tensor<2x16xf32>
# CHECK: "strata.cast"(%arg0) : (tensor<4x8xf32>) -> tensor<4x8xf16>
# CHECK: "strata.softmax"(%arg0) {axis = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
# CHECK: "strata.constant"() {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
# CHECK: "strata.reshape"(%arg0) : (tensor<4x8xf32>) -> tensor<32xf32>
# CHECK: class: MatmulOp strata.dialects.strata
@run
def inferred_results():
    with new_context() as ctx, ir.Location.unknown():
        module, block = _function(ctx, ((4, 8), "f32"), ((8, 2), "f32"))
        with ir.InsertionPoint(block):
            x, w = block.arguments
            m = ops.MatmulOp(x, w)
            ops.sum(m, [1], keepdims=True)
            ops.transpose(x, [1, 0])
            ops.ReshapeOp(x, [2, 16])
            ops.cast(x, "f16")
            ops.softmax(x, axis=0)
            ops.ConstantOp(ir.DenseElementsAttr.get_splat(tensor_type((), "f32"),
                                                          ir.FloatAttr.get_f32(1.0)))
            ops.ReshapeOp(x, result=tensor_type((32,), "f32"))  # an explicit result type
            func.ReturnOp([])
        for op in block.operations:
            if op.name.startswith("strata."):
                print(op)
        parsed = ir.Module.parse(str(module))  # ops parsed from text get the classes too
        first = parsed.body.operations[0].regions[0].blocks[0].operations[0]
        print("class:", type(first).__name__, type(first).__module__)


# A broken rule is the rule's ShapeError, with the same text as the verifier's.
# CHECK-LABEL: TEST: broken_rules
# CHECK: ShapeError: matmul: inner dimensions differ (2 vs 8)
# CHECK: ShapeError: transpose: permutation [0, 0] is not a permutation of [0, 2) for a rank-2 input
# CHECK: ShapeError: attribute 'axes' is missing
@run
def broken_rules():
    with new_context() as ctx, ir.Location.unknown():
        _, block = _function(ctx, ((4, 8), "f32"), ((8, 2), "f32"))
        x, w = block.arguments
        with ir.InsertionPoint(block):
            for build in (lambda: ops.matmul(w, w), lambda: ops.transpose(x, [0, 0]),
                          lambda: ops.SumOp(x, None)):
                try:
                    build()
                except ShapeError as e:
                    print("ShapeError:", e)


# The frontend builds through the same classes (ops come back as the subclasses); a broken
# rule is a StrataError at the user's line.
# CHECK-LABEL: TEST: frontend
# CHECK: MatmulOp ReluOp
# CHECK: StrataError: op_classes.py:[[# @LINE + 10]]:{{[0-9]+}}: error: matmul: inner dimensions differ (2 vs 3)
@run
def frontend():
    m = strata.Module()
    f = m.function("f", x=strata.TensorSpec((4, 8)), w=strata.TensorSpec((8, 2)))
    x, w = f.args
    y = strata.relu(x @ w)
    print(type(y.value.owner.opview.operands[0].owner).__name__,
          type(y.value.owner).__name__)
    try:
        strata.matmul(w, strata.constant(np.ones((3, 2), np.float32), like=w))
    except strata.StrataError as e:
        print("StrataError:", str(e).replace(__file__, "op_classes.py"))
    f.ret(y)
