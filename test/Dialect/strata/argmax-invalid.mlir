// RUN: strata-opt %s --split-input-file --verify-diagnostics

// strata.argmax / argmin: an i32 result, an axis within the rank that is not empty.

func.func @float_result(%a: tensor<4x6xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{argmax: result type tensor<4xf32> does not match the inferred 4xi32}}
  %0 = "strata.argmax"(%a) {axis = 1 : i64} : (tensor<4x6xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @axis_out_of_range(%a: tensor<4x6xf32>) -> tensor<4xi32> {
  // expected-error@+1 {{argmin: axis -3 is out of range for a rank-2 tensor (expected -2 <= axis < 2)}}
  %0 = "strata.argmin"(%a) {axis = -3 : i64} : (tensor<4x6xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @empty_axis(%a: tensor<4x0xf32>) -> tensor<4xi32> {
  // expected-error@+1 {{argmax: axis 1 of the input 4x0 is empty}}
  %0 = "strata.argmax"(%a) {axis = 1 : i64} : (tensor<4x0xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @bool_input(%a: tensor<4xi1>) -> tensor<i32> {
  // expected-error@+1 {{argmax: operand element type i1 is not supported (expected one of f32, f16, bf16, f64, i32, i64)}}
  %0 = "strata.argmax"(%a) {axis = 0 : i64} : (tensor<4xi1>) -> tensor<i32>
  return %0 : tensor<i32>
}
