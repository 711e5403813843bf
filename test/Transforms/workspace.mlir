// RUN: strata-opt %s --strata-workspace --split-input-file | FileCheck %s

// Two buffers alive at once get disjoint offsets; a third, allocated after the
// first is freed, reuses its bytes. Deallocs of the workspace's buffers go away.
// CHECK-LABEL: func.func @reuse
// CHECK-SAME: (%[[X:.+]]: memref<16xf32>, %[[OUT:.+]]: memref<16xf32>, %[[WS:.+]]: memref<128xi8>)
// CHECK-SAME: strata.workspace = 128 : i64
// CHECK-NOT: memref.alloc
// CHECK: %[[C0:.+]] = arith.constant 0 : index
// CHECK: %[[A:.+]] = memref.view %[[WS]][%[[C0]]][] : memref<128xi8> to memref<16xf32>
// CHECK: %[[C64:.+]] = arith.constant 64 : index
// CHECK: %[[B:.+]] = memref.view %[[WS]][%[[C64]]][] : memref<128xi8> to memref<16xf32>
// CHECK: memref.copy %[[X]], %[[A]]
// CHECK: memref.copy %[[A]], %[[B]]
// CHECK: %[[C0B:.+]] = arith.constant 0 : index
// CHECK: %[[C:.+]] = memref.view %[[WS]][%[[C0B]]][] : memref<128xi8> to memref<16xf32>
// CHECK: memref.copy %[[B]], %[[C]]
// CHECK: memref.copy %[[C]], %[[OUT]]
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @reuse(%x: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  memref.copy %x, %a : memref<16xf32> to memref<16xf32>
  memref.copy %a, %b : memref<16xf32> to memref<16xf32>
  memref.dealloc %a : memref<16xf32>
  %c = memref.alloc() {alignment = 64 : i64} : memref<16xf32>
  memref.copy %b, %c : memref<16xf32> to memref<16xf32>
  memref.dealloc %b : memref<16xf32>
  memref.copy %c, %out : memref<16xf32> to memref<16xf32>
  memref.dealloc %c : memref<16xf32>
  return
}

// -----

// A view of a buffer keeps it alive: %b may not reuse %a's bytes while %v is read.
// CHECK-LABEL: func.func @alias
// CHECK-SAME: %[[WS:[a-z0-9]+]]: memref<256xi8>) attributes {strata.workspace = 256 : i64}
// CHECK: memref.view %[[WS]][%{{.+}}][] : memref<256xi8> to memref<4x8xf32>
// CHECK: memref.collapse_shape
// CHECK: %[[C128:.+]] = arith.constant 128 : index
// CHECK: memref.view %[[WS]][%[[C128]]][] : memref<256xi8> to memref<32xf32>
func.func @alias(%x: memref<32xf32>, %out: memref<32xf32>) {
  %a = memref.alloc() : memref<4x8xf32>
  %v = memref.collapse_shape %a [[0, 1]] : memref<4x8xf32> into memref<32xf32>
  memref.copy %x, %v : memref<32xf32> to memref<32xf32>
  %b = memref.alloc() : memref<32xf32>
  memref.copy %v, %b : memref<32xf32> to memref<32xf32>
  memref.copy %b, %out : memref<32xf32> to memref<32xf32>
  memref.dealloc %a : memref<4x8xf32>
  memref.dealloc %b : memref<32xf32>
  return
}

// -----

// Buffers in loops, of dynamic size, or returned stay malloc'ed; no buffer, no workspace.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: strata.workspace
// CHECK: scf.for
// CHECK: memref.alloc() : memref<8xf32>
// CHECK: memref.alloc(%{{.+}}) : memref<?xf32>
// CHECK: return %{{.+}} : memref<4xf32>
func.func @left_alone(%n: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %t = memref.alloc() : memref<8xf32>
    memref.dealloc %t : memref<8xf32>
  }
  %d = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %d : memref<?xf32>
  %r = memref.alloc() : memref<4xf32>
  return %r : memref<4xf32>
}

// -----

// A private callee (a strata-row-blocks block function left as a call) gets its own
// workspace; its caller allocates one for it once, which becomes a view of the
// caller's workspace, and passes it to every call.
// CHECK-LABEL: func.func private @block
// CHECK-SAME: (%{{.+}}: memref<4x8xf32>, %{{.+}}: memref<4x8xf32>, %[[CWS:.+]]: memref<128xi8>)
// CHECK-SAME: strata.workspace = 128
// CHECK: memref.view %[[CWS]]
// CHECK-LABEL: func.func @caller
// CHECK-SAME: %[[WS:[^ ]+]]: memref<128xi8>) attributes {strata.workspace = 128
// CHECK: %[[V:.+]] = memref.view %[[WS]][%{{.+}}][] : memref<128xi8> to memref<128xi8>
// CHECK-NOT: memref.alloc
// CHECK: scf.for
// CHECK: func.call @block(%{{.+}}, %{{.+}}, %[[V]])
// CHECK-NOT: memref.dealloc %[[V]]
func.func private @block(%a: memref<4x8xf32>, %out: memref<4x8xf32>) {
  %t = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
  memref.copy %a, %t : memref<4x8xf32> to memref<4x8xf32>
  memref.copy %t, %out : memref<4x8xf32> to memref<4x8xf32>
  memref.dealloc %t : memref<4x8xf32>
  return
}
func.func @caller(%a: memref<4x8xf32>, %out: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    func.call @block(%a, %out) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
  }
  return
}

// -----

// A buffer copied, reshaped, into an argument nothing else uses (its last use): the
// argument itself, reshaped, holds the result; no copy, no workspace left for it.
// CHECK-LABEL: func.func @result_in_place
// CHECK-SAME: (%[[X:.+]]: memref<2x8xf32>, %[[OUT:.+]]: memref<2x2x4xf32>)
// CHECK-NOT: strata.workspace
// CHECK: %[[FLAT:.+]] = memref.collapse_shape %[[OUT]] {{\[}}[0, 1, 2]] : memref<2x2x4xf32> into memref<16xf32>
// CHECK: %[[A:.+]] = memref.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [2, 8] : memref<16xf32> into memref<2x8xf32>
// CHECK: memref.copy %[[X]], %[[A]]
// CHECK-NOT: memref.copy
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @result_in_place(%x: memref<2x8xf32>, %out: memref<2x2x4xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<2x8xf32>
  memref.copy %x, %a : memref<2x8xf32> to memref<2x8xf32>
  %e = memref.expand_shape %a [[0], [1, 2]] output_shape [2, 2, 4] : memref<2x8xf32> into memref<2x2x4xf32>
  memref.copy %e, %out : memref<2x2x4xf32> to memref<2x2x4xf32>
  memref.dealloc %a : memref<2x8xf32>
  return
}

// -----

// Left as copies: the buffer is read after the copy, and the argument is read too.
// CHECK-LABEL: func.func @result_copied
// CHECK-SAME: strata.workspace = 64 : i64
// CHECK-COUNT-3: memref.copy %{{.+}}, %{{.+}} : memref<2x2x4xf32> to memref<2x2x4xf32>
// CHECK: return
func.func @result_copied(%x: memref<2x8xf32>, %out: memref<2x2x4xf32>, %out2: memref<2x2x4xf32>, %out3: memref<2x8xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<2x8xf32>
  memref.copy %x, %a : memref<2x8xf32> to memref<2x8xf32>
  %e = memref.expand_shape %a [[0], [1, 2]] output_shape [2, 2, 4] : memref<2x8xf32> into memref<2x2x4xf32>
  memref.copy %e, %out : memref<2x2x4xf32> to memref<2x2x4xf32>
  memref.copy %a, %out3 : memref<2x8xf32> to memref<2x8xf32>
  %b = memref.alloc() {alignment = 64 : i64} : memref<2x8xf32>
  memref.copy %x, %b : memref<2x8xf32> to memref<2x8xf32>
  %f = memref.expand_shape %b [[0], [1, 2]] output_shape [2, 2, 4] : memref<2x8xf32> into memref<2x2x4xf32>
  memref.copy %out2, %f : memref<2x2x4xf32> to memref<2x2x4xf32>
  memref.copy %f, %out2 : memref<2x2x4xf32> to memref<2x2x4xf32>
  return
}

// -----

// A rank-0 buffer has no collapse to one dim: left as a copy.
// CHECK-LABEL: func.func @scalar_result
// CHECK: memref.copy %{{.+}}, %{{.+}} : memref<1xf32> to memref<1xf32>
func.func @scalar_result(%x: memref<f32>, %out: memref<1xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<f32>
  memref.copy %x, %a : memref<f32> to memref<f32>
  %e = memref.expand_shape %a [] output_shape [1] : memref<f32> into memref<1xf32>
  memref.copy %e, %out : memref<1xf32> to memref<1xf32>
  return
}
