// RUN: strata-opt %s --strata-gpu-host | FileCheck %s

// Arguments, allocations and constants used by kernels live in device memory;
// the result is copied back into a fresh host buffer; every device buffer is freed.
// CHECK-LABEL: func.func @scale
// CHECK-SAME: (%[[A:.+]]: memref<256xf32>) -> memref<256xf32>
// CHECK: %[[DA:.+]] = gpu.alloc () : memref<256xf32>
// CHECK: gpu.memcpy %[[DA]], %[[A]] : memref<256xf32>, memref<256xf32>
// CHECK: %[[W:.+]] = memref.get_global @w : memref<256xf32>
// CHECK: %[[DW:.+]] = gpu.alloc () : memref<256xf32>
// CHECK: gpu.memcpy %[[DW]], %[[W]] : memref<256xf32>, memref<256xf32>
// CHECK: %[[DR:.+]] = gpu.alloc () : memref<256xf32>
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK: memref.load %[[DA]]
// CHECK: memref.load %[[DW]]
// CHECK: memref.store %{{.+}}, %[[DR]]
// CHECK: gpu.terminator
// CHECK: %[[H:.+]] = memref.alloc() : memref<256xf32>
// CHECK: gpu.memcpy %[[H]], %[[DR]] : memref<256xf32>, memref<256xf32>
// CHECK-DAG: gpu.dealloc %[[DA]] : memref<256xf32>
// CHECK-DAG: gpu.dealloc %[[DR]] : memref<256xf32>
// CHECK-DAG: gpu.dealloc %[[DW]] : memref<256xf32>
// CHECK-NOT: memref.dealloc
// CHECK: return %[[H]] : memref<256xf32>
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

