// The generic convert-to-llvm pass over arith, func, cf, memref and index.
// RUN: %opt %s --convert-to-llvm
// RUN: %opt %s --convert-to-llvm --reconcile-unrealized-casts --canonicalize

func.func @f(%m: memref<4xi32>, %i: index) -> i32 {
  %v = memref.load %m[%i] : memref<4xi32>
  %w = arith.addi %v, %v : i32
  %j = index.add %i, %i
  %k = index.casts %j : index to i32
  %r = arith.addi %w, %k : i32
  return %r : i32
}
