// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s --check-prefix=GONE

// No strata op is left anywhere in the output.
// GONE-NOT: strata.

// NCHW conv: the input padded by inserting it into a zero-filled tensor, then
// linalg.conv_2d_nchw_fchw into a zero-filled output.
// CHECK-LABEL: func.func @conv2d_nchw_padded
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x8x8xf32>, %[[W:.+]]: tensor<4x3x3x3xf32>)
// CHECK-NOT: strata.
// CHECK: %[[PZ:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PE:.+]] = tensor.empty() : tensor<1x3x10x10xf32>
// CHECK: %[[PF:.+]] = linalg.fill ins(%[[PZ]] : f32) outs(%[[PE]] : tensor<1x3x10x10xf32>)
// CHECK: %[[P:.+]] = tensor.insert_slice %[[X]] into %[[PF]][0, 0, 1, 1] [1, 3, 8, 8] [1, 1, 1, 1] : tensor<1x3x8x8xf32> into tensor<1x3x10x10xf32>
// CHECK: %[[OZ:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[OE:.+]] = tensor.empty() : tensor<1x4x4x4xf32>
// CHECK: %[[OF:.+]] = linalg.fill ins(%[[OZ]] : f32) outs(%[[OE]] : tensor<1x4x4x4xf32>)
// CHECK: %[[C:.+]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[P]], %[[W]] : tensor<1x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%[[OF]] : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT: return %[[C]]
func.func @conv2d_nchw_padded(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %0 = "strata.conv2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Asymmetric padding: [top, bottom, left, right] = [0, 2, 1, 0].
// CHECK-LABEL: func.func @conv2d_nchw_asymmetric_padding
// CHECK-SAME: (%[[X:.+]]: tensor<1x1x5x5xf32>
// CHECK-NOT: strata.
// CHECK: %[[PF:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x1x7x6xf32>)
// CHECK: %[[P:.+]] = tensor.insert_slice %[[X]] into %[[PF]][0, 0, 0, 1] [1, 1, 5, 5] [1, 1, 1, 1] : tensor<1x1x5x5xf32> into tensor<1x1x7x6xf32>
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%[[P]], %{{.+}} : tensor<1x1x7x6xf32>, tensor<1x1x3x3xf32>)
func.func @conv2d_nchw_asymmetric_padding(%x: tensor<1x1x5x5xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<1x1x5x4xf32> {
  %0 = "strata.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 2, 1, 0>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x1x5x5xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x5x4xf32>
  return %0 : tensor<1x1x5x4xf32>
}

// -----

// NHWC conv without padding: linalg.conv_2d_nhwc_hwcf straight on the input.
// CHECK-LABEL: func.func @conv2d_nhwc
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x8x3xf32>, %[[W:.+]]: tensor<3x3x3x4xf32>)
// CHECK-NOT: strata.
// CHECK-NOT: tensor.insert_slice
// CHECK: %[[OF:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x4x4x4xf32>)
// CHECK: %[[C:.+]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[X]], %[[W]] : tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) outs(%[[OF]] : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT: return %[[C]]
func.func @conv2d_nhwc(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = "strata.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, layout = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// f16 conv with a dynamic batch: accumulates in f32, rounds at the end.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv2d_f16_dynamic_batch
// CHECK-SAME: (%[[X:.+]]: tensor<?x3x8x8xf16>, %[[W:.+]]: tensor<4x3x3x3xf16>)
// CHECK-NOT: strata.
// CHECK: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3x8x8xf16>
// CHECK: %[[E:.+]] = tensor.empty(%[[N]]) : tensor<?x4x6x6xf32>
// CHECK: %[[F:.+]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<?x4x6x6xf32>)
// CHECK: %[[C:.+]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[X]], %[[W]] : tensor<?x3x8x8xf16>, tensor<4x3x3x3xf16>) outs(%[[F]] : tensor<?x4x6x6xf32>) -> tensor<?x4x6x6xf32>
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], {{.*}} ins(%[[C]] : tensor<?x4x6x6xf32>) outs(%{{.+}} : tensor<?x4x6x6xf16>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK: return %[[R]]
func.func @conv2d_f16_dynamic_batch(%x: tensor<?x3x8x8xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<?x4x6x6xf16> {
  %0 = "strata.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<?x3x8x8xf16>, tensor<4x3x3x3xf16>) -> tensor<?x4x6x6xf16>
  return %0 : tensor<?x4x6x6xf16>
}

// -----

// A dynamic (unpadded) spatial dim: the output size is (H - dh * (KH - 1) - 1) / sh + 1,
// not H.
// CHECK-LABEL: func.func @conv2d_dynamic_height
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x?x8xf32>, %[[W:.+]]: tensor<4x3x3x3xf32>)
// CHECK-NOT: strata.
// CHECK: %[[H:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<1x3x?x8xf32>
// CHECK-DAG: %[[KH:.+]] = arith.constant 3 : index
// CHECK-DAG: %[[MINUS1:.+]] = arith.constant -1 : index
// CHECK-DAG: %[[DH:.+]] = arith.constant 1 : index
// CHECK: %[[KH1:.+]] = arith.subi %[[KH]], %{{.+}} : index
// CHECK: %[[SPAN:.+]] = arith.muli %[[DH]], %[[KH1]] : index
// CHECK: %[[HP:.+]] = arith.addi %[[H]], %[[MINUS1]] : index
// CHECK: %[[HS:.+]] = arith.subi %[[HP]], %[[SPAN]] : index
// CHECK: %[[Q:.+]] = arith.divui %[[HS]], %{{.+}} : index
// CHECK: %[[OH:.+]] = arith.addi %[[Q]], %{{.+}} : index
// CHECK: %[[E:.+]] = tensor.empty(%[[OH]]) : tensor<1x4x?x6xf32>
// CHECK: %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E]] : tensor<1x4x?x6xf32>)
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%[[X]], %[[W]] : tensor<1x3x?x8xf32>, tensor<4x3x3x3xf32>) outs(%[[F]] : tensor<1x4x?x6xf32>)
func.func @conv2d_dynamic_height(%x: tensor<1x3x?x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x?x6xf32> {
  %0 = "strata.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x3x?x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x6xf32>
  return %0 : tensor<1x4x?x6xf32>
}

// -----

// max pool: -inf init, a window tensor of the kernel's shape.
// CHECK-LABEL: func.func @max_pool_nchw
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x8x8xf32>)
// CHECK-NOT: strata.
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[F:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<1x3x4x4xf32>)
// CHECK: %[[WIN:.+]] = tensor.empty() : tensor<2x2xf32>
// CHECK: %[[R:.+]] = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[X]], %[[WIN]] : tensor<1x3x8x8xf32>, tensor<2x2xf32>) outs(%[[F]] : tensor<1x3x4x4xf32>)
// CHECK-NEXT: return %[[R]]
func.func @max_pool_nchw(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  %0 = "strata.max_pool2d"(%x) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, layout = "NCHW"} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// Padded max pool (NHWC): padding is -inf, so it never wins.
// CHECK-LABEL: func.func @max_pool_nhwc_padded
// CHECK-SAME: (%[[X:.+]]: tensor<1x4x4x3xf32>)
// CHECK-NOT: strata.
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PF:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<1x6x6x3xf32>)
// CHECK: %[[P:.+]] = tensor.insert_slice %[[X]] into %[[PF]][0, 1, 1, 0] [1, 4, 4, 3] [1, 1, 1, 1] : tensor<1x4x4x3xf32> into tensor<1x6x6x3xf32>
// CHECK: %[[F:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<1x2x2x3xf32>)
// CHECK: %[[WIN:.+]] = tensor.empty() : tensor<3x3xf32>
// CHECK: %[[R:.+]] = linalg.pooling_nhwc_max {{.*}} ins(%[[P]], %[[WIN]] : tensor<1x6x6x3xf32>, tensor<3x3xf32>) outs(%[[F]] : tensor<1x2x2x3xf32>)
// CHECK-NEXT: return %[[R]]
func.func @max_pool_nhwc_padded(%x: tensor<1x4x4x3xf32>) -> tensor<1x2x2x3xf32> {
  %0 = "strata.max_pool2d"(%x) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, layout = "NHWC"} : (tensor<1x4x4x3xf32>) -> tensor<1x2x2x3xf32>
  return %0 : tensor<1x2x2x3xf32>
}

// -----

// Unpadded average pool: a sum pool divided by the window size.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @avg_pool_nchw
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x8x8xf32>)
// CHECK-NOT: strata.
// CHECK: %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x3x4x4xf32>)
// CHECK: %[[WIN:.+]] = tensor.empty() : tensor<2x2xf32>
// CHECK: %[[S:.+]] = linalg.pooling_nchw_sum {{.*}} ins(%[[X]], %[[WIN]] : tensor<1x3x8x8xf32>, tensor<2x2xf32>) outs(%[[F]] : tensor<1x3x4x4xf32>)
// CHECK: %[[K:.+]] = arith.constant 4.000000e+00 : f32
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], {{.*}} ins(%[[S]] : tensor<1x3x4x4xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[Q:.+]] = arith.divf %[[V]], %[[K]] : f32
// CHECK: return %[[R]]
func.func @avg_pool_nchw(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  %0 = "strata.avg_pool2d"(%x) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, layout = "NCHW"} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}

// -----

// Padded average pool: divides by the per-window count of real elements, a
// constant read by the spatial dims.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[HW:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-LABEL: func.func @avg_pool_nhwc_padded
// CHECK-SAME: (%[[X:.+]]: tensor<1x4x4x3xf32>)
// CHECK-NOT: strata.
// CHECK: %[[P:.+]] = tensor.insert_slice %[[X]] into %{{.+}}[0, 1, 1, 0] [1, 4, 4, 3] [1, 1, 1, 1] : tensor<1x4x4x3xf32> into tensor<1x6x6x3xf32>
// CHECK: %[[S:.+]] = linalg.pooling_nhwc_sum {{.*}} ins(%[[P]], %{{.+}} : tensor<1x6x6x3xf32>, tensor<3x3xf32>)
// CHECK: %[[CNT:.+]] = arith.constant dense<{{\[}}[4.000000e+00, 6.000000e+00], [6.000000e+00, 9.000000e+00]]> : tensor<2x2xf32>
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[HW]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[S]], %[[CNT]] : tensor<1x2x2x3xf32>, tensor<2x2xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %[[C:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[Q:.+]] = arith.divf %[[V]], %[[C]] : f32
// CHECK: return %[[R]]
func.func @avg_pool_nhwc_padded(%x: tensor<1x4x4x3xf32>) -> tensor<1x2x2x3xf32> {
  %0 = "strata.avg_pool2d"(%x) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, layout = "NHWC"} : (tensor<1x4x4x3xf32>) -> tensor<1x2x2x3xf32>
  return %0 : tensor<1x2x2x3xf32>
}
