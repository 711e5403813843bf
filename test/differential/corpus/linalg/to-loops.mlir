// linalg on buffers to scf loops, to affine loops, to parallel loops.
// RUN: %opt %s --convert-linalg-to-loops
// RUN: %opt %s --convert-linalg-to-affine-loops
// RUN: %opt %s --convert-linalg-to-parallel-loops --canonicalize

func.func @mm(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

func.func @fill(%m: memref<32xf32>, %v: f32) {
  linalg.fill ins(%v : f32) outs(%m : memref<32xf32>)
  return
}
