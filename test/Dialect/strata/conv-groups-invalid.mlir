// RUN: strata-opt %s --split-input-file --verify-diagnostics

// strata.conv2d's groups rule (python/strata/dialect/shapes.py): channels divisible by
// groups, the filter's channel dim C / groups, groups positive.

// Input channels not divisible by groups.
func.func @f(%a: tensor<1x6x8x8xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error@+1 {{conv2d: input channels 6 are not divisible by groups=4}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW", groups = 4 : i64} : (tensor<1x6x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// Output channels (the filter's F) not divisible by groups, NHWC.
func.func @f(%a: tensor<1x8x8x4xf32>, %w: tensor<3x3x2x6xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error@+1 {{conv2d: output channels (filter) 6 are not divisible by groups=4}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NHWC", groups = 4 : i64} : (tensor<1x8x8x4xf32>, tensor<3x3x2x6xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

// The filter's channel dim must be C / groups.
func.func @f(%a: tensor<1x8x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error@+1 {{conv2d: with groups=4 the filter must have 8 / 4 = 2 channels, got 4}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW", groups = 4 : i64} : (tensor<1x8x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// groups must be positive.
func.func @f(%a: tensor<1x8x8x8xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error@+1 {{conv2d: groups must be a positive integer, got 0}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW", groups = 0 : i64} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// groups must be an integer attribute.
func.func @f(%a: tensor<1x8x8x8xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error@+1 {{attribute 'groups' must be an integer, got "two"}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW", groups = "two"} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// The result's channels are the filter's F, not the input's C.
func.func @f(%a: tensor<1x4x8x8xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error@+1 {{conv2d: result type tensor<1x4x6x6xf32> does not match the inferred 1x8x6x6xf32}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW", groups = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}
