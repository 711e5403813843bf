// tensor ops bufferized into memref ops.
// RUN: %opt %s --one-shot-bufferize
// RUN: %opt %s --one-shot-bufferize='bufferize-function-boundaries' --canonicalize

func.func @f(%t: tensor<8xf32>, %v: f32, %i: index) -> (tensor<8xf32>, f32) {
  %e = tensor.empty() : tensor<8xf32>
  %w = tensor.insert %v into %t[%i] : tensor<8xf32>
  %x = tensor.extract %w[%i] : tensor<8xf32>
  return %w, %x : tensor<8xf32>, f32
}
