// Loop peeling splits off the partial last iteration of a loop with a dynamic bound.
// RUN: %opt %s --scf-for-loop-peeling
// RUN: %opt %s --scf-for-loop-peeling --canonicalize

func.func @peel(%buf: memref<?xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %v = arith.constant 7 : i32
  scf.for %i = %c0 to %n step %c4 {
    memref.store %v, %buf[%i] : memref<?xi32>
  }
  return
}
