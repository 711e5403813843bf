// RUN: strata-opt %s --split-input-file '--strata-fuse=threads=2' | FileCheck %s
// RUN: strata-opt %s --split-input-file '--strata-fuse=threads=2 report=true' 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT

// A conv that strata-vectorize runs direct (passes/direct_conv.py) is tiled with its
// epilogue by whole rows of one image x all output channels: 4 rows of 32 pixels (128),
// so the epilogue writes whole rows of the result; the (image, rows) tiles on threads.
// CHECK-LABEL: func.func @conv_relu
// CHECK: scf.forall (%[[N:[a-z0-9]+]], %{{[a-z0-9]+}}, %[[R:[a-z0-9]+]], %{{[a-z0-9]+}}) in (4, 1, 8, 1)
// CHECK: affine.apply #{{.+}}(%[[R]])
// CHECK: %[[XT:.+]] = tensor.extract_slice %{{.+}}[%[[N]], 0, %{{.+}}, %{{.+}}] [1, 64, 6, 34] [1, 1, 1, 1]
// CHECK: linalg.fill {{.*}} -> tensor<1x64x4x32xf32>
// CHECK: %[[C:.+]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[XT]], %{{.+}} : tensor<1x64x6x34xf32>, tensor<64x64x3x3xf32>) outs(%{{.+}} : tensor<1x64x4x32xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[C]], %{{.+}} : tensor<1x64x4x32xf32>, tensor<1x64x1x1xf32>)
// CHECK: tensor.parallel_insert_slice %{{.+}} into %{{.+}}[%[[N]], %{{.+}}, %{{.+}}, %{{.+}}] [1, 64, 4, 32] [1, 1, 1, 1]
// REPORT: remark: strata-fuse: [{{[0-9a-f]+}}] tiled linalg.generic at {{.*}} by [1, 64, 4, 32] with linalg.conv_2d_nchw_fchw at {{.*}} fused into each tile
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>
func.func @conv_relu(%xp: tensor<4x64x34x34xf32>, %w: tensor<64x64x3x3xf32>, %b: tensor<1x64x1x1xf32>) -> tensor<4x64x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64x32x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xp, %w : tensor<4x64x34x34xf32>, tensor<64x64x3x3xf32>) outs(%f : tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b : tensor<4x64x32x32xf32>, tensor<1x64x1x1xf32>) outs(%e : tensor<4x64x32x32xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x64x32x32xf32>
  return %r : tensor<4x64x32x32xf32>
}

// -----

// Rows of 30 pixels are not run direct in register tiles: the epilogue keeps the
// default tiles (one output channel x all pixels of the image here).
// CHECK-LABEL: func.func @odd_rows
// CHECK: scf.forall ({{.+}}) in (4, 64, 1, 1)
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} outs(%{{.+}} : tensor<1x1x30x30xf32>)
// REPORT: remark: strata-fuse: [{{[0-9a-f]+}}] tiled linalg.generic at {{.*}} by [1, 1, 30, 30] with linalg.conv_2d_nchw_fchw
#id2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @odd_rows(%xp: tensor<4x64x32x32xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<4x64x30x30xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x64x30x30xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64x30x30xf32>) -> tensor<4x64x30x30xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xp, %w : tensor<4x64x32x32xf32>, tensor<64x64x3x3xf32>) outs(%f : tensor<4x64x30x30xf32>) -> tensor<4x64x30x30xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<4x64x30x30xf32>) outs(%e : tensor<4x64x30x30xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x64x30x30xf32>
  return %r : tensor<4x64x30x30xf32>
}
