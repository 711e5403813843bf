// RUN: %roundtrip | FileCheck %s

// strata.prod and strata.min print, parse back and keep their types and attributes.

// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[A:.+]]: tensor<3x?x5xf32>, %[[B:.+]]: tensor<4x6xi32>)
func.func @reductions(%a: tensor<3x?x5xf32>, %b: tensor<4x6xi32>) -> (tensor<3x1x1xf32>, tensor<4xi32>) {
  // CHECK: %[[P:.+]] = "strata.prod"(%[[A]]) {axes = array<i64: 1, 2>, keepdims = true} : (tensor<3x?x5xf32>) -> tensor<3x1x1xf32>
  %0 = "strata.prod"(%a) {axes = array<i64: 1, 2>, keepdims = true} : (tensor<3x?x5xf32>) -> tensor<3x1x1xf32>
  // CHECK: %[[M:.+]] = "strata.min"(%[[B]]) {axes = array<i64: -1>} : (tensor<4x6xi32>) -> tensor<4xi32>
  %1 = "strata.min"(%b) {axes = array<i64: -1>} : (tensor<4x6xi32>) -> tensor<4xi32>
  // CHECK: return %[[P]], %[[M]]
  return %0, %1 : tensor<3x1x1xf32>, tensor<4xi32>
}
