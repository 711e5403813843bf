// RUN: not strata-opt %s --strata-gpu-host 2>&1 | FileCheck %s --check-prefix=ERR

// A host op reading a device buffer is an error (it was not mapped to a kernel).
// ERR: error: strata-gpu-host: 'memref.load' runs on the host but its buffer is in device memory
func.func @host_read(%a: memref<256xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %z = arith.constant 0.0 : f32
    memref.store %z, %a[%c0] : memref<256xf32>
    gpu.terminator
  }
  %v = memref.load %a[%c0] : memref<256xf32>
  return %v : f32
}
