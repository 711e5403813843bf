// A matmul vectorized by hand as vector.contract, lowered to outer products or FMAs.
// RUN: %opt %s --canonicalize
// RUN: %opt %s --convert-vector-to-llvm

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

func.func @mm(%x: vector<2x4xf32>, %y: vector<4x3xf32>, %acc: vector<2x3xf32>) -> vector<2x3xf32> {
  %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>}
      %x, %y, %acc : vector<2x4xf32>, vector<4x3xf32> into vector<2x3xf32>
  return %r : vector<2x3xf32>
}
