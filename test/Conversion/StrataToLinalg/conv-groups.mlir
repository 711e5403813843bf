// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s

// strata.conv2d with groups > 1: the operands reshaped (views, no copies) onto linalg's
// grouped and depthwise named convolutions, the result collapsed back to 4-D.

// Depthwise NCHW: the filter [C, 1, KH, KW] is the [C, KH, KW] of depthwise_conv_2d_nchw_chw.
// CHECK-LABEL: func.func @depthwise_nchw
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x9x9xf32>, %[[W:.+]]: tensor<8x1x3x3xf32>)
// CHECK: %[[W3:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1], [2], [3]] : tensor<8x1x3x3xf32> into tensor<8x3x3xf32>
// CHECK: %[[INIT:.+]] = linalg.fill {{.*}} -> tensor<1x8x7x7xf32>
// CHECK: %[[C:.+]] = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[X]], %[[W3]] : tensor<1x8x9x9xf32>, tensor<8x3x3xf32>) outs(%[[INIT]] : tensor<1x8x7x7xf32>)
// CHECK-NEXT: return %[[C]]
func.func @depthwise_nchw(%x: tensor<1x8x9x9xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x7x7xf32> {
  %0 = "strata.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW", groups = 8 : i64} : (tensor<1x8x9x9xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x7x7xf32>
  return %0 : tensor<1x8x7x7xf32>
}

// -----

// Depthwise NHWC, f16: accumulated in f32, then rounded back to f16.
// CHECK-LABEL: func.func @depthwise_nhwc_f16
// CHECK-SAME: (%[[X:.+]]: tensor<2x9x9x8xf16>, %[[W:.+]]: tensor<3x3x1x8xf16>)
// CHECK: %[[W3:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1], [2, 3]] : tensor<3x3x1x8xf16> into tensor<3x3x8xf16>
// CHECK: %[[INIT:.+]] = linalg.fill {{.*}} -> tensor<2x4x4x8xf32>
// CHECK: %[[C:.+]] = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[X]], %[[W3]] : tensor<2x9x9x8xf16>, tensor<3x3x8xf16>) outs(%[[INIT]] : tensor<2x4x4x8xf32>)
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[C]] : tensor<2x4x4x8xf32>)
// CHECK: arith.truncf
// CHECK: return %[[R]]
func.func @depthwise_nhwc_f16(%x: tensor<2x9x9x8xf16>, %w: tensor<3x3x1x8xf16>) -> tensor<2x4x4x8xf16> {
  %0 = "strata.conv2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NHWC", groups = 8 : i64} : (tensor<2x9x9x8xf16>, tensor<3x3x1x8xf16>) -> tensor<2x4x4x8xf16>
  return %0 : tensor<2x4x4x8xf16>
}

// -----

// Depthwise NHWC with a channel multiplier (F = 2 C): depthwise_conv_2d_nhwc_hwcm.
// CHECK-LABEL: func.func @depthwise_multiplier_nhwc
// CHECK-SAME: (%[[X:.+]]: tensor<1x9x9x4xf32>, %[[W:.+]]: tensor<3x3x1x8xf32>)
// CHECK: %[[W3:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1], [2, 3]] : tensor<3x3x1x8xf32> into tensor<3x3x8xf32>
// CHECK: %[[W4:.+]] = tensor.expand_shape %[[W3]] {{\[}}[0], [1], [2, 3]] output_shape [3, 3, 4, 2] : tensor<3x3x8xf32> into tensor<3x3x4x2xf32>
// CHECK: %[[C:.+]] = linalg.depthwise_conv_2d_nhwc_hwcm {{.*}} ins(%[[X]], %[[W4]] : tensor<1x9x9x4xf32>, tensor<3x3x4x2xf32>) outs(%{{.+}} : tensor<1x7x7x4x2xf32>)
// CHECK: %[[R:.+]] = tensor.collapse_shape %[[C]] {{\[}}[0], [1], [2], [3, 4]] : tensor<1x7x7x4x2xf32> into tensor<1x7x7x8xf32>
// CHECK: return %[[R]]
func.func @depthwise_multiplier_nhwc(%x: tensor<1x9x9x4xf32>, %w: tensor<3x3x1x8xf32>) -> tensor<1x7x7x8xf32> {
  %0 = "strata.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NHWC", groups = 4 : i64} : (tensor<1x9x9x4xf32>, tensor<3x3x1x8xf32>) -> tensor<1x7x7x8xf32>
  return %0 : tensor<1x7x7x8xf32>
}

// -----

// Grouped NCHW: x [N, G, C/G, H, W] and filter [G, F/G, C/G, KH, KW] as views.
// CHECK-LABEL: func.func @grouped_nchw
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x9x9xf32>, %[[W:.+]]: tensor<12x2x3x3xf32>)
// CHECK: %[[XG:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 4, 2, 9, 9] : tensor<1x8x9x9xf32> into tensor<1x4x2x9x9xf32>
// CHECK: %[[WG:.+]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [4, 3, 2, 3, 3] : tensor<12x2x3x3xf32> into tensor<4x3x2x3x3xf32>
// CHECK: %[[C:.+]] = linalg.conv_2d_ngchw_gfchw {{.*}} ins(%[[XG]], %[[WG]] : tensor<1x4x2x9x9xf32>, tensor<4x3x2x3x3xf32>) outs(%{{.+}} : tensor<1x4x3x7x7xf32>)
// CHECK: %[[R:.+]] = tensor.collapse_shape %[[C]] {{\[}}[0], [1, 2], [3], [4]] : tensor<1x4x3x7x7xf32> into tensor<1x12x7x7xf32>
// CHECK: return %[[R]]
func.func @grouped_nchw(%x: tensor<1x8x9x9xf32>, %w: tensor<12x2x3x3xf32>) -> tensor<1x12x7x7xf32> {
  %0 = "strata.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW", groups = 4 : i64} : (tensor<1x8x9x9xf32>, tensor<12x2x3x3xf32>) -> tensor<1x12x7x7xf32>
  return %0 : tensor<1x12x7x7xf32>
}

// -----

// Grouped NHWC, dynamic batch: the filter [KH, KW, C/G, F] is transposed once to
// [G, F/G, KH, KW, C/G] for conv_2d_nhwgc_gfhwc.
// CHECK-LABEL: func.func @grouped_nhwc
// CHECK-SAME: (%[[X:.+]]: tensor<?x9x9x8xf32>, %[[W:.+]]: tensor<3x3x2x12xf32>)
// CHECK: %[[XG:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1], [2], [3, 4]] output_shape [%{{.+}}, 9, 9, 4, 2] : tensor<?x9x9x8xf32> into tensor<?x9x9x4x2xf32>
// CHECK: %[[W5:.+]] = tensor.expand_shape %[[W]] {{\[}}[0], [1], [2], [3, 4]] output_shape [3, 3, 2, 4, 3] : tensor<3x3x2x12xf32> into tensor<3x3x2x4x3xf32>
// CHECK: %[[WT:.+]] = linalg.transpose ins(%[[W5]] : tensor<3x3x2x4x3xf32>) outs(%{{.+}} : tensor<4x3x3x3x2xf32>) permutation = [3, 4, 0, 1, 2]
// CHECK: %[[C:.+]] = linalg.conv_2d_nhwgc_gfhwc {{.*}} ins(%[[XG]], %[[WT]] : tensor<?x9x9x4x2xf32>, tensor<4x3x3x3x2xf32>) outs(%{{.+}} : tensor<?x7x7x4x3xf32>)
// CHECK: %[[R:.+]] = tensor.collapse_shape %[[C]] {{\[}}[0], [1], [2], [3, 4]] : tensor<?x7x7x4x3xf32> into tensor<?x7x7x12xf32>
// CHECK: return %[[R]]
func.func @grouped_nhwc(%x: tensor<?x9x9x8xf32>, %w: tensor<3x3x2x12xf32>) -> tensor<?x7x7x12xf32> {
  %0 = "strata.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NHWC", groups = 4 : i64} : (tensor<?x9x9x8xf32>, tensor<3x3x2x12xf32>) -> tensor<?x7x7x12xf32>
  return %0 : tensor<?x7x7x12xf32>
}
