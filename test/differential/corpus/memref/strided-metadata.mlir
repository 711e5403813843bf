// Subviews and reshapes of memrefs expanded into their strided metadata.
// RUN: %opt %s --expand-strided-metadata
// RUN: %opt %s --expand-strided-metadata --canonicalize --cse

func.func @views(%m: memref<8x16xf32>, %i: index) -> (memref<4x4xf32, strided<[16, 1], offset: ?>>, memref<128xf32>) {
  %s = memref.subview %m[%i, 4] [4, 4] [1, 1] : memref<8x16xf32> to memref<4x4xf32, strided<[16, 1], offset: ?>>
  %c = memref.collapse_shape %m [[0, 1]] : memref<8x16xf32> into memref<128xf32>
  return %s, %c : memref<4x4xf32, strided<[16, 1], offset: ?>>, memref<128xf32>
}
