// extract_slice of insert_slice, full slices and casts fold away.
// RUN: %opt %s --canonicalize
// RUN: %opt %s --canonicalize --cse --mlir-print-debuginfo

func.func @roundtrip(%t: tensor<8x16xf32>, %s: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %i = tensor.insert_slice %s into %t[0, 0] [4, 16] [1, 1] : tensor<4x16xf32> into tensor<8x16xf32>
  %e = tensor.extract_slice %i[0, 0] [4, 16] [1, 1] : tensor<8x16xf32> to tensor<4x16xf32>
  return %e : tensor<4x16xf32>
}

func.func @full(%t: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.extract_slice %t[0, 0] [8, 16] [1, 1] : tensor<8x16xf32> to tensor<8x16xf32>
  %c = tensor.cast %e : tensor<8x16xf32> to tensor<?x16xf32>
  %d = tensor.cast %c : tensor<?x16xf32> to tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}
