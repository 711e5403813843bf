// RUN: %roundtrip | FileCheck %s

// strata.argsort prints, parses back and keeps its i32 result (dynamic dims, descending).

// CHECK-LABEL: func.func @argsort
// CHECK-SAME: (%[[A:.+]]: tensor<3x?x5xf32>, %[[B:.+]]: tensor<4x6xi64>)
func.func @argsort(%a: tensor<3x?x5xf32>, %b: tensor<4x6xi64>) -> (tensor<3x?x5xi32>, tensor<4x6xi32>) {
  // CHECK: %[[X:.+]] = "strata.argsort"(%[[A]]) {axis = 1 : i64} : (tensor<3x?x5xf32>) -> tensor<3x?x5xi32>
  %0 = "strata.argsort"(%a) {axis = 1 : i64} : (tensor<3x?x5xf32>) -> tensor<3x?x5xi32>
  // CHECK: %[[Y:.+]] = "strata.argsort"(%[[B]]) {axis = -1 : i64, descending = true} : (tensor<4x6xi64>) -> tensor<4x6xi32>
  %1 = "strata.argsort"(%b) {axis = -1 : i64, descending = true} : (tensor<4x6xi64>) -> tensor<4x6xi32>
  // CHECK: return %[[X]], %[[Y]]
  return %0, %1 : tensor<3x?x5xi32>, tensor<4x6xi32>
}
