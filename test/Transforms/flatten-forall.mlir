// RUN: strata-opt %s --strata-flatten-forall | FileCheck %s
// RUN: strata-opt %s --strata-flatten-forall --strata-flatten-forall | FileCheck %s --check-prefix=TWICE

// Two static dims: one loop over their product; the old ivs are a division and a
// remainder of the new one.
// CHECK-LABEL: func.func @tiles(
// CHECK-SAME: %[[OUT:[a-z0-9]+]]: memref<20x8xf32>
// CHECK: %[[C8:.+]] = arith.constant 8 : index
// CHECK-NEXT: scf.forall (%[[K:.+]]) in (160) {
// CHECK-NEXT: %[[J:.+]] = arith.remui %[[K]], %[[C8]] : index
// CHECK-NEXT: %[[I:.+]] = arith.divui %[[K]], %[[C8]] : index
// CHECK-NEXT: memref.store %{{.+}}, %[[OUT]][%[[I]], %[[J]]]
// CHECK-NEXT: }
// CHECK-NOT: scf.forall
func.func @tiles(%out: memref<20x8xf32>) {
  %f = arith.constant 1.0 : f32
  scf.forall (%i, %j) in (20, 8) {
    memref.store %f, %out[%i, %j] : memref<20x8xf32>
  }
  return
}

// Three dims with lower bounds and steps: lb + (index along the dim) * step, with
// trip counts 2, 4 and 4.
// CHECK-LABEL: func.func @steps(
// CHECK-SAME: %[[OUT:[a-z0-9]+]]: memref<64x64x64xf32>
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.+]] = arith.constant 2 : index
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : index
// CHECK: scf.forall (%[[K:.+]]) in (32) {
// CHECK-NEXT: %[[R2:.+]] = arith.remui %[[K]], %[[C4]] : index
// CHECK-NEXT: %[[S2:.+]] = arith.muli %[[R2]], %[[C2]] : index
// CHECK-NEXT: %[[I2:.+]] = arith.addi %[[C1]], %[[S2]] : index
// CHECK-NEXT: %[[D1:.+]] = arith.divui %[[K]], %[[C4]] : index
// CHECK-NEXT: %[[R1:.+]] = arith.remui %[[D1]], %[[C4]] : index
// CHECK-NEXT: %[[S1:.+]] = arith.muli %[[R1]], %[[C3]] : index
// CHECK-NEXT: %[[I1:.+]] = arith.addi %[[C4]], %[[S1]] : index
// CHECK-NEXT: %[[I0:.+]] = arith.divui %[[K]], %[[C16]] : index
// CHECK-NEXT: memref.store %{{.+}}, %[[OUT]][%[[I0]], %[[I1]], %[[I2]]]
func.func @steps(%out: memref<64x64x64xf32>) {
  %f = arith.constant 1.0 : f32
  scf.forall (%i, %j, %k) = (0, 4, 1) to (2, 16, 9) step (1, 3, 2) {
    memref.store %f, %out[%i, %j, %k] : memref<64x64x64xf32>
  }
  return
}

// A dynamic bound: the trip count is multiplied at run time.
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME: %[[N:[a-z0-9]+]]: index
// CHECK: %[[C4:.+]] = arith.constant 4 : index
// CHECK-NEXT: %[[T:.+]] = arith.muli %[[N]], %[[C4]] : index
// CHECK-NEXT: scf.forall (%[[K:.+]]) in (%[[T]]) {
// CHECK-NEXT: arith.remui %[[K]], %[[C4]]
// CHECK-NEXT: arith.divui %[[K]], %[[C4]]
func.func @dynamic(%out: memref<?x4xf32>, %n: index) {
  %f = arith.constant 1.0 : f32
  scf.forall (%i, %j) in (%n, 4) {
    memref.store %f, %out[%i, %j] : memref<?x4xf32>
  }
  return
}

// One dim already: untouched. Shared outputs (tensors): untouched.
// CHECK-LABEL: func.func @untouched(
// CHECK: scf.forall (%{{.+}}) in (7) {
// CHECK: scf.forall (%{{.+}}, %{{.+}}) in (2, 3) shared_outs
func.func @untouched(%out: memref<7xf32>, %t: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %f = arith.constant 1.0 : f32
  scf.forall (%i) in (7) {
    memref.store %f, %out[%i] : memref<7xf32>
  }
  %r = scf.forall (%i, %j) in (2, 3) shared_outs(%o = %t) -> (tensor<2x3xf32>) {
    %s = tensor.extract_slice %o[%i, %j] [1, 1] [1, 1] : tensor<2x3xf32> to tensor<1x1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%i, %j] [1, 1] [1, 1] : tensor<1x1xf32> into tensor<2x3xf32>
    }
  }
  return %r : tensor<2x3xf32>
}

// Running it again changes nothing: the loops are one-dim already.
// TWICE-LABEL: func.func @tiles(
// TWICE: scf.forall (%{{.+}}) in (160) {
// TWICE-LABEL: func.func @steps(
// TWICE-NOT: scf.forall (%{{[^)]+}}, %
// TWICE: scf.forall (%{{.+}}) in (32) {
