// RUN: %roundtrip | FileCheck %s

// strata.gather prints, parses back and keeps its types: the axis replaced by the
// indices' dims (an embedding lookup, a pick along the last axis, a scalar index).

// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[T:.+]]: tensor<50x8xf32>, %[[I:.+]]: tensor<2x?xi32>)
func.func @embedding(%t: tensor<50x8xf32>, %i: tensor<2x?xi32>) -> tensor<2x?x8xf32> {
  // CHECK: %[[G:.+]] = "strata.gather"(%[[T]], %[[I]]) {axis = 0 : i64} : (tensor<50x8xf32>, tensor<2x?xi32>) -> tensor<2x?x8xf32>
  %0 = "strata.gather"(%t, %i) {axis = 0 : i64} : (tensor<50x8xf32>, tensor<2x?xi32>) -> tensor<2x?x8xf32>
  // CHECK: return %[[G]]
  return %0 : tensor<2x?x8xf32>
}

// CHECK-LABEL: func.func @last_axis
func.func @last_axis(%x: tensor<3x5x7xbf16>, %i: tensor<4xi32>, %s: tensor<i32>) -> (tensor<3x5x4xbf16>, tensor<3x7xbf16>) {
  // CHECK: "strata.gather"(%{{.+}}, %{{.+}}) {axis = -1 : i64} : (tensor<3x5x7xbf16>, tensor<4xi32>) -> tensor<3x5x4xbf16>
  %0 = "strata.gather"(%x, %i) {axis = -1 : i64} : (tensor<3x5x7xbf16>, tensor<4xi32>) -> tensor<3x5x4xbf16>
  // CHECK: "strata.gather"(%{{.+}}, %{{.+}}) {axis = 1 : i64} : (tensor<3x5x7xbf16>, tensor<i32>) -> tensor<3x7xbf16>
  %1 = "strata.gather"(%x, %s) {axis = 1 : i64} : (tensor<3x5x7xbf16>, tensor<i32>) -> tensor<3x7xbf16>
  return %0, %1 : tensor<3x5x4xbf16>, tensor<3x7xbf16>
}
