// RUN: not strata-opt %s --split-input-file 2>&1 | FileCheck %s
// As in mlir-opt, stdout holds what the valid chunks printed, between separators.
// RUN: not strata-opt %s --split-input-file 2>/dev/null | FileCheck %s --check-prefix=OUT
// OUT-NOT: func.func
// OUT: func.func @valid
// OUT-NOT: func.func

// Syntax and parse-time errors print as `file:line:col: error: message`, with
// the line of the original file also in chunks after a split marker, and
// every chunk is diagnosed even after an earlier one failed.

// CHECK-NOT: Traceback

func.func @operand_types(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:31: error: expected 2 operand types but had 1
  %0 = "strata.add"(%a, %a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @undeclared(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:21: error: use of undeclared SSA value name
  %0 = "strata.neg"(%b) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK: parse-errors.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected non-function type
func.func @bad_element_type(%a: tensor<4xf33>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// CHECK: parse-errors.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected '>' in tensor type
func.func @unclosed_type(%a: tensor<4x?xf32) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

func.func @bad_attribute(%a: tensor<4xf32>) -> tensor<f32> {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:46: error: expected integer literal
  %0 = "strata.sum"(%a) {axes = array<i64: 0,>} : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// strata ops only have the generic form; MLIR itself says nothing useful here
// ("Unable to parse operation assembly", without a location).
func.func @custom_form(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:8: error: 'strata.neg' has no custom assembly form; write it in the generic form
  %0 = strata.neg %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @redefinition(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: parse-errors.mlir:[[@LINE+5]]:3: error: redefinition of SSA value '%0'
  // CHECK-NEXT: %0 = "strata.abs"
  // CHECK-NEXT: ^
  // CHECK-NEXT: parse-errors.mlir:[[@LINE+1]]:3: note: previously defined here
  %0 = "strata.neg"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %0 = "strata.abs"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @use_type_mismatch(%a: tensor<4xf32>) -> tensor<8xf32> {
  %0 = "strata.neg"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: parse-errors.mlir:[[@LINE+4]]:10: error: use of value '%0' expects different type than prior uses: 'tensor<8xf32>' vs 'tensor<4xf32>'
  // CHECK-NEXT: return %0
  // CHECK-NEXT: ^
  // CHECK-NEXT: parse-errors.mlir:[[@LINE-4]]:3: note: prior use here
  return %0 : tensor<8xf32>
}

// -----

// A chunk that parses and verifies produces no diagnostic.
// CHECK-NOT: parse-errors.mlir:[[@LINE+1]]
func.func @valid(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "strata.neg"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @stray_token(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:61: error: @ identifier expected to start with letter or '_'
  %0 = "strata.neg"(%a) : (tensor<4xf32>) -> tensor<4xf32> @
  return %0 : tensor<4xf32>
}

// -----

// CHECK: parse-errors.mlir:[[@LINE+5]]:1: error: redefinition of symbol named 'twice'
func.func @twice(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

func.func @twice(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// A verifier error between parse errors is reported in the same form.
func.func @verifier_then_parser(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: parse-errors.mlir:[[@LINE+1]]:8: error: matmul: inner dimensions differ (8 vs 4)
  %0 = "strata.matmul"(%a, %a) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK: parse-errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error:
func.func @unterminated(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>

// -----

// No IR is printed when any chunk fails (the second RUN line checks stdout).
// CHECK-NOT: Traceback
