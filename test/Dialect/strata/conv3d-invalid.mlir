// RUN: strata-opt %s --split-input-file --verify-diagnostics

// strata.conv3d and the 3-D pools: rank-5 NCDHW operands, three strides / dilations /
// kernel sizes, six paddings, channels that match and divide by the groups.

func.func @rank4(%x: tensor<1x4x6x6xf32>, %w: tensor<2x4x3x3xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error@+1 {{conv3d: input and filter must have rank 5 (NCDHW), got 1x4x6x6 and 2x4x3x3}}
  %0 = "strata.conv3d"(%x, %w) {strides = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>} : (tensor<1x4x6x6xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

func.func @channels(%x: tensor<1x4x5x5x5xf32>, %w: tensor<2x3x3x3x3xf32>) -> tensor<1x2x3x3x3xf32> {
  // expected-error@+1 {{conv3d: the filter must have 4 / 1 = 4 channels, got 3}}
  %0 = "strata.conv3d"(%x, %w) {strides = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>} : (tensor<1x4x5x5x5xf32>, tensor<2x3x3x3x3xf32>) -> tensor<1x2x3x3x3xf32>
  return %0 : tensor<1x2x3x3x3xf32>
}

// -----

func.func @groups(%x: tensor<1x4x5x5x5xf32>, %w: tensor<3x2x3x3x3xf32>) -> tensor<1x3x3x3x3xf32> {
  // expected-error@+1 {{conv3d: output channels (filter) 3 are not divisible by groups=2}}
  %0 = "strata.conv3d"(%x, %w) {strides = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, groups = 2 : i64} : (tensor<1x4x5x5x5xf32>, tensor<3x2x3x3x3xf32>) -> tensor<1x3x3x3x3xf32>
  return %0 : tensor<1x3x3x3x3xf32>
}

// -----

func.func @four_paddings(%x: tensor<1x4x5x5x5xf32>, %w: tensor<2x4x3x3x3xf32>) -> tensor<1x2x3x3x3xf32> {
  // expected-error@+1 {{conv3d: padding needs 6 values, got 4}}
  %0 = "strata.conv3d"(%x, %w) {strides = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>} : (tensor<1x4x5x5x5xf32>, tensor<2x4x3x3x3xf32>) -> tensor<1x2x3x3x3xf32>
  return %0 : tensor<1x2x3x3x3xf32>
}

// -----

func.func @int_conv(%x: tensor<1x4x5x5x5xi32>, %w: tensor<2x4x3x3x3xi32>) -> tensor<1x2x3x3x3xi32> {
  // expected-error@+1 {{conv3d: operand element type i32 is not supported (expected one of f32, f16, bf16, f64)}}
  %0 = "strata.conv3d"(%x, %w) {strides = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>} : (tensor<1x4x5x5x5xi32>, tensor<2x4x3x3x3xi32>) -> tensor<1x2x3x3x3xi32>
  return %0 : tensor<1x2x3x3x3xi32>
}

// -----

func.func @window_too_big(%x: tensor<1x4x2x5x5xf32>, %w: tensor<2x4x3x3x3xf32>) -> tensor<1x2x1x3x3xf32> {
  // expected-error@+1 {{conv3d: depth window of 3 does not fit in the padded input size 2}}
  %0 = "strata.conv3d"(%x, %w) {strides = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>} : (tensor<1x4x2x5x5xf32>, tensor<2x4x3x3x3xf32>) -> tensor<1x2x1x3x3xf32>
  return %0 : tensor<1x2x1x3x3xf32>
}

// -----

func.func @pool_padding(%x: tensor<1x2x6x6x6xf32>) -> tensor<1x2x4x3x3xf32> {
  // expected-error@+1 {{max_pool3d: padding [2, 2, 0, 0, 0, 0] must be smaller than the kernel [2, 2, 2]}}
  %0 = "strata.max_pool3d"(%x) {kernel = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>, padding = array<i64: 2, 2, 0, 0, 0, 0>} : (tensor<1x2x6x6x6xf32>) -> tensor<1x2x4x3x3xf32>
  return %0 : tensor<1x2x4x3x3xf32>
}

// -----

func.func @int_avg(%x: tensor<1x2x6x6x6xi32>) -> tensor<1x2x3x3x3xi32> {
  // expected-error@+1 {{avg_pool3d: operand element type i32 is not supported (expected one of f32, f16, bf16, f64)}}
  %0 = "strata.avg_pool3d"(%x) {kernel = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0, 0, 0, 0>} : (tensor<1x2x6x6x6xi32>) -> tensor<1x2x3x3x3xi32>
  return %0 : tensor<1x2x3x3x3xi32>
}

// -----

func.func @pool_result(%x: tensor<1x2x6x6x6xf32>) -> tensor<1x2x3x3x2xf32> {
  // expected-error@+1 {{max_pool3d: result type tensor<1x2x3x3x2xf32> does not match the inferred 1x2x3x3x3xf32}}
  %0 = "strata.max_pool3d"(%x) {kernel = array<i64: 2, 2, 2>, strides = array<i64: 2, 2, 2>, padding = array<i64: 0, 0, 0, 0, 0, 0>} : (tensor<1x2x6x6x6xf32>) -> tensor<1x2x3x3x2xf32>
  return %0 : tensor<1x2x3x3x2xf32>
}
