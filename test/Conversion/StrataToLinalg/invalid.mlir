// RUN: strata-opt %s --strata-to-linalg --split-input-file --verify-diagnostics

// Forms strata-to-linalg does not support are errors at the op's location.

func.func @reshape_two_dynamic_dims(%x: tensor<?x4xf32>) -> tensor<?x?xf32> {
  // expected-error@+1 {{strata-to-linalg: reshape to a shape with more than one dynamic dim is not supported}}
  %0 = "strata.reshape"(%x) : (tensor<?x4xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @conv_pad_dynamic_spatial(%x: tensor<1x3x?x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x?x8xf32> {
  // expected-error@+1 {{strata-to-linalg: padding a dynamic spatial dim is not supported}}
  %0 = "strata.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x3x?x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x?x8xf32>
  return %0 : tensor<1x4x?x8xf32>
}

// -----

func.func @max_pool_pad_dynamic_spatial(%x: tensor<1x4x?x3xf32>) -> tensor<1x2x?x3xf32> {
  // expected-error@+1 {{strata-to-linalg: padding a dynamic spatial dim is not supported}}
  %0 = "strata.max_pool2d"(%x) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, layout = "NHWC"} : (tensor<1x4x?x3xf32>) -> tensor<1x2x?x3xf32>
  return %0 : tensor<1x2x?x3xf32>
}

// -----

func.func @avg_pool_pad_dynamic_spatial(%x: tensor<1x3x?x4xf16>) -> tensor<1x3x?x2xf16> {
  // expected-error@+1 {{strata-to-linalg: padding a dynamic spatial dim is not supported}}
  %0 = "strata.avg_pool2d"(%x) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, layout = "NCHW"} : (tensor<1x3x?x4xf16>) -> tensor<1x3x?x2xf16>
  return %0 : tensor<1x3x?x2xf16>
}

// -----

// The error points at the op that cannot be lowered, not at the ops before it.
func.func @second_op_fails(%x: tensor<?x4xf32>) -> tensor<?x?xf32> {
  %0 = "strata.relu"(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // expected-error@+1 {{reshape to a shape with more than one dynamic dim is not supported}}
  %1 = "strata.reshape"(%0) : (tensor<?x4xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// An integer strata.div is rejected by the verifier before any lowering, so no
// divsi that could trap on a zero or INT_MIN / -1 is ever emitted.
func.func @int_div_is_rejected(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{div: operand element type i32 is not supported (div is floating-point only: cast the operands to a float type for numpy's true division, or use strata.floor_div for //)}}
  %0 = "strata.div"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
