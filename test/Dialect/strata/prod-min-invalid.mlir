// RUN: strata-opt %s --split-input-file --verify-diagnostics

// strata.prod and strata.min follow the reduction rules: axes within the rank, no
// repeated axis, the result shape without (or with size-1) reduced dims.

func.func @prod_axis_out_of_range(%a: tensor<4x6xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{prod: axis 2 is out of range for a rank-2 tensor (expected -2 <= axis < 2)}}
  %0 = "strata.prod"(%a) {axes = array<i64: 2>} : (tensor<4x6xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @min_wrong_result(%a: tensor<4x6xi32>) -> tensor<6xi32> {
  // expected-error@+1 {{min: result type tensor<6xi32> does not match the inferred 4xi32}}
  %0 = "strata.min"(%a) {axes = array<i64: 1>} : (tensor<4x6xi32>) -> tensor<6xi32>
  return %0 : tensor<6xi32>
}

// -----

func.func @min_of_bools(%a: tensor<4xi1>) -> tensor<i1> {
  // expected-error@+1 {{min: operand element type i1 is not supported (expected one of f32, f16, bf16, f64, i32, i64)}}
  %0 = "strata.min"(%a) {axes = array<i64: 0>} : (tensor<4xi1>) -> tensor<i1>
  return %0 : tensor<i1>
}
