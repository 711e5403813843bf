// Loop-invariant code moves out of the loop.
// RUN: %opt %s --loop-invariant-code-motion
// RUN: %opt %s --loop-invariant-code-motion --cse --canonicalize

func.func @hoist(%buf: memref<?xf32>, %n: index, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %sq = arith.mulf %x, %x : f32
    %two = arith.addf %sq, %sq : f32
    memref.store %two, %buf[%i] : memref<?xf32>
  }
  return
}
