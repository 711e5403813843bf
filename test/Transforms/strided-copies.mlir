// RUN: strata-opt %s --split-input-file --strata-strided-copies | FileCheck %s

// A copy into a padded buffer's interior (strided target): linalg.copy.
// CHECK-LABEL: func.func @into_padded
// CHECK-SAME: (%[[A:[a-z0-9]+]]: memref<10x10xf32>, %[[P:[a-z0-9]+]]: memref<10x16xf32>)
// CHECK: %[[S:.+]] = memref.subview %[[P]][0, 0] [10, 10] [1, 1]
// CHECK-NOT: memref.copy
// CHECK: linalg.copy {{.*}}ins(%[[A]] : memref<10x10xf32>) outs(%[[S]] : memref<10x10xf32, strided<[16, 1]>>)
// CHECK-NOT: memref.copy
// CHECK: return
func.func @into_padded(%a: memref<10x10xf32>, %p: memref<10x16xf32>) {
  %s = memref.subview %p[0, 0] [10, 10] [1, 1] : memref<10x16xf32> to memref<10x10xf32, strided<[16, 1]>>
  memref.copy %a, %s : memref<10x10xf32> to memref<10x10xf32, strided<[16, 1]>>
  return
}

// -----

// A strided source (a slice of a padded result), dynamic offset: linalg.copy.
// CHECK-LABEL: func.func @from_slice
// CHECK: linalg.copy {{.*}}ins(%{{.+}} : memref<4x8xf32, strided<[32, 1], offset: ?>>) outs(%{{.+}} : memref<4x8xf32>)
// CHECK-NOT: memref.copy
func.func @from_slice(%p: memref<4x32xf32, strided<[32, 1], offset: ?>>, %o: memref<4x8xf32>) {
  %s = memref.subview %p[0, 0] [4, 8] [1, 1] : memref<4x32xf32, strided<[32, 1], offset: ?>> to memref<4x8xf32, strided<[32, 1], offset: ?>>
  memref.copy %s, %o : memref<4x8xf32, strided<[32, 1], offset: ?>> to memref<4x8xf32>
  return
}

// -----

// Contiguous copies (a memcpy) and dynamic shapes stay memref.copy; a unit dim's
// stride does not matter.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: linalg.copy
// CHECK-COUNT-3: memref.copy
// CHECK-NOT: linalg.copy
// CHECK: return
func.func @left_alone(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %c: memref<?x8xf32>, %d: memref<?x8xf32, strided<[16, 1]>>,
                      %e: memref<1x8xf32, strided<[64, 1], offset: ?>>, %f: memref<1x8xf32>) {
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
  memref.copy %c, %d : memref<?x8xf32> to memref<?x8xf32, strided<[16, 1]>>
  memref.copy %e, %f : memref<1x8xf32, strided<[64, 1], offset: ?>> to memref<1x8xf32>
  return
}
