// scf.forall to scf.for and to scf.parallel.
// RUN: %opt %s --scf-forall-to-for
// RUN: %opt %s --scf-forall-to-parallel
// RUN: %opt %s --scf-forall-to-parallel --canonicalize

func.func @fill(%m: memref<8x4xf32>, %v: f32) {
  scf.forall (%i, %j) in (8, 4) {
    memref.store %v, %m[%i, %j] : memref<8x4xf32>
  }
  return
}
