// RUN: strata-opt %s --split-input-file --strata-prefetch-rows | FileCheck %s
// RUN: strata-opt %s --split-input-file --strata-prefetch-rows=min-bytes=0 | FileCheck %s --check-prefix=OFF
// RUN: not strata-opt %s '--strata-prefetch-rows=min-bytes=-1' 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: error: strata-prefetch-rows: option 'min-bytes' must be at least 0, got -1

// A row loop that reads each row of a 32 MiB buffer once, a vector at a time: each read
// also prefetches the same columns of the next row, clamped to the last row, one prefetch
// per 64-byte line (32 f32: two).
// CHECK-LABEL: func.func @stream
// CHECK-SAME: (%[[X:[a-z0-9]+]]: memref<2048x4096xf32>
// CHECK: %[[C1:.+]] = arith.constant 1 : index
// CHECK: scf.for %[[R:.+]] = %{{.+}} to %{{.+}} step %[[C1]]
// CHECK: scf.for %[[C:.+]] = %{{.+}} to %{{.+}} step %{{.+}}
// CHECK: %[[ROW:.+]] = memref.subview %[[X]][%[[R]], %[[C]]] [1, 32] [1, 1]
// CHECK: %[[LAST:.+]] = arith.constant 2047 : index
// CHECK: %[[NEXT:.+]] = arith.addi %[[R]], %[[C1]] : index
// CHECK: %[[N:.+]] = arith.minsi %[[NEXT]], %[[LAST]] : index
// CHECK: memref.prefetch %[[X]][%[[N]], %[[C]]], read, locality<3>, data : memref<2048x4096xf32>
// CHECK: %[[C16:.+]] = arith.constant 16 : index
// CHECK: %[[C2:.+]] = arith.addi %[[C]], %[[C16]] : index
// CHECK: memref.prefetch %[[X]][%[[N]], %[[C2]]], read, locality<3>, data : memref<2048x4096xf32>
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_read %[[ROW]]
// CHECK-NOT: memref.prefetch
// CHECK: return
// OFF-LABEL: func.func @stream
// OFF-NOT: memref.prefetch
// OFF: return
func.func @stream(%x: memref<2048x4096xf32>, %y: memref<2048x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c2048 = arith.constant 2048 : index
  %c4096 = arith.constant 4096 : index
  %pad = arith.constant 0.0 : f32
  scf.for %r = %c0 to %c2048 step %c1 {
    scf.for %c = %c0 to %c4096 step %c32 {
      %row = memref.subview %x[%r, %c] [1, 32] [1, 1] : memref<2048x4096xf32> to memref<1x32xf32, strided<[4096, 1], offset: ?>>
      %v = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[4096, 1], offset: ?>>, vector<1x32xf32>
      %out = memref.subview %y[%r, %c] [1, 32] [1, 1] : memref<2048x4096xf32> to memref<1x32xf32, strided<[4096, 1], offset: ?>>
      vector.transfer_write %v, %out[%c0, %c0] {in_bounds = [true, true]} : vector<1x32xf32>, memref<1x32xf32, strided<[4096, 1], offset: ?>>
    }
  }
  return
}

// -----

// Each thread's block of rows (a view of the whole buffer): the next row of the block,
// clamped to the block's last row.
// CHECK-LABEL: func.func @thread_blocks
// CHECK: scf.forall
// CHECK: %[[BLOCK:.+]] = memref.subview %{{.+}}[%{{.+}}, 0] [1024, 4096] [1, 1]
// CHECK: scf.for %[[R:.+]] = %{{.+}} to %{{.+}} step %{{.+}}
// CHECK: scf.for %[[C:.+]] = %{{.+}} to %{{.+}} step %{{.+}}
// CHECK: %[[LAST:.+]] = arith.constant 1023 : index
// CHECK: %[[N:.+]] = arith.minsi %{{.+}}, %[[LAST]] : index
// CHECK: memref.prefetch %[[BLOCK]][%[[N]], %[[C]]], read, locality<3>, data
// CHECK: return
func.func @thread_blocks(%x: memref<2048x4096xf32>, %y: memref<2048x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c1024 = arith.constant 1024 : index
  %c4096 = arith.constant 4096 : index
  %pad = arith.constant 0.0 : f32
  scf.forall (%t) in (2) {
    %first = arith.muli %t, %c1024 : index
    %block = memref.subview %x[%first, 0] [1024, 4096] [1, 1] : memref<2048x4096xf32> to memref<1024x4096xf32, strided<[4096, 1], offset: ?>>
    %out = memref.subview %y[%first, 0] [1024, 4096] [1, 1] : memref<2048x4096xf32> to memref<1024x4096xf32, strided<[4096, 1], offset: ?>>
    scf.for %r = %c0 to %c1024 step %c1 {
      scf.for %c = %c0 to %c4096 step %c32 {
        %row = memref.subview %block[%r, %c] [1, 32] [1, 1] : memref<1024x4096xf32, strided<[4096, 1], offset: ?>> to memref<1x32xf32, strided<[4096, 1], offset: ?>>
        %v = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[4096, 1], offset: ?>>, vector<1x32xf32>
        %o = memref.subview %out[%r, %c] [1, 32] [1, 1] : memref<1024x4096xf32, strided<[4096, 1], offset: ?>> to memref<1x32xf32, strided<[4096, 1], offset: ?>>
        vector.transfer_write %v, %o[%c0, %c0] {in_bounds = [true, true]} : vector<1x32xf32>, memref<1x32xf32, strided<[4096, 1], offset: ?>>
      }
    }
  }
  return
}

// -----

// Two sweeps over each row (a row kernel): the second finds the row in cache, so
// neither read prefetches.
// CHECK-LABEL: func.func @two_sweeps
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @two_sweeps(%x: memref<2048x4096xf32>, %y: memref<2048x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c2048 = arith.constant 2048 : index
  %c4096 = arith.constant 4096 : index
  %pad = arith.constant 0.0 : f32
  scf.for %r = %c0 to %c2048 step %c1 {
    scf.for %c = %c0 to %c4096 step %c32 {
      %row = memref.subview %x[%r, %c] [1, 32] [1, 1] : memref<2048x4096xf32> to memref<1x32xf32, strided<[4096, 1], offset: ?>>
      %v = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[4096, 1], offset: ?>>, vector<1x32xf32>
      %out = memref.subview %y[%r, %c] [1, 32] [1, 1] : memref<2048x4096xf32> to memref<1x32xf32, strided<[4096, 1], offset: ?>>
      vector.transfer_write %v, %out[%c0, %c0] {in_bounds = [true, true]} : vector<1x32xf32>, memref<1x32xf32, strided<[4096, 1], offset: ?>>
    }
    scf.for %c = %c0 to %c4096 step %c32 {
      %row = memref.subview %x[%r, %c] [1, 32] [1, 1] : memref<2048x4096xf32> to memref<1x32xf32, strided<[4096, 1], offset: ?>>
      %v = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[4096, 1], offset: ?>>, vector<1x32xf32>
      %out = memref.subview %y[%r, %c] [1, 32] [1, 1] : memref<2048x4096xf32> to memref<1x32xf32, strided<[4096, 1], offset: ?>>
      vector.transfer_write %v, %out[%c0, %c0] {in_bounds = [true, true]} : vector<1x32xf32>, memref<1x32xf32, strided<[4096, 1], offset: ?>>
    }
  }
  return
}

// -----

// A 1 MiB buffer (below min-bytes, 4 MiB by default) stays in L2: no prefetch. Nor where
// the row offset is not a loop's induction variable.
// CHECK-LABEL: func.func @small_or_fixed_row
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @small_or_fixed_row(%s: memref<64x4096xf32>, %x: memref<2048x4096xf32>, %y: memref<2048x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c4096 = arith.constant 4096 : index
  %pad = arith.constant 0.0 : f32
  scf.for %r = %c0 to %c64 step %c1 {
    scf.for %c = %c0 to %c4096 step %c32 {
      %row = memref.subview %s[%r, %c] [1, 32] [1, 1] : memref<64x4096xf32> to memref<1x32xf32, strided<[4096, 1], offset: ?>>
      %v = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[4096, 1], offset: ?>>, vector<1x32xf32>
      %fixed = memref.subview %x[%c5, %c] [1, 32] [1, 1] : memref<2048x4096xf32> to memref<1x32xf32, strided<[4096, 1], offset: ?>>
      %w = vector.transfer_read %fixed[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[4096, 1], offset: ?>>, vector<1x32xf32>
      %sum = arith.addf %v, %w : vector<1x32xf32>
      %out = memref.subview %y[%r, %c] [1, 32] [1, 1] : memref<2048x4096xf32> to memref<1x32xf32, strided<[4096, 1], offset: ?>>
      vector.transfer_write %sum, %out[%c0, %c0] {in_bounds = [true, true]} : vector<1x32xf32>, memref<1x32xf32, strided<[4096, 1], offset: ?>>
    }
  }
  return
}

// -----

// An uneven split: a thread's block has a dynamic row count; the clamp is its dim - 1.
// CHECK-LABEL: func.func @uneven_blocks
// CHECK: %[[BLOCK:.+]] = memref.subview %{{.+}}[%{{.+}}, 0] [%[[N:.+]], 4096] [1, 1]
// CHECK: scf.for %[[R:.+]] = %{{.+}} to %[[N]] step %{{.+}}
// CHECK: scf.for %[[C:.+]] = %{{.+}} to %{{.+}} step %{{.+}}
// CHECK: %[[D:.+]] = memref.dim %[[BLOCK]], %{{.+}} : memref<?x4096xf32
// CHECK: %[[LAST:.+]] = arith.subi %[[D]], %{{.+}} : index
// CHECK: %[[NEXT:.+]] = arith.addi %[[R]], %{{.+}} : index
// CHECK: %[[P:.+]] = arith.minsi %[[NEXT]], %[[LAST]] : index
// CHECK: memref.prefetch %[[BLOCK]][%[[P]], %[[C]]], read, locality<3>, data
// CHECK: return
func.func @uneven_blocks(%x: memref<2049x4096xf32>, %y: memref<2049x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c1025 = arith.constant 1025 : index
  %c2049 = arith.constant 2049 : index
  %c4096 = arith.constant 4096 : index
  %pad = arith.constant 0.0 : f32
  scf.forall (%t) in (2) {
    %first = arith.muli %t, %c1025 : index
    %end = arith.minsi %c2049, %c1025 : index
    %n = arith.subi %end, %t : index
    %block = memref.subview %x[%first, 0] [%n, 4096] [1, 1] : memref<2049x4096xf32> to memref<?x4096xf32, strided<[4096, 1], offset: ?>>
    %out = memref.subview %y[%first, 0] [%n, 4096] [1, 1] : memref<2049x4096xf32> to memref<?x4096xf32, strided<[4096, 1], offset: ?>>
    scf.for %r = %c0 to %n step %c1 {
      scf.for %c = %c0 to %c4096 step %c32 {
        %row = memref.subview %block[%r, %c] [1, 32] [1, 1] : memref<?x4096xf32, strided<[4096, 1], offset: ?>> to memref<1x32xf32, strided<[4096, 1], offset: ?>>
        %v = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[4096, 1], offset: ?>>, vector<1x32xf32>
        %o = memref.subview %out[%r, %c] [1, 32] [1, 1] : memref<?x4096xf32, strided<[4096, 1], offset: ?>> to memref<1x32xf32, strided<[4096, 1], offset: ?>>
        vector.transfer_write %v, %o[%c0, %c0] {in_bounds = [true, true]} : vector<1x32xf32>, memref<1x32xf32, strided<[4096, 1], offset: ?>>
      }
    }
  }
  return
}

// -----

// A packed matmul micro-kernel: the K loop reads one K step ("row") of each packed panel
// (8 MiB of A panels, 8 MiB of B panels) into a vector.contract. The panels are packed to
// stay in cache: no prefetch, no clamped index in the FMA loop.
// CHECK-LABEL: func.func @micro_kernel
// CHECK: scf.for
// CHECK-NOT: memref.prefetch
// CHECK-NOT: arith.minsi
// CHECK: vector.contract
// CHECK: return
func.func @micro_kernel(%a: memref<128x1024x8xf32>, %b: memref<64x1024x32xf32>, %c: memref<8x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %pad = arith.constant 0.0 : f32
  %init = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x32xf32>, vector<8x32xf32>
  %acc = scf.for %k = %c0 to %c1024 step %c1 iter_args(%sum = %init) -> (vector<8x32xf32>) {
    %ak = memref.subview %a[0, %k, 0] [1, 1, 8] [1, 1, 1] : memref<128x1024x8xf32> to memref<1x1x8xf32, strided<[8192, 8, 1], offset: ?>>
    %bk = memref.subview %b[0, %k, 0] [1, 1, 32] [1, 1, 1] : memref<64x1024x32xf32> to memref<1x1x32xf32, strided<[32768, 32, 1], offset: ?>>
    %va = vector.transfer_read %ak[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x8xf32, strided<[8192, 8, 1], offset: ?>>, vector<8xf32>
    %vb = vector.transfer_read %bk[%c0, %c0, %c0], %pad {in_bounds = [true]} : memref<1x1x32xf32, strided<[32768, 32, 1], offset: ?>>, vector<32xf32>
    %ea = vector.broadcast %va : vector<8xf32> to vector<1x8xf32>
    %eb = vector.broadcast %vb : vector<32xf32> to vector<1x32xf32>
    %next = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>], iterator_types = ["reduction", "parallel", "parallel"], kind = #vector.kind<add>} %ea, %eb, %sum : vector<1x8xf32>, vector<1x32xf32> into vector<8x32xf32>
    scf.yield %next : vector<8x32xf32>
  }
  vector.transfer_write %acc, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<8x32xf32>
  return
}
