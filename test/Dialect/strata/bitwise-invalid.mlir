// RUN: strata-opt %s --split-input-file --verify-diagnostics

// The bitwise ops take i32 or i64 operands of one element type that broadcast.

func.func @float_and(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{bitwise_and: operand element type f32 is not supported (expected one of i32, i64)}}
  %0 = "strata.bitwise_and"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @bool_or(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error@+1 {{bitwise_or: operand element type i1 is not supported (expected one of i32, i64)}}
  %0 = "strata.bitwise_or"(%a, %b) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @mixed_widths(%a: tensor<4xi32>, %b: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error@+1 {{left_shift: operand element types differ (i32 vs i64)}}
  %0 = "strata.left_shift"(%a, %b) : (tensor<4xi32>, tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @no_broadcast(%a: tensor<4x3xi32>, %b: tensor<4xi32>) -> tensor<4x3xi32> {
  // expected-error@+1 {{right_shift: shapes 4x3 and 4 cannot be broadcast (dim -1 has sizes 3 vs 4)}}
  %0 = "strata.right_shift"(%a, %b) : (tensor<4x3xi32>, tensor<4xi32>) -> tensor<4x3xi32>
  return %0 : tensor<4x3xi32>
}

// -----

func.func @wrong_result(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi64> {
  // expected-error@+1 {{bitwise_xor: result type tensor<4xi64> does not match the inferred 4xi32}}
  %0 = "strata.bitwise_xor"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @float_not(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  // expected-error@+1 {{bitwise_not: operand element type bf16 is not supported (expected one of i32, i64)}}
  %0 = "strata.bitwise_not"(%a) : (tensor<4xbf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
