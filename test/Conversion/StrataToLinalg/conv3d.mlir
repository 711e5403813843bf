// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s --check-prefix=GONE

// strata.conv3d and the 3-D pools become one windowed linalg.generic each (upstream has
// no NCDHW pooling and no grouped 3-D convolution): the input padded by insert_slice
// into a fill, the convolution's operands expanded by groups, the window read at
// out * stride + k * dilation, the result collapsed back to NCDHW.

// GONE-NOT: strata.

// CHECK-DAG: #[[XMAP:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d6, d3 + d7, d4 * 2 + d8 * 2, d5 + d9)>
// CHECK-DAG: #[[WMAP:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d2, d6, d7, d8, d9)>
// CHECK-DAG: #[[OMAP:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-LABEL: func.func @conv3d
// CHECK-SAME: (%[[X:.+]]: tensor<2x4x5x6x7xf32>, %[[W:.+]]: tensor<6x2x3x2x3xf32>)
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x4x7x6x11xf32>)
// CHECK-NEXT: %[[XP:.+]] = tensor.insert_slice %[[X]] into %[[ZERO]][0, 0, 1, 0, 2] [2, 4, 5, 6, 7] [1, 1, 1, 1, 1]
// CHECK-NEXT: %[[XG:.+]] = tensor.expand_shape %[[XP]] {{\[\[}}0], [1, 2], [3], [4], [5]] output_shape [2, 2, 2, 7, 6, 11]
// CHECK-NEXT: %[[WG:.+]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1], [2], [3], [4], [5]] output_shape [2, 3, 2, 3, 2, 3]
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2x2x3x5x2x9xf32>)
// CHECK-NEXT: %[[C:.+]] = linalg.generic {indexing_maps = [#[[XMAP]], #[[WMAP]], #[[OMAP]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%[[XG]], %[[WG]] : tensor<2x2x2x7x6x11xf32>, tensor<2x3x2x3x2x3xf32>) outs(%[[INIT]] : tensor<2x2x3x5x2x9xf32>)
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %[[O:.+]]: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[O]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: %[[R:.+]] = tensor.collapse_shape %[[C]] {{\[\[}}0], [1, 2], [3], [4], [5]] : tensor<2x2x3x5x2x9xf32> into tensor<2x6x5x2x9xf32>
// CHECK-NEXT: return %[[R]]
func.func @conv3d(%x: tensor<2x4x5x6x7xf32>, %w: tensor<6x2x3x2x3xf32>) -> tensor<2x6x5x2x9xf32> {
  %0 = "strata.conv3d"(%x, %w) {strides = array<i64: 1, 2, 1>, padding = array<i64: 1, 1, 0, 0, 2, 2>, dilations = array<i64: 1, 2, 1>, groups = 2 : i64} : (tensor<2x4x5x6x7xf32>, tensor<6x2x3x2x3xf32>) -> tensor<2x6x5x2x9xf32>
  return %0 : tensor<2x6x5x2x9xf32>
}

// -----

// Pools: f16 widened to f32; a max from -inf with maximumf (NaN propagates); an average
// sums from zero padding and divides by the real elements of each window (a constant
// over (od, oh, ow)). A dynamic N comes from the input.
// CHECK-DAG: #[[PX:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2 * 2 + d5, d3 * 2 + d6, d4 * 2 + d7)>
// CHECK-DAG: #[[PK:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7)>
// CHECK-DAG: #[[PO:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[CNT:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>
// CHECK-LABEL: func.func @pools
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MINIT:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<?x3x2x2x2xf32>)
// CHECK-NEXT: %[[WIN:.+]] = tensor.empty() : tensor<2x2x2xf32>
// CHECK-NEXT: linalg.generic {indexing_maps = [#[[PX]], #[[PK]], #[[PO]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.+}}, %[[WIN]] : tensor<?x3x4x4x5xf32>, tensor<2x2x2xf32>) outs(%[[MINIT]] : tensor<?x3x2x2x2xf32>)
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %{{.+}}: f32, %[[O:.+]]: f32):
// CHECK-NEXT: %[[M:.+]] = arith.maximumf %[[O]], %[[A]] : f32
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK: tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 1, 1, 1] [%{{.+}}, 3, 4, 4, 5] [1, 1, 1, 1, 1] : tensor<?x3x4x4x5xf32> into tensor<?x3x6x6x7xf32>
// CHECK: arith.addf
// CHECK: %[[COUNTS:.+]] = arith.constant dense<{{\[\[\[}}8.000000e+00, 1.200000e+01, 8.000000e+00], [1.200000e+01, 1.800000e+01, 1.200000e+01]], {{\[\[}}1.200000e+01, 1.800000e+01, 1.200000e+01], [1.800000e+01, 2.700000e+01, 1.800000e+01]]]> : tensor<2x2x3xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[CNT]], #{{.+}}], {{.*}} ins(%{{.+}}, %[[COUNTS]] : tensor<?x3x2x2x3xf32>, tensor<2x2x3xf32>)
// CHECK-NEXT: ^bb0(%[[S:.+]]: f32, %[[N:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: arith.divf %[[S]], %[[N]] : f32
func.func @pools(%x: tensor<?x3x4x4x5xf16>) -> (tensor<?x3x2x2x2xf16>, tensor<?x3x2x2x3xf16>) {
  %0 = "strata.max_pool3d"(%x) {kernel = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0, 0, 0, 0>} : (tensor<?x3x4x4x5xf16>) -> tensor<?x3x2x2x2xf16>
  %1 = "strata.avg_pool3d"(%x) {kernel = array<i64: 3, 3, 3>, strides = array<i64: 2, 2, 2>, padding = array<i64: 1, 1, 1, 1, 1, 1>} : (tensor<?x3x4x4x5xf16>) -> tensor<?x3x2x2x3xf16>
  return %0, %1 : tensor<?x3x2x2x2xf16>, tensor<?x3x2x2x3xf16>
}

// -----

// An integer max pool pads with the lowest i32 and takes maxsi.
// CHECK-LABEL: func.func @int_max_pool
// CHECK: %[[LOW:.+]] = arith.constant -2147483648 : i32
// CHECK: linalg.fill ins(%[[LOW]] : i32)
// CHECK: arith.maxsi
func.func @int_max_pool(%x: tensor<1x2x4x4x4xi32>) -> tensor<1x2x3x2x2xi32> {
  %0 = "strata.max_pool3d"(%x) {kernel = array<i64: 2, 2, 2>, strides = array<i64: 1, 2, 2>, padding = array<i64: 0, 0, 0, 0, 0, 0>} : (tensor<1x2x4x4x4xi32>) -> tensor<1x2x3x2x2xi32>
  return %0 : tensor<1x2x3x2x2xi32>
}
