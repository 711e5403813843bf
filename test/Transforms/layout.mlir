// RUN: strata-opt %s --strata-to-linalg --strata-layout --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg '--strata-layout=transposes=false' --split-input-file | FileCheck %s --check-prefix=OFF
// RUN: strata-opt %s --strata-to-linalg --strata-layout --strata-vectorize --split-input-file | FileCheck %s --check-prefix=VEC

// Rule 1: transposes fold, push and cancel.

// transpose(transpose(x)) is x.
// CHECK-LABEL: func.func @pair
// CHECK-SAME: (%[[X:.+]]: tensor<4x8x2xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: return %[[X]]
// OFF-LABEL: func.func @pair
// OFF-COUNT-2: linalg.transpose
func.func @pair(%x: tensor<4x8x2xf32>) -> tensor<4x8x2xf32> {
  %0 = "strata.transpose"(%x) {permutation = array<i64: 2, 0, 1>} : (tensor<4x8x2xf32>) -> tensor<2x4x8xf32>
  %1 = "strata.transpose"(%0) {permutation = array<i64: 1, 2, 0>} : (tensor<2x4x8xf32>) -> tensor<4x8x2xf32>
  return %1 : tensor<4x8x2xf32>
}

// -----

// transpose -> elementwise -> inverse transpose: one elementwise op on x, identity maps.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @around_elementwise
// CHECK-SAME: (%[[X:.+]]: tensor<5x7xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]]{{.*}} ins(%[[X]] : tensor<5x7xf32>) outs(%{{.+}} : tensor<5x7xf32>)
// CHECK: math.tanh
// CHECK-NOT: linalg.transpose
// CHECK: return %[[R]]
func.func @around_elementwise(%x: tensor<5x7xf32>) -> tensor<5x7xf32> {
  %0 = "strata.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<5x7xf32>) -> tensor<7x5xf32>
  %1 = "strata.tanh"(%0) : (tensor<7x5xf32>) -> tensor<7x5xf32>
  %2 = "strata.transpose"(%1) {permutation = array<i64: 1, 0>} : (tensor<7x5xf32>) -> tensor<5x7xf32>
  return %2 : tensor<5x7xf32>
}

// -----

// A transpose feeding an elementwise op becomes that operand's indexing map.
// CHECK-DAG: #[[T:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @into_elementwise
// CHECK-SAME: (%[[X:.+]]: tensor<5x7xf32>, %[[Y:.+]]: tensor<7x5xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[T]], #[[ID]], #[[ID]]]{{.*}} ins(%[[X]], %[[Y]] : tensor<5x7xf32>, tensor<7x5xf32>)
func.func @into_elementwise(%x: tensor<5x7xf32>, %y: tensor<7x5xf32>) -> tensor<7x5xf32> {
  %0 = "strata.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<5x7xf32>) -> tensor<7x5xf32>
  %1 = "strata.add"(%0, %y) : (tensor<7x5xf32>, tensor<7x5xf32>) -> tensor<7x5xf32>
  return %1 : tensor<7x5xf32>
}

// -----

// A transpose feeding a reduction: the reduce becomes a generic reading x through the map.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @into_reduction
// CHECK-SAME: (%[[X:.+]]: tensor<3x4x5xf32>)
// CHECK-NOT: linalg.transpose
// CHECK-NOT: linalg.reduce
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[X]] : tensor<3x4x5xf32>) outs(%{{.+}} : tensor<3xf32>)
// CHECK: arith.addf
func.func @into_reduction(%x: tensor<3x4x5xf32>) -> tensor<3xf32> {
  %0 = "strata.transpose"(%x) {permutation = array<i64: 2, 0, 1>} : (tensor<3x4x5xf32>) -> tensor<5x3x4xf32>
  %1 = "strata.sum"(%0) {axes = array<i64: 0, 2>, keepdims = false} : (tensor<5x3x4xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// A transposed matmul operand folds into linalg.matmul's indexing_maps; strata-vectorize
// still tiles and vectorizes it.
// CHECK-DAG: #[[MA:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[MB:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[MC:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @into_matmul
// CHECK-SAME: (%[[A:.+]]: tensor<64x32xf32>, %[[B:.+]]: tensor<64x48xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [#[[MA]], #[[MB]], #[[MC]]] ins(%[[A]], %[[B]] : tensor<64x32xf32>, tensor<64x48xf32>)
// VEC-LABEL: func.func @into_matmul
// VEC-NOT: linalg.matmul
// VEC: vector.contract
func.func @into_matmul(%a: tensor<64x32xf32>, %b: tensor<64x48xf32>) -> tensor<32x48xf32> {
  %0 = "strata.transpose"(%a) {permutation = array<i64: 1, 0>} : (tensor<64x32xf32>) -> tensor<32x64xf32>
  %1 = "strata.matmul"(%0, %b) : (tensor<32x64xf32>, tensor<64x48xf32>) -> tensor<32x48xf32>
  return %1 : tensor<32x48xf32>
}

// -----

// A transposed constant is transposed at compile time: a plain linalg.matmul remains.
// CHECK-LABEL: func.func @constant_operand
// CHECK-NOT: linalg.transpose
// CHECK: %[[W:.+]] = arith.constant dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul ins(%{{.+}}, %[[W]] : tensor<4x3xf32>, tensor<3x2xf32>)
func.func @constant_operand(%a: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = "strata.constant"() {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
  %0 = "strata.transpose"(%w) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = "strata.matmul"(%a, %0) : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  return %1 : tensor<4x2xf32>
}

// -----

// A transpose feeding an op that cannot absorb it (a reshape) stays.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-1: linalg.transpose
// CHECK-NOT: linalg.transpose
func.func @kept(%x: tensor<4x6xf32>) -> tensor<24xf32> {
  %0 = "strata.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<4x6xf32>) -> tensor<6x4xf32>
  %1 = "strata.reshape"(%0) : (tensor<6x4xf32>) -> tensor<24xf32>
  return %1 : tensor<24xf32>
}

// -----

// A generic whose body reads its loop indices (linalg.index: a flipped filter) keeps its
// loops: the transpose after it is not pushed into it.
// CHECK-LABEL: func.func @index_reading_generic_keeps_its_transpose
// CHECK: %[[G:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<2x3xf32>)
// CHECK: linalg.index 0
// CHECK: %[[T:.+]] = linalg.transpose ins(%[[G]] : tensor<2x3xf32>) {{.*}} permutation = [1, 0]
// CHECK: return %[[T]]
func.func @index_reading_generic_keeps_its_transpose(%w: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<2x3xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c1 = arith.constant 1 : index
    %r = arith.subi %c1, %i : index
    %v = tensor.extract %w[%r, %j] : tensor<2x3xf32>
    linalg.yield %v : f32
  } -> tensor<2x3xf32>
  %e2 = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%g : tensor<2x3xf32>) outs(%e2 : tensor<3x2xf32>) permutation = [1, 0]
  return %t : tensor<3x2xf32>
}
