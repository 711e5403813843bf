// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s --check-prefix=NOTRAP
// RUN: strata-opt %s --strata-to-linalg --split-input-file --canonicalize --cse | FileCheck %s --check-prefix=NOTRAP

// numpy's // and % (strata.floor_div, strata.mod) never trap. An integer divisor
// of 0 or -1 is replaced by 1 before divsi/remsi, and numpy's results for those
// divisors are selected afterwards (x // 0 = 0, INT_MIN // -1 = INT_MIN,
// x % 0 = x % -1 = 0). Floats follow numpy's npy_divmod (fmod, sign fix-up,
// snap to an integer), in f32 for f16 and bf16.

// No strata op is left, every divsi/remsi divides by a guarded divisor (never by a
// block argument, i.e. an operand element), also after canonicalization, and no
// division whose lowering could trap (floordivsi, ceildivsi, unsigned) appears.
// NOTRAP-NOT: strata.
// NOTRAP-NOT: arith.divsi %{{[a-z0-9_]+}}, %in
// NOTRAP-NOT: arith.remsi %{{[a-z0-9_]+}}, %in
// NOTRAP-NOT: arith.floordivsi
// NOTRAP-NOT: arith.ceildivsi
// NOTRAP-NOT: arith.divui
// NOTRAP-NOT: arith.remui

// CHECK-LABEL: func.func @floor_div_i32
// CHECK-SAME: (%[[A:.+]]: tensor<5x3xi32>, %[[B:.+]]: tensor<5x3xi32>)
// CHECK-NOT: strata.
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<5x3xi32>, tensor<5x3xi32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i32):
// CHECK-NOT: arith.divsi
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : i32
// CHECK-DAG: %[[MONE:.+]] = arith.constant -1 : i32
// CHECK-DAG: %[[BY0:.+]] = arith.cmpi eq, %[[Y]], %[[ZERO]] : i32
// CHECK-DAG: %[[BYM1:.+]] = arith.cmpi eq, %[[Y]], %[[MONE]] : i32
// CHECK: %[[BAD:.+]] = arith.ori %[[BY0]], %[[BYM1]] : i1
// CHECK-NEXT: %[[SAFE:.+]] = arith.select %[[BAD]], %[[ONE]], %[[Y]] : i32
// CHECK-NEXT: %[[Q:.+]] = arith.divsi %[[X]], %[[SAFE]] : i32
// CHECK-NEXT: %[[R:.+]] = arith.remsi %[[X]], %[[SAFE]] : i32
// CHECK-NEXT: %[[RNZ:.+]] = arith.cmpi ne, %[[R]], %[[ZERO]] : i32
// CHECK-NEXT: %[[RNEG:.+]] = arith.cmpi slt, %[[R]], %[[ZERO]] : i32
// CHECK-NEXT: %[[SNEG:.+]] = arith.cmpi slt, %[[SAFE]], %[[ZERO]] : i32
// CHECK-NEXT: %[[DIFF:.+]] = arith.xori %[[RNEG]], %[[SNEG]] : i1
// CHECK-NEXT: %[[ADJ:.+]] = arith.andi %[[RNZ]], %[[DIFF]] : i1
// CHECK-NEXT: %[[QM1:.+]] = arith.subi %[[Q]], %[[ONE]] : i32
// CHECK-NEXT: %[[FLOOR:.+]] = arith.select %[[ADJ]], %[[QM1]], %[[Q]] : i32
// CHECK-NEXT: %[[NEG:.+]] = arith.subi %[[ZERO]], %[[X]] : i32
// CHECK-NEXT: %[[Q1:.+]] = arith.select %[[BYM1]], %[[NEG]], %[[FLOOR]] : i32
// CHECK-NEXT: %[[OUT:.+]] = arith.select %[[BY0]], %[[ZERO]], %[[Q1]] : i32
// CHECK-NEXT: linalg.yield %[[OUT]] : i32
// CHECK-NOT: arith.divsi
// CHECK: return
func.func @floor_div_i32(%a: tensor<5x3xi32>, %b: tensor<5x3xi32>) -> tensor<5x3xi32> {
  %0 = "strata.floor_div"(%a, %b) : (tensor<5x3xi32>, tensor<5x3xi32>) -> tensor<5x3xi32>
  return %0 : tensor<5x3xi32>
}

// -----

// mod broadcasts like every elementwise op; the remainder takes the divisor's sign.
// CHECK-DAG: #[[COL0:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW0:.+]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @mod_i32_broadcast
// CHECK-SAME: (%[[A:.+]]: tensor<4x1xi32>, %[[B:.+]]: tensor<1x7xi32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x7xi32>
// CHECK: linalg.generic {indexing_maps = [#[[COL0]], #[[ROW0]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<4x1xi32>, tensor<1x7xi32>) outs(%[[E]] : tensor<4x7xi32>)
// CHECK-NEXT: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i32):
// CHECK-NOT: arith.remsi
// CHECK: %[[BAD:.+]] = arith.ori %{{.+}}, %{{.+}} : i1
// CHECK-NEXT: %[[SAFE:.+]] = arith.select %[[BAD]], %{{.+}}, %[[Y]] : i32
// CHECK-NEXT: arith.divsi %[[X]], %[[SAFE]] : i32
// CHECK-NEXT: %[[R:.+]] = arith.remsi %[[X]], %[[SAFE]] : i32
// CHECK: %[[ADJ:.+]] = arith.andi %{{.+}}, %{{.+}} : i1
// CHECK-NEXT: %[[RB:.+]] = arith.addi %[[R]], %[[SAFE]] : i32
// CHECK-NEXT: %[[FIXED:.+]] = arith.select %[[ADJ]], %[[RB]], %[[R]] : i32
// CHECK-NEXT: %[[OUT:.+]] = arith.select %[[BAD]], %{{.+}}, %[[FIXED]] : i32
// CHECK-NEXT: linalg.yield %[[OUT]] : i32
// CHECK: return
func.func @mod_i32_broadcast(%a: tensor<4x1xi32>, %b: tensor<1x7xi32>) -> tensor<4x7xi32> {
  %0 = "strata.mod"(%a, %b) : (tensor<4x1xi32>, tensor<1x7xi32>) -> tensor<4x7xi32>
  return %0 : tensor<4x7xi32>
}

// -----

// Float floor_div: fmod (arith.remf), (a - mod) / b, the sign fix-up, floor and the
// snap to the nearest integer; a zero divisor selects a / b (+-inf or NaN).
// CHECK-LABEL: func.func @floor_div_f32
// CHECK-SAME: (%[[A:.+]]: tensor<3xf32>, %[[B:.+]]: tensor<f32>)
// CHECK: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[BY0:.+]] = arith.cmpf oeq, %[[Y]], %[[ZERO]] : f32
// CHECK-NEXT: %[[MOD:.+]] = arith.remf %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[MNZ:.+]] = arith.cmpf une, %[[MOD]], %[[ZERO]] : f32
// CHECK-NEXT: %[[BNEG:.+]] = arith.cmpf olt, %[[Y]], %[[ZERO]] : f32
// CHECK-NEXT: %[[MNEG:.+]] = arith.cmpf olt, %[[MOD]], %[[ZERO]] : f32
// CHECK-NEXT: %[[DIFF:.+]] = arith.xori %[[BNEG]], %[[MNEG]] : i1
// CHECK-NEXT: %[[ADJ:.+]] = arith.andi %[[MNZ]], %[[DIFF]] : i1
// CHECK-NEXT: %[[AM:.+]] = arith.subf %[[X]], %[[MOD]] : f32
// CHECK-NEXT: %[[DIV:.+]] = arith.divf %[[AM]], %[[Y]] : f32
// CHECK-NEXT: %[[DM1:.+]] = arith.subf %[[DIV]], %[[ONE]] : f32
// CHECK-NEXT: %[[D:.+]] = arith.select %[[ADJ]], %[[DM1]], %[[DIV]] : f32
// CHECK-NEXT: %[[FL:.+]] = math.floor %[[D]] : f32
// CHECK-NEXT: %[[FRAC:.+]] = arith.subf %[[D]], %[[FL]] : f32
// CHECK-NEXT: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[UP:.+]] = arith.cmpf ogt, %[[FRAC]], %[[HALF]] : f32
// CHECK-NEXT: %[[FL1:.+]] = arith.addf %[[FL]], %[[ONE]] : f32
// CHECK-NEXT: %[[SNAP:.+]] = arith.select %[[UP]], %[[FL1]], %[[FL]] : f32
// CHECK-NEXT: %[[QUO:.+]] = arith.divf %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[DNZ:.+]] = arith.cmpf une, %[[D]], %[[ZERO]] : f32
// CHECK-NEXT: %[[SZ:.+]] = math.copysign %[[ZERO]], %[[QUO]] : f32
// CHECK-NEXT: %[[Q:.+]] = arith.select %[[DNZ]], %[[SNAP]], %[[SZ]] : f32
// CHECK-NEXT: %[[OUT:.+]] = arith.select %[[BY0]], %[[QUO]], %[[Q]] : f32
// CHECK-NEXT: linalg.yield %[[OUT]] : f32
func.func @floor_div_f32(%a: tensor<3xf32>, %b: tensor<f32>) -> tensor<3xf32> {
  %0 = "strata.floor_div"(%a, %b) : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// f16 (and bf16) mod computes in f32 and rounds once; a zero remainder takes the
// divisor's sign; a zero divisor selects fmod's NaN.
// CHECK-LABEL: func.func @mod_f16
// CHECK: ^bb0(%[[X:.+]]: f16, %[[Y:.+]]: f16, %{{.+}}: f16):
// CHECK-NEXT: %[[XE:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[YE:.+]] = arith.extf %[[Y]] : f16 to f32
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[BY0:.+]] = arith.cmpf oeq, %[[YE]], %[[ZERO]] : f32
// CHECK-NEXT: %[[MOD:.+]] = arith.remf %[[XE]], %[[YE]] : f32
// CHECK: %[[ADJ:.+]] = arith.andi %{{.+}}, %{{.+}} : i1
// CHECK-NEXT: %[[MB:.+]] = arith.addf %[[MOD]], %[[YE]] : f32
// CHECK-NEXT: %[[SZ:.+]] = math.copysign %[[ZERO]], %[[YE]] : f32
// CHECK-NEXT: %[[M0:.+]] = arith.select %{{.+}}, %[[MOD]], %[[SZ]] : f32
// CHECK-NEXT: %[[FIXED:.+]] = arith.select %[[ADJ]], %[[MB]], %[[M0]] : f32
// CHECK-NEXT: %[[OUT:.+]] = arith.select %[[BY0]], %[[MOD]], %[[FIXED]] : f32
// CHECK-NEXT: %[[T:.+]] = arith.truncf %[[OUT]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[T]] : f16
func.func @mod_f16(%a: tensor<2x5xf16>, %b: tensor<5xf16>) -> tensor<2x5xf16> {
  %0 = "strata.mod"(%a, %b) : (tensor<2x5xf16>, tensor<5xf16>) -> tensor<2x5xf16>
  return %0 : tensor<2x5xf16>
}

// -----

// Constant divisors of 0 and -1 are guarded like any other divisor.
// CHECK-LABEL: func.func @floor_div_by_constants
// CHECK: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i32):
// CHECK: %[[SAFE:.+]] = arith.select %{{.+}}, %{{.+}}, %[[Y]] : i32
// CHECK-NEXT: arith.divsi %[[X]], %[[SAFE]] : i32
// CHECK: ^bb0(%[[X:.+]]: i32, %[[Y:.+]]: i32, %{{.+}}: i32):
// CHECK: %[[SAFE:.+]] = arith.select %{{.+}}, %{{.+}}, %[[Y]] : i32
// CHECK-NEXT: arith.divsi %[[X]], %[[SAFE]] : i32
// CHECK-NEXT: arith.remsi %[[X]], %[[SAFE]] : i32
// CHECK: return
func.func @floor_div_by_constants(%a: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %zero = "strata.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %minus_one = "strata.constant"() {value = dense<-1> : tensor<i32>} : () -> tensor<i32>
  %0 = "strata.floor_div"(%a, %zero) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %1 = "strata.mod"(%a, %minus_one) : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}
