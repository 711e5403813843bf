// tensor.dim of ops with known result shapes resolves to their operands.
// RUN: %opt %s --resolve-shaped-type-result-dims
// RUN: %opt %s --resolve-ranked-shaped-type-result-dims --canonicalize

func.func @dims(%t: tensor<?x?xf32>, %n: index) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty(%n) : tensor<4x?xf32>
  %d0 = tensor.dim %e, %c1 : tensor<4x?xf32>
  %p = tensor.pad %t low[1, 2] high[3, 4] {
  ^bb0(%i: index, %j: index):
    %z = arith.constant 0.0 : f32
    tensor.yield %z : f32
  } : tensor<?x?xf32> to tensor<?x?xf32>
  %d1 = tensor.dim %p, %c0 : tensor<?x?xf32>
  return %d0, %d1 : index, index
}
