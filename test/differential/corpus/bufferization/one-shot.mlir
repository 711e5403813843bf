// One-shot bufferization decides in-place writes; an out-of-place one gets a copy.
// RUN: %opt %s --one-shot-bufferize='bufferize-function-boundaries'
// RUN: %opt %s --one-shot-bufferize='bufferize-function-boundaries test-analysis-only'

func.func @twice(%t: tensor<4xf32>, %v: f32) -> (tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %a = tensor.insert %v into %t[%c0] : tensor<4xf32>
  %b = tensor.insert %v into %t[%c0] : tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
