// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s --check-prefix=GONE

// strata.cumsum, reverse, pad, scatter and scatter_add lowered to linalg, tensor and scf
// (lowering/index_ops.py).

// GONE-NOT: strata.

// cumsum off the last axis: one scf.for over the scanned axis carrying the f32 running
// sum (a slice of the other dims) and the result; each step one linalg.generic adds the
// input's slice and writes the rounded sum into the result's slice.
// CHECK-LABEL: func.func @cumsum_bf16
// CHECK-SAME: (%[[X:.+]]: tensor<9x4xbf16>)
// CHECK: %[[ACC0:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x4xf32>)
// CHECK: %[[OUT0:.+]] = tensor.empty() : tensor<9x4xbf16>
// CHECK: %[[C9:.+]] = arith.constant 9 : index
// CHECK: %[[LOOP:.+]]:2 = scf.for %[[K:.+]] = %{{.+}} to %[[C9]] step %{{.+}} iter_args(%[[ACC:.+]] = %[[ACC0]], %[[OUT:.+]] = %[[OUT0]])
// CHECK: %[[XK:.+]] = tensor.extract_slice %[[X]][%[[K]], 0] [1, 4] [1, 1] : tensor<9x4xbf16> to tensor<1x4xbf16>
// CHECK: %[[OK:.+]] = tensor.extract_slice %[[OUT]][%[[K]], 0] [1, 4] [1, 1]
// CHECK: %[[S:.+]]:2 = linalg.generic {{.+}} ins(%[[XK]] : tensor<1x4xbf16>) outs(%[[ACC]], %[[OK]] : tensor<1x4xf32>, tensor<1x4xbf16>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: bf16, %[[A:.+]]: f32, %{{.+}}: bf16):
// CHECK: %[[E:.+]] = arith.extf %[[IN]] : bf16 to f32
// CHECK: %[[SUM:.+]] = arith.addf %[[A]], %[[E]] : f32
// CHECK: %[[R:.+]] = arith.truncf %[[SUM]] : f32 to bf16
// CHECK: linalg.yield %[[SUM]], %[[R]] : f32, bf16
// CHECK: %[[INS:.+]] = tensor.insert_slice %[[S]]#1 into %[[OUT]][%[[K]], 0] [1, 4] [1, 1]
// CHECK: scf.yield %[[S]]#0, %[[INS]]
// CHECK: return %[[LOOP]]#1
func.func @cumsum_bf16(%x: tensor<9x4xbf16>) -> tensor<9x4xbf16> {
  %0 = "strata.cumsum"(%x) {axis = 0 : i64} : (tensor<9x4xbf16>) -> tensor<9x4xbf16>
  return %0 : tensor<9x4xbf16>
}

// -----

// cumsum along the last axis: a loop over the rows (dynamic: tensor.dim), each an
// scf.for carrying a scalar running sum along the row's contiguous elements.
// CHECK-LABEL: func.func @cumsum_rows
// CHECK-SAME: (%[[X:.+]]: tensor<?x7xf32>)
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x7xf32>
// CHECK: %[[E:.+]] = tensor.empty(%[[N]]) : tensor<?x7xf32>
// CHECK: %[[ROWS:.+]] = scf.for %[[I:.+]] = %{{.+}} to %[[N]] step %{{.+}} iter_args(%[[O:.+]] = %[[E]])
// CHECK: %[[C7:.+]] = arith.constant 7 : index
// CHECK: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ROW:.+]]:2 = scf.for %[[J:.+]] = %{{.+}} to %[[C7]] step %{{.+}} iter_args(%[[ACC:.+]] = %[[Z]], %[[T:.+]] = %[[O]]) -> (f32, tensor<?x7xf32>)
// CHECK: %[[V:.+]] = tensor.extract %[[X]][%[[I]], %[[J]]]
// CHECK: %[[S:.+]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK: %[[W:.+]] = tensor.insert %[[S]] into %[[T]][%[[I]], %[[J]]]
// CHECK: scf.yield %[[S]], %[[W]]
// CHECK: scf.yield %[[ROW]]#1
// CHECK: return %[[ROWS]]
func.func @cumsum_rows(%x: tensor<?x7xf32>) -> tensor<?x7xf32> {
  %0 = "strata.cumsum"(%x) {axis = -1 : i64} : (tensor<?x7xf32>) -> tensor<?x7xf32>
  return %0 : tensor<?x7xf32>
}

// -----

// An input with no elements: a filled empty tensor, no loop.
// CHECK-LABEL: func.func @cumsum_empty
// CHECK-NOT: scf.for
// CHECK: %[[F:.+]] = linalg.fill ins(%{{.+}} : i32) outs(%{{.+}} : tensor<0x5xi32>)
// CHECK: return %[[F]]
func.func @cumsum_empty(%x: tensor<0x5xi32>) -> tensor<0x5xi32> {
  %0 = "strata.cumsum"(%x) {axis = 0 : i64} : (tensor<0x5xi32>) -> tensor<0x5xi32>
  return %0 : tensor<0x5xi32>
}

// -----

// reverse: a linalg.generic over the result reading the input at n - 1 - i on the
// reversed axis (n from tensor.dim when dynamic) and at i on the others.
// CHECK-LABEL: func.func @reverse
// CHECK-SAME: (%[[X:.+]]: tensor<3x?xf32>)
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<3x?xf32>
// CHECK: %[[E:.+]] = tensor.empty(%[[N]]) : tensor<3x?xf32>
// CHECK: %[[G:.+]] = linalg.generic {indexing_maps = [#{{.+}}], iterator_types = ["parallel", "parallel"]} outs(%[[E]] : tensor<3x?xf32>)
// CHECK: %[[I:.+]] = linalg.index 0 : index
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[LAST:.+]] = arith.subi %[[N]], %{{.+}} : index
// CHECK: %[[MJ:.+]] = arith.subi %[[LAST]], %[[J]] : index
// CHECK: %[[V:.+]] = tensor.extract %[[X]][%[[I]], %[[MJ]]] : tensor<3x?xf32>
// CHECK: linalg.yield %[[V]] : f32
// CHECK: return %[[G]]
func.func @reverse(%x: tensor<3x?xf32>) -> tensor<3x?xf32> {
  %0 = "strata.reverse"(%x) {axes = array<i64: -1>} : (tensor<3x?xf32>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// -----

// pad: the pad value filled into the result, the input inserted at the low widths.
// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.+]]: tensor<3x?xf16>)
// CHECK: %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<3x?xf16>
// CHECK: %[[C5:.+]] = arith.constant 5 : index
// CHECK: %[[W:.+]] = arith.addi %[[D]], %[[C5]] : index
// CHECK: %[[V:.+]] = arith.constant -1.500000e+00 : f16
// CHECK: %[[E:.+]] = tensor.empty(%[[W]]) : tensor<4x?xf16>
// CHECK: %[[F:.+]] = linalg.fill ins(%[[V]] : f16) outs(%[[E]] : tensor<4x?xf16>)
// CHECK: %[[R:.+]] = tensor.insert_slice %[[X]] into %[[F]][1, 2] [3, %{{.+}}] [1, 1] : tensor<3x?xf16> into tensor<4x?xf16>
// CHECK: return %[[R]]
func.func @pad(%x: tensor<3x?xf16>) -> tensor<4x?xf16> {
  %0 = "strata.pad"(%x) {low = array<i64: 1, 2>, high = array<i64: 0, 3>, pad_value = -1.5 : f64} : (tensor<3x?xf16>) -> tensor<4x?xf16>
  return %0 : tensor<4x?xf16>
}

// -----

// scatter_add: loops over the indices carrying a linalg.copy of the input; each step
// wraps the index, reads the old element at the clamped index, adds the update, and
// writes back the sum if the index is in range, else the old value.
// CHECK-LABEL: func.func @scatter_add
// CHECK-SAME: (%[[X:.+]]: tensor<6x4xf32>, %[[I:.+]]: tensor<9x4xi32>, %[[U:.+]]: tensor<9x4xf32>)
// CHECK: %[[COPY:.+]] = linalg.copy {{.*}}ins(%[[X]] : tensor<6x4xf32>) outs(%{{.+}} : tensor<6x4xf32>)
// CHECK: %[[OUTER:.+]] = scf.for %[[P:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[T0:.+]] = %[[COPY]]) -> (tensor<6x4xf32>)
// CHECK: %[[INNER:.+]] = scf.for %[[Q:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[T:.+]] = %[[T0]]) -> (tensor<6x4xf32>)
// CHECK: %[[ID:.+]] = tensor.extract %[[I]][%[[P]], %[[Q]]] : tensor<9x4xi32>
// CHECK: %[[NEG:.+]] = arith.cmpi slt, %[[ID]], %{{.+}} : i32
// CHECK: %[[W:.+]] = arith.select %[[NEG]], %{{.+}}, %[[ID]] : i32
// CHECK: %[[IN:.+]] = arith.andi
// CHECK: %[[C:.+]] = arith.minsi
// CHECK: %[[ROW:.+]] = arith.index_cast %[[C]] : i32 to index
// CHECK: %[[OLD:.+]] = tensor.extract %[[T]][%[[ROW]], %[[Q]]] : tensor<6x4xf32>
// CHECK: %[[UP:.+]] = tensor.extract %[[U]][%[[P]], %[[Q]]] : tensor<9x4xf32>
// CHECK: %[[SUM:.+]] = arith.addf %[[OLD]], %[[UP]] : f32
// CHECK: %[[NEW:.+]] = arith.select %[[IN]], %[[SUM]], %[[OLD]] : f32
// CHECK: %[[WR:.+]] = tensor.insert %[[NEW]] into %[[T]][%[[ROW]], %[[Q]]] : tensor<6x4xf32>
// CHECK: scf.yield %[[WR]]
// CHECK: scf.yield %[[INNER]]
// CHECK: return %[[OUTER]]
func.func @scatter_add(%x: tensor<6x4xf32>, %i: tensor<9x4xi32>, %u: tensor<9x4xf32>) -> tensor<6x4xf32> {
  %0 = "strata.scatter_add"(%x, %i, %u) {axis = 0 : i64} : (tensor<6x4xf32>, tensor<9x4xi32>, tensor<9x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// scatter: the update replaces the old element; f16 needs no accumulator.
// CHECK-LABEL: func.func @scatter_f16
// CHECK: linalg.copy
// CHECK: scf.for
// CHECK-NOT: arith.addf
// CHECK: %[[OLD:.+]] = tensor.extract %{{.+}} : tensor<5xf16>
// CHECK: %[[UP:.+]] = tensor.extract %{{.+}} : tensor<3xf16>
// CHECK: arith.select %{{.+}}, %[[UP]], %[[OLD]] : f16
// CHECK: tensor.insert
func.func @scatter_f16(%x: tensor<5xf16>, %i: tensor<3xi32>, %u: tensor<3xf16>) -> tensor<5xf16> {
  %0 = "strata.scatter"(%x, %i, %u) {axis = 0 : i64} : (tensor<5xf16>, tensor<3xi32>, tensor<3xf16>) -> tensor<5xf16>
  return %0 : tensor<5xf16>
}
