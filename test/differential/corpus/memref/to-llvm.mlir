// memref alloc, load, store, dealloc to the LLVM dialect.
// RUN: %opt %s --finalize-memref-to-llvm
// RUN: %opt %s --finalize-memref-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts

func.func @f(%n: index, %v: f32) -> f32 {
  %m = memref.alloc(%n) : memref<?xf32>
  %c0 = arith.constant 0 : index
  memref.store %v, %m[%c0] : memref<?xf32>
  %r = memref.load %m[%c0] : memref<?xf32>
  memref.dealloc %m : memref<?xf32>
  return %r : f32
}
