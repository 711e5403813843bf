// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s --check-prefix=GONE

// strata.prod and strata.min become a linalg.reduce from their identity (1; +inf for
// floats, INT32_MAX for i32) with mulf / minimumf / minsi; bf16 reduces in f32.

// GONE-NOT: strata.

// CHECK-LABEL: func.func @prod
// CHECK-SAME: (%[[A:.+]]: tensor<4x6xf32>)
// CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ONE]] : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK: %[[R:.+]] = linalg.reduce ins(%[[A]] : tensor<4x6xf32>) outs(%[[INIT]] : tensor<4xf32>) dimensions = [1]
// CHECK-NEXT: (%[[IN:.+]]: f32, %[[ACC:.+]]: f32) {
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[IN]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
// CHECK: return %[[R]]
func.func @prod(%a: tensor<4x6xf32>) -> tensor<4xf32> {
  %0 = "strata.prod"(%a) {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @min_i32
// CHECK: %[[MAX:.+]] = arith.constant 2147483647 : i32
// CHECK: linalg.fill ins(%[[MAX]] : i32)
// CHECK: linalg.reduce {{.*}} dimensions = [0]
// CHECK: arith.minsi
func.func @min_i32(%a: tensor<4x6xi32>) -> tensor<6xi32> {
  %0 = "strata.min"(%a) {axes = array<i64: 0>} : (tensor<4x6xi32>) -> tensor<6xi32>
  return %0 : tensor<6xi32>
}

// -----

// CHECK-LABEL: func.func @min_bf16
// CHECK: arith.extf %{{.+}} : bf16 to f32
// CHECK: %[[INF:.+]] = arith.constant 0x7F800000 : f32
// CHECK: linalg.fill ins(%[[INF]] : f32)
// CHECK: linalg.reduce {{.*}} dimensions = [1]
// CHECK: arith.minimumf
// CHECK: tensor.expand_shape
// CHECK: arith.truncf %{{.+}} : f32 to bf16
func.func @min_bf16(%a: tensor<4x6xbf16>) -> tensor<4x1xbf16> {
  %0 = "strata.min"(%a) {axes = array<i64: 1>, keepdims = true} : (tensor<4x6xbf16>) -> tensor<4x1xbf16>
  return %0 : tensor<4x1xbf16>
}
