// Loads and stores through subviews folded into the original memref.
// RUN: %opt %s --fold-memref-alias-ops
// RUN: %opt %s --fold-memref-alias-ops --canonicalize

func.func @f(%m: memref<16x16xf32>, %i: index, %j: index, %v: f32) -> f32 {
  %s = memref.subview %m[4, 8] [8, 8] [1, 1] : memref<16x16xf32> to memref<8x8xf32, strided<[16, 1], offset: 72>>
  memref.store %v, %s[%i, %j] : memref<8x8xf32, strided<[16, 1], offset: 72>>
  %r = memref.load %s[%j, %i] : memref<8x8xf32, strided<[16, 1], offset: 72>>
  return %r : f32
}
