// RUN: strata-opt %s --split-input-file --strata-gpu-host=resident=true | FileCheck %s

// Resident mode: arguments are already device buffers (no copies in), each
// result becomes a trailing out-param; a returned local alloc is replaced by its
// out-param, so the kernel writes the caller's device buffer directly.
// CHECK-LABEL: func.func @scale
// CHECK-SAME: (%[[A:.+]]: memref<256xf32>, %[[OUT:.+]]: memref<256xf32>) {
// CHECK-NOT: gpu.memcpy %{{.+}}, %[[A]]
// CHECK: %[[W:.+]] = memref.get_global @w : memref<256xf32>
// CHECK: %[[DW:.+]] = gpu.alloc () : memref<256xf32>
// CHECK: gpu.memcpy %[[DW]], %[[W]] : memref<256xf32>, memref<256xf32>
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK: memref.load %[[A]]
// CHECK: memref.load %[[DW]]
// CHECK: memref.store %{{.+}}, %[[OUT]]
// CHECK: gpu.terminator
// CHECK-NOT: gpu.memcpy
// CHECK: gpu.dealloc %[[DW]] : memref<256xf32>
// CHECK-NEXT: return{{$}}
module {
  memref.global "private" constant @w : memref<256xf32> = dense<2.0>
  func.func @scale(%a: memref<256xf32>) -> memref<256xf32> {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %w = memref.get_global @w : memref<256xf32>
    %r = memref.alloc() : memref<256xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
      %x = memref.load %a[%tx] : memref<256xf32>
      %y = memref.load %w[%tx] : memref<256xf32>
      %p = arith.mulf %x, %y : f32
      memref.store %p, %r[%tx] : memref<256xf32>
      gpu.terminator
    }
    return %r : memref<256xf32>
  }
}

// -----

// A result that is an argument, or the same buffer returned twice, is copied
// into its out-param on the device (device to device); the first use of the
// buffer keeps the out-param's place only when it is returned once.
// CHECK-LABEL: func.func @twice
// CHECK-SAME: (%[[A:.+]]: memref<8xf32>, %[[O0:.+]]: memref<8xf32>, %[[O1:.+]]: memref<8xf32>, %[[O2:.+]]: memref<8xf32>) {
// CHECK: %[[R:.+]] = gpu.alloc () : memref<8xf32>
// CHECK: gpu.launch
// CHECK: memref.store %{{.+}}, %[[R]]
// CHECK: gpu.memcpy %[[O0]], %[[R]]
// CHECK: gpu.memcpy %[[O1]], %[[R]]
// CHECK: gpu.memcpy %[[O2]], %[[A]]
// CHECK: gpu.dealloc %[[R]]
// CHECK: return{{$}}
func.func @twice(%a: memref<8xf32>) -> (memref<8xf32>, memref<8xf32>, memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r = memref.alloc() : memref<8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%tx] : memref<8xf32>
    memref.store %x, %r[%tx] : memref<8xf32>
    gpu.terminator
  }
  return %r, %r, %a : memref<8xf32>, memref<8xf32>, memref<8xf32>
}
