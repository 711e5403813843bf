// RUN: strata-opt %s --strata-lower-to-llvm | FileCheck %s
// RUN: strata-opt %s --strata-lower-to-llvm | FileCheck %s --check-prefix=GONE

// Bufferized IR (memrefs, linalg on buffers, scf, arith, math) to the LLVM dialect.
// Nothing but llvm ops (and the module) remains.
// GONE-NOT: memref.
// GONE-NOT: scf.
// GONE-NOT: arith.
// GONE-NOT: linalg.
// GONE-NOT: math.
// GONE-NOT: cf.
// GONE-NOT: func.
// GONE-NOT: builtin.unrealized_conversion_cast
// GONE-NOT: affine.

// CHECK-DAG: llvm.func @free(!llvm.ptr)
// CHECK-DAG: llvm.func @malloc(i64) -> !llvm.ptr

// A dynamic alloc becomes malloc (with alignment), the linalg.generic a loop
// of blocks, math.exp an intrinsic, memref.copy a memcpy and the dealloc free.
// The memref arguments expand to (allocated, aligned, offset, sizes, strides).
// CHECK-LABEL: llvm.func @exp_copy
// CHECK-SAME: (%[[IN_ALLOC:.+]]: !llvm.ptr, %[[IN:.+]]: !llvm.ptr, %{{.+}}: i64, %[[N:.+]]: i64, %{{.+}}: i64, %{{.+}}: !llvm.ptr, %[[OUT:.+]]: !llvm.ptr, %[[OUT_OFF:.+]]: i64, %{{.+}}: i64, %{{.+}}: i64)
// CHECK: %[[P:.+]] = llvm.call @malloc(%{{.+}}) : (i64) -> !llvm.ptr
// CHECK: %[[BUF:.+]] = llvm.inttoptr %{{.+}} : i64 to !llvm.ptr
// CHECK: llvm.br ^[[HEAD:.+]](%{{.+}} : i64)
// CHECK: ^[[HEAD]](%[[I:.+]]: i64):
// CHECK: %[[C:.+]] = llvm.icmp "slt" %[[I]], %[[N]] : i64
// CHECK: llvm.cond_br %[[C]], ^[[BODY:.+]], ^[[EXIT:[a-z0-9]+]]
// CHECK: ^[[BODY]]:
// CHECK: %[[V:.+]] = llvm.load %{{.+}} : !llvm.ptr -> f32
// CHECK: %[[E:.+]] = llvm.intr.exp(%[[V]]) : (f32) -> f32
// CHECK: %[[DST:.+]] = llvm.getelementptr inbounds|nuw %[[BUF]][%[[I]]]
// CHECK: llvm.store %[[E]], %[[DST]] : f32, !llvm.ptr
// CHECK: ^[[EXIT]]:
// CHECK: %[[TO:.+]] = llvm.getelementptr %[[OUT]][%[[OUT_OFF]]]
// CHECK: "llvm.intr.memcpy"(%[[TO]], %[[BUF]], %{{.+}})
// CHECK: llvm.call @free(%[[P]]) : (!llvm.ptr) -> ()
// CHECK-NEXT: llvm.return

// scf.for with an iter_arg becomes a block argument of the loop header.
// CHECK-LABEL: llvm.func @sum_loop
// CHECK: llvm.br ^[[HEAD:.+]](%{{.+}}, %[[Z:.+]] : i64, i32)
// CHECK: ^[[HEAD]](%[[I:.+]]: i64, %[[ACC:.+]]: i32):
// CHECK: llvm.cond_br %{{.+}}, ^[[BODY:.+]], ^[[EXIT:[a-z0-9]+]]
// CHECK: ^[[BODY]]:
// CHECK: %[[V:.+]] = llvm.load %{{.+}} : !llvm.ptr -> i32
// CHECK: %[[S:.+]] = llvm.add %[[ACC]], %[[V]] : i32
// CHECK: llvm.br ^[[HEAD]](%{{.+}}, %[[S]] : i64, i32)
// CHECK: ^[[EXIT]]:
// CHECK: llvm.store %[[ACC]], %{{.+}} : i32, !llvm.ptr
// CHECK-NEXT: llvm.return

// math.ipowi (no LLVM intrinsic) becomes a call of a generated function, vectors one
// call per element (convert-math-to-funcs).
// CHECK-LABEL: llvm.func @int_pow
// CHECK: %[[X:.+]] = llvm.load %{{.+}} : !llvm.ptr -> i32
// CHECK: %[[P:.+]] = llvm.call @__mlir_math_ipowi_i32(%[[X]], %{{.+}}) : (i32, i32) -> i32
// CHECK: llvm.store %[[P]], %{{.+}} : i32, !llvm.ptr
// CHECK-LABEL: llvm.func @vector_int_pow
// CHECK-COUNT-4: llvm.call @__mlir_math_ipowi_i32
// CHECK-LABEL: llvm.func linkonce_odr @__mlir_math_ipowi_i32(

#map = affine_map<(d0) -> (d0)>
module {
func.func @exp_copy(%arg0: memref<?xf32>, %arg1: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %d = memref.dim %arg0, %c0 : memref<?xf32>
  %alloc = memref.alloc(%d) {alignment = 64 : i64} : memref<?xf32>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg0 : memref<?xf32>) outs(%alloc : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  memref.copy %alloc, %arg1 : memref<?xf32> to memref<?xf32>
  memref.dealloc %alloc : memref<?xf32>
  return
}
func.func @sum_loop(%arg0: memref<8xi32>, %arg1: memref<i32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0 : i32
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %z) -> (i32) {
    %v = memref.load %arg0[%i] : memref<8xi32>
    %s = arith.addi %acc, %v : i32
    scf.yield %s : i32
  }
  memref.store %r, %arg1[] : memref<i32>
  return
}

func.func @int_pow(%arg0: memref<i32>, %arg1: memref<i32>) {
  %x = memref.load %arg0[] : memref<i32>
  %c3 = arith.constant 3 : i32
  %p = math.ipowi %x, %c3 : i32
  memref.store %p, %arg1[] : memref<i32>
  return
}
func.func @vector_int_pow(%arg0: vector<4xi32>, %arg1: vector<4xi32>) -> vector<4xi32> {
  %p = math.ipowi %arg0, %arg1 : vector<4xi32>
  return %p : vector<4xi32>
}

}
