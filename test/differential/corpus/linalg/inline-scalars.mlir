// A 0-d operand of a generic becomes a scalar inside its body.
// RUN: %opt %s --linalg-inline-scalar-operands
// RUN: %opt %s --linalg-inline-scalar-operands --canonicalize --mlir-print-op-generic

#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>

func.func @scale(%x: tensor<16xf32>, %s: tensor<f32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %r = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel"]}
      ins(%x, %s : tensor<16xf32>, tensor<f32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}
