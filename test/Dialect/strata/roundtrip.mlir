// RUN: %roundtrip | FileCheck %s

// Every strata op, printed, re-parsed and printed again: the generic form, the
// attributes and the types survive unchanged, and each op's operands are the
// values defined before it.

//===----------------------------------------------------------------------===//
// Binary elementwise ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: %[[ADD:.+]] = "strata.add"(%arg0, %arg1) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %0 = "strata.add"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: "strata.relu"(%[[ADD]])
  %1 = "strata.relu"(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @add_dynamic
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<4x?xf32>, %[[B:[a-z0-9]+]]: tensor<?xf32>)
func.func @add_dynamic(%a: tensor<4x?xf32>, %b: tensor<?xf32>) -> tensor<4x?xf32> {
  // CHECK: %[[R:.+]] = "strata.add"(%[[A]], %[[B]]) : (tensor<4x?xf32>, tensor<?xf32>) -> tensor<4x?xf32>
  %0 = "strata.add"(%a, %b) : (tensor<4x?xf32>, tensor<?xf32>) -> tensor<4x?xf32>
  // CHECK: return %[[R]] : tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// CHECK-LABEL: func.func @sub_f16
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<2x3xf16>, %[[B:[a-z0-9]+]]: tensor<2x1xf16>)
func.func @sub_f16(%a: tensor<2x3xf16>, %b: tensor<2x1xf16>) -> tensor<2x3xf16> {
  // CHECK: %[[R:.+]] = "strata.sub"(%[[A]], %[[B]]) : (tensor<2x3xf16>, tensor<2x1xf16>) -> tensor<2x3xf16>
  %0 = "strata.sub"(%a, %b) : (tensor<2x3xf16>, tensor<2x1xf16>) -> tensor<2x3xf16>
  // CHECK: return %[[R]]
  return %0 : tensor<2x3xf16>
}

// CHECK-LABEL: func.func @mul_bf16_scalar
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<3xbf16>, %[[B:[a-z0-9]+]]: tensor<bf16>)
func.func @mul_bf16_scalar(%a: tensor<3xbf16>, %b: tensor<bf16>) -> tensor<3xbf16> {
  // CHECK: %[[R:.+]] = "strata.mul"(%[[A]], %[[B]]) : (tensor<3xbf16>, tensor<bf16>) -> tensor<3xbf16>
  %0 = "strata.mul"(%a, %b) : (tensor<3xbf16>, tensor<bf16>) -> tensor<3xbf16>
  // CHECK: return %[[R]]
  return %0 : tensor<3xbf16>
}

// CHECK-LABEL: func.func @floor_div_mod_i32
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<2x2xi32>, %[[B:[a-z0-9]+]]: tensor<2xi32>)
func.func @floor_div_mod_i32(%a: tensor<2x2xi32>, %b: tensor<2xi32>) -> (tensor<2x2xi32>, tensor<2x2xi32>) {
  // CHECK: %[[Q:.+]] = "strata.floor_div"(%[[A]], %[[B]]) : (tensor<2x2xi32>, tensor<2xi32>) -> tensor<2x2xi32>
  %0 = "strata.floor_div"(%a, %b) : (tensor<2x2xi32>, tensor<2xi32>) -> tensor<2x2xi32>
  // CHECK: %[[R:.+]] = "strata.mod"(%[[A]], %[[B]]) : (tensor<2x2xi32>, tensor<2xi32>) -> tensor<2x2xi32>
  %1 = "strata.mod"(%a, %b) : (tensor<2x2xi32>, tensor<2xi32>) -> tensor<2x2xi32>
  // CHECK: return %[[Q]], %[[R]]
  return %0, %1 : tensor<2x2xi32>, tensor<2x2xi32>
}

// CHECK-LABEL: func.func @floor_div_mod_f16
func.func @floor_div_mod_f16(%a: tensor<3xf16>, %b: tensor<f16>) -> (tensor<3xf16>, tensor<3xf16>) {
  // CHECK: "strata.floor_div"(%{{.+}}, %{{.+}}) : (tensor<3xf16>, tensor<f16>) -> tensor<3xf16>
  %0 = "strata.floor_div"(%a, %b) : (tensor<3xf16>, tensor<f16>) -> tensor<3xf16>
  // CHECK: "strata.mod"(%{{.+}}, %{{.+}}) : (tensor<3xf16>, tensor<f16>) -> tensor<3xf16>
  %1 = "strata.mod"(%a, %b) : (tensor<3xf16>, tensor<f16>) -> tensor<3xf16>
  return %0, %1 : tensor<3xf16>, tensor<3xf16>
}

// CHECK-LABEL: func.func @cast_i1
func.func @cast_i1(%m: tensor<4xi1>) -> tensor<4xbf16> {
  // CHECK: "strata.cast"(%{{.+}}) : (tensor<4xi1>) -> tensor<4xbf16>
  %0 = "strata.cast"(%m) : (tensor<4xi1>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// CHECK-LABEL: func.func @maximum_minimum
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<?x4xf32>, %[[B:[a-z0-9]+]]: tensor<1x4xf32>, %[[C:[a-z0-9]+]]: tensor<3x1xf32>)
func.func @maximum_minimum(%a: tensor<?x4xf32>, %b: tensor<1x4xf32>, %c: tensor<3x1xf32>) -> tensor<3x4xf32> {
  // CHECK: %[[MAX:.+]] = "strata.maximum"(%[[A]], %[[B]]) : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  %0 = "strata.maximum"(%a, %b) : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  // CHECK: %[[MIN:.+]] = "strata.minimum"(%[[MAX]], %[[C]]) : (tensor<?x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  %1 = "strata.minimum"(%0, %c) : (tensor<?x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  // CHECK: return %[[MIN]]
  return %1 : tensor<3x4xf32>
}

// CHECK-LABEL: func.func @pow
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<5xf32>, %[[B:[a-z0-9]+]]: tensor<f32>)
func.func @pow(%a: tensor<5xf32>, %b: tensor<f32>) -> tensor<5xf32> {
  // CHECK: %[[R:.+]] = "strata.pow"(%[[A]], %[[B]]) : (tensor<5xf32>, tensor<f32>) -> tensor<5xf32>
  %0 = "strata.pow"(%a, %b) : (tensor<5xf32>, tensor<f32>) -> tensor<5xf32>
  // CHECK: return %[[R]]
  return %0 : tensor<5xf32>
}

//===----------------------------------------------------------------------===//
// Unary elementwise ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @unary_chain
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x?xf32>)
func.func @unary_chain(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  // CHECK: %[[NEG:.+]] = "strata.neg"(%[[X]]) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %0 = "strata.neg"(%x) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: %[[ABS:.+]] = "strata.abs"(%[[NEG]]) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %1 = "strata.abs"(%0) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: %[[EXP:.+]] = "strata.exp"(%[[ABS]]) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %2 = "strata.exp"(%1) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: %[[LOG:.+]] = "strata.log"(%[[EXP]]) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %3 = "strata.log"(%2) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: %[[SQRT:.+]] = "strata.sqrt"(%[[LOG]]) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %4 = "strata.sqrt"(%3) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: %[[RSQRT:.+]] = "strata.rsqrt"(%[[SQRT]]) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %5 = "strata.rsqrt"(%4) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: %[[TANH:.+]] = "strata.tanh"(%[[RSQRT]]) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %6 = "strata.tanh"(%5) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: %[[SIG:.+]] = "strata.sigmoid"(%[[TANH]]) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %7 = "strata.sigmoid"(%6) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: %[[RELU:.+]] = "strata.relu"(%[[SIG]]) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %8 = "strata.relu"(%7) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: return %[[RELU]] : tensor<2x?xf32>
  return %8 : tensor<2x?xf32>
}

// CHECK-LABEL: func.func @unary_dtypes
// CHECK-SAME: (%[[I:[a-z0-9]+]]: tensor<4xi32>, %[[H:[a-z0-9]+]]: tensor<4xf16>, %[[B:[a-z0-9]+]]: tensor<4xbf16>)
func.func @unary_dtypes(%i: tensor<4xi32>, %h: tensor<4xf16>, %b: tensor<4xbf16>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xf16>, tensor<4xbf16>) {
  // CHECK: %[[NEG:.+]] = "strata.neg"(%[[I]]) : (tensor<4xi32>) -> tensor<4xi32>
  %0 = "strata.neg"(%i) : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: %[[RELU:.+]] = "strata.relu"(%[[I]]) : (tensor<4xi32>) -> tensor<4xi32>
  %1 = "strata.relu"(%i) : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: %[[ABS:.+]] = "strata.abs"(%[[H]]) : (tensor<4xf16>) -> tensor<4xf16>
  %2 = "strata.abs"(%h) : (tensor<4xf16>) -> tensor<4xf16>
  // CHECK: %[[RS:.+]] = "strata.rsqrt"(%[[B]]) : (tensor<4xbf16>) -> tensor<4xbf16>
  %3 = "strata.rsqrt"(%b) : (tensor<4xbf16>) -> tensor<4xbf16>
  // CHECK: return %[[NEG]], %[[RELU]], %[[ABS]], %[[RS]]
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<4xf16>, tensor<4xbf16>
}

// CHECK-LABEL: func.func @gelu
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8xf32>)
func.func @gelu(%x: tensor<8xf32>) -> tensor<8xf32> {
  // The default form is left implicit, an explicit one is kept.
  // CHECK: %[[G0:.+]] = "strata.gelu"(%[[X]]) : (tensor<8xf32>) -> tensor<8xf32>
  %0 = "strata.gelu"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: %[[G1:.+]] = "strata.gelu"(%[[G0]]) {approximate = "none"} : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "strata.gelu"(%0) {approximate = "none"} : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: %[[G2:.+]] = "strata.gelu"(%[[G1]]) {approximate = "tanh"} : (tensor<8xf32>) -> tensor<8xf32>
  %2 = "strata.gelu"(%1) {approximate = "tanh"} : (tensor<8xf32>) -> tensor<8xf32>
  // CHECK: return %[[G2]]
  return %2 : tensor<8xf32>
}

//===----------------------------------------------------------------------===//
// compare and select
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @compare_predicates
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<4x8xf32>, %[[B:[a-z0-9]+]]: tensor<8xf32>)
func.func @compare_predicates(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>) {
  // CHECK: %[[EQ:.+]] = "strata.compare"(%[[A]], %[[B]]) {predicate = "eq"} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  %0 = "strata.compare"(%a, %b) {predicate = "eq"} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  // CHECK: %[[NE:.+]] = "strata.compare"(%[[A]], %[[B]]) {predicate = "ne"}
  %1 = "strata.compare"(%a, %b) {predicate = "ne"} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  // CHECK: %[[LT:.+]] = "strata.compare"(%[[A]], %[[B]]) {predicate = "lt"}
  %2 = "strata.compare"(%a, %b) {predicate = "lt"} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  // CHECK: %[[LE:.+]] = "strata.compare"(%[[A]], %[[B]]) {predicate = "le"}
  %3 = "strata.compare"(%a, %b) {predicate = "le"} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  // CHECK: %[[GT:.+]] = "strata.compare"(%[[B]], %[[A]]) {predicate = "gt"} : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %4 = "strata.compare"(%b, %a) {predicate = "gt"} : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: %[[GE:.+]] = "strata.compare"(%[[A]], %[[A]]) {predicate = "ge"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %5 = "strata.compare"(%a, %a) {predicate = "ge"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: return %[[EQ]], %[[NE]], %[[LT]], %[[LE]], %[[GT]], %[[GE]]
  return %0, %1, %2, %3, %4, %5 : tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xi1>
}

// CHECK-LABEL: func.func @compare_select_i32_dynamic
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<?x8xi32>, %[[B:[a-z0-9]+]]: tensor<1x8xi32>)
func.func @compare_select_i32_dynamic(%a: tensor<?x8xi32>, %b: tensor<1x8xi32>) -> tensor<?x8xi32> {
  // CHECK: %[[C:.+]] = "strata.compare"(%[[A]], %[[B]]) {predicate = "lt"} : (tensor<?x8xi32>, tensor<1x8xi32>) -> tensor<?x8xi1>
  %0 = "strata.compare"(%a, %b) {predicate = "lt"} : (tensor<?x8xi32>, tensor<1x8xi32>) -> tensor<?x8xi1>
  // CHECK: %[[S:.+]] = "strata.select"(%[[C]], %[[B]], %[[A]]) : (tensor<?x8xi1>, tensor<1x8xi32>, tensor<?x8xi32>) -> tensor<?x8xi32>
  %1 = "strata.select"(%0, %b, %a) : (tensor<?x8xi1>, tensor<1x8xi32>, tensor<?x8xi32>) -> tensor<?x8xi32>
  // CHECK: return %[[S]]
  return %1 : tensor<?x8xi32>
}

// CHECK-LABEL: func.func @select_broadcast
// CHECK-SAME: (%[[C:[a-z0-9]+]]: tensor<4x1xi1>, %[[T:[a-z0-9]+]]: tensor<4x8xf16>, %[[F:[a-z0-9]+]]: tensor<8xf16>)
func.func @select_broadcast(%c: tensor<4x1xi1>, %t: tensor<4x8xf16>, %f: tensor<8xf16>) -> tensor<4x8xf16> {
  // CHECK: %[[S:.+]] = "strata.select"(%[[C]], %[[T]], %[[F]]) : (tensor<4x1xi1>, tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  %0 = "strata.select"(%c, %t, %f) : (tensor<4x1xi1>, tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16>
  // CHECK: return %[[S]]
  return %0 : tensor<4x8xf16>
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul_2d
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<4x8xf32>, %[[B:[a-z0-9]+]]: tensor<8x16xf32>)
func.func @matmul_2d(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // CHECK: %[[R:.+]] = "strata.matmul"(%[[A]], %[[B]]) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %0 = "strata.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  // CHECK: return %[[R]]
  return %0 : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @matmul_vector
// CHECK-SAME: (%[[V:[a-z0-9]+]]: tensor<8xf32>, %[[M:[a-z0-9]+]]: tensor<8x16xf32>, %[[N:[a-z0-9]+]]: tensor<4x8xf32>)
func.func @matmul_vector(%v: tensor<8xf32>, %m: tensor<8x16xf32>, %n: tensor<4x8xf32>) -> (tensor<16xf32>, tensor<4xf32>, tensor<f32>) {
  // CHECK: %[[VM:.+]] = "strata.matmul"(%[[V]], %[[M]]) : (tensor<8xf32>, tensor<8x16xf32>) -> tensor<16xf32>
  %0 = "strata.matmul"(%v, %m) : (tensor<8xf32>, tensor<8x16xf32>) -> tensor<16xf32>
  // CHECK: %[[MV:.+]] = "strata.matmul"(%[[N]], %[[V]]) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  %1 = "strata.matmul"(%n, %v) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  // CHECK: %[[VV:.+]] = "strata.matmul"(%[[V]], %[[V]]) : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  %2 = "strata.matmul"(%v, %v) : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  // CHECK: return %[[VM]], %[[MV]], %[[VV]]
  return %0, %1, %2 : tensor<16xf32>, tensor<4xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @matmul_batched
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<2x1x4x8xf16>, %[[B:[a-z0-9]+]]: tensor<3x8x16xf16>)
func.func @matmul_batched(%a: tensor<2x1x4x8xf16>, %b: tensor<3x8x16xf16>) -> tensor<2x3x4x16xf16> {
  // CHECK: %[[R:.+]] = "strata.matmul"(%[[A]], %[[B]]) : (tensor<2x1x4x8xf16>, tensor<3x8x16xf16>) -> tensor<2x3x4x16xf16>
  %0 = "strata.matmul"(%a, %b) : (tensor<2x1x4x8xf16>, tensor<3x8x16xf16>) -> tensor<2x3x4x16xf16>
  // CHECK: return %[[R]]
  return %0 : tensor<2x3x4x16xf16>
}

// CHECK-LABEL: func.func @matmul_dynamic
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<?x?x8xbf16>, %[[B:[a-z0-9]+]]: tensor<?x?xbf16>)
func.func @matmul_dynamic(%a: tensor<?x?x8xbf16>, %b: tensor<?x?xbf16>) -> tensor<?x?x?xbf16> {
  // CHECK: %[[R:.+]] = "strata.matmul"(%[[A]], %[[B]]) : (tensor<?x?x8xbf16>, tensor<?x?xbf16>) -> tensor<?x?x?xbf16>
  %0 = "strata.matmul"(%a, %b) : (tensor<?x?x8xbf16>, tensor<?x?xbf16>) -> tensor<?x?x?xbf16>
  // CHECK: return %[[R]]
  return %0 : tensor<?x?x?xbf16>
}

// CHECK-LABEL: func.func @matmul_i32
func.func @matmul_i32(%a: tensor<2x3xi32>, %b: tensor<3x2xi32>) -> tensor<2x2xi32> {
  // CHECK: "strata.matmul"(%arg0, %arg1) : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2x2xi32>
  %0 = "strata.matmul"(%a, %b) : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x8x16xf32>)
func.func @reductions(%x: tensor<4x8x16xf32>) -> (tensor<4x16xf32>, tensor<4x8x1xf32>, tensor<8xf32>, tensor<1x8x1xf32>, tensor<4x8x16xf32>) {
  // CHECK: %[[SUM:.+]] = "strata.sum"(%[[X]]) {axes = array<i64: 1>} : (tensor<4x8x16xf32>) -> tensor<4x16xf32>
  %0 = "strata.sum"(%x) {axes = array<i64: 1>} : (tensor<4x8x16xf32>) -> tensor<4x16xf32>
  // CHECK: %[[MAX:.+]] = "strata.max"(%[[X]]) {axes = array<i64: -1>, keepdims = true} : (tensor<4x8x16xf32>) -> tensor<4x8x1xf32>
  %1 = "strata.max"(%x) {axes = array<i64: -1>, keepdims = true} : (tensor<4x8x16xf32>) -> tensor<4x8x1xf32>
  // CHECK: %[[MEAN:.+]] = "strata.mean"(%[[X]]) {axes = array<i64: 0, -1>, keepdims = false} : (tensor<4x8x16xf32>) -> tensor<8xf32>
  %2 = "strata.mean"(%x) {axes = array<i64: 0, -1>, keepdims = false} : (tensor<4x8x16xf32>) -> tensor<8xf32>
  // CHECK: %[[SUMK:.+]] = "strata.sum"(%[[X]]) {axes = array<i64: -3, 2>, keepdims = true} : (tensor<4x8x16xf32>) -> tensor<1x8x1xf32>
  %3 = "strata.sum"(%x) {axes = array<i64: -3, 2>, keepdims = true} : (tensor<4x8x16xf32>) -> tensor<1x8x1xf32>
  // An empty axes list reduces nothing.
  // CHECK: %[[NONE:.+]] = "strata.sum"(%[[X]]) {axes = array<i64>} : (tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  %4 = "strata.sum"(%x) {axes = array<i64>} : (tensor<4x8x16xf32>) -> tensor<4x8x16xf32>
  // CHECK: return %[[SUM]], %[[MAX]], %[[MEAN]], %[[SUMK]], %[[NONE]]
  return %0, %1, %2, %3, %4 : tensor<4x16xf32>, tensor<4x8x1xf32>, tensor<8xf32>, tensor<1x8x1xf32>, tensor<4x8x16xf32>
}

// CHECK-LABEL: func.func @reductions_dynamic
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x8xi32>, %[[H:[a-z0-9]+]]: tensor<?x?xf16>)
func.func @reductions_dynamic(%x: tensor<?x8xi32>, %h: tensor<?x?xf16>) -> (tensor<8xi32>, tensor<?x1xi32>, tensor<f16>) {
  // CHECK: %[[S:.+]] = "strata.sum"(%[[X]]) {axes = array<i64: 0>} : (tensor<?x8xi32>) -> tensor<8xi32>
  %0 = "strata.sum"(%x) {axes = array<i64: 0>} : (tensor<?x8xi32>) -> tensor<8xi32>
  // CHECK: %[[M:.+]] = "strata.max"(%[[X]]) {axes = array<i64: 1>, keepdims = true} : (tensor<?x8xi32>) -> tensor<?x1xi32>
  %1 = "strata.max"(%x) {axes = array<i64: 1>, keepdims = true} : (tensor<?x8xi32>) -> tensor<?x1xi32>
  // CHECK: %[[MEAN:.+]] = "strata.mean"(%[[H]]) {axes = array<i64: 0, 1>} : (tensor<?x?xf16>) -> tensor<f16>
  %2 = "strata.mean"(%h) {axes = array<i64: 0, 1>} : (tensor<?x?xf16>) -> tensor<f16>
  // CHECK: return %[[S]], %[[M]], %[[MEAN]]
  return %0, %1, %2 : tensor<8xi32>, tensor<?x1xi32>, tensor<f16>
}

// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x?xf32>, %[[B:[a-z0-9]+]]: tensor<4x4xbf16>)
func.func @softmax(%x: tensor<2x?xf32>, %b: tensor<4x4xbf16>) -> (tensor<2x?xf32>, tensor<2x?xf32>, tensor<4x4xbf16>) {
  // CHECK: %[[S0:.+]] = "strata.softmax"(%[[X]]) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %0 = "strata.softmax"(%x) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: %[[S1:.+]] = "strata.softmax"(%[[S0]]) {axis = 0 : i64} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %1 = "strata.softmax"(%0) {axis = 0 : i64} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: %[[S2:.+]] = "strata.softmax"(%[[B]]) {axis = -2 : i64} : (tensor<4x4xbf16>) -> tensor<4x4xbf16>
  %2 = "strata.softmax"(%b) {axis = -2 : i64} : (tensor<4x4xbf16>) -> tensor<4x4xbf16>
  // CHECK: return %[[S0]], %[[S1]], %[[S2]]
  return %0, %1, %2 : tensor<2x?xf32>, tensor<2x?xf32>, tensor<4x4xbf16>
}

// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x4x8xf32>, %[[S:[a-z0-9]+]]: tensor<8xf32>, %[[B:[a-z0-9]+]]: tensor<8xf32>, %[[S2:[a-z0-9]+]]: tensor<4x8xf32>, %[[B2:[a-z0-9]+]]: tensor<4x8xf32>)
func.func @layer_norm(%x: tensor<2x4x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>, %s2: tensor<4x8xf32>, %b2: tensor<4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>) {
  // CHECK: %[[L0:.+]] = "strata.layer_norm"(%[[X]], %[[S]], %[[B]]) : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  %0 = "strata.layer_norm"(%x, %s, %b) : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  // CHECK: %[[L1:.+]] = "strata.layer_norm"(%[[L0]], %[[S2]], %[[B2]]) {axis = -2 : i64, epsilon = 1.000000e-03 : f64} : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  %1 = "strata.layer_norm"(%0, %s2, %b2) {axis = -2 : i64, epsilon = 1.0e-3 : f64} : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  // CHECK: return %[[L0]], %[[L1]]
  return %0, %1 : tensor<2x4x8xf32>, tensor<2x4x8xf32>
}

// CHECK-LABEL: func.func @layer_norm_dynamic_f16
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x?xf16>, %[[S:[a-z0-9]+]]: tensor<?xf16>, %[[B:[a-z0-9]+]]: tensor<16xf16>)
func.func @layer_norm_dynamic_f16(%x: tensor<?x?xf16>, %s: tensor<?xf16>, %b: tensor<16xf16>) -> tensor<?x?xf16> {
  // CHECK: %[[L:.+]] = "strata.layer_norm"(%[[X]], %[[S]], %[[B]]) {axis = 1 : i64} : (tensor<?x?xf16>, tensor<?xf16>, tensor<16xf16>) -> tensor<?x?xf16>
  %0 = "strata.layer_norm"(%x, %s, %b) {axis = 1 : i64} : (tensor<?x?xf16>, tensor<?xf16>, tensor<16xf16>) -> tensor<?x?xf16>
  // CHECK: return %[[L]]
  return %0 : tensor<?x?xf16>
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x8xf32>, %[[D:[a-z0-9]+]]: tensor<2x?xi32>)
func.func @reshape(%x: tensor<4x8xf32>, %d: tensor<2x?xi32>) -> (tensor<2x4x4xf32>, tensor<?x2xi32>) {
  // CHECK: %[[R0:.+]] = "strata.reshape"(%[[X]]) : (tensor<4x8xf32>) -> tensor<32xf32>
  %0 = "strata.reshape"(%x) : (tensor<4x8xf32>) -> tensor<32xf32>
  // CHECK: %[[R1:.+]] = "strata.reshape"(%[[R0]]) : (tensor<32xf32>) -> tensor<2x4x4xf32>
  %1 = "strata.reshape"(%0) : (tensor<32xf32>) -> tensor<2x4x4xf32>
  // CHECK: %[[R2:.+]] = "strata.reshape"(%[[D]]) : (tensor<2x?xi32>) -> tensor<?x2xi32>
  %2 = "strata.reshape"(%d) : (tensor<2x?xi32>) -> tensor<?x2xi32>
  // CHECK: return %[[R1]], %[[R2]]
  return %1, %2 : tensor<2x4x4xf32>, tensor<?x2xi32>
}

// CHECK-LABEL: func.func @reshape_scalar
func.func @reshape_scalar(%x: tensor<1x1xf16>) -> tensor<f16> {
  // CHECK: %[[R:.+]] = "strata.reshape"(%arg0) : (tensor<1x1xf16>) -> tensor<f16>
  %0 = "strata.reshape"(%x) : (tensor<1x1xf16>) -> tensor<f16>
  // CHECK: return %[[R]]
  return %0 : tensor<f16>
}

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3xf32>, %[[Y:[a-z0-9]+]]: tensor<2x?x4xbf16>)
func.func @transpose(%x: tensor<2x3xf32>, %y: tensor<2x?x4xbf16>) -> (tensor<3x2xf32>, tensor<4x2x?xbf16>) {
  // CHECK: %[[T0:.+]] = "strata.transpose"(%[[X]]) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %0 = "strata.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK: %[[T1:.+]] = "strata.transpose"(%[[Y]]) {permutation = array<i64: 2, 0, 1>} : (tensor<2x?x4xbf16>) -> tensor<4x2x?xbf16>
  %1 = "strata.transpose"(%y) {permutation = array<i64: 2, 0, 1>} : (tensor<2x?x4xbf16>) -> tensor<4x2x?xbf16>
  // CHECK: return %[[T0]], %[[T1]]
  return %0, %1 : tensor<3x2xf32>, tensor<4x2x?xbf16>
}

// CHECK-LABEL: func.func @broadcast_to
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8xf32>, %[[Y:[a-z0-9]+]]: tensor<1x?xi32>)
func.func @broadcast_to(%x: tensor<8xf32>, %y: tensor<1x?xi32>) -> (tensor<4x8xf32>, tensor<2x3x5xi32>, tensor<?x?xi32>) {
  // CHECK: %[[B0:.+]] = "strata.broadcast_to"(%[[X]]) : (tensor<8xf32>) -> tensor<4x8xf32>
  %0 = "strata.broadcast_to"(%x) : (tensor<8xf32>) -> tensor<4x8xf32>
  // CHECK: %[[B1:.+]] = "strata.broadcast_to"(%[[Y]]) : (tensor<1x?xi32>) -> tensor<2x3x5xi32>
  %1 = "strata.broadcast_to"(%y) : (tensor<1x?xi32>) -> tensor<2x3x5xi32>
  // CHECK: %[[B2:.+]] = "strata.broadcast_to"(%[[Y]]) : (tensor<1x?xi32>) -> tensor<?x?xi32>
  %2 = "strata.broadcast_to"(%y) : (tensor<1x?xi32>) -> tensor<?x?xi32>
  // CHECK: return %[[B0]], %[[B1]], %[[B2]]
  return %0, %1, %2 : tensor<4x8xf32>, tensor<2x3x5xi32>, tensor<?x?xi32>
}

// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<2x3xf32>, %[[B:[a-z0-9]+]]: tensor<4x3xf32>, %[[C:[a-z0-9]+]]: tensor<2x?xf32>)
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %c: tensor<2x?xf32>) -> (tensor<6x3xf32>, tensor<2x?xf32>) {
  // CHECK: %[[C0:.+]] = "strata.concat"(%[[A]], %[[B]]) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  %0 = "strata.concat"(%a, %b) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  // CHECK: %[[C1:.+]] = "strata.concat"(%[[C]], %[[C]]) {axis = -1 : i64} : (tensor<2x?xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
  %1 = "strata.concat"(%c, %c) {axis = -1 : i64} : (tensor<2x?xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: return %[[C0]], %[[C1]]
  return %0, %1 : tensor<6x3xf32>, tensor<2x?xf32>
}

// CHECK-LABEL: func.func @concat_i32
func.func @concat_i32(%a: tensor<?x2xi32>) -> tensor<?x2xi32> {
  // CHECK: %[[C:.+]] = "strata.concat"(%arg0, %arg0) {axis = 0 : i64} : (tensor<?x2xi32>, tensor<?x2xi32>) -> tensor<?x2xi32>
  %0 = "strata.concat"(%a, %a) {axis = 0 : i64} : (tensor<?x2xi32>, tensor<?x2xi32>) -> tensor<?x2xi32>
  // CHECK: return %[[C]]
  return %0 : tensor<?x2xi32>
}

// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<8x10xf32>, %[[D:[a-z0-9]+]]: tensor<?x6xf16>)
func.func @slice(%x: tensor<8x10xf32>, %d: tensor<?x6xf16>) -> (tensor<2x5xf32>, tensor<0x10xf32>, tensor<3x2xf16>) {
  // CHECK: %[[S0:.+]] = "strata.slice"(%[[X]]) {limits = array<i64: 3, 10>, starts = array<i64: 1, 0>, steps = array<i64: 1, 2>} : (tensor<8x10xf32>) -> tensor<2x5xf32>
  %0 = "strata.slice"(%x) {starts = array<i64: 1, 0>, limits = array<i64: 3, 10>, steps = array<i64: 1, 2>} : (tensor<8x10xf32>) -> tensor<2x5xf32>
  // An empty slice: start == limit.
  // CHECK: %[[S1:.+]] = "strata.slice"(%[[X]]) {limits = array<i64: 4, 10>, starts = array<i64: 4, 0>, steps = array<i64: 1, 1>} : (tensor<8x10xf32>) -> tensor<0x10xf32>
  %1 = "strata.slice"(%x) {starts = array<i64: 4, 0>, limits = array<i64: 4, 10>, steps = array<i64: 1, 1>} : (tensor<8x10xf32>) -> tensor<0x10xf32>
  // A dynamic dim may be sliced with any bounds.
  // CHECK: %[[S2:.+]] = "strata.slice"(%[[D]]) {limits = array<i64: 7, 6>, starts = array<i64: 1, 1>, steps = array<i64: 2, 3>} : (tensor<?x6xf16>) -> tensor<3x2xf16>
  %2 = "strata.slice"(%d) {starts = array<i64: 1, 1>, limits = array<i64: 7, 6>, steps = array<i64: 2, 3>} : (tensor<?x6xf16>) -> tensor<3x2xf16>
  // CHECK: return %[[S0]], %[[S1]], %[[S2]]
  return %0, %1, %2 : tensor<2x5xf32>, tensor<0x10xf32>, tensor<3x2xf16>
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @conv2d_nchw
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x3x32x32xf32>, %[[W:[a-z0-9]+]]: tensor<16x3x3x3xf32>)
func.func @conv2d_nchw(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x32x32xf32> {
  // CHECK: %[[C:.+]] = "strata.conv2d"(%[[X]], %[[W]]) {dilations = array<i64: 1, 1>, layout = "NCHW", padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x32x32xf32>
  %0 = "strata.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x32x32xf32>
  // CHECK: return %[[C]]
  return %0 : tensor<1x16x32x32xf32>
}

// CHECK-LABEL: func.func @conv2d_nhwc
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<?x32x32x3xf16>, %[[W:[a-z0-9]+]]: tensor<3x3x3x8xf16>)
func.func @conv2d_nhwc(%x: tensor<?x32x32x3xf16>, %w: tensor<3x3x3x8xf16>) -> tensor<?x16x14x8xf16> {
  // OH = (32 + 1 - 3) / 2 + 1 = 16; OW = (32 - 2 * 2 - 1) / 2 + 1 = 14.
  // CHECK: %[[C:.+]] = "strata.conv2d"(%[[X]], %[[W]]) {dilations = array<i64: 1, 2>, layout = "NHWC", padding = array<i64: 0, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<?x32x32x3xf16>, tensor<3x3x3x8xf16>) -> tensor<?x16x14x8xf16>
  %0 = "strata.conv2d"(%x, %w) {strides = array<i64: 2, 2>, padding = array<i64: 0, 1, 0, 0>, dilations = array<i64: 1, 2>, layout = "NHWC"} : (tensor<?x32x32x3xf16>, tensor<3x3x3x8xf16>) -> tensor<?x16x14x8xf16>
  // CHECK: return %[[C]]
  return %0 : tensor<?x16x14x8xf16>
}

// CHECK-LABEL: func.func @conv2d_dynamic_spatial
func.func @conv2d_dynamic_spatial(%x: tensor<2x4x?x?xi32>, %w: tensor<6x4x3x3xi32>) -> tensor<2x6x?x?xi32> {
  // CHECK: %[[C:.+]] = "strata.conv2d"(%arg0, %arg1) {{.*}} : (tensor<2x4x?x?xi32>, tensor<6x4x3x3xi32>) -> tensor<2x6x?x?xi32>
  %0 = "strata.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<2x4x?x?xi32>, tensor<6x4x3x3xi32>) -> tensor<2x6x?x?xi32>
  // CHECK: return %[[C]]
  return %0 : tensor<2x6x?x?xi32>
}

// CHECK-LABEL: func.func @pooling
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x16x32x32xf32>, %[[Y:[a-z0-9]+]]: tensor<?x8x8x4xbf16>)
func.func @pooling(%x: tensor<1x16x32x32xf32>, %y: tensor<?x8x8x4xbf16>) -> (tensor<1x16x16x16xf32>, tensor<?x8x8x4xbf16>) {
  // CHECK: %[[MP:.+]] = "strata.max_pool2d"(%[[X]]) {kernel = array<i64: 2, 2>, layout = "NCHW", padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x16x32x32xf32>) -> tensor<1x16x16x16xf32>
  %0 = "strata.max_pool2d"(%x) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, layout = "NCHW"} : (tensor<1x16x32x32xf32>) -> tensor<1x16x16x16xf32>
  // CHECK: %[[AP:.+]] = "strata.avg_pool2d"(%[[Y]]) {kernel = array<i64: 3, 3>, layout = "NHWC", padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<?x8x8x4xbf16>) -> tensor<?x8x8x4xbf16>
  %1 = "strata.avg_pool2d"(%y) {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, layout = "NHWC"} : (tensor<?x8x8x4xbf16>) -> tensor<?x8x8x4xbf16>
  // CHECK: return %[[MP]], %[[AP]]
  return %0, %1 : tensor<1x16x16x16xf32>, tensor<?x8x8x4xbf16>
}

// CHECK-LABEL: func.func @max_pool2d_i32
func.func @max_pool2d_i32(%x: tensor<1x5x5x2xi32>) -> tensor<1x2x2x2xi32> {
  // CHECK: %[[MP:.+]] = "strata.max_pool2d"(%arg0) {kernel = array<i64: 3, 3>, layout = "NHWC", padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x5x5x2xi32>) -> tensor<1x2x2x2xi32>
  %0 = "strata.max_pool2d"(%x) {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, layout = "NHWC"} : (tensor<1x5x5x2xi32>) -> tensor<1x2x2x2xi32>
  // CHECK: return %[[MP]]
  return %0 : tensor<1x2x2x2xi32>
}

//===----------------------------------------------------------------------===//
// Constants and casts
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2x2xf32>, tensor<3xi32>, tensor<f16>, tensor<2xbf16>, tensor<4xf32>) {
  // CHECK: %[[C0:.+]] = "strata.constant"() {value = dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  %0 = "strata.constant"() {value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  // CHECK: %[[C1:.+]] = "strata.constant"() {value = dense<[1, -2, 3]> : tensor<3xi32>} : () -> tensor<3xi32>
  %1 = "strata.constant"() {value = dense<[1, -2, 3]> : tensor<3xi32>} : () -> tensor<3xi32>
  // CHECK: %[[C2:.+]] = "strata.constant"() {value = dense<5.000000e-01> : tensor<f16>} : () -> tensor<f16>
  %2 = "strata.constant"() {value = dense<0.5> : tensor<f16>} : () -> tensor<f16>
  // CHECK: %[[C3:.+]] = "strata.constant"() {value = dense<[1.000000e+00, -2.500000e+00]> : tensor<2xbf16>} : () -> tensor<2xbf16>
  %3 = "strata.constant"() {value = dense<[1.0, -2.5]> : tensor<2xbf16>} : () -> tensor<2xbf16>
  // A splat keeps its splat form.
  // CHECK: %[[C4:.+]] = "strata.constant"() {value = dense<0.000000e+00> : tensor<4xf32>} : () -> tensor<4xf32>
  %4 = "strata.constant"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  // CHECK: return %[[C0]], %[[C1]], %[[C2]], %[[C3]], %[[C4]]
  return %0, %1, %2, %3, %4 : tensor<2x2xf32>, tensor<3xi32>, tensor<f16>, tensor<2xbf16>, tensor<4xf32>
}

// CHECK-LABEL: func.func @casts
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x?xf32>)
func.func @casts(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  // CHECK: %[[H:.+]] = "strata.cast"(%[[X]]) : (tensor<4x?xf32>) -> tensor<4x?xf16>
  %0 = "strata.cast"(%x) : (tensor<4x?xf32>) -> tensor<4x?xf16>
  // CHECK: %[[B:.+]] = "strata.cast"(%[[H]]) : (tensor<4x?xf16>) -> tensor<4x?xbf16>
  %1 = "strata.cast"(%0) : (tensor<4x?xf16>) -> tensor<4x?xbf16>
  // CHECK: %[[I:.+]] = "strata.cast"(%[[B]]) : (tensor<4x?xbf16>) -> tensor<4x?xi32>
  %2 = "strata.cast"(%1) : (tensor<4x?xbf16>) -> tensor<4x?xi32>
  // CHECK: %[[F:.+]] = "strata.cast"(%[[I]]) : (tensor<4x?xi32>) -> tensor<4x?xf32>
  %3 = "strata.cast"(%2) : (tensor<4x?xi32>) -> tensor<4x?xf32>
  // CHECK: return %[[F]]
  return %3 : tensor<4x?xf32>
}

// A declared result type may be more dynamic than the inferred one.
// CHECK-LABEL: func.func @dynamic_result
func.func @dynamic_result(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<?x?xf32> {
  // CHECK: %[[R:.+]] = "strata.matmul"(%arg0, %arg1) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<?x?xf32>
  %0 = "strata.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<?x?xf32>
  // CHECK: %[[S:.+]] = "strata.add"(%[[R]], %[[R]]) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = "strata.add"(%0, %0) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  // CHECK: return %[[S]]
  return %1 : tensor<?x?xf32>
}
