// RUN: %roundtrip | FileCheck %s

// The integer bitwise ops print, parse back and keep their types (broadcast operands,
// dynamic dims, i32 and i64).

// CHECK-LABEL: func.func @bitwise
// CHECK-SAME: (%[[A:.+]]: tensor<3x?xi32>, %[[B:.+]]: tensor<?xi32>, %[[C:.+]]: tensor<5xi64>)
func.func @bitwise(%a: tensor<3x?xi32>, %b: tensor<?xi32>, %c: tensor<5xi64>) -> (tensor<3x?xi32>, tensor<5xi64>) {
  // CHECK: %[[AND:.+]] = "strata.bitwise_and"(%[[A]], %[[B]]) : (tensor<3x?xi32>, tensor<?xi32>) -> tensor<3x?xi32>
  %0 = "strata.bitwise_and"(%a, %b) : (tensor<3x?xi32>, tensor<?xi32>) -> tensor<3x?xi32>
  // CHECK: %[[OR:.+]] = "strata.bitwise_or"(%[[AND]], %[[B]]) : (tensor<3x?xi32>, tensor<?xi32>) -> tensor<3x?xi32>
  %1 = "strata.bitwise_or"(%0, %b) : (tensor<3x?xi32>, tensor<?xi32>) -> tensor<3x?xi32>
  // CHECK: %[[XOR:.+]] = "strata.bitwise_xor"(%[[OR]], %[[A]]) : (tensor<3x?xi32>, tensor<3x?xi32>) -> tensor<3x?xi32>
  %2 = "strata.bitwise_xor"(%1, %a) : (tensor<3x?xi32>, tensor<3x?xi32>) -> tensor<3x?xi32>
  // CHECK: %[[SHL:.+]] = "strata.left_shift"(%[[XOR]], %[[B]]) : (tensor<3x?xi32>, tensor<?xi32>) -> tensor<3x?xi32>
  %3 = "strata.left_shift"(%2, %b) : (tensor<3x?xi32>, tensor<?xi32>) -> tensor<3x?xi32>
  // CHECK: %[[NOT:.+]] = "strata.bitwise_not"(%[[C]]) : (tensor<5xi64>) -> tensor<5xi64>
  %4 = "strata.bitwise_not"(%c) : (tensor<5xi64>) -> tensor<5xi64>
  // CHECK: %[[SHR:.+]] = "strata.right_shift"(%[[NOT]], %[[C]]) : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi64>
  %5 = "strata.right_shift"(%4, %c) : (tensor<5xi64>, tensor<5xi64>) -> tensor<5xi64>
  // CHECK: return %[[SHL]], %[[SHR]]
  return %3, %5 : tensor<3x?xi32>, tensor<5xi64>
}
