// Sibling scf.parallel loops over the same space fuse; canonicalize folds unit dims.
// RUN: %opt %s --pass-pipeline='builtin.module(func.func(scf-parallel-loop-fusion))'
// RUN: %opt %s --canonicalize

func.func @two(%a: memref<16xf32>, %b: memref<16xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    memref.store %v, %a[%i] : memref<16xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %x = memref.load %a[%i] : memref<16xf32>
    memref.store %x, %b[%i] : memref<16xf32>
    scf.reduce
  }
  return
}
