// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s --check-prefix=GONE

// The bitwise ops become one elementwise linalg.generic each (numpy broadcasting maps):
// andi / ori / xori, and xori with -1 for bitwise_not. A shift count outside [0, bits)
// is poison for shli / shrsi, so left_shift selects 0 unless the count is u< bits (a
// negative count is a huge unsigned one) and right_shift clamps the count with minui to
// bits - 1 (the sign fills in), as numpy and PyTorch do.

// GONE-NOT: strata.

// CHECK-DAG: #[[FULL:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @logic
// CHECK-SAME: (%[[A:.+]]: tensor<4x5xi32>, %[[B:.+]]: tensor<5xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[FULL]], #[[ROW]], #[[FULL]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<4x5xi32>, tensor<5xi32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT: %[[R:.+]] = arith.andi %[[X]], %[[Y]] : i32
// CHECK-NEXT: linalg.yield %[[R]] : i32
// CHECK: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT: %[[R:.+]] = arith.ori %[[X]], %[[Y]] : i32
// CHECK-NEXT: linalg.yield %[[R]] : i32
// CHECK: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT: %[[R:.+]] = arith.xori %[[X]], %[[Y]] : i32
// CHECK-NEXT: linalg.yield %[[R]] : i32
// CHECK: ^bb0(%[[X:.+]]: i32, %{{.+}}: i32):
// CHECK-NEXT: %[[M1:.+]] = arith.constant -1 : i32
// CHECK-NEXT: %[[R:.+]] = arith.xori %[[X]], %[[M1]] : i32
// CHECK-NEXT: linalg.yield %[[R]] : i32
func.func @logic(%a: tensor<4x5xi32>, %b: tensor<5xi32>) -> tensor<4x5xi32> {
  %0 = "strata.bitwise_and"(%a, %b) : (tensor<4x5xi32>, tensor<5xi32>) -> tensor<4x5xi32>
  %1 = "strata.bitwise_or"(%0, %b) : (tensor<4x5xi32>, tensor<5xi32>) -> tensor<4x5xi32>
  %2 = "strata.bitwise_xor"(%1, %a) : (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi32>
  %3 = "strata.bitwise_not"(%2) : (tensor<4x5xi32>) -> tensor<4x5xi32>
  return %3 : tensor<4x5xi32>
}

// -----

// CHECK-LABEL: func.func @shifts
// CHECK-SAME: (%[[A:.+]]: tensor<?xi64>, %[[B:.+]]: tensor<?xi64>)
// CHECK: %[[N:.+]] = tensor.dim %[[A]]
// CHECK: %[[E:.+]] = tensor.empty(%[[N]]) : tensor<?xi64>
// CHECK: %[[SHL:.+]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<?xi64>, tensor<?xi64>) outs(%[[E]] : tensor<?xi64>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: i64, %[[Y:.+]]: i64, %{{.+}}: i64):
// CHECK-NEXT: %[[BITS:.+]] = arith.constant 64 : i64
// CHECK-NEXT: %[[OK:.+]] = arith.cmpi ult, %[[Y]], %[[BITS]] : i64
// CHECK-NEXT: %[[S:.+]] = arith.shli %[[X]], %[[Y]] : i64
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[R:.+]] = arith.select %[[OK]], %[[S]], %[[Z]] : i64
// CHECK-NEXT: linalg.yield %[[R]] : i64
// CHECK: %[[SHR:.+]] = linalg.generic {{.*}} ins(%[[SHL]], %[[B]] : tensor<?xi64>, tensor<?xi64>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: i64, %[[Y:.+]]: i64, %{{.+}}: i64):
// CHECK-NEXT: %[[MAX:.+]] = arith.constant 63 : i64
// CHECK-NEXT: %[[C:.+]] = arith.minui %[[Y]], %[[MAX]] : i64
// CHECK-NEXT: %[[R:.+]] = arith.shrsi %[[X]], %[[C]] : i64
// CHECK-NEXT: linalg.yield %[[R]] : i64
// CHECK: return %[[SHR]]
func.func @shifts(%a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xi64> {
  %0 = "strata.left_shift"(%a, %b) : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  %1 = "strata.right_shift"(%0, %b) : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  return %1 : tensor<?xi64>
}

// -----

// i32 shifts guard against 32 and clamp to 31.
// CHECK-LABEL: func.func @shifts_i32
// CHECK: arith.constant 32 : i32
// CHECK: arith.cmpi ult
// CHECK: arith.shli
// CHECK: arith.constant 31 : i32
// CHECK: arith.minui
// CHECK: arith.shrsi
func.func @shifts_i32(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<3xi32> {
  %0 = "strata.left_shift"(%a, %b) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %1 = "strata.right_shift"(%0, %b) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %1 : tensor<3xi32>
}
