// RUN: %roundtrip | FileCheck %s

// strata.cumsum, reverse, pad, scatter and scatter_add print, parse back and keep their
// types and attributes.

// CHECK-LABEL: func.func @cumsum
// CHECK-SAME: (%[[X:.+]]: tensor<4x?xbf16>)
func.func @cumsum(%x: tensor<4x?xbf16>) -> tensor<4x?xbf16> {
  // CHECK: %[[C:.+]] = "strata.cumsum"(%[[X]]) {axis = -1 : i64} : (tensor<4x?xbf16>) -> tensor<4x?xbf16>
  %0 = "strata.cumsum"(%x) {axis = -1 : i64} : (tensor<4x?xbf16>) -> tensor<4x?xbf16>
  // CHECK: return %[[C]]
  return %0 : tensor<4x?xbf16>
}

// CHECK-LABEL: func.func @reverse
func.func @reverse(%x: tensor<3x5x7xi32>) -> tensor<3x5x7xi32> {
  // CHECK: "strata.reverse"(%{{.+}}) {axes = array<i64: 0, -1>} : (tensor<3x5x7xi32>) -> tensor<3x5x7xi32>
  %0 = "strata.reverse"(%x) {axes = array<i64: 0, -1>} : (tensor<3x5x7xi32>) -> tensor<3x5x7xi32>
  return %0 : tensor<3x5x7xi32>
}

// CHECK-LABEL: func.func @pad
func.func @pad(%x: tensor<3x?xf16>) -> (tensor<4x?xf16>, tensor<3x?xf16>) {
  // CHECK: "strata.pad"(%{{.+}}) {high = array<i64: 0, 3>, low = array<i64: 1, 2>, pad_value = -1.500000e+00 : f64} : (tensor<3x?xf16>) -> tensor<4x?xf16>
  %0 = "strata.pad"(%x) {low = array<i64: 1, 2>, high = array<i64: 0, 3>, pad_value = -1.5 : f64} : (tensor<3x?xf16>) -> tensor<4x?xf16>
  // CHECK: "strata.pad"(%{{.+}}) {high = array<i64: 0, 0>, low = array<i64: 0, 0>} : (tensor<3x?xf16>) -> tensor<3x?xf16>
  %1 = "strata.pad"(%x) {low = array<i64: 0, 0>, high = array<i64: 0, 0>} : (tensor<3x?xf16>) -> tensor<3x?xf16>
  return %0, %1 : tensor<4x?xf16>, tensor<3x?xf16>
}

// CHECK-LABEL: func.func @scatter
// CHECK-SAME: (%[[X:.+]]: tensor<5x4xf32>, %[[I:.+]]: tensor<2x4xi32>, %[[U:.+]]: tensor<2x4xf32>)
func.func @scatter(%x: tensor<5x4xf32>, %i: tensor<2x4xi32>, %u: tensor<2x4xf32>) -> (tensor<5x4xf32>, tensor<5x4xf32>) {
  // CHECK: "strata.scatter"(%[[X]], %[[I]], %[[U]]) {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x4xi32>, tensor<2x4xf32>) -> tensor<5x4xf32>
  %0 = "strata.scatter"(%x, %i, %u) {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x4xi32>, tensor<2x4xf32>) -> tensor<5x4xf32>
  // CHECK: "strata.scatter_add"(%[[X]], %[[I]], %[[U]]) {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x4xi32>, tensor<2x4xf32>) -> tensor<5x4xf32>
  %1 = "strata.scatter_add"(%x, %i, %u) {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x4xi32>, tensor<2x4xf32>) -> tensor<5x4xf32>
  return %0, %1 : tensor<5x4xf32>, tensor<5x4xf32>
}
