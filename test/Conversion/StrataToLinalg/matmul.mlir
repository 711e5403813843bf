// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s --check-prefix=GONE

// No strata op is left anywhere in the output.
// GONE-NOT: strata.

// 2-D: linalg.matmul accumulating into a zero-filled tensor.
// CHECK-LABEL: func.func @matmul_2d
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<8x16xf32>)
// CHECK-NOT: strata.
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[INIT]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[MM]] : tensor<4x16xf32>
func.func @matmul_2d(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// i32 accumulates in i32 from an integer zero.
// CHECK-LABEL: func.func @matmul_i32
// CHECK-NOT: strata.
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : i32) outs(%{{.+}} : tensor<4x16xi32>)
// CHECK: %[[MM:.+]] = linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x8xi32>, tensor<8x16xi32>) outs(%[[INIT]] : tensor<4x16xi32>)
// CHECK-NEXT: return %[[MM]]
func.func @matmul_i32(%a: tensor<4x8xi32>, %b: tensor<8x16xi32>) -> tensor<4x16xi32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<4x8xi32>, tensor<8x16xi32>) -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}

// -----

// f16 accumulates in f32 and is rounded once at the end.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_f16
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xf16>, %[[B:.+]]: tensor<8x16xf16>)
// CHECK-NOT: strata.
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<4x16xf32>)
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x8xf16>, tensor<8x16xf16>) outs(%[[INIT]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: %[[E16:.+]] = tensor.empty() : tensor<4x16xf16>
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[MM]] : tensor<4x16xf32>) outs(%[[E16]] : tensor<4x16xf16>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %{{.+}}: f16):
// CHECK-NEXT: %[[T:.+]] = arith.truncf %[[X]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
// CHECK: return %[[R]] : tensor<4x16xf16>
func.func @matmul_f16(%a: tensor<4x8xf16>, %b: tensor<8x16xf16>) -> tensor<4x16xf16> {
  %0 = "strata.matmul"(%a, %b) : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// Dynamic M and N size the output through tensor.dim of the operands.
// CHECK-LABEL: func.func @matmul_dynamic
// CHECK-SAME: (%[[A:.+]]: tensor<?x8xf32>, %[[B:.+]]: tensor<8x?xf32>)
// CHECK-NOT: strata.
// CHECK-DAG: %[[M:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x8xf32>
// CHECK-DAG: %[[N:.+]] = tensor.dim %[[B]], %{{.+}} : tensor<8x?xf32>
// CHECK: %[[E:.+]] = tensor.empty(%[[M]], %[[N]]) : tensor<?x?xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E]] : tensor<?x?xf32>)
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<?x8xf32>, tensor<8x?xf32>) outs(%[[INIT]] : tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK-NEXT: return %[[MM]]
func.func @matmul_dynamic(%a: tensor<?x8xf32>, %b: tensor<8x?xf32>) -> tensor<?x?xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<?x8xf32>, tensor<8x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Equal batch dims: linalg.batch_matmul.
// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME: (%[[A:.+]]: tensor<2x4x8xf32>, %[[B:.+]]: tensor<2x8x16xf32>)
// CHECK-NOT: strata.
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x4x16xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<2x4x16xf32>)
// CHECK: %[[BMM:.+]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<2x4x8xf32>, tensor<2x8x16xf32>) outs(%[[INIT]] : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT: return %[[BMM]]
// CHECK-NOT: linalg.matmul
func.func @batch_matmul(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// [B,M,K] @ [K,N]: fold B into M, one linalg.matmul, expand back.
// CHECK-LABEL: func.func @batched_lhs_2d_rhs
// CHECK-SAME: (%[[A:.+]]: tensor<2x4x8xf32>, %[[B:.+]]: tensor<8x16xf32>)
// CHECK-NOT: strata.
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2]] : tensor<2x4x8xf32> into tensor<8x8xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<8x16xf32>)
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[FLAT]], %[[B]] : tensor<8x8xf32>, tensor<8x16xf32>) outs(%[[INIT]] : tensor<8x16xf32>)
// CHECK: %[[OUT:.+]] = tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32> into tensor<2x4x16xf32>
// CHECK-NEXT: return %[[OUT]]
func.func @batched_lhs_2d_rhs(%a: tensor<2x4x8xf32>, %b: tensor<8x16xf32>) -> tensor<2x4x16xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// The same with a dynamic batch: the expanded batch size is the operand's tensor.dim.
// CHECK-LABEL: func.func @dynamic_batched_lhs_2d_rhs
// CHECK-SAME: (%[[A:.+]]: tensor<?x4x8xf32>, %[[B:.+]]: tensor<8x16xf32>)
// CHECK-NOT: strata.
// CHECK: %[[D:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x4x8xf32>
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2]] : tensor<?x4x8xf32> into tensor<?x8xf32>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[FLAT]], %[[B]] : tensor<?x8xf32>, tensor<8x16xf32>) outs(%{{.+}} : tensor<?x16xf32>)
// CHECK: %[[OUT:.+]] = tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2]] output_shape [%[[D]], 4, 16] : tensor<?x16xf32> into tensor<?x4x16xf32>
// CHECK-NEXT: return %[[OUT]]
func.func @dynamic_batched_lhs_2d_rhs(%a: tensor<?x4x8xf32>, %b: tensor<8x16xf32>) -> tensor<?x4x16xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<?x4x8xf32>, tensor<8x16xf32>) -> tensor<?x4x16xf32>
  return %0 : tensor<?x4x16xf32>
}

// -----

// A 1-D lhs is a row [1, K]; the added dim is collapsed away.
// CHECK-LABEL: func.func @vector_matrix
// CHECK-SAME: (%[[A:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8x16xf32>)
// CHECK-NOT: strata.
// CHECK: %[[ROW:.+]] = tensor.expand_shape %[[A]] {{\[}}[0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[ROW]], %[[B]] : tensor<1x8xf32>, tensor<8x16xf32>) outs(%{{.+}} : tensor<1x16xf32>)
// CHECK: %[[OUT:.+]] = tensor.collapse_shape %[[MM]] {{\[}}[0, 1]] : tensor<1x16xf32> into tensor<16xf32>
// CHECK-NEXT: return %[[OUT]]
func.func @vector_matrix(%a: tensor<8xf32>, %b: tensor<8x16xf32>) -> tensor<16xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<8xf32>, tensor<8x16xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// A 1-D rhs: a row reduction over K (strata-vectorize's row-reduction schedule), no
// linalg.matmul with one column.
// CHECK-DAG: #[[A2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[V:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[R:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @matrix_vector
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK-NOT: strata.
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK: %[[MV:.+]] = linalg.generic {indexing_maps = [#[[A2]], #[[V]], #[[R]]], iterator_types = ["parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8xf32>) outs(%[[INIT]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: return %[[MV]]
// CHECK-NOT: linalg.matmul
func.func @matrix_vector(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Batched rows (one dynamic) fold into one dim, reduce in f32 (bf16 in), expand back,
// round once.
// CHECK-LABEL: func.func @batched_matrix_vector
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0, 1], [2]] : tensor<2x?x8xbf16> into tensor<?x8xbf16>
// CHECK: %[[MV:.+]] = linalg.generic {{.*}} ins(%[[FLAT]], %{{.+}} : tensor<?x8xbf16>, tensor<8xbf16>) outs(%{{.+}} : tensor<?xf32>)
// CHECK: arith.extf
// CHECK: tensor.expand_shape %[[MV]] {{\[}}[0, 1]] output_shape [2, %{{.+}}] : tensor<?xf32> into tensor<2x?xf32>
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK-NOT: linalg.matmul
func.func @batched_matrix_vector(%a: tensor<2x?x8xbf16>, %b: tensor<8xbf16>) -> tensor<2x?xbf16> {
  %0 = "strata.matmul"(%a, %b) : (tensor<2x?x8xbf16>, tensor<8xbf16>) -> tensor<2x?xbf16>
  return %0 : tensor<2x?xbf16>
}

// -----

// 1-D @ 1-D: a dot product, collapsed to rank 0.
// CHECK-LABEL: func.func @dot
// CHECK-SAME: (%[[A:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK-NOT: strata.
// CHECK-DAG: %[[ROW:.+]] = tensor.expand_shape %[[A]] {{\[}}[0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
// CHECK-DAG: %[[COL:.+]] = tensor.expand_shape %[[B]] {{\[}}[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[ROW]], %[[COL]] : tensor<1x8xf32>, tensor<8x1xf32>) outs(%{{.+}} : tensor<1x1xf32>)
// CHECK: %[[OUT:.+]] = tensor.collapse_shape %[[MM]] [] : tensor<1x1xf32> into tensor<f32>
// CHECK-NEXT: return %[[OUT]] : tensor<f32>
func.func @dot(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<f32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Broadcast batch dims: the size-1 batch of the lhs is copied to the full batch (a
// generic reading index 0), then one linalg.batch_matmul; no contraction generic.
// CHECK-DAG: #[[BC:.+]] = affine_map<(d0, d1, d2) -> (0, d1, d2)>
// CHECK-DAG: #[[ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @broadcast_batch
// CHECK-SAME: (%[[A:.+]]: tensor<1x4x8xf32>, %[[B:.+]]: tensor<3x8x16xf32>)
// CHECK-NOT: strata.
// CHECK: %[[E:.+]] = tensor.empty() : tensor<3x4x8xf32>
// CHECK: %[[FULL:.+]] = linalg.generic {indexing_maps = [#[[BC]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[A]] : tensor<1x4x8xf32>) outs(%[[E]] : tensor<3x4x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[X]] : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<3x4x16xf32>)
// CHECK: %[[BMM:.+]] = linalg.batch_matmul ins(%[[FULL]], %[[B]] : tensor<3x4x8xf32>, tensor<3x8x16xf32>) outs(%[[INIT]] : tensor<3x4x16xf32>)
// CHECK-NOT: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: return %[[BMM]]
func.func @broadcast_batch(%a: tensor<1x4x8xf32>, %b: tensor<3x8x16xf32>) -> tensor<3x4x16xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<1x4x8xf32>, tensor<3x8x16xf32>) -> tensor<3x4x16xf32>
  return %0 : tensor<3x4x16xf32>
}

// -----

// [M,K] @ [B,K,N]: the lhs has no batch dim at all; it is copied B times.
// CHECK-DAG: #[[LHS:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @matrix_batched_rhs
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<3x8x16xf32>)
// CHECK-NOT: strata.
// CHECK: %[[FULL:.+]] = linalg.generic {indexing_maps = [#[[LHS]], #[[ID3]]], {{.*}} ins(%[[A]] : tensor<4x8xf32>) outs(%{{.+}} : tensor<3x4x8xf32>)
// CHECK: linalg.batch_matmul ins(%[[FULL]], %[[B]] : tensor<3x4x8xf32>, tensor<3x8x16xf32>) outs(%{{.+}} : tensor<3x4x16xf32>)
func.func @matrix_batched_rhs(%a: tensor<4x8xf32>, %b: tensor<3x8x16xf32>) -> tensor<3x4x16xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<3x8x16xf32>) -> tensor<3x4x16xf32>
  return %0 : tensor<3x4x16xf32>
}

// -----

// bf16 with a broadcast batch: the copy stays bf16, the batch_matmul accumulates in
// f32, the result is rounded once at the end.
// CHECK-LABEL: func.func @broadcast_batch_bf16
// CHECK-NOT: strata.
// CHECK: %[[FULL:.+]] = linalg.generic {{.*}} ins(%{{.+}} : tensor<1x4x8xbf16>) outs(%{{.+}} : tensor<3x4x8xbf16>)
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<3x4x16xf32>)
// CHECK: %[[BMM:.+]] = linalg.batch_matmul ins(%[[FULL]], %{{.+}} : tensor<3x4x8xbf16>, tensor<3x8x16xbf16>) outs(%[[INIT]] : tensor<3x4x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[BMM]] : tensor<3x4x16xf32>) outs(%{{.+}} : tensor<3x4x16xbf16>)
// CHECK: arith.truncf %{{.+}} : f32 to bf16
func.func @broadcast_batch_bf16(%a: tensor<1x4x8xbf16>, %b: tensor<3x8x16xbf16>) -> tensor<3x4x16xbf16> {
  %0 = "strata.matmul"(%a, %b) : (tensor<1x4x8xbf16>, tensor<3x8x16xbf16>) -> tensor<3x4x16xbf16>
  return %0 : tensor<3x4x16xbf16>
}

// -----

// Rank 4, equal batch dims (heads in their own dim): the two batch dims collapse into
// one (no copy), one linalg.batch_matmul, the result expands back.
// CHECK-LABEL: func.func @batch_4d
// CHECK-SAME: (%[[A:.+]]: tensor<2x3x4x8xf32>, %[[B:.+]]: tensor<2x3x8x16xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[FA:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x4x8xf32> into tensor<6x4x8xf32>
// CHECK: %[[FB:.+]] = tensor.collapse_shape %[[B]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x8x16xf32> into tensor<6x8x16xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<6x4x16xf32>)
// CHECK: %[[BMM:.+]] = linalg.batch_matmul ins(%[[FA]], %[[FB]] : tensor<6x4x8xf32>, tensor<6x8x16xf32>) outs(%[[INIT]] : tensor<6x4x16xf32>)
// CHECK: %[[OUT:.+]] = tensor.expand_shape %[[BMM]] {{\[}}[0, 1], [2], [3]] output_shape [2, 3, 4, 16] : tensor<6x4x16xf32> into tensor<2x3x4x16xf32>
// CHECK-NEXT: return %[[OUT]]
func.func @batch_4d(%a: tensor<2x3x4x8xf32>, %b: tensor<2x3x8x16xf32>) -> tensor<2x3x4x16xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<2x3x4x8xf32>, tensor<2x3x8x16xf32>) -> tensor<2x3x4x16xf32>
  return %0 : tensor<2x3x4x16xf32>
}

// -----

// An rhs whose batch dims are all 1 is a matrix: the lhs rows fold into M, one
// linalg.matmul.
// CHECK-LABEL: func.func @rhs_unit_batch
// CHECK-SAME: (%[[A:.+]]: tensor<2x3x4x8xf32>, %[[B:.+]]: tensor<1x8x16xf32>)
// CHECK-NOT: linalg.generic
// CHECK-DAG: %[[W:.+]] = tensor.collapse_shape %[[B]] {{\[}}[0, 1], [2]] : tensor<1x8x16xf32> into tensor<8x16xf32>
// CHECK-DAG: %[[ROWS:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1, 2], [3]] : tensor<2x3x4x8xf32> into tensor<24x8xf32>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[ROWS]], %[[W]] : tensor<24x8xf32>, tensor<8x16xf32>) outs(%{{.+}} : tensor<24x16xf32>)
// CHECK: %[[OUT:.+]] = tensor.expand_shape %[[MM]] {{\[}}[0, 1, 2], [3]] output_shape [2, 3, 4, 16] : tensor<24x16xf32> into tensor<2x3x4x16xf32>
// CHECK-NEXT: return %[[OUT]]
// CHECK-NOT: linalg.batch_matmul
func.func @rhs_unit_batch(%a: tensor<2x3x4x8xf32>, %b: tensor<1x8x16xf32>) -> tensor<2x3x4x16xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<2x3x4x8xf32>, tensor<1x8x16xf32>) -> tensor<2x3x4x16xf32>
  return %0 : tensor<2x3x4x16xf32>
}

// -----

// [2,3,M,K] @ [3,K,N]: the rhs is copied along the missing leading batch dim, then the
// batch dims of both collapse.
// CHECK-DAG: #[[RHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
// CHECK-LABEL: func.func @rhs_partial_broadcast
// CHECK-SAME: (%[[A:.+]]: tensor<2x3x4x8xf32>, %[[B:.+]]: tensor<3x8x16xf32>)
// CHECK: %[[FULL:.+]] = linalg.generic {indexing_maps = [#[[RHS]], #{{.+}}], {{.*}} ins(%[[B]] : tensor<3x8x16xf32>) outs(%{{.+}} : tensor<2x3x8x16xf32>)
// CHECK-DAG: %[[FA:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x4x8xf32> into tensor<6x4x8xf32>
// CHECK-DAG: %[[FB:.+]] = tensor.collapse_shape %[[FULL]] {{\[}}[0, 1], [2], [3]] : tensor<2x3x8x16xf32> into tensor<6x8x16xf32>
// CHECK: linalg.batch_matmul ins(%[[FA]], %[[FB]] : tensor<6x4x8xf32>, tensor<6x8x16xf32>)
// CHECK: tensor.expand_shape %{{.+}} {{\[}}[0, 1], [2], [3]] output_shape [2, 3, 4, 16]
func.func @rhs_partial_broadcast(%a: tensor<2x3x4x8xf32>, %b: tensor<3x8x16xf32>) -> tensor<2x3x4x16xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<2x3x4x8xf32>, tensor<3x8x16xf32>) -> tensor<2x3x4x16xf32>
  return %0 : tensor<2x3x4x16xf32>
}

// -----

// Dynamic M and N with static batch dims: the broadcast copy and the collapse keep them.
// CHECK-LABEL: func.func @broadcast_batch_dynamic_rows
// CHECK-SAME: (%[[A:.+]]: tensor<1x?x8xf32>, %[[B:.+]]: tensor<3x8x?xf32>)
// CHECK: %[[FULL:.+]] = linalg.generic {{.*}} ins(%[[A]] : tensor<1x?x8xf32>) outs(%{{.+}} : tensor<3x?x8xf32>)
// CHECK: linalg.batch_matmul ins(%[[FULL]], %[[B]] : tensor<3x?x8xf32>, tensor<3x8x?xf32>) outs(%{{.+}} : tensor<3x?x?xf32>)
func.func @broadcast_batch_dynamic_rows(%a: tensor<1x?x8xf32>, %b: tensor<3x8x?xf32>) -> tensor<3x?x?xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<1x?x8xf32>, tensor<3x8x?xf32>) -> tensor<3x?x?xf32>
  return %0 : tensor<3x?x?xf32>
}

// -----

// CHECK-LABEL: func.func @batch_4d_dynamic_rows
// CHECK: %[[FA:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0, 1], [2], [3]] : tensor<2x3x?x8xf32> into tensor<6x?x8xf32>
// CHECK: %[[BMM:.+]] = linalg.batch_matmul ins(%[[FA]], %{{.+}} : tensor<6x?x8xf32>, tensor<6x8x5xf32>) outs(%{{.+}} : tensor<6x?x5xf32>)
// CHECK: tensor.expand_shape %[[BMM]] {{\[}}[0, 1], [2], [3]] output_shape [2, 3, %{{.+}}, 5] : tensor<6x?x5xf32> into tensor<2x3x?x5xf32>
func.func @batch_4d_dynamic_rows(%a: tensor<2x3x?x8xf32>, %b: tensor<2x3x8x5xf32>) -> tensor<2x3x?x5xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<2x3x?x8xf32>, tensor<2x3x8x5xf32>) -> tensor<2x3x?x5xf32>
  return %0 : tensor<2x3x?x5xf32>
}

// -----

// [?,?,K] @ [K,N]: two dynamic row dims are not folded into M (the expand_shape back
// would have two dynamic sizes in one group, which memref lowering asserts on; found by
// test_program_fuzz.py): the contraction generic instead.
// CHECK-DAG: #[[LHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[RHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-LABEL: func.func @matmul_two_dynamic_rows
// CHECK-NOT: expand_shape
// CHECK-NOT: collapse_shape
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<?x?x4xf32>, tensor<4x5xf32>) outs(%{{.+}} : tensor<?x?x5xf32>)
// CHECK-NOT: expand_shape
func.func @matmul_two_dynamic_rows(%a: tensor<?x?x4xf32>, %b: tensor<4x5xf32>) -> tensor<?x?x5xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<?x?x4xf32>, tensor<4x5xf32>) -> tensor<?x?x5xf32>
  return %0 : tensor<?x?x5xf32>
}

// -----

// A dynamic batch against a static batch of 1: the 1 broadcasts (a dynamic dim is never
// 1), so this is the contraction generic with the rhs batch map at 0, not a
// linalg.batch_matmul that would read the rhs at every batch index (wrong results and
// out-of-bounds reads; found by test_program_fuzz.py).
// CHECK-DAG: #[[LHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[RHS:.+]] = affine_map<(d0, d1, d2, d3) -> (0, d3, d2)>
// CHECK-LABEL: func.func @batched_dynamic_vs_broadcast
// CHECK-NOT: linalg.batch_matmul
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<?x3x4xf32>, tensor<1x4x5xf32>) outs(%{{.+}} : tensor<?x3x5xf32>)
func.func @batched_dynamic_vs_broadcast(%a: tensor<?x3x4xf32>, %b: tensor<1x4x5xf32>) -> tensor<?x3x5xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<?x3x4xf32>, tensor<1x4x5xf32>) -> tensor<?x3x5xf32>
  return %0 : tensor<?x3x5xf32>
}

// -----

// [0,?,K] @ [K,N]: a dynamic row dim beside a static 0 is not folded into M either
// (bufferization folds the collapsed size to a static 0, which memref.collapse_shape
// rejects for a dynamic group; found by test_program_fuzz.py).
// CHECK-LABEL: func.func @matmul_zero_and_dynamic_rows
// CHECK-NOT: collapse_shape
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<0x?x3xf32>, tensor<3x4xf32>) outs(%{{.+}} : tensor<0x?x4xf32>)
// CHECK-NOT: expand_shape
func.func @matmul_zero_and_dynamic_rows(%a: tensor<0x?x3xf32>, %b: tensor<3x4xf32>) -> tensor<0x?x4xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<0x?x3xf32>, tensor<3x4xf32>) -> tensor<0x?x4xf32>
  return %0 : tensor<0x?x4xf32>
}

// -----

// One row against a transposed weight (nn.Linear's W, N x K): W @ x, a row reduction
// over W's rows as stored (the transpose is left unused), not a one-row matmul.
// CHECK-DAG: #[[W:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[X:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[O:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @row_times_transposed_weight
// CHECK-SAME: (%[[A:.+]]: tensor<1x1x8xf32>, %[[WT:.+]]: tensor<16x8xf32>)
// CHECK: %[[VEC:.+]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1, 2]] : tensor<1x1x8xf32> into tensor<8xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<16xf32>)
// CHECK: %[[MV:.+]] = linalg.generic {indexing_maps = [#[[W]], #[[X]], #[[O]]], iterator_types = ["parallel", "reduction"]} ins(%[[WT]], %[[VEC]] : tensor<16x8xf32>, tensor<8xf32>) outs(%[[INIT]] : tensor<16xf32>)
// CHECK: %[[OUT:.+]] = tensor.expand_shape %[[MV]] {{\[}}[0, 1, 2]] output_shape [1, 1, 16] : tensor<16xf32> into tensor<1x1x16xf32>
// CHECK-NEXT: return %[[OUT]]
// CHECK-NOT: linalg.matmul
func.func @row_times_transposed_weight(%a: tensor<1x1x8xf32>, %w: tensor<16x8xf32>) -> tensor<1x1x16xf32> {
  %t = "strata.transpose"(%w) {permutation = array<i64: 1, 0>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
  %0 = "strata.matmul"(%a, %t) : (tensor<1x1x8xf32>, tensor<8x16xf32>) -> tensor<1x1x16xf32>
  return %0 : tensor<1x1x16xf32>
}

// -----

// A 1-D row in bf16: reduced in f32 over W's rows, rounded once.
// CHECK-LABEL: func.func @vector_times_transposed_weight
// CHECK-SAME: (%[[A:.+]]: tensor<8xbf16>, %[[WT:.+]]: tensor<16x8xbf16>)
// CHECK: %[[MV:.+]] = linalg.generic {{.*}} ins(%[[WT]], %[[A]] : tensor<16x8xbf16>, tensor<8xbf16>) outs(%{{.+}} : tensor<16xf32>)
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK-NOT: linalg.matmul
func.func @vector_times_transposed_weight(%a: tensor<8xbf16>, %w: tensor<16x8xbf16>) -> tensor<16xbf16> {
  %t = "strata.transpose"(%w) {permutation = array<i64: 1, 0>} : (tensor<16x8xbf16>) -> tensor<8x16xbf16>
  %0 = "strata.matmul"(%a, %t) : (tensor<8xbf16>, tensor<8x16xbf16>) -> tensor<16xbf16>
  return %0 : tensor<16xbf16>
}

// -----

// Two rows (or a dynamic row count) keep the matmul: the transposed weight is its rhs.
// CHECK-LABEL: func.func @rows_times_transposed_weight
// CHECK: %[[T:.+]] = linalg.transpose ins(%{{.+}} : tensor<16x8xf32>)
// CHECK: linalg.matmul ins(%{{.+}}, %[[T]] : tensor<2x8xf32>, tensor<8x16xf32>)
// CHECK-LABEL: func.func @dynamic_row_times_transposed_weight
// CHECK: %[[T:.+]] = linalg.transpose ins(%{{.+}} : tensor<16x8xf32>)
// CHECK: linalg.matmul ins(%{{.+}}, %[[T]] : tensor<?x8xf32>, tensor<8x16xf32>)
func.func @rows_times_transposed_weight(%a: tensor<2x8xf32>, %w: tensor<16x8xf32>) -> tensor<2x16xf32> {
  %t = "strata.transpose"(%w) {permutation = array<i64: 1, 0>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
  %0 = "strata.matmul"(%a, %t) : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}
func.func @dynamic_row_times_transposed_weight(%a: tensor<?x8xf32>, %w: tensor<16x8xf32>) -> tensor<?x16xf32> {
  %t = "strata.transpose"(%w) {permutation = array<i64: 1, 0>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
  %0 = "strata.matmul"(%a, %t) : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}
