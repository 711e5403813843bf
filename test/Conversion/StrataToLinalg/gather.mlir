// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s --check-prefix=GONE

// strata.gather becomes one linalg.generic over the result with no inputs: each
// element reads its index with tensor.extract at the axis' loop indices (inside the
// body, so MLIR's vectorizer sees it invariant along the last loop and loads picked
// rows contiguously), wraps it (negative: + dim), clamps it to [0, dim - 1], and is a
// tensor.extract of the input there; the other coordinates are the loop indices.
// Several index dims (static) are gathered as one flat list and expanded back.

// GONE-NOT: strata.

// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[T:.+]]: tensor<50x8xf32>, %[[I:.+]]: tensor<2x3xi32>)
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[I]] {{\[\[}}0, 1]] : tensor<2x3xi32> into tensor<6xi32>
// CHECK: %[[E:.+]] = tensor.empty() : tensor<6x8xf32>
// CHECK: %[[G:.+]] = linalg.generic {indexing_maps = [#{{.+}}], iterator_types = ["parallel", "parallel"]} outs(%[[E]] : tensor<6x8xf32>)
// CHECK-NEXT: ^bb0(%{{.+}}: f32):
// CHECK-NEXT: %[[P:.+]] = linalg.index 0 : index
// CHECK-NEXT: %[[ID:.+]] = tensor.extract %[[FLAT]][%[[P]]] : tensor<6xi32>
// CHECK-DAG: %[[N:.+]] = arith.constant 50 : i32
// CHECK-DAG: %[[Z:.+]] = arith.constant 0 : i32
// CHECK: %[[NEG:.+]] = arith.cmpi slt, %[[ID]], %[[Z]] : i32
// CHECK: %[[UP:.+]] = arith.addi %[[ID]], %[[N]] : i32
// CHECK: %[[W:.+]] = arith.select %[[NEG]], %[[UP]], %[[ID]] : i32
// CHECK: %[[LO:.+]] = arith.maxsi %[[W]], %[[Z]] : i32
// CHECK: %[[C:.+]] = arith.minsi %[[LO]], %{{.+}} : i32
// CHECK: %[[ROW:.+]] = arith.index_cast %[[C]] : i32 to index
// CHECK: %[[COL:.+]] = linalg.index 1 : index
// CHECK: %[[V:.+]] = tensor.extract %[[T]][%[[ROW]], %[[COL]]] : tensor<50x8xf32>
// CHECK: linalg.yield %[[V]] : f32
// CHECK: %[[OUT:.+]] = tensor.expand_shape %[[G]] {{\[\[}}0, 1], [2]] output_shape [2, 3, 8] : tensor<6x8xf32> into tensor<2x3x8xf32>
// CHECK: return %[[OUT]]
func.func @embedding(%t: tensor<50x8xf32>, %i: tensor<2x3xi32>) -> tensor<2x3x8xf32> {
  %0 = "strata.gather"(%t, %i) {axis = 0 : i64} : (tensor<50x8xf32>, tensor<2x3xi32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// A middle axis of dynamic size: the bound is the input's tensor.dim; the loop indices
// before and after the axis address the other dims.
// CHECK-LABEL: func.func @middle
// CHECK-SAME: (%[[X:.+]]: tensor<3x?x7xf16>, %[[I:.+]]: tensor<4xi32>)
// CHECK: %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<3x?x7xf16>
// CHECK: linalg.generic {indexing_maps = [#{{.+}}], iterator_types = ["parallel", "parallel", "parallel"]} outs(%{{.+}} : tensor<3x4x7xf16>)
// CHECK: %[[P:.+]] = linalg.index 1 : index
// CHECK: tensor.extract %[[I]][%[[P]]] : tensor<4xi32>
// CHECK: arith.index_cast %[[D]] : index to i32
// CHECK: %[[A:.+]] = linalg.index 0 : index
// CHECK: %[[B:.+]] = arith.index_cast %{{.+}} : i32 to index
// CHECK: %[[C:.+]] = linalg.index 2 : index
// CHECK: tensor.extract %[[X]][%[[A]], %[[B]], %[[C]]] : tensor<3x?x7xf16>
// CHECK-NOT: tensor.expand_shape
func.func @middle(%x: tensor<3x?x7xf16>, %i: tensor<4xi32>) -> tensor<3x4x7xf16> {
  %0 = "strata.gather"(%x, %i) {axis = 1 : i64} : (tensor<3x?x7xf16>, tensor<4xi32>) -> tensor<3x4x7xf16>
  return %0 : tensor<3x4x7xf16>
}
