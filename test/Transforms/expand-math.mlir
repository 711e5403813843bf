// RUN: strata-opt %s --split-input-file --strata-expand-math | FileCheck %s
// RUN: strata-opt %s --split-input-file '--strata-expand-math=tanh=false' | FileCheck %s --check-prefix=NOTANH
// RUN: strata-opt %s --split-input-file '--strata-expand-math=exp=false log=false tanh=false erf=false' | FileCheck %s --check-prefix=NONE
// RUN: not strata-opt %s '--strata-expand-math=erf=maybe' 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: error: strata-expand-math: option 'erf' expects true or false, got 'maybe'

#id = affine_map<(d0) -> (d0)>

// exp: clamp, Cody-Waite range reduction, a degree-7 polynomial (one Horner chain of fma),
// scale by 2^n built from its bits in two factors, then +inf above / 0 below range.
// CHECK-LABEL: func.func @exp_f32
// CHECK-NOT: math.exp
// CHECK: ^bb0(%[[X:[a-z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK: %[[LO:.+]] = arith.constant -87.3365478 : f32
// CHECK: %[[C1:.+]] = arith.maximumf %[[X]], %[[LO]] : f32
// CHECK: %[[HI:.+]] = arith.constant 88.7228394 : f32
// CHECK: %[[XC:.+]] = arith.minimumf %[[C1]], %[[HI]] : f32
// CHECK: %[[LOG2E:.+]] = arith.constant 1.44269502 : f32
// CHECK: %[[ROUND:.+]] = arith.constant 0x4B400000 : f32
// CHECK: %[[T:.+]] = math.fma %[[XC]], %[[LOG2E]], %[[ROUND]] : f32
// CHECK-NOT: math.floor
// CHECK: %[[N:.+]] = arith.subf %[[T]], %{{.+}} : f32
// CHECK: %[[LN2HI:.+]] = arith.constant -0.693359375 : f32
// CHECK: %[[R1:.+]] = math.fma %[[N]], %[[LN2HI]], %[[XC]] : f32
// CHECK: %[[LN2LO:.+]] = arith.constant 2.12194442E-4 : f32
// CHECK: %[[R:.+]] = math.fma %[[N]], %[[LN2LO]], %[[R1]] : f32
// One Horner chain down to the constant 1: no r^2 multiply, no final add.
// CHECK-NOT: arith.mulf %[[R]], %[[R]]
// CHECK: %[[P0:.+]] = arith.constant 1.98756912E-4 : f32
// CHECK: %[[H1:.+]] = math.fma %[[P0]], %[[R]], %{{.+}} : f32
// CHECK: %[[H2:.+]] = math.fma %[[H1]], %[[R]], %{{.+}} : f32
// CHECK: %[[H3:.+]] = math.fma %[[H2]], %[[R]], %{{.+}} : f32
// CHECK: %[[H4:.+]] = math.fma %[[H3]], %[[R]], %{{.+}} : f32
// CHECK: %[[H5:.+]] = math.fma %[[H4]], %[[R]], %{{.+}} : f32
// CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[H6:.+]] = math.fma %[[H5]], %[[R]], %[[ONE]] : f32
// CHECK-NEXT: %[[ONE2:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[P:.+]] = math.fma %[[H6]], %[[R]], %[[ONE2]] : f32
// CHECK-NOT: arith.addf %{{.+}}, %[[ONE]]
// CHECK-NOT: arith.fptosi
// CHECK: %[[TB:.+]] = arith.bitcast %[[T]] : f32 to i32
// CHECK: %[[ROUNDB:.+]] = arith.constant 1262485504 : i32
// CHECK: %[[NI:.+]] = arith.subi %[[TB]], %[[ROUNDB]] : i32
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

// tanh: copysign(e / (e + 2), x) with e = expm1(min(2|x|, 20)) = 2^n * q + (2^n - 1),
// q = expm1(r) by exp's reduction and polynomial: one expression, no select, no exp left.
// CHECK-LABEL: func.func @tanh_f32
// CHECK-NOT: math.tanh
// CHECK: ^bb0(%[[X:[a-z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK: %[[AX:.+]] = math.absf %[[X]] : f32
// CHECK: %[[AX2:.+]] = arith.mulf %[[AX]], %{{.+}} : f32
// CHECK: %[[TWENTY:.+]] = arith.constant 2.000000e+01 : f32
// CHECK: %[[XC:.+]] = arith.minimumf %[[AX2]], %[[TWENTY]] : f32
// CHECK-NOT: arith.maximumf
// CHECK: %[[T:.+]] = math.fma %[[XC]], %{{.+}}, %{{.+}} : f32
// CHECK: %[[N:.+]] = arith.subf %[[T]], %{{.+}} : f32
// CHECK: %[[R1:.+]] = math.fma %[[N]], %{{.+}}, %[[XC]] : f32
// CHECK: %[[R:.+]] = math.fma %[[N]], %{{.+}}, %[[R1]] : f32
// CHECK: %[[R2:.+]] = arith.mulf %[[R]], %[[R]] : f32
// CHECK: %[[Q:.+]] = math.fma %{{.+}}, %[[R2]], %[[R]] : f32
// 2^n: the rounding sum t = x * log2(e) + 1.5 * 2^23 + 127 holds n + 127 in its low bits,
// so its bits shifted left by 23 are 2^n: no integer subtraction or add of the bias.
// CHECK-NEXT: %[[TB:.+]] = arith.bitcast %[[T]] : f32 to i32
// CHECK-NOT: math.floor
// CHECK-NOT: arith.fptosi
// CHECK-NEXT: %[[C23:.+]] = arith.constant 23 : i32
// CHECK-NEXT: %[[SH:.+]] = arith.shli %[[TB]], %[[C23]] : i32
// CHECK-NEXT: %[[POW:.+]] = arith.bitcast %[[SH]] : i32 to f32
// CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[POWM1:.+]] = arith.subf %[[POW]], %[[ONE]] : f32
// CHECK-NEXT: %[[E:.+]] = math.fma %[[POW]], %[[Q]], %[[POWM1]] : f32
// CHECK: %[[D:.+]] = arith.addf %[[E]], %{{.+}} : f32
// CHECK-NEXT: %[[T:.+]] = arith.divf %[[E]], %[[D]] : f32
// CHECK-NEXT: %[[RES:.+]] = math.copysign %[[T]], %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[RES]] : f32
// CHECK-NOT: arith.select
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
#scalar = affine_map<(d0) -> ()>

// tanh of relu(x) * 0.5 + 0.1 (0.5 and 0.1 as 0-d constant inputs, as strata passes
// them): never negative (passes/signs.py), so no abs and no copysign; the clamp stays.
// The same chain with -0.1 added may be negative: the general expansion.
// CHECK-LABEL: func.func @tanh_of_nonnegative
// CHECK: ^bb0(%{{.+}}: f32, %{{.+}}: f32, %[[X:[a-z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK: %[[R:.+]] = arith.maximumf %[[X]], %{{.+}} : f32
// CHECK: %[[H:.+]] = arith.mulf %[[R]], %{{.+}} : f32
// CHECK: %[[A:.+]] = arith.addf %[[H]], %{{.+}} : f32
// CHECK-NOT: math.absf
// CHECK: %[[A2:.+]] = arith.mulf %[[A]], %{{.+}} : f32
// CHECK: arith.minimumf %[[A2]], %{{.+}} : f32
// CHECK-NOT: math.copysign
// CHECK: linalg.yield
// CHECK: ^bb0(
// CHECK: math.absf
// CHECK: math.copysign
// CHECK: return
func.func @tanh_of_nonnegative(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %half = arith.constant dense<5.000000e-01> : tensor<f32>
  %tenth = arith.constant dense<1.000000e-01> : tensor<f32>
  %minus = arith.constant dense<-1.000000e-01> : tensor<f32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<16xf32>
  %0 = linalg.generic {indexing_maps = [#scalar, #scalar, #id, #id], iterator_types = ["parallel"]} ins(%half, %tenth, %x : tensor<f32>, tensor<f32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%h: f32, %t: f32, %in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    %m = arith.mulf %r, %h : f32
    %a = arith.addf %m, %t : f32
    %y = math.tanh %a : f32
    linalg.yield %y : f32
  } -> tensor<16xf32>
  %1 = linalg.generic {indexing_maps = [#scalar, #scalar, #id, #id], iterator_types = ["parallel"]} ins(%half, %minus, %x : tensor<f32>, tensor<f32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%h: f32, %t: f32, %in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    %m = arith.mulf %r, %h : f32
    %a = arith.addf %m, %t : f32
    %y = math.tanh %a : f32
    linalg.yield %y : f32
  } -> tensor<16xf32>
  return %0, %1 : tensor<16xf32>, tensor<16xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Only f32 (scalar or vector) exp/log/tanh/erf are rewritten: f16 and f64, and
// other math ops, are left as they are.
// CHECK-LABEL: func.func @other_types
// CHECK-NOT: arith.bitcast
// CHECK-NOT: math.fma
// CHECK: math.exp %{{.+}} : f16
// CHECK: math.tanh %{{.+}} : f16
// CHECK: math.exp %{{.+}} : f64
// CHECK: math.log %{{.+}} : f64
// CHECK: math.erf %{{.+}} : f64
// CHECK: math.sin %{{.+}} : f32
// CHECK-NOT: arith.bitcast
// CHECK-NOT: math.fma
// CHECK: return
func.func @other_types(%h: tensor<8xf16>, %d: tensor<8xf64>, %s: f32) -> (tensor<8xf16>, tensor<8xf64>, f32) {
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
    %b = math.log %a : f64
    %c = math.erf %b : f64
    linalg.yield %c : f64
  } -> tensor<8xf64>
  %2 = math.sin %s : f32
  return %0, %1, %2 : tensor<8xf16>, tensor<8xf64>, f32
}

// -----

// Vector exp: the same arithmetic on vector<16xf32>, with splat constants and
// vector<16xi32> exponent bits.
// CHECK-LABEL: func.func @vector_exp
// CHECK-SAME: (%[[X:.+]]: vector<16xf32>)
// CHECK-NOT: math.exp
// CHECK: %[[LO:.+]] = arith.constant dense<-87.3365478> : vector<16xf32>
// CHECK: %[[C:.+]] = arith.maximumf %[[X]], %[[LO]] : vector<16xf32>
// CHECK: %[[T:.+]] = math.fma %{{.+}}, %{{.+}}, %{{.+}} : vector<16xf32>
// CHECK: %[[TB:.+]] = arith.bitcast %[[T]] : vector<16xf32> to vector<16xi32>
// CHECK: %[[NI:.+]] = arith.subi %[[TB]], %{{.+}} : vector<16xi32>
// CHECK: %[[BIAS:.+]] = arith.constant dense<127> : vector<16xi32>
// CHECK: arith.bitcast %{{.+}} : vector<16xi32> to vector<16xf32>
// CHECK: %[[UNDER:.+]] = arith.cmpf olt, %[[X]], %{{.+}} : vector<16xf32>
// CHECK: %[[R:.+]] = arith.select %[[UNDER]], %{{.+}}, %{{.+}} : vector<16xi1>, vector<16xf32>
// CHECK-NEXT: return %[[R]] : vector<16xf32>
// NONE-LABEL: func.func @vector_exp
// NONE: math.exp %{{.+}} : vector<16xf32>
func.func @vector_exp(%v: vector<16xf32>) -> vector<16xf32> {
  %0 = math.exp %v : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// exp marked strata.nonpositive (strata-attention's x - rowmax): no clamp (the underflow
// select alone makes everything below the bound 0), p * 2^n as an integer add of n << 23
// (the rounding sum's bits shifted) to p's bits: no multiply, no shrsi/subi split, no
// overflow select.
// CHECK-LABEL: func.func @exp_nonpositive
// CHECK-SAME: (%[[X:.+]]: vector<16xf32>)
// CHECK-NOT: math.exp
// CHECK-NOT: arith.maximumf
// CHECK-NOT: arith.minimumf
// CHECK: %[[T:.+]] = math.fma %[[X]], %{{.+}}, %{{.+}} : vector<16xf32>
// CHECK-NOT: math.floor
// CHECK: %[[ONE:.+]] = arith.constant dense<1.000000e+00> : vector<16xf32>
// CHECK-NEXT: math.fma %{{.+}}, %{{.+}}, %[[ONE]] : vector<16xf32>
// CHECK-NEXT: %[[ONE2:.+]] = arith.constant dense<1.000000e+00> : vector<16xf32>
// CHECK-NEXT: %[[P:.+]] = math.fma %{{.+}}, %{{.+}}, %[[ONE2]] : vector<16xf32>
// CHECK-NEXT: %[[PB:.+]] = arith.bitcast %[[P]] : vector<16xf32> to vector<16xi32>
// CHECK-NEXT: %[[TB:.+]] = arith.bitcast %[[T]] : vector<16xf32> to vector<16xi32>
// CHECK-NOT: arith.subi
// CHECK: %[[NSH:.+]] = arith.shli %[[TB]], %{{.+}} : vector<16xi32>
// CHECK-NEXT: %[[YB:.+]] = arith.addi %[[PB]], %[[NSH]] : vector<16xi32>
// CHECK-NEXT: %[[Y:.+]] = arith.bitcast %[[YB]] : vector<16xi32> to vector<16xf32>
// CHECK-NOT: arith.mulf
// CHECK-NOT: arith.cmpf ogt
// CHECK: %[[UNDER:.+]] = arith.cmpf olt, %[[X]], %{{.+}} : vector<16xf32>
// CHECK: %[[R:.+]] = arith.select %[[UNDER]], %{{.+}}, %[[Y]] : vector<16xi1>, vector<16xf32>
// CHECK-NEXT: return %[[R]] : vector<16xf32>
// NONE-LABEL: func.func @exp_nonpositive
// NONE: math.exp %{{.+}} {strata.nonpositive} : vector<16xf32>
func.func @exp_nonpositive(%v: vector<16xf32>) -> vector<16xf32> {
  %0 = math.exp %v {strata.nonpositive} : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// log: exponent and mantissa from the bits (denormals scaled by 2^23 first), f = m - 1
// on [sqrt(1/2) - 1, sqrt(2) - 1], a degree-8 polynomial, then the special values.
// CHECK-LABEL: func.func @log_f32
// CHECK-SAME: (%[[X:.+]]: f32)
// CHECK-NOT: math.log
// CHECK: %[[TINY:.+]] = arith.cmpf olt, %[[X]], %{{.+}} : f32
// CHECK: %[[SCALED:.+]] = arith.mulf %[[X]], %{{.+}} : f32
// CHECK: %[[XS:.+]] = arith.select %[[TINY]], %[[SCALED]], %[[X]] : f32
// CHECK: %[[BITS:.+]] = arith.bitcast %[[XS]] : f32 to i32
// CHECK: %[[SH:.+]] = arith.shrui %[[BITS]], %{{.+}} : i32
// CHECK: %[[MB:.+]] = arith.andi %[[BITS]], %{{.+}} : i32
// CHECK: %[[M:.+]] = arith.bitcast %{{.+}} : i32 to f32
// CHECK: %[[LOW:.+]] = arith.cmpf olt, %[[M]], %{{.+}} : f32
// CHECK-COUNT-8: math.fma %{{.+}} : f32
// CHECK: %[[INF:.+]] = arith.cmpf oeq, %[[X]], %{{.+}} : f32
// CHECK: %[[NEG:.+]] = arith.cmpf ult, %[[X]], %{{.+}} : f32
// CHECK: %[[NAN:.+]] = arith.constant 0x7FC00000 : f32
// CHECK: %[[ZERO:.+]] = arith.cmpf oeq, %[[X]], %{{.+}} : f32
// CHECK: %[[MINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[R:.+]] = arith.select %[[ZERO]], %[[MINF]], %{{.+}} : f32
// CHECK-NEXT: return %[[R]] : f32
// NONE-LABEL: func.func @log_f32
// NONE: math.log
func.func @log_f32(%x: f32) -> f32 {
  %0 = math.log %x : f32
  return %0 : f32
}

// -----

// erf: x + x * poly5(x^2) below 0.875, two degree-9 pieces up to 4, then 1, with x's sign.
// CHECK-LABEL: func.func @erf_f32
// CHECK-SAME: (%[[X:.+]]: vector<8xf32>)
// CHECK-NOT: math.erf
// CHECK: %[[AX:.+]] = math.absf %[[X]] : vector<8xf32>
// CHECK: %[[U:.+]] = arith.mulf %[[X]], %[[X]] : vector<8xf32>
// CHECK-COUNT-5: math.fma %{{.+}}, %[[U]], %{{.+}} : vector<8xf32>
// CHECK: %[[SMALL:.+]] = math.fma %[[X]], %{{.+}}, %[[X]] : vector<8xf32>
// CHECK: %[[T1:.+]] = arith.subf %[[AX]], %{{.+}} : vector<8xf32>
// CHECK-COUNT-9: math.fma %{{.+}}, %[[T1]], %{{.+}} : vector<8xf32>
// CHECK: %[[T2:.+]] = arith.subf %[[AX]], %{{.+}} : vector<8xf32>
// CHECK-COUNT-9: math.fma %{{.+}}, %[[T2]], %{{.+}} : vector<8xf32>
// CHECK: %[[BIG:.+]] = math.copysign %{{.+}}, %[[X]] : vector<8xf32>
// CHECK: %[[SEL:.+]] = arith.cmpf olt, %[[AX]], %{{.+}} : vector<8xf32>
// CHECK: %[[R:.+]] = arith.select %[[SEL]], %[[SMALL]], %[[BIG]] : vector<8xi1>, vector<8xf32>
// CHECK-NEXT: return %[[R]] : vector<8xf32>
// NOTANH-LABEL: func.func @erf_f32
// NOTANH-NOT: math.erf
// NONE-LABEL: func.func @erf_f32
// NONE: math.erf
func.func @erf_f32(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.erf %x : vector<8xf32>
  return %0 : vector<8xf32>
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
