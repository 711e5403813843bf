// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s
// RUN: strata-opt %s --compile-to=llvm --split-input-file | FileCheck %s --check-prefix=LLVM
// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s --check-prefix=NOI1

// Bool tensors are stored as i8 0/1 (numpy's layout): no i1 tensor is left, i1
// is only a scalar inside bodies, and the whole pipeline reaches the LLVM dialect.
// NOI1-NOT: xi1>

// CHECK-LABEL: func.func @returned_compare
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<8xf32>) -> tensor<4x8xi8>
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x8xi8>
// CHECK: %[[C:.+]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8xf32>) outs(%[[E]] : tensor<4x8xi8>)
// CHECK: %[[BIT:.+]] = arith.cmpf olt
// CHECK: %[[BYTE:.+]] = arith.extui %[[BIT]] : i1 to i8
// CHECK: linalg.yield %[[BYTE]] : i8
// CHECK: return %[[C]] : tensor<4x8xi8>
// LLVM-LABEL: llvm.func @returned_compare
func.func @returned_compare(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xi1> {
  %0 = "strata.compare"(%a, %b) {predicate = "lt"} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  return %0 : tensor<4x8xi1>
}

// -----

// An i1 argument arrives as i8; its consumer reads the bit in its body.
// CHECK-LABEL: func.func @bool_argument
// CHECK-SAME: (%[[M:.+]]: tensor<4xi8>, %[[A:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[M]], %[[A]], %[[B]] : tensor<4xi8>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[C:.+]]: i8, %[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[BIT:.+]] = arith.cmpi ne, %[[C]], %{{.+}} : i8
// CHECK: arith.select %[[BIT]], %[[X]], %[[Y]] : f32
// CHECK: return %[[R]] : tensor<4xf32>
// LLVM-LABEL: llvm.func @bool_argument
func.func @bool_argument(%m: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "strata.select"(%m, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @passthrough
// CHECK-SAME: (%[[M:.+]]: tensor<3xi8>) -> tensor<3xi8>
// CHECK-NOT: linalg.generic
// CHECK: return %[[M]] : tensor<3xi8>
// LLVM-LABEL: llvm.func @passthrough
func.func @passthrough(%m: tensor<3xi1>) -> tensor<3xi1> {
  return %m : tensor<3xi1>
}

// -----

// A shape op on a comparison moves the stored bytes.
// CHECK-LABEL: func.func @transposed_compare
// CHECK-SAME: -> tensor<3x2xi8>
// CHECK: %[[C:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<2x3xi8>)
// CHECK: %[[T:.+]] = linalg.transpose ins(%[[C]] : tensor<2x3xi8>) outs(%{{.+}} : tensor<3x2xi8>) permutation = [1, 0]
// CHECK: return %[[T]] : tensor<3x2xi8>
// LLVM-LABEL: llvm.func @transposed_compare
func.func @transposed_compare(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<3x2xi1> {
  %0 = "strata.compare"(%a, %b) {predicate = "ge"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %1 = "strata.transpose"(%0) {permutation = array<i64: 1, 0>} : (tensor<2x3xi1>) -> tensor<3x2xi1>
  return %1 : tensor<3x2xi1>
}

// -----

// CHECK-LABEL: func.func @reshaped_argument
// CHECK-SAME: (%[[M:.+]]: tensor<2x2xi8>) -> tensor<4xi8>
// CHECK: %[[R:.+]] = tensor.collapse_shape %[[M]] {{.*}} : tensor<2x2xi8> into tensor<4xi8>
// CHECK: return %[[R]] : tensor<4xi8>
// LLVM-LABEL: llvm.func @reshaped_argument
func.func @reshaped_argument(%m: tensor<2x2xi1>) -> tensor<4xi1> {
  %0 = "strata.reshape"(%m) : (tensor<2x2xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
