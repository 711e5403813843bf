// RUN: strata-opt %s --split-input-file --strata-expand-math | FileCheck %s
// RUN: strata-opt %s --split-input-file '--strata-expand-math=tanh=false' | FileCheck %s --check-prefix=NOTANH
// RUN: strata-opt %s --split-input-file '--strata-expand-math=exp=false tanh=false' | FileCheck %s --check-prefix=NONE

#id = affine_map<(d0) -> (d0)>

// exp: clamp, Cody-Waite range reduction, a degree-7 polynomial (Horner with fma),
// scale by 2^n built from its bits in two factors, then +inf above / 0 below range.
// CHECK-LABEL: func.func @exp_f32
// CHECK-NOT: math.exp
// CHECK: ^bb0(%[[X:[a-z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK: %[[LO:.+]] = arith.constant -87.3365478 : f32
// CHECK: %[[C1:.+]] = arith.maximumf %[[X]], %[[LO]] : f32
// CHECK: %[[HI:.+]] = arith.constant 88.7228394 : f32
// CHECK: %[[XC:.+]] = arith.minimumf %[[C1]], %[[HI]] : f32
// CHECK: %[[LOG2E:.+]] = arith.constant 1.44269502 : f32
// CHECK: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[T:.+]] = math.fma %[[XC]], %[[LOG2E]], %[[HALF]] : f32
// CHECK: %[[N:.+]] = math.floor %[[T]] : f32
// CHECK: %[[LN2HI:.+]] = arith.constant 0.693359375 : f32
// CHECK: %[[NH:.+]] = arith.mulf %[[N]], %[[LN2HI]] : f32
// CHECK: %[[R1:.+]] = arith.subf %[[XC]], %[[NH]] : f32
// CHECK: %[[LN2LO:.+]] = arith.constant -2.12194442E-4 : f32
// CHECK: %[[NL:.+]] = arith.mulf %[[N]], %[[LN2LO]] : f32
// CHECK: %[[R:.+]] = arith.subf %[[R1]], %[[NL]] : f32
// CHECK: %[[R2:.+]] = arith.mulf %[[R]], %[[R]] : f32
// CHECK: %[[P0:.+]] = arith.constant 1.98756912E-4 : f32
// CHECK: %[[H1:.+]] = math.fma %[[P0]], %[[R]], %{{.+}} : f32
// CHECK: %[[H2:.+]] = math.fma %[[H1]], %[[R]], %{{.+}} : f32
// CHECK: %[[H3:.+]] = math.fma %[[H2]], %[[R]], %{{.+}} : f32
// CHECK: %[[H4:.+]] = math.fma %[[H3]], %[[R]], %{{.+}} : f32
// CHECK: %[[H5:.+]] = math.fma %[[H4]], %[[R]], %{{.+}} : f32
// CHECK: %[[Q:.+]] = math.fma %[[H5]], %[[R2]], %[[R]] : f32
// CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[P:.+]] = arith.addf %[[Q]], %[[ONE]] : f32
// CHECK: %[[NI:.+]] = arith.fptosi %[[N]] : f32 to i32
// CHECK: %[[N1:.+]] = arith.shrsi %[[NI]], %{{.+}} : i32
// CHECK: %[[N2:.+]] = arith.subi %[[NI]], %[[N1]] : i32
// CHECK: %[[BIAS:.+]] = arith.constant 127 : i32
// CHECK: %[[E1:.+]] = arith.addi %[[N1]], %[[BIAS]] : i32
// CHECK: %[[SH:.+]] = arith.constant 23 : i32
// CHECK: %[[B1:.+]] = arith.shli %[[E1]], %[[SH]] : i32
// CHECK: %[[S1:.+]] = arith.bitcast %[[B1]] : i32 to f32
// CHECK: %[[Y1:.+]] = arith.mulf %[[P]], %[[S1]] : f32
// CHECK: %[[E2:.+]] = arith.addi %[[N2]], %{{.+}} : i32
// CHECK: %[[B2:.+]] = arith.shli %[[E2]], %{{.+}} : i32
// CHECK: %[[S2:.+]] = arith.bitcast %[[B2]] : i32 to f32
// CHECK: %[[Y:.+]] = arith.mulf %[[Y1]], %[[S2]] : f32
// CHECK: %[[HI2:.+]] = arith.constant 88.7228394 : f32
// CHECK: %[[OVER:.+]] = arith.cmpf ogt, %[[X]], %[[HI2]] : f32
// CHECK: %[[INF:.+]] = arith.constant 0x7F800000 : f32
// CHECK: %[[YO:.+]] = arith.select %[[OVER]], %[[INF]], %[[Y]] : f32
// CHECK: %[[LO2:.+]] = arith.constant -87.3365478 : f32
// CHECK: %[[UNDER:.+]] = arith.cmpf olt, %[[X]], %[[LO2]] : f32
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[YU:.+]] = arith.select %[[UNDER]], %[[ZERO]], %[[YO]] : f32
// CHECK-NEXT: linalg.yield %[[YU]] : f32
// CHECK-NOT: math.exp
// CHECK: return
// NOTANH-LABEL: func.func @exp_f32
// NOTANH-NOT: math.exp
// NOTANH: arith.bitcast
// NOTANH-NOT: math.exp
// NOTANH: return
// NONE-LABEL: func.func @exp_f32
// NONE: math.exp %{{.+}} : f32
// NONE-NOT: arith.bitcast
// NONE: return
func.func @exp_f32(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = math.exp %in : f32
    linalg.yield %1 : f32
  } -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// tanh: an odd polynomial for |x| < 0.625, else sign(x) * (1 - 2 / (exp(2|x|) + 1))
// with exp expanded as well.
// CHECK-LABEL: func.func @tanh_f32
// CHECK-NOT: math.tanh
// CHECK: ^bb0(%[[X:[a-z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK: %[[AX:.+]] = math.absf %[[X]] : f32
// CHECK: %[[Z:.+]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK: %[[K0:.+]] = arith.constant -0.00570498873 : f32
// CHECK: %[[T1:.+]] = math.fma %[[K0]], %[[Z]], %{{.+}} : f32
// CHECK: %[[T2:.+]] = math.fma %[[T1]], %[[Z]], %{{.+}} : f32
// CHECK: %[[T3:.+]] = math.fma %[[T2]], %[[Z]], %{{.+}} : f32
// CHECK: %[[T4:.+]] = math.fma %[[T3]], %[[Z]], %{{.+}} : f32
// CHECK: %[[T5:.+]] = arith.mulf %[[T4]], %[[Z]] : f32
// CHECK: %[[SMALL:.+]] = math.fma %[[T5]], %[[X]], %[[X]] : f32
// CHECK: %[[AX2:.+]] = arith.mulf %[[AX]], %{{.+}} : f32
// CHECK: arith.maximumf %[[AX2]], %{{.+}} : f32
// CHECK: math.floor
// CHECK-COUNT-2: arith.bitcast %{{.+}} : i32 to f32
// CHECK: %[[OVER:.+]] = arith.cmpf ogt, %[[AX2]], %{{.+}} : f32
// CHECK: %[[EO:.+]] = arith.select %[[OVER]], %{{.+}}, %{{.+}} : f32
// CHECK: %[[UNDER:.+]] = arith.cmpf olt, %[[AX2]], %{{.+}} : f32
// CHECK: %[[EXP:.+]] = arith.select %[[UNDER]], %{{.+}}, %[[EO]] : f32
// CHECK: %[[D:.+]] = arith.addf %[[EXP]], %{{.+}} : f32
// CHECK: %[[Q:.+]] = arith.divf %{{.+}}, %[[D]] : f32
// CHECK: %[[L:.+]] = arith.subf %{{.+}}, %[[Q]] : f32
// CHECK: %[[LARGE:.+]] = math.copysign %[[L]], %[[X]] : f32
// CHECK: %[[SWITCH:.+]] = arith.constant 6.250000e-01 : f32
// CHECK: %[[SEL:.+]] = arith.cmpf olt, %[[AX]], %[[SWITCH]] : f32
// CHECK: %[[R:.+]] = arith.select %[[SEL]], %[[SMALL]], %[[LARGE]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK-NOT: math.tanh
// CHECK-NOT: math.exp
// CHECK: return
// NOTANH-LABEL: func.func @tanh_f32
// NOTANH: math.tanh %{{.+}} : f32
// NOTANH-NOT: arith.bitcast
// NOTANH: return
func.func @tanh_f32(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = math.tanh %in : f32
    linalg.yield %1 : f32
  } -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Only scalar f32 exp and tanh are rewritten: f16, f64 and vector exp/tanh, and
// other math ops, are left as they are.
// CHECK-LABEL: func.func @other_types
// CHECK-NOT: arith.bitcast
// CHECK-NOT: math.fma
// CHECK: math.exp %{{.+}} : f16
// CHECK: math.tanh %{{.+}} : f16
// CHECK: math.exp %{{.+}} : f64
// CHECK: math.tanh %{{.+}} : f64
// CHECK: math.log %{{.+}} : f32
// CHECK: math.exp %{{.+}} : vector<4xf32>
// CHECK-NOT: arith.bitcast
// CHECK-NOT: math.fma
// CHECK: return
func.func @other_types(%h: tensor<8xf16>, %d: tensor<8xf64>, %f: tensor<8xf32>, %v: vector<4xf32>) -> (tensor<8xf16>, tensor<8xf64>, tensor<8xf32>, vector<4xf32>) {
  %eh = tensor.empty() : tensor<8xf16>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%h : tensor<8xf16>) outs(%eh : tensor<8xf16>) {
  ^bb0(%in: f16, %out: f16):
    %a = math.exp %in : f16
    %b = math.tanh %a : f16
    linalg.yield %b : f16
  } -> tensor<8xf16>
  %ed = tensor.empty() : tensor<8xf64>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%d : tensor<8xf64>) outs(%ed : tensor<8xf64>) {
  ^bb0(%in: f64, %out: f64):
    %a = math.exp %in : f64
    %b = math.tanh %a : f64
    linalg.yield %b : f64
  } -> tensor<8xf64>
  %ef = tensor.empty() : tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%f : tensor<8xf32>) outs(%ef : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = math.log %in : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %3 = math.exp %v : vector<4xf32>
  return %0, %1, %2, %3 : tensor<8xf16>, tensor<8xf64>, tensor<8xf32>, vector<4xf32>
}

// -----

// A scalar f32 exp outside a linalg body is rewritten too.
// CHECK-LABEL: func.func @scalar
// CHECK-SAME: (%[[X:.+]]: f32)
// CHECK-NOT: math.exp
// CHECK: arith.cmpf ogt, %[[X]]
// CHECK: %[[UNDER:.+]] = arith.cmpf olt, %[[X]]
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.+]] = arith.select %[[UNDER]], %[[ZERO]], %{{.+}} : f32
// CHECK-NOT: math.exp
// CHECK: return %[[R]] : f32
func.func @scalar(%x: f32) -> f32 {
  %0 = math.exp %x : f32
  return %0 : f32
}
