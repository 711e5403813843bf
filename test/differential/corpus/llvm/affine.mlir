// affine loops and maps lowered to scf and arith, then to LLVM.
// RUN: %opt %s --lower-affine
// RUN: %opt %s --lower-affine --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts

#map = affine_map<(d0)[s0] -> (d0 * 2 + s0)>

func.func @f(%m: memref<64xf32>, %off: index, %v: f32) {
  affine.for %i = 0 to 16 {
    %j = affine.apply #map(%i)[%off]
    memref.store %v, %m[%j] : memref<64xf32>
  }
  return
}
