// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s --check-prefix=GONE

// strata.argmax / argmin become one linalg.generic reducing the axis into the best value
// (from -inf / +inf) and its i32 index (from 0): an element replaces the pair when it
// compares ugt / ult (a NaN too) and the best so far is not NaN; ties keep the first.
// Along the last axis of a float tensor, two row reductions instead (strata-vectorize
// vectorizes both): the best value (maximumf / minimumf, NaN if the row has one), then
// the least index whose element equals it or is a NaN (indices from a constant iota:
// linalg.index would count within a vectorized tile).

// GONE-NOT: strata.

// CHECK-DAG: #[[FULL:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @argmax
// CHECK-SAME: (%[[A:.+]]: tensor<4x6xf32>)
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[V0:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK: %[[BEST:.+]] = linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[A]] : tensor<4x6xf32>) outs(%[[V0]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK-NEXT: %[[M:.+]] = arith.maximumf %[[X]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
// CHECK: %[[K:.+]] = arith.constant 6 : i32
// CHECK: %[[I0:.+]] = linalg.fill ins(%[[K]] : i32) outs(%{{.+}} : tensor<4xi32>)
// CHECK: %[[IOTA:.+]] = arith.constant dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi32>
// CHECK: %[[IDX:.+]] = linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]], #[[COL]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[A]], %[[BEST]], %[[IOTA]] : tensor<4x6xf32>, tensor<4xf32>, tensor<6xi32>) outs(%[[I0]] : tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[X2:.+]]: f32, %[[B:.+]]: f32, %[[I:.+]]: i32, %[[CUR:.+]]: i32):
// CHECK-NEXT: %[[EQ:.+]] = arith.cmpf oeq, %[[X2]], %[[B]] : f32
// CHECK-NEXT: %[[NAN:.+]] = arith.cmpf uno, %[[X2]], %[[X2]] : f32
// CHECK-NEXT: %[[HIT:.+]] = arith.ori %[[EQ]], %[[NAN]] : i1
// CHECK-NEXT: %[[CAND:.+]] = arith.select %[[HIT]], %[[I]], %[[K]] : i32
// CHECK-NEXT: %[[MIN:.+]] = arith.minsi %[[CUR]], %[[CAND]] : i32
// CHECK-NEXT: linalg.yield %[[MIN]] : i32
// CHECK-NOT: linalg.index
// CHECK: return %[[IDX]]
func.func @argmax(%a: tensor<4x6xf32>) -> tensor<4xi32> {
  %0 = "strata.argmax"(%a) {axis = 1 : i64} : (tensor<4x6xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// A dynamic row length: the index is linalg.index (the row reduction is not vectorized).
// CHECK-LABEL: func.func @argmin_dynamic
// CHECK: %[[BEST:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<?xf32>)
// CHECK: arith.minimumf
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %[[BEST]] : tensor<?x?xf32>, tensor<?xf32>) outs(%{{.+}} : tensor<?xi32>)
// CHECK: %[[K:.+]] = linalg.index 1 : index
// CHECK: arith.index_cast %[[K]] : index to i32
// CHECK: arith.minsi
func.func @argmin_dynamic(%a: tensor<?x?xf32>) -> tensor<?xi32> {
  %0 = "strata.argmin"(%a) {axis = 1 : i64} : (tensor<?x?xf32>) -> tensor<?xi32>
  return %0 : tensor<?xi32>
}

// -----

// Another axis: the one select-pair reduction.
// CHECK-LABEL: func.func @argmax_axis0
// CHECK: %[[R:.+]]:2 = linalg.generic {{{.*}}iterator_types = ["reduction", "parallel"]} ins(%{{.+}} : tensor<4x6xf32>) outs(%{{.+}}, %{{.+}} : tensor<6xf32>, tensor<6xi32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[BEST:.+]]: f32, %[[IDX:.+]]: i32):
// CHECK-NEXT: %[[GT:.+]] = arith.cmpf ugt, %[[X]], %[[BEST]] : f32
// CHECK-NEXT: %[[NUM:.+]] = arith.cmpf ord, %[[BEST]], %[[BEST]] : f32
// CHECK-NEXT: %[[TAKE:.+]] = arith.andi %[[GT]], %[[NUM]] : i1
// CHECK-NEXT: %[[K:.+]] = linalg.index 0 : index
// CHECK-NEXT: %[[KI:.+]] = arith.index_cast %[[K]] : index to i32
// CHECK-NEXT: %[[NV:.+]] = arith.select %[[TAKE]], %[[X]], %[[BEST]] : f32
// CHECK-NEXT: %[[NI:.+]] = arith.select %[[TAKE]], %[[KI]], %[[IDX]] : i32
// CHECK-NEXT: linalg.yield %[[NV]], %[[NI]] : f32, i32
// CHECK: return %[[R]]#1
func.func @argmax_axis0(%a: tensor<4x6xf32>) -> tensor<6xi32> {
  %0 = "strata.argmax"(%a) {axis = 0 : i64} : (tensor<4x6xf32>) -> tensor<6xi32>
  return %0 : tensor<6xi32>
}

// -----

// i32 inputs compare with slt; keepdims re-inserts the axis.
// CHECK-LABEL: func.func @argmin_i32
// CHECK: linalg.generic {{{.*}}iterator_types = ["reduction", "parallel"]}
// CHECK: arith.cmpi slt
// CHECK: tensor.expand_shape %{{.+}} {{\[\[}}0, 1]] output_shape [1, 6] : tensor<6xi32> into tensor<1x6xi32>
func.func @argmin_i32(%a: tensor<4x6xi32>) -> tensor<1x6xi32> {
  %0 = "strata.argmin"(%a) {axis = 0 : i64, keepdims = true} : (tensor<4x6xi32>) -> tensor<1x6xi32>
  return %0 : tensor<1x6xi32>
}
