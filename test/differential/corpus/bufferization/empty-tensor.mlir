// tensor.empty uses rewritten to reuse the destination before bufferization.
// RUN: %opt %s --eliminate-empty-tensors
// RUN: %opt %s --empty-tensor-to-alloc-tensor

func.func @into(%dest: tensor<16xf32>, %v: f32) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = tensor.insert_slice %f into %dest[0] [8] [1] : tensor<8xf32> into tensor<16xf32>
  return %r : tensor<16xf32>
}
