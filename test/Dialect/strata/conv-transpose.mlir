// RUN: %roundtrip | FileCheck %s

// strata.conv_transpose2d: its attributes survive printing and re-parsing; groups is
// printed only when it is not 1.

// CHECK-LABEL: func.func @nchw
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x8x5x7xf32>, %[[W:[a-z0-9]+]]: tensor<8x4x3x3xf32>)
func.func @nchw(%x: tensor<2x8x5x7xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<2x4x10x14xf32> {
  // CHECK: %[[C:.+]] = "strata.conv_transpose2d"(%[[X]], %[[W]]) {dilations = array<i64: 1, 1>, layout = "NCHW", output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x5x7xf32>, tensor<8x4x3x3xf32>) -> tensor<2x4x10x14xf32>
  %0 = "strata.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<2x8x5x7xf32>, tensor<8x4x3x3xf32>) -> tensor<2x4x10x14xf32>
  // CHECK: return %[[C]]
  return %0 : tensor<2x4x10x14xf32>
}

// CHECK-LABEL: func.func @grouped_nhwc
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x5x5x4xbf16>, %[[W:[a-z0-9]+]]: tensor<3x2x3x4xbf16>)
func.func @grouped_nhwc(%x: tensor<?x5x5x4xbf16>, %w: tensor<3x2x3x4xbf16>) -> tensor<?x12x8x6xbf16> {
  // CHECK: %[[C:.+]] = "strata.conv_transpose2d"(%[[X]], %[[W]]) {dilations = array<i64: 1, 1>, groups = 2 : i64, layout = "NHWC", output_padding = array<i64: 1, 0>, padding = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x5x5x4xbf16>, tensor<3x2x3x4xbf16>) -> tensor<?x12x8x6xbf16>
  %0 = "strata.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 1, 1>, output_padding = array<i64: 1, 0>, dilations = array<i64: 1, 1>, layout = "NHWC", groups = 2 : i64} : (tensor<?x5x5x4xbf16>, tensor<3x2x3x4xbf16>) -> tensor<?x12x8x6xbf16>
  // CHECK: return %[[C]]
  return %0 : tensor<?x12x8x6xbf16>
}
