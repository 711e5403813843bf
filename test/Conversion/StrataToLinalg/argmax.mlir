// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s --check-prefix=GONE

// strata.argmax / argmin become one linalg.generic reducing the axis into the best value
// (from -inf / +inf) and its i32 index (from 0): an element replaces the pair when it
// compares ugt / ult (a NaN too) and the best so far is not NaN; ties keep the first.

// GONE-NOT: strata.

// CHECK-LABEL: func.func @argmax
// CHECK-SAME: (%[[A:.+]]: tensor<4x6xf32>)
// CHECK-DAG: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[V0:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<4xf32>)
// CHECK-DAG: %[[I0:.+]] = linalg.fill ins(%{{.+}} : i32) outs(%{{.+}} : tensor<4xi32>)
// CHECK: %[[R:.+]]:2 = linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[A]] : tensor<4x6xf32>) outs(%[[V0]], %[[I0]] : tensor<4xf32>, tensor<4xi32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: f32, %[[BEST:.+]]: f32, %[[IDX:.+]]: i32):
// CHECK-NEXT: %[[GT:.+]] = arith.cmpf ugt, %[[X]], %[[BEST]] : f32
// CHECK-NEXT: %[[NUM:.+]] = arith.cmpf ord, %[[BEST]], %[[BEST]] : f32
// CHECK-NEXT: %[[TAKE:.+]] = arith.andi %[[GT]], %[[NUM]] : i1
// CHECK-NEXT: %[[K:.+]] = linalg.index 1 : index
// CHECK-NEXT: %[[KI:.+]] = arith.index_cast %[[K]] : index to i32
// CHECK-NEXT: %[[NV:.+]] = arith.select %[[TAKE]], %[[X]], %[[BEST]] : f32
// CHECK-NEXT: %[[NI:.+]] = arith.select %[[TAKE]], %[[KI]], %[[IDX]] : i32
// CHECK-NEXT: linalg.yield %[[NV]], %[[NI]] : f32, i32
// CHECK: return %[[R]]#1
func.func @argmax(%a: tensor<4x6xf32>) -> tensor<4xi32> {
  %0 = "strata.argmax"(%a) {axis = 1 : i64} : (tensor<4x6xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
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
