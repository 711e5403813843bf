// memref.cast and dim folds; dead allocations erased.
// RUN: %opt %s --canonicalize
// RUN: %opt %s --canonicalize --mlir-print-debuginfo

func.func @f(%m: memref<8xf32>) -> index {
  %c = memref.cast %m : memref<8xf32> to memref<?xf32>
  %c0 = arith.constant 0 : index
  %d = memref.dim %c, %c0 : memref<?xf32>
  %dead = memref.alloc() : memref<32xf32>
  return %d : index
}
