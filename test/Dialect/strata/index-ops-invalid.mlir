// RUN: strata-opt %s --split-input-file --verify-diagnostics

// strata.cumsum / reverse / pad / scatter / scatter_add: their axes, widths, index
// types and shapes.

func.func @cumsum_axis(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error@+1 {{cumsum: axis 2 is out of range for a rank-2 tensor (expected -2 <= axis < 2)}}
  %0 = "strata.cumsum"(%x) {axis = 2 : i64} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @cumsum_result(%x: tensor<4x6xf16>) -> tensor<4x6xf32> {
  // expected-error@+1 {{cumsum: result type tensor<4x6xf32> does not match the inferred 4x6xf16}}
  %0 = "strata.cumsum"(%x) {axis = 0 : i64} : (tensor<4x6xf16>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @cumsum_missing_axis(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error@+1 {{attribute "axis" is expected but not provided}}
  %0 = "strata.cumsum"(%x) : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @reverse_repeated(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error@+1 {{reverse: axis 1 is repeated in [1, -1]}}
  %0 = "strata.reverse"(%x) {axes = array<i64: 1, -1>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @reverse_axis(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error@+1 {{reverse: axis -3 is out of range for a rank-2 tensor}}
  %0 = "strata.reverse"(%x) {axes = array<i64: -3>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @pad_negative(%x: tensor<4x6xf32>) -> tensor<3x6xf32> {
  // expected-error@+1 {{pad: low widths must be >= 0, got [-1, 0]}}
  %0 = "strata.pad"(%x) {low = array<i64: -1, 0>, high = array<i64: 0, 0>} : (tensor<4x6xf32>) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// -----

func.func @pad_entries(%x: tensor<4x6xf32>) -> tensor<5x6xf32> {
  // expected-error@+1 {{pad: high has 1 entries for a rank-2 input}}
  %0 = "strata.pad"(%x) {low = array<i64: 1, 0>, high = array<i64: 0>} : (tensor<4x6xf32>) -> tensor<5x6xf32>
  return %0 : tensor<5x6xf32>
}

// -----

func.func @pad_result(%x: tensor<4x6xf32>) -> tensor<5x6xf32> {
  // expected-error@+1 {{pad: result type tensor<5x6xf32> does not match the inferred 5x9xf32}}
  %0 = "strata.pad"(%x) {low = array<i64: 1, 1>, high = array<i64: 0, 2>} : (tensor<4x6xf32>) -> tensor<5x6xf32>
  return %0 : tensor<5x6xf32>
}

// -----

func.func @pad_int_value(%x: tensor<4xi32>) -> tensor<5xi32> {
  // expected-error@+1 {{pad: pad_value 0.5 is not an i32 value}}
  %0 = "strata.pad"(%x) {low = array<i64: 1>, high = array<i64: 0>, pad_value = 0.5 : f64} : (tensor<4xi32>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

func.func @scatter_float_indices(%x: tensor<5x4xf32>, %i: tensor<2x4xf32>, %u: tensor<2x4xf32>) -> tensor<5x4xf32> {
  // expected-error@+1 {{scatter_add: indices element type f32 is not supported (expected i32 or i64)}}
  %0 = "strata.scatter_add"(%x, %i, %u) {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

func.func @scatter_updates_type(%x: tensor<5x4xf32>, %i: tensor<2x4xi32>, %u: tensor<2x4xf16>) -> tensor<5x4xf32> {
  // expected-error@+1 {{scatter: updates element type f16 differs from the input's f32}}
  %0 = "strata.scatter"(%x, %i, %u) {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x4xi32>, tensor<2x4xf16>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

func.func @scatter_shapes_differ(%x: tensor<5x4xf32>, %i: tensor<2x4xi32>, %u: tensor<3x4xf32>) -> tensor<5x4xf32> {
  // expected-error@+1 {{scatter_add: indices 2x4 and updates 3x4 differ in shape}}
  %0 = "strata.scatter_add"(%x, %i, %u) {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x4xi32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

func.func @scatter_rank(%x: tensor<5x4xf32>, %i: tensor<8xi32>, %u: tensor<8xf32>) -> tensor<5x4xf32> {
  // expected-error@+1 {{scatter_add: indices 8 must have the input's rank 2}}
  %0 = "strata.scatter_add"(%x, %i, %u) {axis = 0 : i64} : (tensor<5x4xf32>, tensor<8xi32>, tensor<8xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

func.func @scatter_too_wide(%x: tensor<5x4xf32>, %i: tensor<2x6xi32>, %u: tensor<2x6xf32>) -> tensor<5x4xf32> {
  // expected-error@+1 {{scatter: indices 2x6 are larger than the input 5x4 in dim 1}}
  %0 = "strata.scatter"(%x, %i, %u) {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x6xi32>, tensor<2x6xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

func.func @scatter_constant_index_out_of_range(%x: tensor<5x4xf32>, %u: tensor<1x4xf32>) -> tensor<5x4xf32> {
  %i = "strata.constant"() {value = dense<[[0, 1, -5, 5]]> : tensor<1x4xi32>} : () -> tensor<1x4xi32>
  // expected-error@+1 {{scatter_add: index 5 is out of range for axis 0 of size 5}}
  %0 = "strata.scatter_add"(%x, %i, %u) {axis = 0 : i64} : (tensor<5x4xf32>, tensor<1x4xi32>, tensor<1x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

func.func @scatter_constant_splat_out_of_range(%x: tensor<5x4xf32>, %u: tensor<2x4xf32>) -> tensor<5x4xf32> {
  %i = "strata.constant"() {value = dense<-6> : tensor<2x4xi32>} : () -> tensor<2x4xi32>
  // expected-error@+1 {{scatter: index -6 is out of range for axis 0 of size 5}}
  %0 = "strata.scatter"(%x, %i, %u) {axis = 0 : i64} : (tensor<5x4xf32>, tensor<2x4xi32>, tensor<2x4xf32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}
