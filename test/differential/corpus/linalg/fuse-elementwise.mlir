// Producer/consumer elementwise generics fuse into one.
// RUN: %opt %s --linalg-fuse-elementwise-ops
// RUN: %opt %s --pass-pipeline='builtin.module(func.func(linalg-fuse-elementwise-ops, canonicalize, cse))'

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @chain(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<8x8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<8x8xf32>
  return %b : tensor<8x8xf32>
}
