// RUN: strata-opt %s --split-input-file --verify-diagnostics

// One broken rule per case: the strata verifier's shape and dtype rules
// (python/strata/dialect/shapes.py and verifier.py), then IRDL's own checks.
// Each message is matched in full.

// A float-only unary op on i32.
func.func @f(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{exp: operand element type i32 is not supported (expected one of f32, f16, bf16, f64)}}
  %0 = "strata.exp"(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// An elementwise op on i16.
func.func @f(%a: tensor<4xi16>) -> tensor<4xi16> {
  // expected-error@+1 {{add: operand element type i16 is not supported (expected one of f32, f16, bf16, f64, i32, i64)}}
  %0 = "strata.add"(%a, %a) : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
  return %0 : tensor<4xi16>
}

// -----

// Elementwise ops on i1 (only compare produces i1).
func.func @f(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error@+1 {{mul: operand element type i1 is not supported (expected one of f32, f16, bf16, f64, i32, i64)}}
  %0 = "strata.mul"(%a, %a) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Integer div: numpy's / on integers is true division, and an integer divide could
// trap (x / 0, INT_MIN / -1). The message points to the casts and to floor_div.
func.func @f(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{div: operand element type i32 is not supported (div is floating-point only: cast the operands to a float type for numpy's true division, or use strata.floor_div for //)}}
  %0 = "strata.div"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// floor_div and mod take one element type, like the other binary ops.
func.func @f(%a: tensor<4xi32>, %b: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error@+1 {{floor_div: operand element types differ (i32 vs f32)}}
  %0 = "strata.floor_div"(%a, %b) : (tensor<4xi32>, tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @f(%a: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error@+1 {{mod: operand element type i1 is not supported (expected one of f32, f16, bf16, f64, i32, i64)}}
  %0 = "strata.mod"(%a, %a) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// floor_div and mod broadcast as numpy does.
func.func @f(%a: tensor<4x3xf16>, %b: tensor<4xf16>) -> tensor<4x3xf16> {
  // expected-error@+1 {{mod: shapes 4x3 and 4 cannot be broadcast (dim -1 has sizes 3 vs 4)}}
  %0 = "strata.mod"(%a, %b) : (tensor<4x3xf16>, tensor<4xf16>) -> tensor<4x3xf16>
  return %0 : tensor<4x3xf16>
}

// -----

// The result type follows the operands'.
func.func @f(%a: tensor<4xi32>, %b: tensor<1xi32>) -> tensor<4xf32> {
  // expected-error@+1 {{floor_div: result type tensor<4xf32> does not match the inferred 4xi32}}
  %0 = "strata.floor_div"(%a, %b) : (tensor<4xi32>, tensor<1xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A bool mask casts to numbers, not to a bool.
func.func @f(%m: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error@+1 {{cast: result element type i1 is not supported (expected one of f32, f16, bf16, f64, i32, i64)}}
  %0 = "strata.cast"(%m) : (tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Mismatched operand dtypes.
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error@+1 {{add: operand element types differ (f32 vs f16)}}
  %0 = "strata.add"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Mismatched operand dtypes in compare.
func.func @f(%a: tensor<4xi32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error@+1 {{compare: operand element types differ (i32 vs f32)}}
  %0 = "strata.compare"(%a, %b) {predicate = "eq"} : (tensor<4xi32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// mean is float-only.
func.func @f(%a: tensor<4xi32>) -> tensor<i32> {
  // expected-error@+1 {{mean: operand element type i32 is not supported (expected one of f32, f16, bf16, f64)}}
  %0 = "strata.mean"(%a) {axes = array<i64: 0>} : (tensor<4xi32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// softmax is float-only.
func.func @f(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{softmax: operand element type i32 is not supported (expected one of f32, f16, bf16, f64)}}
  %0 = "strata.softmax"(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// layer_norm operands share one dtype.
func.func @f(%a: tensor<2x4xf32>, %s: tensor<4xf16>) -> tensor<2x4xf32> {
  // expected-error@+1 {{layer_norm: operand element types differ (f32 vs f16)}}
  %0 = "strata.layer_norm"(%a, %s, %s) : (tensor<2x4xf32>, tensor<4xf16>, tensor<4xf16>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// avg_pool2d is float-only.
func.func @f(%a: tensor<1x1x4x4xi32>) -> tensor<1x1x2x2xi32> {
  // expected-error@+1 {{avg_pool2d: operand element type i32 is not supported (expected one of f32, f16, bf16, f64)}}
  %0 = "strata.avg_pool2d"(%a) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, layout = "NCHW"} : (tensor<1x1x4x4xi32>) -> tensor<1x1x2x2xi32>
  return %0 : tensor<1x1x2x2xi32>
}

// -----

// conv2d input and filter share one dtype.
func.func @f(%a: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xbf16>) -> tensor<1x4x6x6xf32> {
  // expected-error@+1 {{conv2d: operand element types differ (f32 vs bf16)}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xbf16>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// matmul operands share one dtype.
func.func @f(%a: tensor<2x4xf16>, %b: tensor<4x2xf32>) -> tensor<2x2xf16> {
  // expected-error@+1 {{matmul: operand element types differ (f16 vs f32)}}
  %0 = "strata.matmul"(%a, %b) : (tensor<2x4xf16>, tensor<4x2xf32>) -> tensor<2x2xf16>
  return %0 : tensor<2x2xf16>
}

// -----

// Non-broadcastable shapes.
func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x3xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{add: shapes 4x8 and 4x3 cannot be broadcast (dim -1 has sizes 3 vs 8)}}
  %0 = "strata.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Non-broadcastable leading dims of different ranks.
func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<5x4xf32>) -> tensor<2x3x4xf32> {
  // expected-error@+1 {{maximum: shapes 2x3x4 and 5x4 cannot be broadcast (dim -2 has sizes 3 vs 5)}}
  %0 = "strata.maximum"(%a, %b) : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// select broadcasts all three operands.
func.func @f(%c: tensor<4x1xi1>, %a: tensor<4x8xf32>, %b: tensor<3xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{select: shapes 4x1 and 4x8 and 3 cannot be broadcast (dim -1 has sizes 3 vs 8)}}
  %0 = "strata.select"(%c, %a, %b) : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<3xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// gelu takes 'none' or 'tanh'.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{gelu: approximate must be one of none, tanh, got 'fast'}}
  %0 = "strata.gelu"(%a) {approximate = "fast"} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Unknown compare predicate.
func.func @f(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error@+1 {{compare: unknown predicate 'lte' (expected one of eq, ne, lt, le, gt, ge)}}
  %0 = "strata.compare"(%a, %a) {predicate = "lte"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// The result of compare is i1.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{compare: result type tensor<4xf32> does not match the inferred 4xi1}}
  %0 = "strata.compare"(%a, %a) {predicate = "eq"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The select condition is i1.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{select: condition element type must be i1, got f32}}
  %0 = "strata.select"(%a, %a, %a) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// select values share one dtype.
func.func @f(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error@+1 {{select: operand element types differ (f32 vs i32)}}
  %0 = "strata.select"(%c, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// matmul of a rank-0 operand.
func.func @f(%a: tensor<f32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{matmul: operands must have rank >= 1, got scalar and 4}}
  %0 = "strata.matmul"(%a, %b) : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// matmul inner dims.
func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{matmul: inner dimensions differ (8 vs 4)}}
  %0 = "strata.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// matmul inner dims, vector times matrix.
func.func @f(%a: tensor<3xf32>, %b: tensor<4x5xf32>) -> tensor<5xf32> {
  // expected-error@+1 {{matmul: inner dimensions differ (3 vs 4)}}
  %0 = "strata.matmul"(%a, %b) : (tensor<3xf32>, tensor<4x5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// matmul batch dims broadcast as in numpy.
func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) -> tensor<3x4x4xf32> {
  // expected-error@+1 {{matmul: shapes 2 and 3 cannot be broadcast (dim -1 has sizes 2 vs 3)}}
  %0 = "strata.matmul"(%a, %b) : (tensor<2x4x8xf32>, tensor<3x8x4xf32>) -> tensor<3x4x4xf32>
  return %0 : tensor<3x4x4xf32>
}

// -----

// matmul drops the dim a rank-1 operand adds.
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x1xf32> {
  // expected-error@+1 {{matmul: result type tensor<4x1xf32> does not match the inferred 4xf32}}
  %0 = "strata.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// Reduction axis out of range.
func.func @f(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{sum: axis 2 is out of range for a rank-2 tensor (expected -2 <= axis < 2)}}
  %0 = "strata.sum"(%a) {axes = array<i64: 2>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Negative reduction axis out of range.
func.func @f(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{max: axis -3 is out of range for a rank-2 tensor (expected -2 <= axis < 2)}}
  %0 = "strata.max"(%a) {axes = array<i64: -3>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Reduction of a rank-0 tensor.
func.func @f(%a: tensor<f32>) -> tensor<f32> {
  // expected-error@+1 {{sum: axis 0 is out of range for a rank-0 tensor}}
  %0 = "strata.sum"(%a) {axes = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Repeated axes (the same axis written two ways).
func.func @f(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{sum: axes [1, -1] repeat an axis}}
  %0 = "strata.sum"(%a) {axes = array<i64: 1, -1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// keepdims keeps the reduced dims as size 1.
func.func @f(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{mean: result type tensor<4xf32> does not match the inferred 4x1xf32}}
  %0 = "strata.mean"(%a) {axes = array<i64: 1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// softmax of a rank-0 tensor.
func.func @f(%a: tensor<f32>) -> tensor<f32> {
  // expected-error@+1 {{softmax: input must have rank >= 1}}
  %0 = "strata.softmax"(%a) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// softmax axis out of range.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{softmax: axis 1 is out of range for a rank-1 tensor (expected -1 <= axis < 1)}}
  %0 = "strata.softmax"(%a) {axis = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// layer_norm of a rank-0 tensor.
func.func @f(%a: tensor<f32>) -> tensor<f32> {
  // expected-error@+1 {{layer_norm: input must have rank >= 1}}
  %0 = "strata.layer_norm"(%a, %a, %a) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// layer_norm axis out of range.
func.func @f(%a: tensor<2x4xf32>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error@+1 {{layer_norm: axis -3 is out of range for a rank-2 tensor (expected -2 <= axis < 2)}}
  %0 = "strata.layer_norm"(%a, %s, %s) {axis = -3 : i64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// layer_norm scale has the normalized dims' shape.
func.func @f(%a: tensor<2x4xf32>, %s: tensor<2x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error@+1 {{layer_norm: scale has shape 2x4 but the normalized dims are 4}}
  %0 = "strata.layer_norm"(%a, %s, %b) : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// layer_norm bias has the normalized dims' shape.
func.func @f(%a: tensor<2x4xf32>, %s: tensor<4xf32>, %b: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error@+1 {{layer_norm: bias has shape 3 but the normalized dims are 4}}
  %0 = "strata.layer_norm"(%a, %s, %b) : (tensor<2x4xf32>, tensor<4xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// layer_norm epsilon is non-negative.
func.func @f(%a: tensor<2x4xf32>, %s: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error@+1 {{layer_norm: epsilon must be >= 0, got -1.0}}
  %0 = "strata.layer_norm"(%a, %s, %s) {epsilon = -1.0 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// reshape keeps the element count.
func.func @f(%a: tensor<4x8xf32>) -> tensor<30xf32> {
  // expected-error@+1 {{reshape: cannot reshape 4x8 (32 elements) into 30 (30 elements)}}
  %0 = "strata.reshape"(%a) : (tensor<4x8xf32>) -> tensor<30xf32>
  return %0 : tensor<30xf32>
}

// -----

// reshape keeps the element type.
func.func @f(%a: tensor<4x8xf32>) -> tensor<32xf16> {
  // expected-error@+1 {{reshape: result type tensor<32xf16> does not match the inferred 32xf32}}
  %0 = "strata.reshape"(%a) : (tensor<4x8xf32>) -> tensor<32xf16>
  return %0 : tensor<32xf16>
}

// -----

// transpose with a repeated entry.
func.func @f(%a: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{transpose: permutation [0, 0] is not a permutation of [0, 2) for a rank-2 input}}
  %0 = "strata.transpose"(%a) {permutation = array<i64: 0, 0>} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// transpose with a permutation of the wrong length.
func.func @f(%a: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{transpose: permutation [1, 0, 2] is not a permutation of [0, 2) for a rank-2 input}}
  %0 = "strata.transpose"(%a) {permutation = array<i64: 1, 0, 2>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// transpose result shape follows the permutation.
func.func @f(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{transpose: result type tensor<4x8xf32> does not match the inferred 8x4xf32}}
  %0 = "strata.transpose"(%a) {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// broadcast_to a lower rank.
func.func @f(%a: tensor<4x8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{broadcast_to: cannot broadcast 4x8 to the lower-rank shape 8}}
  %0 = "strata.broadcast_to"(%a) : (tensor<4x8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// broadcast_to an incompatible dim.
func.func @f(%a: tensor<3xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{broadcast_to: cannot broadcast 3 to 4x8 (dim 0 is 3, target is 8)}}
  %0 = "strata.broadcast_to"(%a) : (tensor<3xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// concat is binary (IRDL checks the operand count).
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{op expects exactly 2 operands, but got 0}}
  %0 = "strata.concat"() {axis = 0 : i64} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// concat axis out of range.
func.func @f(%a: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error@+1 {{concat: axis 2 is out of range for a rank-2 tensor (expected -2 <= axis < 2)}}
  %0 = "strata.concat"(%a, %a) {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// concat sizes along the axis add up.
func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{concat: result type tensor<2x3xf32> does not match the inferred 4x3xf32}}
  %0 = "strata.concat"(%a, %a) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// slice needs one entry per dim.
func.func @f(%a: tensor<8x8xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{slice: starts has 1 entries for a rank-2 input}}
  %0 = "strata.slice"(%a) {starts = array<i64: 0>, limits = array<i64: 4, 4>, steps = array<i64: 1, 1>} : (tensor<8x8xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// slice limits need one entry per dim.
func.func @f(%a: tensor<8x8xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{slice: limits has 3 entries for a rank-2 input}}
  %0 = "strata.slice"(%a) {starts = array<i64: 0, 0>, limits = array<i64: 4, 4, 4>, steps = array<i64: 1, 1>} : (tensor<8x8xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// slice steps need one entry per dim.
func.func @f(%a: tensor<8x8xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{slice: steps has 0 entries for a rank-2 input}}
  %0 = "strata.slice"(%a) {starts = array<i64: 0, 0>, limits = array<i64: 4, 4>, steps = array<i64>} : (tensor<8x8xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// slice steps are >= 1.
func.func @f(%a: tensor<8x8xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{slice: step 0 in dim 1 must be >= 1}}
  %0 = "strata.slice"(%a) {starts = array<i64: 0, 0>, limits = array<i64: 4, 4>, steps = array<i64: 1, 0>} : (tensor<8x8xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// slice limit beyond the dim.
func.func @f(%a: tensor<8x8xf32>) -> tensor<7x8xf32> {
  // expected-error@+1 {{slice: bounds [2, 9) in dim 0 are not within [0, 8]}}
  %0 = "strata.slice"(%a) {starts = array<i64: 2, 0>, limits = array<i64: 9, 8>, steps = array<i64: 1, 1>} : (tensor<8x8xf32>) -> tensor<7x8xf32>
  return %0 : tensor<7x8xf32>
}

// -----

// slice limit before the start, in a dynamic dim.
func.func @f(%a: tensor<8x?xf32>) -> tensor<8x0xf32> {
  // expected-error@+1 {{slice: bounds [3, 1) in dim 1 are not within [0, ?]}}
  %0 = "strata.slice"(%a) {starts = array<i64: 0, 3>, limits = array<i64: 8, 1>, steps = array<i64: 1, 1>} : (tensor<8x?xf32>) -> tensor<8x0xf32>
  return %0 : tensor<8x0xf32>
}

// -----

// slice negative start.
func.func @f(%a: tensor<8xf32>) -> tensor<5xf32> {
  // expected-error@+1 {{slice: bounds [-1, 4) in dim 0 are not within [0, 8]}}
  %0 = "strata.slice"(%a) {starts = array<i64: -1>, limits = array<i64: 4>, steps = array<i64: 1>} : (tensor<8xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// slice result shape is ceil((limit - start) / step).
func.func @f(%a: tensor<8xf32>) -> tensor<3xf32> {
  // expected-error@+1 {{slice: result type tensor<3xf32> does not match the inferred 4xf32}}
  %0 = "strata.slice"(%a) {starts = array<i64: 0>, limits = array<i64: 7>, steps = array<i64: 2>} : (tensor<8xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// conv2d of a rank-3 input.
func.func @f(%a: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error@+1 {{conv2d: input and filter must have rank 4, got 3x8x8 and 4x3x3x3}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// conv2d channels, NCHW.
func.func @f(%a: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error@+1 {{conv2d: input has 3 channels but the filter expects 2}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// conv2d channels, NHWC (an NCHW-shaped filter).
func.func @f(%a: tensor<1x8x8x3xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<1x6x6x4xf32> {
  // expected-error@+1 {{conv2d: input has 3 channels but the filter expects 2}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<3x3x2x4xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}

// -----

// conv2d layout.
func.func @f(%a: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error@+1 {{conv2d: layout must be NCHW or NHWC, got 'HWCN'}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "HWCN"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// conv2d window larger than the padded input.
func.func @f(%a: tensor<1x3x4x8xf32>, %w: tensor<4x3x5x3xf32>) -> tensor<1x4x1x6xf32> {
  // expected-error@+1 {{conv2d: height window of 5 does not fit in the padded input size 4}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x3x4x8xf32>, tensor<4x3x5x3xf32>) -> tensor<1x4x1x6xf32>
  return %0 : tensor<1x4x1x6xf32>
}

// -----

// conv2d dilated window larger than the padded input.
func.func @f(%a: tensor<1x8x4x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x6x1x4xf32> {
  // expected-error@+1 {{conv2d: width window of 7 does not fit in the padded input size 6}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 1, 1>, dilations = array<i64: 1, 3>, layout = "NHWC"} : (tensor<1x8x4x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x6x1x4xf32>
  return %0 : tensor<1x6x1x4xf32>
}

// -----

// conv2d strides need two values.
func.func @f(%a: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error@+1 {{conv2d: strides needs 2 values, got 3}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// conv2d padding needs four values.
func.func @f(%a: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error@+1 {{conv2d: padding needs 4 values, got 2}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1>, padding = array<i64: 1, 1>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

// conv2d dilations need two values.
func.func @f(%a: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error@+1 {{conv2d: dilations needs 2 values, got 1}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1>, layout = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// conv2d strides are >= 1.
func.func @f(%a: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error@+1 {{conv2d: strides values must be >= 1, got [0, 1]}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 0, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// conv2d padding is >= 0.
func.func @f(%a: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x5x6xf32> {
  // expected-error@+1 {{conv2d: padding values must be >= 0, got [0, -1, 0, 0]}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, -1, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x5x6xf32>
  return %0 : tensor<1x4x5x6xf32>
}

// -----

// conv2d result shape.
func.func @f(%a: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error@+1 {{conv2d: result type tensor<1x4x8x8xf32> does not match the inferred 1x4x6x6xf32}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

// Pooling of a rank-2 input.
func.func @f(%a: tensor<8x8xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{max_pool2d: input must have rank 4, got 8x8}}
  %0 = "strata.max_pool2d"(%a) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, layout = "NCHW"} : (tensor<8x8xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// Pool padding must be smaller than the kernel.
func.func @f(%a: tensor<1x1x8x8xf32>) -> tensor<1x1x5x6xf32> {
  // expected-error@+1 {{max_pool2d: padding [1, 1, 2, 2] must be smaller than the kernel [2, 2]}}
  %0 = "strata.max_pool2d"(%a) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 2, 2>, layout = "NCHW"} : (tensor<1x1x8x8xf32>) -> tensor<1x1x5x6xf32>
  return %0 : tensor<1x1x5x6xf32>
}

// -----

// Pool padding equal to the kernel, on the height.
func.func @f(%a: tensor<1x8x8x1xf32>) -> tensor<1x9x8x1xf32> {
  // expected-error@+1 {{avg_pool2d: padding [3, 0, 0, 0] must be smaller than the kernel [3, 1]}}
  %0 = "strata.avg_pool2d"(%a) {kernel = array<i64: 3, 1>, strides = array<i64: 1, 1>, padding = array<i64: 3, 0, 0, 0>, layout = "NHWC"} : (tensor<1x8x8x1xf32>) -> tensor<1x9x8x1xf32>
  return %0 : tensor<1x9x8x1xf32>
}

// -----

// Pool layout.
func.func @f(%a: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error@+1 {{avg_pool2d: layout must be NCHW or NHWC, got 'nchw'}}
  %0 = "strata.avg_pool2d"(%a) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, layout = "nchw"} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// Pool kernel needs two values.
func.func @f(%a: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error@+1 {{max_pool2d: kernel needs 2 values, got 1}}
  %0 = "strata.max_pool2d"(%a) {kernel = array<i64: 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, layout = "NCHW"} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// Pool kernel values are >= 1.
func.func @f(%a: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error@+1 {{max_pool2d: kernel values must be >= 1, got [0, 2]}}
  %0 = "strata.max_pool2d"(%a) {kernel = array<i64: 0, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, layout = "NCHW"} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// Pool window larger than the input.
func.func @f(%a: tensor<1x1x8x2xf32>) -> tensor<1x1x6x1xf32> {
  // expected-error@+1 {{max_pool2d: width window of 3 does not fit in the padded input size 2}}
  %0 = "strata.max_pool2d"(%a) {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, layout = "NCHW"} : (tensor<1x1x8x2xf32>) -> tensor<1x1x6x1xf32>
  return %0 : tensor<1x1x6x1xf32>
}

// -----

// Pool result shape.
func.func @f(%a: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error@+1 {{max_pool2d: result type tensor<1x1x8x8xf32> does not match the inferred 1x1x4x4xf32}}
  %0 = "strata.max_pool2d"(%a) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, layout = "NCHW"} : (tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32>
  return %0 : tensor<1x1x8x8xf32>
}

// -----

// cast to an unsupported dtype.
func.func @f(%a: tensor<4xf32>) -> tensor<4xi16> {
  // expected-error@+1 {{cast: result element type i16 is not supported (expected one of f32, f16, bf16, f64, i32, i64)}}
  %0 = "strata.cast"(%a) : (tensor<4xf32>) -> tensor<4xi16>
  return %0 : tensor<4xi16>
}

// -----

// cast from an unsupported dtype (i1, a comparison's result, is supported).
func.func @f(%a: tensor<4xi8>) -> tensor<4xf32> {
  // expected-error@+1 {{cast: operand element type i8 is not supported (expected one of f32, f16, bf16, f64, i32, i64, i1)}}
  %0 = "strata.cast"(%a) : (tensor<4xi8>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// cast keeps the shape.
func.func @f(%a: tensor<4xf32>) -> tensor<2x2xf16> {
  // expected-error@+1 {{cast: result type tensor<2x2xf16> does not match the inferred 4xf16}}
  %0 = "strata.cast"(%a) : (tensor<4xf32>) -> tensor<2x2xf16>
  return %0 : tensor<2x2xf16>
}

// -----

// constant value of another shape.
func.func @f() -> tensor<4xf32> {
  // expected-error@+1 {{constant: value type tensor<3xf32> differs from the result type tensor<4xf32>}}
  %0 = "strata.constant"() {value = dense<1.0> : tensor<3xf32>} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// constant value of another dtype.
func.func @f() -> tensor<4xf32> {
  // expected-error@+1 {{constant: value type tensor<4xf16> differs from the result type tensor<4xf32>}}
  %0 = "strata.constant"() {value = dense<1.0> : tensor<4xf16>} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// constant value that is not an elements attribute.
func.func @f() -> tensor<4xf32> {
  // expected-error@+1 {{constant: value type f32 differs from the result type tensor<4xf32>}}
  %0 = "strata.constant"() {value = 1.0 : f32} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Result dtype differs from the operands'.
func.func @f(%a: tensor<4x8xf32>) -> tensor<4x8xf16> {
  // expected-error@+1 {{add: result type tensor<4x8xf16> does not match the inferred 4x8xf32}}
  %0 = "strata.add"(%a, %a) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

// Result rank differs from the inferred one.
func.func @f(%a: tensor<4xf32>) -> tensor<1x4xf32> {
  // expected-error@+1 {{neg: result type tensor<1x4xf32> does not match the inferred 4xf32}}
  %0 = "strata.neg"(%a) : (tensor<4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// Result static dim differs from the inferred one.
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{sub: result type tensor<4x3xf32> does not match the inferred 4x8xf32}}
  %0 = "strata.sub"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// A rank-0 result of the wrong dtype.
func.func @f(%a: tensor<4xf32>) -> tensor<f16> {
  // expected-error@+1 {{matmul: result type tensor<f16> does not match the inferred f32}}
  %0 = "strata.matmul"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<f16>
  return %0 : tensor<f16>
}

// -----

// keepdims must be a bool.
func.func @f(%a: tensor<4x8xf32>) -> tensor<4x1xf32> {
  // expected-error@+1 {{sum: attribute 'keepdims' must be a bool, got 1 : i64}}
  %0 = "strata.sum"(%a) {axes = array<i64: 1>, keepdims = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// axis must be an integer.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{softmax: attribute 'axis' must be an integer, got 1.000000e+00 : f32}}
  %0 = "strata.softmax"(%a) {axis = 1.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// epsilon must be a float.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{layer_norm: attribute 'epsilon' must be a float, got 1 : i64}}
  %0 = "strata.layer_norm"(%a, %a, %a) {epsilon = 1 : i64} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// approximate must be a string.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{gelu: attribute 'approximate' must be a string, got 1 : i64}}
  %0 = "strata.gelu"(%a) {approximate = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// An i64 array attribute given as i32.
func.func @f(%a: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{transpose: attribute 'permutation' must be an array<i64: ...>, got array<i32: 1, 0>}}
  %0 = "strata.transpose"(%a) {permutation = array<i32: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// IRDL: a required attribute is missing.
func.func @f(%a: tensor<4xf32>) -> tensor<f32> {
  // expected-error@+1 {{'strata.sum' op attribute "axes" is expected but not provided}}
  %0 = "strata.sum"(%a) : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// IRDL: a required attribute is missing (conv2d layout).
func.func @f(%a: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error@+1 {{'strata.conv2d' op attribute "layout" is expected but not provided}}
  %0 = "strata.conv2d"(%a, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// IRDL: an attribute of the wrong base kind.
func.func @f(%a: tensor<4xf32>) -> tensor<f32> {
  // expected-error@+1 {{expected base attribute 'builtin.dense_array' but got 'builtin.array'}}
  %0 = "strata.sum"(%a) {axes = [0]} : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// IRDL: a string attribute given as an integer.
func.func @f(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error@+1 {{expected base attribute 'builtin.string' but got 'builtin.integer'}}
  %0 = "strata.compare"(%a, %a) {predicate = 0 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// IRDL: a non-tensor operand.
func.func @f(%a: f32) -> tensor<4xf32> {
  // expected-error@+1 {{expected base type 'builtin.tensor' but got 'builtin.f32'}}
  %0 = "strata.neg"(%a) : (f32) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// IRDL: an unranked tensor operand.
func.func @f(%a: tensor<*xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{expected base type 'builtin.tensor' but got 'builtin.unranked_tensor'}}
  %0 = "strata.abs"(%a) : (tensor<*xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// IRDL: a non-tensor result.
func.func @f(%a: tensor<4xf32>) -> f32 {
  // expected-error@+1 {{expected base type 'builtin.tensor' but got 'builtin.f32'}}
  %0 = "strata.relu"(%a) : (tensor<4xf32>) -> f32
  return %0 : f32
}

// -----

// IRDL: the wrong number of operands.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{op expects exactly 1 operands, but got 2}}
  %0 = "strata.neg"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// An unknown strata op.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{unregistered operation 'strata.bogus' found in dialect ('strata') that does not allow unknown operations}}
  %0 = "strata.bogus"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
