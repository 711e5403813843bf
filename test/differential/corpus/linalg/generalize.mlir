// Named linalg ops become linalg.generic; specialize-generic-ops goes back.
// RUN: %opt %s --linalg-generalize-named-ops
// RUN: %opt %s --linalg-generalize-named-ops --linalg-specialize-generic-ops

func.func @mm(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

func.func @add(%a: tensor<16xf32>, %b: tensor<16xf32>, %c: tensor<16xf32>) -> tensor<16xf32> {
  %r = linalg.add ins(%a, %b : tensor<16xf32>, tensor<16xf32>) outs(%c : tensor<16xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}
