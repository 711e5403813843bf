// RUN: strata-opt %s --strata-verify --split-input-file --verify-diagnostics | FileCheck %s
// RUN: not strata-opt %s --strata-verify --split-input-file 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: strata-opt %s --split-input-file --verify-diagnostics --mlir-print-ir-after=strata-verify --pass-pipeline='builtin.module(strata-verify)' 2>&1 | FileCheck %s --check-prefix=NESTED

// strata-verify changes nothing: dead ops and foldable constants stay.
// CHECK-LABEL: func.func @valid
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x8xf32>, %[[W:[a-z0-9]+]]: tensor<8x?xf32>)
// CHECK-NEXT: %[[M:.+]] = "strata.matmul"(%[[X]], %[[W]]) : (tensor<4x8xf32>, tensor<8x?xf32>) -> tensor<4x?xf32>
// CHECK-NEXT: %[[C:.+]] = "strata.constant"() {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
// CHECK-NEXT: %[[R:.+]] = "strata.mul"(%[[M]], %[[C]]) : (tensor<4x?xf32>, tensor<f32>) -> tensor<4x?xf32>
// CHECK-NEXT: %[[D:.+]] = "strata.neg"(%[[C]]) : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT: return %[[R]] : tensor<4x?xf32>
// ERR-NOT: verify.mlir:[[@LINE+3]]
// NESTED: // {{-----}}// IR Dump After StrataVerify (strata-verify) //----- //
// NESTED: func.func @valid
func.func @valid(%x: tensor<4x8xf32>, %w: tensor<8x?xf32>) -> tensor<4x?xf32> {
  %0 = "strata.matmul"(%x, %w) : (tensor<4x8xf32>, tensor<8x?xf32>) -> tensor<4x?xf32>
  %c = "strata.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %1 = "strata.mul"(%0, %c) : (tensor<4x?xf32>, tensor<f32>) -> tensor<4x?xf32>
  %2 = "strata.neg"(%c) : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<4x?xf32>
}

// -----

// Every broken rule is reported, each at its op.
// CHECK-NOT: @invalid
func.func @invalid(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // ERR: verify.mlir:[[@LINE+2]]:8: error: matmul: inner dimensions differ (8 vs 4)
  // expected-error@+1 {{matmul: inner dimensions differ (8 vs 4)}}
  %0 = "strata.matmul"(%a, %a) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // ERR-NEXT: "strata.matmul"
  // ERR-NEXT: ^
  // ERR-NEXT: verify.mlir:[[@LINE+2]]:8: error: sum: axes [0, 0] repeat an axis
  // expected-error@+1 {{sum: axes [0, 0] repeat an axis}}
  %1 = "strata.sum"(%0) {axes = array<i64: 0, 0>} : (tensor<4x8xf32>) -> tensor<8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A later valid chunk is still processed and printed.
// CHECK-LABEL: func.func @valid_after
// CHECK: "strata.relu"
func.func @valid_after(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "strata.relu"(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
// NESTED: // {{-----}}// IR Dump After StrataVerify (strata-verify) //----- //
// NESTED: func.func @valid_after
// NESTED-NOT: Traceback
