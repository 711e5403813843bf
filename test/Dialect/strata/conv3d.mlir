// RUN: %roundtrip | FileCheck %s

// strata.conv3d, max_pool3d and avg_pool3d (NCDHW) print, parse back and keep their types.

// CHECK-LABEL: func.func @conv3d
// CHECK-SAME: (%[[X:.+]]: tensor<?x4x5x6x7xf32>, %[[W:.+]]: tensor<6x2x3x2x3xf32>)
func.func @conv3d(%x: tensor<?x4x5x6x7xf32>, %w: tensor<6x2x3x2x3xf32>) -> tensor<?x6x5x2x9xf32> {
  // CHECK: %[[C:.+]] = "strata.conv3d"(%[[X]], %[[W]]) {dilations = array<i64: 1, 2, 1>, groups = 2 : i64, padding = array<i64: 1, 1, 0, 0, 2, 2>, strides = array<i64: 1, 2, 1>} : (tensor<?x4x5x6x7xf32>, tensor<6x2x3x2x3xf32>) -> tensor<?x6x5x2x9xf32>
  %0 = "strata.conv3d"(%x, %w) {strides = array<i64: 1, 2, 1>, padding = array<i64: 1, 1, 0, 0, 2, 2>, dilations = array<i64: 1, 2, 1>, groups = 2 : i64} : (tensor<?x4x5x6x7xf32>, tensor<6x2x3x2x3xf32>) -> tensor<?x6x5x2x9xf32>
  // CHECK: return %[[C]]
  return %0 : tensor<?x6x5x2x9xf32>
}

// CHECK-LABEL: func.func @pools
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4x4x5xbf16>)
func.func @pools(%x: tensor<2x3x4x4x5xbf16>) -> (tensor<2x3x2x2x2xbf16>, tensor<2x3x2x2x3xbf16>) {
  // CHECK: %[[M:.+]] = "strata.max_pool3d"(%[[X]]) {kernel = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0, 0, 0, 0>, strides = array<i64: 2, 2, 2>} : (tensor<2x3x4x4x5xbf16>) -> tensor<2x3x2x2x2xbf16>
  %0 = "strata.max_pool3d"(%x) {kernel = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0, 0, 0, 0>} : (tensor<2x3x4x4x5xbf16>) -> tensor<2x3x2x2x2xbf16>
  // CHECK: %[[A:.+]] = "strata.avg_pool3d"(%[[X]]) {kernel = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1, 1, 1, 1>, strides = array<i64: 2, 2, 2>} : (tensor<2x3x4x4x5xbf16>) -> tensor<2x3x2x2x3xbf16>
  %1 = "strata.avg_pool3d"(%x) {kernel = array<i64: 3, 3, 3>, strides = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1, 1, 1, 1>} : (tensor<2x3x4x4x5xbf16>) -> tensor<2x3x2x2x3xbf16>
  // CHECK: return %[[M]], %[[A]]
  return %0, %1 : tensor<2x3x2x2x2xbf16>, tensor<2x3x2x2x3xbf16>
}
