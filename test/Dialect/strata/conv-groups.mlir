// RUN: %roundtrip | FileCheck %s

// strata.conv2d with groups: the attribute survives printing and re-parsing; without
// it the op is an ordinary (groups = 1) convolution.

// CHECK-LABEL: func.func @depthwise_nchw
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x8x9x9xf32>, %[[W:[a-z0-9]+]]: tensor<8x1x3x3xf32>)
func.func @depthwise_nchw(%x: tensor<1x8x9x9xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x9x9xf32> {
  // CHECK: %[[C:.+]] = "strata.conv2d"(%[[X]], %[[W]]) {dilations = array<i64: 1, 1>, groups = 8 : i64, layout = "NCHW", padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x9x9xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x9x9xf32>
  %0 = "strata.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, layout = "NCHW", groups = 8 : i64} : (tensor<1x8x9x9xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x9x9xf32>
  // CHECK: return %[[C]]
  return %0 : tensor<1x8x9x9xf32>
}

// CHECK-LABEL: func.func @grouped_nhwc
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x9x9x8xbf16>, %[[W:[a-z0-9]+]]: tensor<3x3x2x12xbf16>)
func.func @grouped_nhwc(%x: tensor<?x9x9x8xbf16>, %w: tensor<3x3x2x12xbf16>) -> tensor<?x4x4x12xbf16> {
  // CHECK: %[[C:.+]] = "strata.conv2d"(%[[X]], %[[W]]) {dilations = array<i64: 1, 1>, groups = 4 : i64, layout = "NHWC", padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<?x9x9x8xbf16>, tensor<3x3x2x12xbf16>) -> tensor<?x4x4x12xbf16>
  %0 = "strata.conv2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NHWC", groups = 4 : i64} : (tensor<?x9x9x8xbf16>, tensor<3x3x2x12xbf16>) -> tensor<?x4x4x12xbf16>
  // CHECK: return %[[C]]
  return %0 : tensor<?x4x4x12xbf16>
}
