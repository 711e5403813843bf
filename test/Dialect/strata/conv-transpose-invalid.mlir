// RUN: strata-opt %s --split-input-file --verify-diagnostics

// strata.conv_transpose2d's rule (python/strata/dialect/shapes.py): the result size,
// channels that match the filter and divide by groups, output_padding below the stride
// or dilation, float element types.

func.func @wrong_result(%x: tensor<1x8x5x5xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x4x9x9xf32> {
  // expected-error@+1 {{conv_transpose2d: result type tensor<1x4x9x9xf32> does not match the inferred 1x4x10x10xf32}}
  %0 = "strata.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x8x5x5xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x9x9xf32>
  return %0 : tensor<1x4x9x9xf32>
}

// -----

func.func @channels(%x: tensor<1x6x5x5xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x4x7x7xf32> {
  // expected-error@+1 {{conv_transpose2d: input has 6 channels but the filter expects 8}}
  %0 = "strata.conv_transpose2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x6x5x5xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x7x7xf32>
  return %0 : tensor<1x4x7x7xf32>
}

// -----

func.func @groups(%x: tensor<1x6x5x5xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x8x7x7xf32> {
  // expected-error@+1 {{conv_transpose2d: input channels 6 are not divisible by groups=4}}
  %0 = "strata.conv_transpose2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW", groups = 4 : i64} : (tensor<1x6x5x5xf32>, tensor<6x2x3x3xf32>) -> tensor<1x8x7x7xf32>
  return %0 : tensor<1x8x7x7xf32>
}

// -----

func.func @output_padding(%x: tensor<1x8x5x5xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x4x11x11xf32> {
  // expected-error@+1 {{conv_transpose2d: output_padding [2, 2] must be smaller than the stride [2, 2] or the dilation [1, 1]}}
  %0 = "strata.conv_transpose2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 2, 2>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x8x5x5xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x11x11xf32>
  return %0 : tensor<1x4x11x11xf32>
}

// -----

func.func @no_output(%x: tensor<1x8x2x2xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x4x1x1xf32> {
  // expected-error@+1 {{conv_transpose2d: padding [3, 3, 3, 3] leaves no output along height (-2)}}
  %0 = "strata.conv_transpose2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 3, 3, 3, 3>, output_padding = array<i64: 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x8x2x2xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x1x1xf32>
  return %0 : tensor<1x4x1x1xf32>
}

// -----

func.func @integers(%x: tensor<1x8x5x5xi32>, %w: tensor<8x4x3x3xi32>) -> tensor<1x4x7x7xi32> {
  // expected-error@+1 {{conv_transpose2d: operand element type i32 is not supported (expected one of f32, f16, bf16, f64)}}
  %0 = "strata.conv_transpose2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x8x5x5xi32>, tensor<8x4x3x3xi32>) -> tensor<1x4x7x7xi32>
  return %0 : tensor<1x4x7x7xi32>
}

// -----

func.func @missing(%x: tensor<1x8x5x5xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x4x7x7xf32> {
  // expected-error@+1 {{'strata.conv_transpose2d' op attribute "output_padding" is expected but not provided}}
  %0 = "strata.conv_transpose2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x8x5x5xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x7x7xf32>
  return %0 : tensor<1x4x7x7xf32>
}
