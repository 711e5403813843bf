// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s

// strata.conv_transpose2d: the input with stride - 1 zeros between its elements and
// dilation * (K - 1) - padding around them (a strided insert_slice into a zero fill),
// the filter flipped with its channel dims swapped (one linalg.generic extracting at
// K - 1 - index), then conv2d's
// named convolution at stride 1.

// Stride 2, padding 1, output_padding 1: 9 zero-inserted rows, 1 zero row on top, 2 below.
// CHECK-LABEL: func.func @stride2_nchw
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x5x5xf32>, %[[W:.+]]: tensor<8x4x3x3xf32>)
// CHECK: %[[Z:.+]] = linalg.fill {{.*}} -> tensor<1x8x12x12xf32>
// CHECK: %[[P:.+]] = tensor.insert_slice %[[X]] into %[[Z]][0, 0, 1, 1] [1, 8, 5, 5] [1, 1, 2, 2] : tensor<1x8x5x5xf32> into tensor<1x8x12x12xf32>
// CHECK: %[[WE:.+]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] {{.*}} : tensor<8x4x3x3xf32> into tensor<1x8x4x3x3xf32>
// CHECK: %[[F:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<1x4x8x3x3xf32>)
// CHECK-DAG: %[[G:.+]] = linalg.index 0
// CHECK-DAG: %[[C:.+]] = linalg.index 2
// CHECK-DAG: %[[FF:.+]] = linalg.index 1
// CHECK-DAG: %[[KH:.+]] = linalg.index 3
// CHECK-DAG: %[[RH:.+]] = arith.subi %{{.+}}, %[[KH]]
// CHECK-DAG: %[[KW:.+]] = linalg.index 4
// CHECK-DAG: %[[RW:.+]] = arith.subi %{{.+}}, %[[KW]]
// CHECK: tensor.extract %[[WE]][%[[G]], %[[C]], %[[FF]], %[[RH]], %[[RW]]] : tensor<1x8x4x3x3xf32>
// CHECK: %[[FC:.+]] = tensor.collapse_shape %[[F]] {{\[}}[0, 1], [2], [3], [4]] : tensor<1x4x8x3x3xf32> into tensor<4x8x3x3xf32>
// CHECK: %[[INIT:.+]] = linalg.fill {{.*}} -> tensor<1x4x10x10xf32>
// CHECK: %[[C:.+]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[P]], %[[FC]] : tensor<1x8x12x12xf32>, tensor<4x8x3x3xf32>) outs(%[[INIT]] : tensor<1x4x10x10xf32>)
// CHECK-NEXT: return %[[C]]
func.func @stride2_nchw(%x: tensor<1x8x5x5xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x4x10x10xf32> {
  %0 = "strata.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x8x5x5xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x10x10xf32>
  return %0 : tensor<1x4x10x10xf32>
}

// -----

// Padding 3 (top, left) exceeds K - 1 = 2: the input is cropped by one row and column,
// nothing is inserted.
// CHECK-LABEL: func.func @crop
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x5x5xf32>, %[[W:.+]]: tensor<3x4x3x3xf32>)
// CHECK-NOT: tensor.insert_slice
// CHECK: %[[S:.+]] = tensor.extract_slice %[[X]][0, 0, 1, 1] [1, 3, 4, 4] [1, 1, 1, 1] : tensor<1x3x5x5xf32> to tensor<1x3x4x4xf32>
// CHECK-NOT: tensor.insert_slice
// CHECK: %[[C:.+]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[S]], %{{.+}} : tensor<1x3x4x4xf32>, tensor<4x3x3x3xf32>) outs(%{{.+}} : tensor<1x4x2x2xf32>)
// CHECK-NEXT: return %[[C]]
func.func @crop(%x: tensor<1x3x5x5xf32>, %w: tensor<3x4x3x3xf32>) -> tensor<1x4x2x2xf32> {
  %0 = "strata.conv_transpose2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 3, 2, 3, 2>, output_padding = array<i64: 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x3x5x5xf32>, tensor<3x4x3x3xf32>) -> tensor<1x4x2x2xf32>
  return %0 : tensor<1x4x2x2xf32>
}

// -----

// NHWC, groups = 2, f16, a dynamic batch: the filter [KH, KW, F/G, C] flipped per group into
// conv2d's [KH, KW, C/G, F], then conv2d's grouped NHWC path; accumulated in f32.
// CHECK-LABEL: func.func @grouped_nhwc_f16
// CHECK-SAME: (%[[X:.+]]: tensor<?x5x5x4xf16>, %[[W:.+]]: tensor<3x2x3x4xf16>)
// CHECK: %[[P:.+]] = tensor.insert_slice %[[X]] into %{{.+}}[0, 2, 0, 0] [%{{.+}}, 5, 5, 4] [1, 2, 2, 1] : tensor<?x5x5x4xf16> into tensor<?x14x9x4xf16>
// CHECK: %[[WE:.+]] = tensor.expand_shape %[[W]] {{\[}}[0], [1], [2], [3, 4]] {{.*}} into tensor<3x2x3x2x2xf16>
// CHECK: %[[F:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<3x2x2x2x3xf16>)
// CHECK: tensor.extract %[[WE]]{{.*}} : tensor<3x2x3x2x2xf16>
// CHECK: tensor.collapse_shape %[[F]] {{\[}}[0], [1], [2], [3, 4]] : tensor<3x2x2x2x3xf16> into tensor<3x2x2x6xf16>
// CHECK: %[[C:.+]] = linalg.conv_2d_nhwgc_gfhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins({{.*}} : tensor<?x14x9x2x2xf16>, tensor<2x3x3x2x2xf16>) outs(%{{.+}} : tensor<?x12x8x2x3xf32>)
// CHECK: arith.truncf
func.func @grouped_nhwc_f16(%x: tensor<?x5x5x4xf16>, %w: tensor<3x2x3x4xf16>) -> tensor<?x12x8x6xf16> {
  %0 = "strata.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 1, 1>, output_padding = array<i64: 1, 0>, dilations = array<i64: 1, 1>, layout = "NHWC", groups = 2 : i64} : (tensor<?x5x5x4xf16>, tensor<3x2x3x4xf16>) -> tensor<?x12x8x6xf16>
  return %0 : tensor<?x12x8x6xf16>
}
