// RUN: strata-opt %s --split-input-file --verify-diagnostics

// strata.argsort: an i32 result of the input's shape, an axis within the rank.

func.func @float_result(%a: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error@+1 {{argsort: result type tensor<4x6xf32> does not match the inferred 4x6xi32}}
  %0 = "strata.argsort"(%a) {axis = 1 : i64} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @wrong_shape(%a: tensor<4x6xf32>) -> tensor<4xi32> {
  // expected-error@+1 {{argsort: result type tensor<4xi32> does not match the inferred 4x6xi32}}
  %0 = "strata.argsort"(%a) {axis = 1 : i64} : (tensor<4x6xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @axis_out_of_range(%a: tensor<4x6xf32>) -> tensor<4x6xi32> {
  // expected-error@+1 {{argsort: axis 2 is out of range for a rank-2 tensor (expected -2 <= axis < 2)}}
  %0 = "strata.argsort"(%a) {axis = 2 : i64} : (tensor<4x6xf32>) -> tensor<4x6xi32>
  return %0 : tensor<4x6xi32>
}

// -----

func.func @bool_input(%a: tensor<4xi1>) -> tensor<4xi32> {
  // expected-error@+1 {{argsort: operand element type i1 is not supported (expected one of f32, f16, bf16, f64, i32, i64)}}
  %0 = "strata.argsort"(%a) {axis = 0 : i64} : (tensor<4xi1>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @no_axis(%a: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error@+1 {{'strata.argsort' op attribute "axis" is expected but not provided}}
  %0 = "strata.argsort"(%a) : (tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
