// RUN: strata-opt %s --strata-canonicalize --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-canonicalize=max-fold-elements=4 --split-input-file | FileCheck %s --check-prefix=SMALL
// RUN: strata-opt %s --strata-canonicalize=max-iterations=1 --split-input-file | FileCheck %s --check-prefix=ONCE
// The output is valid strata IR again:
// RUN: strata-opt %s --split-input-file --pass-pipeline='builtin.module(strata-canonicalize, strata-verify)' -o %t

//===----------------------------------------------------------------------===//
// Algebraic identities
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @mul_by_one
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-NOT: strata.mul
// CHECK-NOT: strata.constant
// CHECK: return %[[X]] : tensor<4xf32>
func.func @mul_by_one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = "strata.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "strata.mul"(%x, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @one_mul
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xi32>)
// CHECK-NOT: strata.
// CHECK: return %[[X]] : tensor<2x3xi32>
func.func @one_mul(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %one = "strata.constant"() {value = dense<1> : tensor<3xi32>} : () -> tensor<3xi32>
  %0 = "strata.mul"(%one, %x) : (tensor<3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func.func @div_by_one
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xbf16>)
// CHECK-NOT: strata.
// CHECK: return %[[X]] : tensor<4xbf16>
func.func @div_by_one(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %one = "strata.constant"() {value = dense<1.0> : tensor<bf16>} : () -> tensor<bf16>
  %0 = "strata.div"(%x, %one) : (tensor<4xbf16>, tensor<bf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// 1 / x is not x.
// CHECK-LABEL: func.func @one_div_kept
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>)
// CHECK: %[[ONE:.+]] = "strata.constant"() {value = dense<1.000000e+00> : tensor<f32>}
// CHECK: %[[R:.+]] = "strata.div"(%[[ONE]], %[[X]])
// CHECK: return %[[R]]
func.func @one_div_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = "strata.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "strata.div"(%one, %x) : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @add_zero
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x?xf16>)
// CHECK-NOT: strata.
// CHECK: return %[[X]] : tensor<4x?xf16>
func.func @add_zero(%x: tensor<4x?xf16>) -> tensor<4x?xf16> {
  %zero = "strata.constant"() {value = dense<0.0> : tensor<1x1xf16>} : () -> tensor<1x1xf16>
  %0 = "strata.add"(%x, %zero) : (tensor<4x?xf16>, tensor<1x1xf16>) -> tensor<4x?xf16>
  return %0 : tensor<4x?xf16>
}

// -----

// CHECK-LABEL: func.func @zero_add
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8xi32>)
// CHECK-NOT: strata.
// CHECK: return %[[X]] : tensor<8xi32>
func.func @zero_add(%x: tensor<8xi32>) -> tensor<8xi32> {
  %zero = "strata.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %0 = "strata.add"(%zero, %x) : (tensor<i32>, tensor<8xi32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

// CHECK-LABEL: func.func @sub_zero
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-NOT: strata.
// CHECK: return %[[X]] : tensor<4xf32>
func.func @sub_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = "strata.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "strata.sub"(%x, %zero) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// 0 - x is -x, not x.
// CHECK-LABEL: func.func @zero_sub_kept
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>)
// CHECK: %[[ZERO:.+]] = "strata.constant"()
// CHECK: %[[R:.+]] = "strata.sub"(%[[ZERO]], %[[X]])
// CHECK: return %[[R]]
func.func @zero_sub_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = "strata.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "strata.sub"(%zero, %x) : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Not an identity when the constant broadcasts x to a bigger type.
// CHECK-LABEL: func.func @identity_broadcasting_kept
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>, %[[S:[a-z0-9]+]]: tensor<f32>)
// CHECK: %[[ONE:.+]] = "strata.constant"() {value = dense<1.000000e+00> : tensor<2x4xf32>}
// CHECK: %[[M:.+]] = "strata.mul"(%[[X]], %[[ONE]]) : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[ZERO:.+]] = "strata.constant"() {value = dense<0.000000e+00> : tensor<4xf32>}
// CHECK: %[[A:.+]] = "strata.add"(%[[ZERO]], %[[S]]) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: return %[[M]], %[[A]]
func.func @identity_broadcasting_kept(%x: tensor<4xf32>, %s: tensor<f32>) -> (tensor<2x4xf32>, tensor<4xf32>) {
  %one = "strata.constant"() {value = dense<1.0> : tensor<2x4xf32>} : () -> tensor<2x4xf32>
  %0 = "strata.mul"(%x, %one) : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %zero = "strata.constant"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %1 = "strata.add"(%zero, %s) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<4xf32>
}

// -----

// Not an identity when the result type is more static than x's.
// CHECK-LABEL: func.func @identity_refining_kept
// CHECK: %[[M:.+]] = "strata.mul"(%arg0, %{{.+}}) : (tensor<?xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: return %[[M]]
func.func @identity_refining_kept(%x: tensor<?xf32>) -> tensor<4xf32> {
  %one = "strata.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = "strata.mul"(%x, %one) : (tensor<?xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Only splats are identities: [1, 2] is not 1.
// CHECK-LABEL: func.func @non_splat_kept
// CHECK: %[[M:.+]] = "strata.mul"(%arg0, %{{.+}}) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK: return %[[M]]
func.func @non_splat_kept(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = "strata.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %0 = "strata.mul"(%x, %c) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

//===----------------------------------------------------------------------===//
// transpose, reshape, broadcast_to, cast
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @transpose_cancel
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3x4xf32>)
// CHECK-NOT: strata.transpose
// CHECK: return %[[X]] : tensor<2x3x4xf32>
func.func @transpose_cancel(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = "strata.transpose"(%x) {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = "strata.transpose"(%0) {permutation = array<i64: 1, 2, 0>} : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// transpose(transpose(x, [2, 0, 1]), [2, 0, 1]) = transpose(x, [1, 2, 0]).
// CHECK-LABEL: func.func @transpose_compose
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.+]] = "strata.transpose"(%[[X]]) {permutation = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
// CHECK-NOT: strata.transpose
// CHECK: return %[[T]] : tensor<3x4x2xf32>
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = "strata.transpose"(%x) {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = "strata.transpose"(%0) {permutation = array<i64: 2, 0, 1>} : (tensor<4x2x3xf32>) -> tensor<3x4x2xf32>
  return %1 : tensor<3x4x2xf32>
}

// -----

// A chain of three transposes composes into one; the inner one stays while it has another use.
// CHECK-LABEL: func.func @transpose_chain
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xf32>, %[[Y:[a-z0-9]+]]: tensor<2x3x4x5xf32>)
// CHECK-DAG: %[[T0:.+]] = "strata.transpose"(%[[X]]) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-DAG: %[[T1:.+]] = "strata.transpose"(%[[Y]]) {permutation = array<i64: 3, 2, 1, 0>} : (tensor<2x3x4x5xf32>) -> tensor<5x4x3x2xf32>
// CHECK-NOT: strata.transpose
// CHECK: return %[[X]], %[[T0]], %[[T1]]
func.func @transpose_chain(%x: tensor<2x3xf32>, %y: tensor<2x3x4x5xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<5x4x3x2xf32>) {
  %0 = "strata.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = "strata.transpose"(%0) {permutation = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %2 = "strata.transpose"(%y) {permutation = array<i64: 1, 0, 2, 3>} : (tensor<2x3x4x5xf32>) -> tensor<3x2x4x5xf32>
  %3 = "strata.transpose"(%2) {permutation = array<i64: 0, 1, 3, 2>} : (tensor<3x2x4x5xf32>) -> tensor<3x2x5x4xf32>
  %4 = "strata.transpose"(%3) {permutation = array<i64: 2, 3, 0, 1>} : (tensor<3x2x5x4xf32>) -> tensor<5x4x3x2xf32>
  return %1, %0, %4 : tensor<2x3xf32>, tensor<3x2xf32>, tensor<5x4x3x2xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xf32>)
// CHECK-NOT: strata.transpose
// CHECK: return %[[X]]
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "strata.transpose"(%x) {permutation = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_reshape
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x6xf32>)
// CHECK-NEXT: %[[R:.+]] = "strata.reshape"(%[[X]]) : (tensor<2x6xf32>) -> tensor<3x4xf32>
// CHECK-NOT: strata.reshape
// CHECK: return %[[R]], %[[X]] : tensor<3x4xf32>, tensor<2x6xf32>
func.func @reshape_reshape(%x: tensor<2x6xf32>) -> (tensor<3x4xf32>, tensor<2x6xf32>) {
  %0 = "strata.reshape"(%x) : (tensor<2x6xf32>) -> tensor<12xf32>
  %1 = "strata.reshape"(%0) : (tensor<12xf32>) -> tensor<3x4xf32>
  %2 = "strata.reshape"(%0) : (tensor<12xf32>) -> tensor<2x6xf32>
  return %1, %2 : tensor<3x4xf32>, tensor<2x6xf32>
}

// -----

// max-iterations bounds upstream's greedy driver: the reshape that the first sweep
// creates (reshape(reshape(%x)) from the outer pair) is only rewritten by a second one.
// CHECK-LABEL: func.func @reshape_chain
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x6xf32>)
// CHECK-NEXT: %[[R:.+]] = "strata.reshape"(%[[X]]) : (tensor<2x6xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: return %[[R]]
// ONCE-LABEL: func.func @reshape_chain
// ONCE-SAME: (%[[X:[a-z0-9]+]]: tensor<2x6xf32>)
// ONCE-NEXT: %[[R0:.+]] = "strata.reshape"(%[[X]]) : (tensor<2x6xf32>) -> tensor<12xf32>
// ONCE-NEXT: %[[R1:.+]] = "strata.reshape"(%[[R0]]) : (tensor<12xf32>) -> tensor<3x4xf32>
// ONCE-NEXT: return %[[R1]]
func.func @reshape_chain(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %0 = "strata.reshape"(%x) : (tensor<2x6xf32>) -> tensor<12xf32>
  %1 = "strata.reshape"(%0) : (tensor<12xf32>) -> tensor<6x2xf32>
  %2 = "strata.reshape"(%1) : (tensor<6x2xf32>) -> tensor<3x4xf32>
  return %2 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @same_type_removed
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x?xf32>, %[[Y:[a-z0-9]+]]: tensor<2x3xi32>)
// CHECK-NOT: strata.
// CHECK: return %[[X]], %[[Y]], %[[X]] : tensor<4x?xf32>, tensor<2x3xi32>, tensor<4x?xf32>
func.func @same_type_removed(%x: tensor<4x?xf32>, %y: tensor<2x3xi32>) -> (tensor<4x?xf32>, tensor<2x3xi32>, tensor<4x?xf32>) {
  %0 = "strata.reshape"(%x) : (tensor<4x?xf32>) -> tensor<4x?xf32>
  %1 = "strata.broadcast_to"(%y) : (tensor<2x3xi32>) -> tensor<2x3xi32>
  %2 = "strata.cast"(%0) : (tensor<4x?xf32>) -> tensor<4x?xf32>
  return %0, %1, %2 : tensor<4x?xf32>, tensor<2x3xi32>, tensor<4x?xf32>
}

// -----

// CHECK-LABEL: func.func @type_changing_kept
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<3xf32>)
// CHECK: %[[B:.+]] = "strata.broadcast_to"(%[[X]]) : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: %[[C:.+]] = "strata.cast"(%[[B]]) : (tensor<2x3xf32>) -> tensor<2x3xf16>
// CHECK: %[[R:.+]] = "strata.reshape"(%[[C]]) : (tensor<2x3xf16>) -> tensor<6xf16>
// CHECK: return %[[R]]
func.func @type_changing_kept(%x: tensor<3xf32>) -> tensor<6xf16> {
  %0 = "strata.broadcast_to"(%x) : (tensor<3xf32>) -> tensor<2x3xf32>
  %1 = "strata.cast"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf16>
  %2 = "strata.reshape"(%1) : (tensor<2x3xf16>) -> tensor<6xf16>
  return %2 : tensor<6xf16>
}

//===----------------------------------------------------------------------===//
// Constant folding
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @fold_f32
// CHECK-NEXT: %[[C:.+]] = "strata.constant"() {value = dense<[-2.000000e+00, -4.000000e+00, -6.000000e+00, -8.000000e+00]> : tensor<4xf32>} : () -> tensor<4xf32>
// CHECK-NEXT: return %[[C]] : tensor<4xf32>
// SMALL-LABEL: func.func @fold_f32
// SMALL-NEXT: %[[C:.+]] = "strata.constant"() {value = dense<[-2.000000e+00, -4.000000e+00, -6.000000e+00, -8.000000e+00]> : tensor<4xf32>}
// SMALL-NEXT: return %[[C]]
func.func @fold_f32() -> tensor<4xf32> {
  %a = "strata.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %b = "strata.constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "strata.mul"(%a, %b) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = "strata.neg"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @fold_i32_broadcast
// CHECK-NEXT: %[[C:.+]] = "strata.constant"() {value = dense<{{\[}}[2, 1], [2, 1]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
// CHECK-NEXT: return %[[C]] : tensor<2x2xi32>
func.func @fold_i32_broadcast() -> tensor<2x2xi32> {
  %a = "strata.constant"() {value = dense<3> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  %b = "strata.constant"() {value = dense<[1, 2]> : tensor<2xi32>} : () -> tensor<2xi32>
  %0 = "strata.sub"(%a, %b) : (tensor<2x2xi32>, tensor<2xi32>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

// CHECK-LABEL: func.func @fold_i32_unary
// CHECK-NEXT: %[[C:.+]] = "strata.constant"() {value = dense<[2, 0, 6]> : tensor<3xi32>} : () -> tensor<3xi32>
// CHECK-NEXT: return %[[C]]
func.func @fold_i32_unary() -> tensor<3xi32> {
  %i = "strata.constant"() {value = dense<[1, -2, 3]> : tensor<3xi32>} : () -> tensor<3xi32>
  %0 = "strata.abs"(%i) : (tensor<3xi32>) -> tensor<3xi32>
  %1 = "strata.add"(%0, %i) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %2 = "strata.maximum"(%1, %i) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %2 : tensor<3xi32>
}

// -----

// CHECK-LABEL: func.func @fold_f16
// CHECK-NEXT: %[[C:.+]] = "strata.constant"() {value = dense<[1.500000e+00, 0.000000e+00]> : tensor<2xf16>} : () -> tensor<2xf16>
// CHECK-NEXT: return %[[C]]
func.func @fold_f16() -> tensor<2xf16> {
  %h = "strata.constant"() {value = dense<[1.5, -2.0]> : tensor<2xf16>} : () -> tensor<2xf16>
  %0 = "strata.relu"(%h) : (tensor<2xf16>) -> tensor<2xf16>
  return %0 : tensor<2xf16>
}

// -----

// A rank-0 result folds to a rank-0 constant (not tensor<1x...>).
// CHECK-LABEL: func.func @fold_rank0
// CHECK-NEXT: %[[F:.+]] = "strata.constant"() {value = dense<-2.000000e+00> : tensor<f32>} : () -> tensor<f32>
// CHECK-NEXT: %[[I:.+]] = "strata.constant"() {value = dense<5> : tensor<i32>} : () -> tensor<i32>
// CHECK-NEXT: %[[H:.+]] = "strata.constant"() {value = dense<2.500000e-01> : tensor<f16>} : () -> tensor<f16>
// CHECK-NEXT: return %[[F]], %[[I]], %[[H]] : tensor<f32>, tensor<i32>, tensor<f16>
func.func @fold_rank0() -> (tensor<f32>, tensor<i32>, tensor<f16>) {
  %a = "strata.constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "strata.neg"(%a) : (tensor<f32>) -> tensor<f32>
  %b = "strata.constant"() {value = dense<2> : tensor<i32>} : () -> tensor<i32>
  %c = "strata.constant"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %1 = "strata.add"(%b, %c) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %h = "strata.constant"() {value = dense<0.25> : tensor<f16>} : () -> tensor<f16>
  %2 = "strata.abs"(%h) : (tensor<f16>) -> tensor<f16>
  return %0, %1, %2 : tensor<f32>, tensor<i32>, tensor<f16>
}

// -----

// Eight elements fold under the default limit (64), not under max-fold-elements=4.
// CHECK-LABEL: func.func @fold_limit
// CHECK-NEXT: %[[C:.+]] = "strata.constant"() {value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]> : tensor<8xf32>}
// CHECK-NOT: strata.
// CHECK: return %[[C]]
// SMALL-LABEL: func.func @fold_limit
// SMALL-NEXT: %[[A:.+]] = "strata.constant"() {value = dense<[-1.000000e+00, -2.000000e+00, -3.000000e+00, -4.000000e+00, -5.000000e+00, -6.000000e+00, -7.000000e+00, -8.000000e+00]> : tensor<8xf32>}
// SMALL-NEXT: %[[N:.+]] = "strata.neg"(%[[A]]) : (tensor<8xf32>) -> tensor<8xf32>
// SMALL-NEXT: return %[[N]]
func.func @fold_limit() -> tensor<8xf32> {
  %a = "strata.constant"() {value = dense<[-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0]> : tensor<8xf32>} : () -> tensor<8xf32>
  %0 = "strata.neg"(%a) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// The limit counts the result's elements: 4 folds under max-fold-elements=4, 5 does not.
// SMALL-LABEL: func.func @fold_limit_boundary
// SMALL-NEXT: %[[C4:.+]] = "strata.constant"() {value = dense<[1, 2, 3, 4]> : tensor<4xi32>}
// SMALL-NEXT: %[[C5:.+]] = "strata.constant"() {value = dense<[-1, 2, -3, 4, -5]> : tensor<5xi32>}
// SMALL-NEXT: %[[A5:.+]] = "strata.abs"(%[[C5]]) : (tensor<5xi32>) -> tensor<5xi32>
// SMALL-NEXT: return %[[C4]], %[[A5]]
func.func @fold_limit_boundary() -> (tensor<4xi32>, tensor<5xi32>) {
  %a = "strata.constant"() {value = dense<[-1, 2, -3, 4]> : tensor<4xi32>} : () -> tensor<4xi32>
  %0 = "strata.abs"(%a) : (tensor<4xi32>) -> tensor<4xi32>
  %b = "strata.constant"() {value = dense<[-1, 2, -3, 4, -5]> : tensor<5xi32>} : () -> tensor<5xi32>
  %1 = "strata.abs"(%b) : (tensor<5xi32>) -> tensor<5xi32>
  return %0, %1 : tensor<4xi32>, tensor<5xi32>
}

// -----

// bf16 and ops with a non-constant operand are not folded.
// CHECK-LABEL: func.func @no_fold
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2xf32>)
// CHECK-DAG: %[[B:.+]] = "strata.constant"() {value = dense<[1.000000e+00, -2.000000e+00]> : tensor<2xbf16>}
// CHECK-DAG: %[[F:.+]] = "strata.constant"() {value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}
// CHECK-DAG: %[[N:.+]] = "strata.neg"(%[[B]]) : (tensor<2xbf16>) -> tensor<2xbf16>
// CHECK-DAG: %[[S:.+]] = "strata.add"(%[[X]], %[[F]]) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK: return %[[N]], %[[S]]
func.func @no_fold(%x: tensor<2xf32>) -> (tensor<2xbf16>, tensor<2xf32>) {
  %b = "strata.constant"() {value = dense<[1.0, -2.0]> : tensor<2xbf16>} : () -> tensor<2xbf16>
  %0 = "strata.neg"(%b) : (tensor<2xbf16>) -> tensor<2xbf16>
  %f = "strata.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %1 = "strata.add"(%x, %f) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0, %1 : tensor<2xbf16>, tensor<2xf32>
}

//===----------------------------------------------------------------------===//
// Dead ops
//===----------------------------------------------------------------------===//

// -----

// A dead chain goes entirely. Other dialects' ops are not rewritten, but one without
// effects and without uses goes too: upstream's greedy driver erases trivially dead ops.
// CHECK-LABEL: func.func @dead_ops
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x8xf32>, %[[W:[a-z0-9]+]]: tensor<8x2xf32>)
// CHECK-NOT: strata.
// CHECK-NOT: arith.constant 0
// CHECK: %[[ONE:.+]] = arith.constant 1 : index
// CHECK-NOT: strata.
// CHECK: return %[[X]], %[[ONE]]
func.func @dead_ops(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>) -> (tensor<4x8xf32>, index) {
  %0 = "strata.matmul"(%x, %w) : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %1 = "strata.relu"(%0) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %2 = "strata.sum"(%1) {axes = array<i64: 0, 1>} : (tensor<4x2xf32>) -> tensor<f32>
  %c = "strata.constant"() {value = dense<3.0> : tensor<f32>} : () -> tensor<f32>
  %k = arith.constant 0 : index
  %j = arith.constant 1 : index
  return %x, %j : tensor<4x8xf32>, index
}

// -----

// A used op with an unused sibling: only the sibling goes.
// CHECK-LABEL: func.func @dead_sibling
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[E:.+]] = "strata.exp"(%[[X]])
// CHECK-NOT: strata.
// CHECK: return %[[E]]
func.func @dead_sibling(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "strata.exp"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "strata.log"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A matmul over K = 0 is zeros (MLIR's tiling asserts on a contraction over nothing);
// an op with no elements is an empty constant.
// CHECK-LABEL: func.func @empty_contraction
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<8x0xf32>, %[[B:[a-z0-9]+]]: tensor<0x4xf32>, %[[C:[a-z0-9]+]]: tensor<0x4xf32>)
// CHECK-DAG: %[[Z:.+]] = "strata.constant"() {value = dense<0.000000e+00> : tensor<8x4xf32>}
// CHECK-DAG: %[[E:.+]] = "strata.constant"() {value = dense<> : tensor<0x4xf32>}
// CHECK-NOT: strata.matmul
// CHECK-NOT: strata.exp
// CHECK: return %[[Z]], %[[E]]
func.func @empty_contraction(%a: tensor<8x0xf32>, %b: tensor<0x4xf32>, %c: tensor<0x4xf32>) -> (tensor<8x4xf32>, tensor<0x4xf32>) {
  %0 = "strata.matmul"(%a, %b) : (tensor<8x0xf32>, tensor<0x4xf32>) -> tensor<8x4xf32>
  %1 = "strata.exp"(%c) : (tensor<0x4xf32>) -> tensor<0x4xf32>
  return %0, %1 : tensor<8x4xf32>, tensor<0x4xf32>
}
