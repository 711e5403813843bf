// RUN: %roundtrip | FileCheck %s

// erf, sin, cos, floor, ceil, round and sign print, parse back and keep their types.

// CHECK-LABEL: func.func @float_unary
// CHECK-SAME: (%[[A:.+]]: tensor<2x?xf32>, %[[B:.+]]: tensor<3xbf16>)
func.func @float_unary(%a: tensor<2x?xf32>, %b: tensor<3xbf16>) -> (tensor<2x?xf32>, tensor<3xbf16>) {
  // CHECK: %[[E:.+]] = "strata.erf"(%[[A]]) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  %0 = "strata.erf"(%a) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: %[[S:.+]] = "strata.sin"(%[[E]])
  %1 = "strata.sin"(%0) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: %[[C:.+]] = "strata.cos"(%[[S]])
  %2 = "strata.cos"(%1) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: %[[F:.+]] = "strata.floor"(%[[C]])
  %3 = "strata.floor"(%2) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: %[[CE:.+]] = "strata.ceil"(%[[F]])
  %4 = "strata.ceil"(%3) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: %[[R:.+]] = "strata.round"(%[[B]]) : (tensor<3xbf16>) -> tensor<3xbf16>
  %5 = "strata.round"(%b) : (tensor<3xbf16>) -> tensor<3xbf16>
  // CHECK: %[[SG:.+]] = "strata.sign"(%[[CE]])
  %6 = "strata.sign"(%4) : (tensor<2x?xf32>) -> tensor<2x?xf32>
  // CHECK: return %[[SG]], %[[R]]
  return %6, %5 : tensor<2x?xf32>, tensor<3xbf16>
}

// CHECK-LABEL: func.func @int_sign
func.func @int_sign(%a: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: "strata.sign"(%{{.+}}) : (tensor<4xi32>) -> tensor<4xi32>
  %0 = "strata.sign"(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
