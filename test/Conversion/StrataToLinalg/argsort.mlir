// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s --check-prefix=GONE

// strata.argsort becomes a stable bottom-up merge sort of each row in scf.for loops on
// tensors: one loop per other dim, the row's values (a rank-reducing extract_slice) and
// an i32 iota, a first merge pass (width 1) from them into a scratch pair, then passes
// 1 .. ceil(log2 n) merging into a second scratch pair and copying it back, and the
// indices inserted into the result. A merge takes the right run's element only when it
// sorts strictly before the left one (stable); NaN is the largest value.

// GONE-NOT: strata.

// CHECK-LABEL: func.func @argsort_rows
// CHECK-SAME: (%[[X:.+]]: tensor<3x5xf32>)
// CHECK: %[[OUT:.+]] = tensor.empty() : tensor<3x5xi32>
// CHECK: %[[ROWS:.+]] = scf.for %[[B:[a-z0-9_]+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[OUT]]) -> (tensor<3x5xi32>)
// CHECK-NEXT: %[[ROW:.+]] = tensor.extract_slice %[[X]][%[[B]], 0] [1, 5] [1, 1] : tensor<3x5xf32> to tensor<5xf32>
// CHECK: %[[IOTA:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<5xi32>)
// CHECK: linalg.index 0 : index
// CHECK: %[[V0:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<5xf32>)
// CHECK: %[[I0:.+]] = linalg.fill ins(%{{.+}} : i32) outs(%{{.+}} : tensor<5xi32>)
// First pass: from the row and the iota.
// CHECK: %[[P0:.+]]:2 = scf.for %{{.+}} iter_args(%{{.+}} = %[[V0]], %{{.+}} = %[[I0]]) -> (tensor<5xf32>, tensor<5xi32>)
// CHECK: scf.for %[[K:[a-z0-9_]+]] = %{{.+}} iter_args(%[[L:.+]] = %{{.+}}, %[[R:.+]] = %{{.+}}, %[[DV:.+]] = %{{.+}}, %[[DI:.+]] = %{{.+}}) -> (index, index, tensor<5xf32>, tensor<5xi32>)
// CHECK: %[[LV:.+]] = tensor.extract %[[ROW]][%[[LA:.+]]] : tensor<5xf32>
// CHECK-NEXT: %[[RV:.+]] = tensor.extract %[[ROW]][%[[RA:.+]]] : tensor<5xf32>
// CHECK-NEXT: %[[LDONE:.+]] = arith.cmpi uge, %[[L]], %{{.+}} : index
// CHECK-NEXT: %[[RLEFT:.+]] = arith.cmpi ult, %[[R]], %{{.+}} : index
// CHECK-NEXT: %[[LT:.+]] = arith.cmpf olt, %[[RV]], %[[LV]] : f32
// CHECK-NEXT: %[[LNAN:.+]] = arith.cmpf uno, %[[LV]], %[[LV]] : f32
// CHECK-NEXT: %[[RNUM:.+]] = arith.cmpf ord, %[[RV]], %[[RV]] : f32
// CHECK-NEXT: %[[NANLAST:.+]] = arith.andi %[[LNAN]], %[[RNUM]] : i1
// CHECK-NEXT: %[[BEFORE:.+]] = arith.ori %[[LT]], %[[NANLAST]] : i1
// CHECK-NEXT: %[[T:.+]] = arith.andi %[[RLEFT]], %[[BEFORE]] : i1
// CHECK-NEXT: %[[RIGHT:.+]] = arith.ori %[[LDONE]], %[[T]] : i1
// CHECK-NEXT: %[[V:.+]] = arith.select %[[RIGHT]], %[[RV]], %[[LV]] : f32
// CHECK-NEXT: %[[RI:.+]] = tensor.extract %[[IOTA]][%[[RA]]] : tensor<5xi32>
// CHECK-NEXT: %[[LI:.+]] = tensor.extract %[[IOTA]][%[[LA]]] : tensor<5xi32>
// CHECK-NEXT: %[[I:.+]] = arith.select %[[RIGHT]], %[[RI]], %[[LI]] : i32
// CHECK: %[[NV:.+]] = tensor.insert %[[V]] into %[[DV]][%[[K]]] : tensor<5xf32>
// CHECK-NEXT: %[[NI:.+]] = tensor.insert %[[I]] into %[[DI]][%[[K]]] : tensor<5xi32>
// CHECK-NEXT: scf.yield %{{.+}}, %{{.+}}, %[[NV]], %[[NI]] : index, index, tensor<5xf32>, tensor<5xi32>
// ceil(log2 5) = 3 passes: the other two in a loop from 1 to 3.
// CHECK: %[[ONE:.+]] = arith.constant 1 : index
// CHECK-NEXT: %[[THREE:.+]] = arith.constant 3 : index
// CHECK: %[[PASSES:.+]]:4 = scf.for %{{.+}} = %{{.+}} to %[[THREE]] step %{{.+}} iter_args(%[[SV:.+]] = %[[P0]]#0, %[[SI:.+]] = %[[P0]]#1, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (tensor<5xf32>, tensor<5xi32>, tensor<5xf32>, tensor<5xi32>)
// CHECK: %[[M:.+]]:2 = scf.for
// CHECK: tensor.extract %[[SV]]
// CHECK: %[[CV:.+]] = linalg.copy {{.*}} ins(%[[M]]#0 : tensor<5xf32>) outs(%[[SV]] : tensor<5xf32>)
// CHECK-NEXT: %[[CI:.+]] = linalg.copy {{.*}} ins(%[[M]]#1 : tensor<5xi32>) outs(%[[SI]] : tensor<5xi32>)
// CHECK-NEXT: scf.yield %[[CV]], %[[CI]], %[[M]]#0, %[[M]]#1
// CHECK: %[[INS:.+]] = tensor.insert_slice %[[PASSES]]#1 into %[[ACC]][%[[B]], 0] [1, 5] [1, 1] : tensor<5xi32> into tensor<3x5xi32>
// CHECK-NEXT: scf.yield %[[INS]] : tensor<3x5xi32>
// CHECK: return %[[ROWS]]
func.func @argsort_rows(%a: tensor<3x5xf32>) -> tensor<3x5xi32> {
  %0 = "strata.argsort"(%a) {axis = 1 : i64} : (tensor<3x5xf32>) -> tensor<3x5xi32>
  return %0 : tensor<3x5xi32>
}

// -----

// Descending: the right element goes first when it is greater, or NaN beside a number.
// f16 rows are widened to f32 first. A dynamic axis counts its passes with ctlz.
// CHECK-LABEL: func.func @argsort_descending_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<4x?xf16>)
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<4x?xf16>
// CHECK: scf.for %[[B:[a-z0-9_]+]] =
// CHECK: %[[ROW:.+]] = tensor.extract_slice %[[X]][%[[B]], 0] [1, %[[N]]] [1, 1] : tensor<4x?xf16> to tensor<?xf16>
// CHECK: linalg.generic {{.*}} ins(%[[ROW]] : tensor<?xf16>) outs(%{{.+}} : tensor<?xf32>)
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: %[[LV:.+]] = tensor.extract %{{.+}}[%{{.+}}] : tensor<?xf32>
// CHECK-NEXT: %[[RV:.+]] = tensor.extract %{{.+}}[%{{.+}}] : tensor<?xf32>
// CHECK: %[[GT:.+]] = arith.cmpf ogt, %[[RV]], %[[LV]] : f32
// CHECK-NEXT: %[[RNAN:.+]] = arith.cmpf uno, %[[RV]], %[[RV]] : f32
// CHECK-NEXT: %[[LNUM:.+]] = arith.cmpf ord, %[[LV]], %[[LV]] : f32
// CHECK: math.ctlz %{{.+}} : i64
func.func @argsort_descending_dynamic(%a: tensor<4x?xf16>) -> tensor<4x?xi32> {
  %0 = "strata.argsort"(%a) {axis = -1 : i64, descending = true} : (tensor<4x?xf16>) -> tensor<4x?xi32>
  return %0 : tensor<4x?xi32>
}

// -----

// Integers compare with slt; along axis 0 the loop runs over the columns and each row
// of the sort is a strided slice.
// CHECK-LABEL: func.func @argsort_i64_axis0
// CHECK-SAME: (%[[X:.+]]: tensor<6x4xi64>)
// CHECK: scf.for %[[C:[a-z0-9_]+]] =
// CHECK: tensor.extract_slice %[[X]][0, %[[C]]] [6, 1] [1, 1] : tensor<6x4xi64> to tensor<6xi64>
// CHECK: arith.cmpi slt, %{{.+}}, %{{.+}} : i64
// CHECK-NOT: arith.cmpf
// CHECK: tensor.insert_slice %{{.+}} into %{{.+}}[0, %[[C]]] [6, 1] [1, 1] : tensor<6xi32> into tensor<6x4xi32>
func.func @argsort_i64_axis0(%a: tensor<6x4xi64>) -> tensor<6x4xi32> {
  %0 = "strata.argsort"(%a) {axis = 0 : i64} : (tensor<6x4xi64>) -> tensor<6x4xi32>
  return %0 : tensor<6x4xi32>
}

// -----

// No elements: an empty result, no loops.
// CHECK-LABEL: func.func @argsort_empty
// CHECK-NOT: scf.for
// CHECK: return
func.func @argsort_empty(%a: tensor<0x4xf32>) -> tensor<0x4xi32> {
  %0 = "strata.argsort"(%a) {axis = 1 : i64} : (tensor<0x4xf32>) -> tensor<0x4xi32>
  return %0 : tensor<0x4xi32>
}
