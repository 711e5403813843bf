// Collapse/expand pairs cancel; constants reshape in place.
// RUN: %opt %s --canonicalize
// RUN: %opt %s --canonicalize --mlir-elide-elementsattrs-if-larger=4

func.func @pair(%t: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %c = tensor.collapse_shape %t [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %e = tensor.expand_shape %c [[0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
  return %e : tensor<2x3x4xf32>
}

func.func @const() -> tensor<2x4xi32> {
  %k = arith.constant dense<[1, 2, 3, 4, 5, 6, 7, 8]> : tensor<8xi32>
  %e = tensor.expand_shape %k [[0, 1]] output_shape [2, 4] : tensor<8xi32> into tensor<2x4xi32>
  return %e : tensor<2x4xi32>
}
