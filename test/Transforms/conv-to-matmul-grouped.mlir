// RUN: strata-opt %s --split-input-file --strata-conv-to-matmul=mode=always | FileCheck %s
// RUN: strata-opt %s --split-input-file --strata-conv-to-matmul="mode=always report=true" 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT

// Grouped convs (strata-to-linalg's grouped named ops) as im2col + one batch_matmul over
// the groups.

// NCHW, N = 1: col [G, C/G*KH*KW, OH*OW] from a 7-D window copy, the filter [G, F/G, K] a
// view; W[g] @ col[g] per group, the result [G, F/G, OH*OW] expanded back.
// CHECK-LABEL: func.func @grouped_nchw
// CHECK-SAME: (%[[X:.+]]: tensor<1x4x2x10x10xf32>, %[[W:.+]]: tensor<4x3x2x3x3xf32>)
// CHECK-NOT: linalg.conv
// CHECK: %[[COPY:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<1x4x2x10x10xf32>) outs(%{{.+}} : tensor<1x4x2x3x3x8x8xf32>)
// CHECK: %[[COL:.+]] = tensor.collapse_shape %[[COPY]] {{\[}}[0, 1], [2, 3, 4], [5, 6]] : tensor<1x4x2x3x3x8x8xf32> into tensor<4x18x64xf32>
// CHECK: %[[F:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1], [2, 3, 4]] : tensor<4x3x2x3x3xf32> into tensor<4x3x18xf32>
// CHECK: %[[MM:.+]] = linalg.batch_matmul ins(%[[F]], %[[COL]] : tensor<4x3x18xf32>, tensor<4x18x64xf32>) outs(%{{.+}} : tensor<4x3x64xf32>)
// CHECK: %[[R:.+]] = tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2], [3, 4]] output_shape [1, 4, 3, 8, 8] : tensor<4x3x64xf32> into tensor<1x4x3x8x8xf32>
// CHECK: return %[[R]]
// REPORT: remark: strata-conv-to-matmul: linalg.conv_2d_ngchw_gfchw at {{.+}} as an im2col copy of 0.0176 MiB + 4x3x64x18 batch_matmul (NCHW 1x8x10x10 -> 1x12x8x8, 3x3, 4 groups; mode=always)
func.func @grouped_nchw(%x: tensor<1x4x2x10x10xf32>, %w: tensor<4x3x2x3x3xf32>) -> tensor<1x4x3x8x8xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x3x8x8xf32>
  %i = linalg.fill ins(%cst : f32) outs(%e : tensor<1x4x3x8x8xf32>) -> tensor<1x4x3x8x8xf32>
  %0 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x2x10x10xf32>, tensor<4x3x2x3x3xf32>) outs(%i : tensor<1x4x3x8x8xf32>) -> tensor<1x4x3x8x8xf32>
  return %0 : tensor<1x4x3x8x8xf32>
}

// -----

// NHWC, stride 2, N = 2: col [G, N*OH*OW, KH*KW*C/G]; the filter [G, F/G, KH, KW, C/G]
// transposed once to [G, K, F/G]; the [G, M, F/G] product transposed to the result's
// [M, G, F/G].
// CHECK-LABEL: func.func @grouped_nhwc
// CHECK-SAME: (%[[X:.+]]: tensor<2x10x10x4x2xf32>, %[[W:.+]]: tensor<4x3x3x3x2xf32>)
// CHECK-NOT: linalg.conv
// CHECK: %[[COPY:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x10x10x4x2xf32>) outs(%{{.+}} : tensor<4x2x4x4x3x3x2xf32>)
// CHECK: %[[COL:.+]] = tensor.collapse_shape %[[COPY]] {{\[}}[0], [1, 2, 3], [4, 5, 6]] : tensor<4x2x4x4x3x3x2xf32> into tensor<4x32x18xf32>
// CHECK: %[[F:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1], [2, 3, 4]] : tensor<4x3x3x3x2xf32> into tensor<4x3x18xf32>
// CHECK: %[[FT:.+]] = linalg.transpose ins(%[[F]] : tensor<4x3x18xf32>) outs(%{{.+}} : tensor<4x18x3xf32>) permutation = [0, 2, 1]
// CHECK: %[[MM:.+]] = linalg.batch_matmul ins(%[[COL]], %[[FT]] : tensor<4x32x18xf32>, tensor<4x18x3xf32>) outs(%{{.+}} : tensor<4x32x3xf32>)
// CHECK: %[[T:.+]] = linalg.transpose ins(%[[MM]] : tensor<4x32x3xf32>) outs(%{{.+}} : tensor<32x4x3xf32>) permutation = [1, 0, 2]
// CHECK: %[[R:.+]] = tensor.expand_shape %[[T]] {{\[}}[0, 1, 2], [3], [4]] output_shape [2, 4, 4, 4, 3] : tensor<32x4x3xf32> into tensor<2x4x4x4x3xf32>
// CHECK: return %[[R]]
// REPORT: remark: strata-conv-to-matmul: linalg.conv_2d_nhwgc_gfhwc at {{.+}} as an im2col copy of 0.00879 MiB + 4x32x3x18 batch_matmul (NHWC 2x10x10x8 -> 2x4x4x12, 3x3, stride 2x2, 4 groups; mode=always)
func.func @grouped_nhwc(%x: tensor<2x10x10x4x2xf32>, %w: tensor<4x3x3x3x2xf32>) -> tensor<2x4x4x4x3xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x4x4x3xf32>
  %i = linalg.fill ins(%cst : f32) outs(%e : tensor<2x4x4x4x3xf32>) -> tensor<2x4x4x4x3xf32>
  %0 = linalg.conv_2d_nhwgc_gfhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<2x10x10x4x2xf32>, tensor<4x3x3x3x2xf32>) outs(%i : tensor<2x4x4x4x3xf32>) -> tensor<2x4x4x4x3xf32>
  return %0 : tensor<2x4x4x4x3xf32>
}

// -----

// NCHW with N > 1 stays direct: one filter for every image has no batch_matmul form.
// CHECK-LABEL: func.func @grouped_nchw_batch
// CHECK: linalg.conv_2d_ngchw_gfchw
// CHECK-NOT: linalg.batch_matmul
// REPORT: remark: strata-conv-to-matmul: kept linalg.conv_2d_ngchw_gfchw at {{.+}} direct: a grouped NCHW conv of several images (one filter for all of them has no batch_matmul form)
func.func @grouped_nchw_batch(%x: tensor<2x4x2x10x10xf32>, %w: tensor<4x3x2x3x3xf32>, %o: tensor<2x4x3x8x8xf32>) -> tensor<2x4x3x8x8xf32> {
  %0 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x4x2x10x10xf32>, tensor<4x3x2x3x3xf32>) outs(%o : tensor<2x4x3x8x8xf32>) -> tensor<2x4x3x8x8xf32>
  return %0 : tensor<2x4x3x8x8xf32>
}
