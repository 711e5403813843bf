// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s --check-prefix=GONE

// erf, sin, cos, floor, ceil, round and sign become one linalg.generic each, with the
// math dialect's op in the body (round: roundeven, numpy's halves-to-even); sign is two
// compares and selects that let NaN through. bf16 computes in f32.

// GONE-NOT: strata.

// CHECK-LABEL: func.func @math_ops
// CHECK-SAME: (%[[A:.+]]: tensor<4xf32>)
// CHECK: linalg.generic {{.+}} ins(%[[A]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[E:.+]] = math.erf %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[E]] : f32
// CHECK: math.sin
// CHECK: math.cos
// CHECK: math.floor
// CHECK: math.ceil
// CHECK: math.roundeven
func.func @math_ops(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "strata.erf"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "strata.sin"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "strata.cos"(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "strata.floor"(%2) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = "strata.ceil"(%3) : (tensor<4xf32>) -> tensor<4xf32>
  %5 = "strata.round"(%4) : (tensor<4xf32>) -> tensor<4xf32>
  return %5 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @round_bf16
// CHECK: ^bb0(%[[X:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT: %[[W:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: %[[R:.+]] = math.roundeven %[[W]] : f32
// CHECK-NEXT: %[[N:.+]] = arith.truncf %[[R]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[N]] : bf16
func.func @round_bf16(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = "strata.round"(%a) : (tensor<4xbf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// CHECK-LABEL: func.func @sign_f32
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[LT:.+]] = arith.cmpf olt, %[[X]], %[[ZERO]] : f32
// CHECK: %[[NEG:.+]] = arith.select %[[LT]], %{{.+}}, %[[X]] : f32
// CHECK: %[[GT:.+]] = arith.cmpf ogt, %[[X]], %[[ZERO]] : f32
// CHECK: %[[S:.+]] = arith.select %[[GT]], %[[ONE]], %[[NEG]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @sign_f32(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "strata.sign"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @sign_i32
// CHECK: ^bb0(%[[X:.+]]: i32, %{{.+}}: i32):
// CHECK: %[[LT:.+]] = arith.cmpi slt, %[[X]], %[[ZERO:.+]] : i32
// CHECK: %[[NEG:.+]] = arith.select %[[LT]], %{{.+}}, %[[ZERO]] : i32
// CHECK: %[[GT:.+]] = arith.cmpi sgt, %[[X]], %[[ZERO]] : i32
// CHECK: %[[S:.+]] = arith.select %[[GT]], %{{.+}}, %[[NEG]] : i32
// CHECK-NEXT: linalg.yield %[[S]] : i32
func.func @sign_i32(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "strata.sign"(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
