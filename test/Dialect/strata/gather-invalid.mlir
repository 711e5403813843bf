// RUN: strata-opt %s --split-input-file --verify-diagnostics

// strata.gather: i32 indices, an axis within the input's rank, a non-empty axis, and
// the result shape input[:axis] + indices + input[axis+1:].

func.func @float_indices(%t: tensor<50x8xf32>, %i: tensor<3xf32>) -> tensor<3x8xf32> {
  // expected-error@+1 {{gather: indices element type f32 is not supported (expected i32 or i64)}}
  %0 = "strata.gather"(%t, %i) {axis = 0 : i64} : (tensor<50x8xf32>, tensor<3xf32>) -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----

func.func @axis_out_of_range(%t: tensor<50x8xf32>, %i: tensor<3xi32>) -> tensor<3x8xf32> {
  // expected-error@+1 {{gather: axis 2 is out of range for a rank-2 tensor (expected -2 <= axis < 2)}}
  %0 = "strata.gather"(%t, %i) {axis = 2 : i64} : (tensor<50x8xf32>, tensor<3xi32>) -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----

func.func @empty_axis(%t: tensor<0x8xf32>, %i: tensor<3xi32>) -> tensor<3x8xf32> {
  // expected-error@+1 {{gather: axis 0 of the input 0x8 has no elements to pick}}
  %0 = "strata.gather"(%t, %i) {axis = 0 : i64} : (tensor<0x8xf32>, tensor<3xi32>) -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----

func.func @wrong_result(%t: tensor<50x8xf32>, %i: tensor<3xi32>) -> tensor<8x3xf32> {
  // expected-error@+1 {{gather: result type tensor<8x3xf32> does not match the inferred 3x8xf32}}
  %0 = "strata.gather"(%t, %i) {axis = 0 : i64} : (tensor<50x8xf32>, tensor<3xi32>) -> tensor<8x3xf32>
  return %0 : tensor<8x3xf32>
}

// -----

func.func @missing_axis(%t: tensor<50x8xf32>, %i: tensor<3xi32>) -> tensor<3x8xf32> {
  // expected-error@+1 {{attribute "axis" is expected but not provided}}
  %0 = "strata.gather"(%t, %i) : (tensor<50x8xf32>, tensor<3xi32>) -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}
