// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s --check-prefix=GONE

// strata.gather becomes one linalg.generic over the result that reads the indices
// through the axis' dims; each element is a tensor.extract of the input at the index,
// wrapped (negative: + dim) and clamped to [0, dim - 1]; the other coordinates are the
// loop indices.

// GONE-NOT: strata.

// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[T:.+]]: tensor<50x8xf32>, %[[I:.+]]: tensor<2x3xi32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x3x8xf32>
// CHECK: %[[G:.+]] = linalg.generic {indexing_maps = [#[[IDS:.+]], #[[OUT:.+]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[I]] : tensor<2x3xi32>) outs(%[[E]] : tensor<2x3x8xf32>)
// CHECK-NEXT: ^bb0(%[[ID:.+]]: i32, %{{.+}}: f32):
// CHECK-DAG: %[[N:.+]] = arith.constant 50 : i32
// CHECK-DAG: %[[Z:.+]] = arith.constant 0 : i32
// CHECK: %[[NEG:.+]] = arith.cmpi slt, %[[ID]], %[[Z]] : i32
// CHECK: %[[UP:.+]] = arith.addi %[[ID]], %[[N]] : i32
// CHECK: %[[W:.+]] = arith.select %[[NEG]], %[[UP]], %[[ID]] : i32
// CHECK: %[[LO:.+]] = arith.maxsi %[[W]], %[[Z]] : i32
// CHECK: %[[C:.+]] = arith.minsi %[[LO]], %{{.+}} : i32
// CHECK: %[[ROW:.+]] = arith.index_cast %[[C]] : i32 to index
// CHECK: %[[COL:.+]] = linalg.index 2 : index
// CHECK: %[[V:.+]] = tensor.extract %[[T]][%[[ROW]], %[[COL]]] : tensor<50x8xf32>
// CHECK: linalg.yield %[[V]] : f32
// CHECK: return %[[G]]
func.func @embedding(%t: tensor<50x8xf32>, %i: tensor<2x3xi32>) -> tensor<2x3x8xf32> {
  %0 = "strata.gather"(%t, %i) {axis = 0 : i64} : (tensor<50x8xf32>, tensor<2x3xi32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// A middle axis of dynamic size: the bound is the input's tensor.dim; the loop indices
// before and after the axis address the other dims.
// CHECK: #[[IDX:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @middle
// CHECK: %[[D:.+]] = tensor.dim %{{.+}}, %{{.+}} : tensor<3x?x7xf16>
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], #{{.+}}]
// CHECK: arith.index_cast %[[D]] : index to i32
// CHECK: %[[A:.+]] = linalg.index 0 : index
// CHECK: %[[B:.+]] = arith.index_cast %{{.+}} : i32 to index
// CHECK: %[[C:.+]] = linalg.index 2 : index
// CHECK: tensor.extract %{{.+}}[%[[A]], %[[B]], %[[C]]] : tensor<3x?x7xf16>
func.func @middle(%x: tensor<3x?x7xf16>, %i: tensor<4xi32>) -> tensor<3x4x7xf16> {
  %0 = "strata.gather"(%x, %i) {axis = 1 : i64} : (tensor<3x?x7xf16>, tensor<4xi32>) -> tensor<3x4x7xf16>
  return %0 : tensor<3x4x7xf16>
}
