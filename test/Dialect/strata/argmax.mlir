// RUN: %roundtrip | FileCheck %s

// strata.argmax and strata.argmin print, parse back and keep their i32 result types.

// CHECK-LABEL: func.func @arg_reductions
// CHECK-SAME: (%[[A:.+]]: tensor<3x?x5xf32>, %[[B:.+]]: tensor<4x6xi32>)
func.func @arg_reductions(%a: tensor<3x?x5xf32>, %b: tensor<4x6xi32>) -> (tensor<3x5xi32>, tensor<4x1xi32>) {
  // CHECK: %[[X:.+]] = "strata.argmax"(%[[A]]) {axis = 1 : i64} : (tensor<3x?x5xf32>) -> tensor<3x5xi32>
  %0 = "strata.argmax"(%a) {axis = 1 : i64} : (tensor<3x?x5xf32>) -> tensor<3x5xi32>
  // CHECK: %[[N:.+]] = "strata.argmin"(%[[B]]) {axis = -1 : i64, keepdims = true} : (tensor<4x6xi32>) -> tensor<4x1xi32>
  %1 = "strata.argmin"(%b) {axis = -1 : i64, keepdims = true} : (tensor<4x6xi32>) -> tensor<4x1xi32>
  // CHECK: return %[[X]], %[[N]]
  return %0, %1 : tensor<3x5xi32>, tensor<4x1xi32>
}
