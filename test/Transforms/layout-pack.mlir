// RUN: strata-opt %s '--strata-layout=pack-matmul=true block-m=2 block-n=2 block-k=1' --split-input-file | FileCheck %s
// RUN: strata-opt %s '--strata-layout=pack-matmul=true block-m=2 block-n=2 block-k=1' --strata-decompose --split-input-file | FileCheck %s --check-prefix=LOWER
// RUN: strata-opt %s --strata-layout --split-input-file | FileCheck %s --check-prefix=OFF

// Rule 3: data tiling. The constant weight is packed at compile time (3x3 -> 2x3x2x1
// blocks, the missing column padded with zeros); the activation is packed at run
// time; the zero accumulator is a fill of the packed shape; one unpack at the end.
// CHECK-LABEL: func.func @packed
// CHECK-SAME: (%[[A:.+]]: tensor<5x3xf32>)
// CHECK-DAG: %[[W:.+]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00], [2.000000e+00]], {{\[\[}}4.000000e+00], [5.000000e+00]], {{\[\[}}7.000000e+00], [8.000000e+00]]], {{\[\[\[}}3.000000e+00], [0.000000e+00]], {{\[\[}}6.000000e+00], [0.000000e+00]], {{\[\[}}9.000000e+00], [0.000000e+00]]]]> : tensor<2x3x2x1xf32>
// CHECK-DAG: %[[PA:.+]] = linalg.pack %[[A]] padding_value(%{{.+}} : f32) outer_dims_perm = [0, 1] inner_dims_pos = [0, 1] inner_tiles = [2, 1] into %{{.+}} : tensor<5x3xf32> -> tensor<3x3x2x1xf32>
// CHECK-NOT: linalg.pack
// CHECK: %[[ACC:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<3x2x2x2xf32>)
// CHECK-NOT: linalg.pack
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[PA]], %[[W]] : tensor<3x3x2x1xf32>, tensor<2x3x2x1xf32>) outs(%[[ACC]] : tensor<3x2x2x2xf32>)
// CHECK: %[[U:.+]] = linalg.unpack %[[R]] inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %{{.+}} : tensor<3x2x2x2xf32> -> tensor<5x3xf32>
// CHECK: return %[[U]]
// LOWER-LABEL: func.func @packed
// LOWER-NOT: linalg.pack
// LOWER-NOT: linalg.unpack
// LOWER: tensor.pad
// LOWER: tensor.expand_shape
// LOWER: linalg.transpose
// LOWER: linalg.generic
// LOWER: tensor.collapse_shape
// LOWER: tensor.extract_slice
// OFF-LABEL: func.func @packed
// OFF-NOT: linalg.pack
// OFF: linalg.matmul
func.func @packed(%a: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]> : tensor<3x3xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<5x3xf32>) -> tensor<5x3xf32>
  %0 = linalg.matmul ins(%a, %w : tensor<5x3xf32>, tensor<3x3xf32>) outs(%f : tensor<5x3xf32>) -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}
