// RUN: strata-opt %s --split-input-file --verify-diagnostics

// erf, sin, cos, floor, ceil and round take floating-point inputs only (sign takes i32 too).

func.func @erf_int(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{erf: operand element type i32 is not supported (expected one of f32, f16, bf16, f64)}}
  %0 = "strata.erf"(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @round_int(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{round: operand element type i32 is not supported (expected one of f32, f16, bf16, f64)}}
  %0 = "strata.round"(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
