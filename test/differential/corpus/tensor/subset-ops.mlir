// Subset ops folded into their producers and consumers (fold-tensor-subset-ops).
// RUN: %opt %s --fold-tensor-subset-ops
// RUN: %opt %s --fold-tensor-subset-ops --canonicalize

func.func @read(%t: tensor<16x16xf32>, %i: index) -> vector<4xf32> {
  %pad = arith.constant 0.0 : f32
  %s = tensor.extract_slice %t[%i, 0] [4, 16] [1, 1] : tensor<16x16xf32> to tensor<4x16xf32>
  %c0 = arith.constant 0 : index
  %v = vector.transfer_read %s[%c0, %c0], %pad {in_bounds = [true]} : tensor<4x16xf32>, vector<4xf32>
  return %v : vector<4xf32>
}
