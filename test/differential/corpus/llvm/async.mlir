// scf.parallel split into async tasks, then the async runtime calls.
// RUN: %opt %s --async-parallel-for='async-dispatch=false num-workers=2 min-task-size=1'
// RUN: %opt %s --async-parallel-for='async-dispatch=false num-workers=2 min-task-size=1' --async-to-async-runtime --async-runtime-ref-counting --async-runtime-ref-counting-opt --convert-async-to-llvm --canonicalize

func.func @f(%m: memref<64xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    memref.store %v, %m[%i] : memref<64xf32>
    scf.reduce
  }
  return
}
