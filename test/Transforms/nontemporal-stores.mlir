// RUN: strata-opt %s --split-input-file --strata-nontemporal-stores | FileCheck %s
// RUN: strata-opt %s --split-input-file '--strata-nontemporal-stores=min-bytes=0' | FileCheck %s --check-prefix=OFF
// RUN: strata-opt %s --split-input-file --strata-nontemporal-stores --strata-lower-to-llvm=nontemporal-bytes=0 | FileCheck %s --check-prefix=LLVM
// RUN: not strata-opt %s --strata-nontemporal-stores=min-bytes=-1 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: strata-nontemporal-stores: option 'min-bytes' must be at least 0, got -1

// A row kernel's output (64 MiB), only ever written by full 64-lane writes at
// column offsets that are multiples of 64: the loop runs twice, the copy with
// aligned non-temporal stores when the output's base is 64-byte aligned.
// CHECK-LABEL: func.func @rows(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<4096x4096xf32>, %[[OUT:[a-z0-9]+]]: memref<4096x4096xf32>
// CHECK-DAG: %[[C63:.+]] = arith.constant 63 : index
// CHECK: %[[P:.+]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: %[[LOW:.+]] = arith.andi %[[P]], %[[C63]] : index
// CHECK: %[[OK:.+]] = arith.cmpi eq, %[[LOW]], %{{.+}} : index
// CHECK: scf.if %[[OK]] {
// CHECK: scf.forall (%[[I:.+]]) in (4096) {
// CHECK: %[[ROW:.+]] = memref.subview %[[OUT]][%[[I]], 0] [1, 4096] [1, 1]
// CHECK: scf.for %[[J:.+]] =
// CHECK: %[[V:.+]] = vector.transfer_read %[[X]][%[[I]], %[[J]]]
// CHECK: vector.store %[[V]], %[[ROW]][%{{.+}}, %[[J]]] {alignment = 64 : i64, nontemporal = true} : memref<1x4096xf32, strided<[4096, 1], offset: ?>>, vector<64xf32>
// CHECK-NOT: vector.transfer_write
// CHECK: } else {
// CHECK: scf.forall
// CHECK: vector.transfer_write %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}] {in_bounds = [true]}
// CHECK-NOT: nontemporal
// CHECK: return
// OFF-LABEL: func.func @rows(
// OFF-NOT: scf.if
// OFF-NOT: nontemporal
// LLVM-LABEL: llvm.func @rows(
// LLVM: llvm.store %{{.+}}, %{{.+}} {alignment = 64 : i64, nontemporal} : vector<64xf32>, !llvm.ptr
// LLVM: llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : vector<64xf32>, !llvm.ptr
func.func @rows(%x: memref<4096x4096xf32>, %out: memref<4096x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c4096 = arith.constant 4096 : index
  %pad = arith.constant 0.0 : f32
  scf.forall (%i) in (4096) {
    %row = memref.subview %out[%i, 0] [1, 4096] [1, 1] : memref<4096x4096xf32> to memref<1x4096xf32, strided<[4096, 1], offset: ?>>
    scf.for %j = %c0 to %c4096 step %c64 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<4096x4096xf32>, vector<64xf32>
      vector.transfer_write %v, %row[%c0, %j] {in_bounds = [true]} : vector<64xf32>, memref<1x4096xf32, strided<[4096, 1], offset: ?>>
    }
  }
  return
}

// -----

// An elementwise chain split in two chunks (a subview at row 2048 * k) and tiled by
// 1 x 32: the 2-D vector is stored as a 1-D one.
// CHECK-LABEL: func.func @chunks(
// CHECK: scf.if
// CHECK: %[[FLAT:.+]] = vector.shape_cast %{{.+}} : vector<1x32xf32> to vector<32xf32>
// CHECK: vector.store %[[FLAT]], %{{.+}}[%{{.+}}, %{{.+}}] {alignment = 64 : i64, nontemporal = true} : memref<1x32xf32, strided<[4096, 1], offset: ?>>, vector<32xf32>
// CHECK: } else {
// CHECK: vector.transfer_write
#map = affine_map<(d0) -> (d0 * 2048)>
func.func @chunks(%x: memref<4096x4096xf32>, %out: memref<4096x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c2048 = arith.constant 2048 : index
  %c4096 = arith.constant 4096 : index
  %pad = arith.constant 0.0 : f32
  scf.forall (%k) in (2) {
    %r = affine.apply #map(%k)
    %in = memref.subview %x[%r, 0] [2048, 4096] [1, 1] : memref<4096x4096xf32> to memref<2048x4096xf32, strided<[4096, 1], offset: ?>>
    %o = memref.subview %out[%r, 0] [2048, 4096] [1, 1] : memref<4096x4096xf32> to memref<2048x4096xf32, strided<[4096, 1], offset: ?>>
    scf.for %i = %c0 to %c2048 step %c1 {
      scf.for %j = %c0 to %c4096 step %c32 {
        %t = memref.subview %o[%i, %j] [1, 32] [1, 1] : memref<2048x4096xf32, strided<[4096, 1], offset: ?>> to memref<1x32xf32, strided<[4096, 1], offset: ?>>
        %v = vector.transfer_read %in[%i, %j], %pad {in_bounds = [true, true]} : memref<2048x4096xf32, strided<[4096, 1], offset: ?>>, vector<1x32xf32>
        vector.transfer_write %v, %t[%c0, %c0] {in_bounds = [true, true]} : vector<1x32xf32>, memref<1x32xf32, strided<[4096, 1], offset: ?>>
      }
    }
  }
  return
}

// -----

// The output is read back in the same function (softmax scales the exponentials it
// wrote): every store stays plain.
// CHECK-LABEL: func.func @read_back(
// CHECK-NOT: scf.if
// CHECK-NOT: nontemporal
// CHECK: return
func.func @read_back(%x: memref<4096x4096xf32>, %out: memref<4096x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c4096 = arith.constant 4096 : index
  %pad = arith.constant 0.0 : f32
  scf.forall (%i) in (4096) {
    %row = memref.subview %out[%i, 0] [1, 4096] [1, 1] : memref<4096x4096xf32> to memref<1x4096xf32, strided<[4096, 1], offset: ?>>
    scf.for %j = %c0 to %c4096 step %c64 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<4096x4096xf32>, vector<64xf32>
      vector.transfer_write %v, %row[%c0, %j] {in_bounds = [true]} : vector<64xf32>, memref<1x4096xf32, strided<[4096, 1], offset: ?>>
    }
    scf.for %j = %c0 to %c4096 step %c64 {
      %e = vector.transfer_read %row[%c0, %j], %pad {in_bounds = [true]} : memref<1x4096xf32, strided<[4096, 1], offset: ?>>, vector<64xf32>
      %s = arith.addf %e, %e : vector<64xf32>
      vector.transfer_write %s, %row[%c0, %j] {in_bounds = [true]} : vector<64xf32>, memref<1x4096xf32, strided<[4096, 1], offset: ?>>
    }
  }
  return
}

// -----

// Offsets not provably 64-byte aligned (rows start at column 8; a masked tail) and
// an output that fits in cache (4 MiB < min-bytes): plain stores.
// CHECK-LABEL: func.func @unaligned(
// CHECK-NOT: nontemporal
// CHECK: return
// CHECK-LABEL: func.func @small(
// CHECK-NOT: scf.if
// CHECK: return
func.func @unaligned(%x: memref<4096x4104xf32>, %out: memref<4096x4104xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c4096 = arith.constant 4096 : index
  %pad = arith.constant 0.0 : f32
  scf.forall (%i) in (4096) {
    %row = memref.subview %out[%i, 8] [1, 4096] [1, 1] : memref<4096x4104xf32> to memref<1x4096xf32, strided<[4104, 1], offset: ?>>
    scf.for %j = %c0 to %c4096 step %c64 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<4096x4104xf32>, vector<64xf32>
      vector.transfer_write %v, %row[%c0, %j] {in_bounds = [true]} : vector<64xf32>, memref<1x4096xf32, strided<[4104, 1], offset: ?>>
    }
  }
  return
}

func.func @small(%x: memref<1024x1024xf32>, %out: memref<1024x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %pad = arith.constant 0.0 : f32
  scf.forall (%i) in (1024) {
    scf.for %j = %c0 to %c1024 step %c64 {
      %v = vector.transfer_read %x[%i, %j], %pad {in_bounds = [true]} : memref<1024x1024xf32>, vector<64xf32>
      vector.transfer_write %v, %out[%i, %j] {in_bounds = [true]} : vector<64xf32>, memref<1024x1024xf32>
    }
  }
  return
}
