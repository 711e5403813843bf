// RUN: strata-opt %s --split-input-file --verify-diagnostics --strata-gpu-host=resident=true

// Resident mode changes the signature, so a function with callers is refused.
// expected-error@+1 {{strata-gpu-host: resident=true needs a function with no callers (its signature changes)}}
func.func @callee(%a: memref<4xf32>) -> memref<4xf32> {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return %a : memref<4xf32>
}
func.func @caller(%a: memref<4xf32>) -> memref<4xf32> {
  %r = func.call @callee(%a) : (memref<4xf32>) -> memref<4xf32>
  return %r : memref<4xf32>
}

// -----

// Out-params need a static shape (the caller allocates them).
func.func @dynamic(%a: memref<?xf32>) -> memref<?xf32> {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  // expected-error@+1 {{strata-gpu-host: resident=true needs results that are memrefs of static shape}}
  return %a : memref<?xf32>
}
