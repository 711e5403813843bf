// RUN: strata-opt %s '--strata-attention=tuned=2x10x10x4x3xf32:bq8.bk2' | FileCheck %s
// RUN: strata-opt %s '--strata-attention=block-q=4 block-k=4 tuned=2x10x10x4x3xf32:bk8' | FileCheck %s --check-prefix=KEYS
// RUN: strata-opt %s '--strata-attention=block-q=4 block-k=4 tuned=9x10x10x4x3xf32:bq2' | FileCheck %s --check-prefix=OTHER

// strata-attention reads the bq/bk knobs of autotuning's tuned text (passes/tuning.py)
// for the attention of its signature (heads x queries x keys x head dim x value dim):
// they override block-q/block-k and the host's choice; a knob the text does not give
// keeps the option's (the second run: 4 queries, 8 keys); another signature changes nothing.

// CHECK-LABEL: func.func @attn
// CHECK: tensor.extract_slice %{{.+}}[%{{.+}}, %{{.+}}, 0] [1, 8, 4] [1, 1, 1] : tensor<2x10x4xf32> to tensor<8x4xf32>
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x4xf32>, tensor<4x2xf32>) outs(%{{.+}} : tensor<8x2xf32>)
// CHECK-NOT: linalg.softmax
// CHECK: return
// KEYS-LABEL: func.func @attn
// KEYS: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x4xf32>, tensor<4x8xf32>) outs(%{{.+}} : tensor<4x8xf32>)
// KEYS: return
// OTHER-LABEL: func.func @attn
// OTHER: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%{{.+}} : tensor<4x4xf32>)
// OTHER: return
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> ()>
func.func @attn(%arg0: tensor<2x10x4xf32>, %arg1: tensor<2x10x4xf32>, %arg2: tensor<2x10x3xf32>) -> tensor<2x10x3xf32> {
  %cst = arith.constant dense<5.000000e-01> : tensor<f32>
  %cst_0 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x4x10xf32>
  %transposed = linalg.transpose ins(%arg1 : tensor<2x10x4xf32>) outs(%0 : tensor<2x4x10xf32>) permutation = [0, 2, 1]
  %1 = tensor.empty() : tensor<2x10x10xf32>
  %2 = linalg.fill ins(%cst_0 : f32) outs(%1 : tensor<2x10x10xf32>) -> tensor<2x10x10xf32>
  %3 = linalg.batch_matmul ins(%arg0, %transposed : tensor<2x10x4xf32>, tensor<2x4x10xf32>) outs(%2 : tensor<2x10x10xf32>) -> tensor<2x10x10xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%3, %cst : tensor<2x10x10xf32>, tensor<f32>) outs(%1 : tensor<2x10x10xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %9 = arith.mulf %in, %in_1 : f32
    linalg.yield %9 : f32
  } -> tensor<2x10x10xf32>
  %5 = linalg.softmax dimension(2) ins(%4 : tensor<2x10x10xf32>) outs(%1 : tensor<2x10x10xf32>) -> tensor<2x10x10xf32>
  %6 = tensor.empty() : tensor<2x10x3xf32>
  %7 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<2x10x3xf32>) -> tensor<2x10x3xf32>
  %8 = linalg.batch_matmul ins(%5, %arg2 : tensor<2x10x10xf32>, tensor<2x10x3xf32>) outs(%7 : tensor<2x10x3xf32>) -> tensor<2x10x3xf32>
  return %8 : tensor<2x10x3xf32>
}
