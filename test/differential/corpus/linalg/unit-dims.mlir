// Unit extent dims are folded away (reshapes around a smaller generic).
// RUN: %opt %s --linalg-fold-unit-extent-dims
// RUN: %opt %s --linalg-fold-unit-extent-dims --canonicalize --cse

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

func.func @f(%x: tensor<1x8x1xf32>) -> tensor<1x8x1xf32> {
  %e = tensor.empty() : tensor<1x8x1xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x8x1xf32>) outs(%e : tensor<1x8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = math.absf %in : f32
    linalg.yield %a : f32
  } -> tensor<1x8x1xf32>
  return %r : tensor<1x8x1xf32>
}
