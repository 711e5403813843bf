// RUN: strata-opt %s --strata-to-linalg '--strata-layout=report=true' --split-input-file --verify-diagnostics | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg '--strata-layout=conv-layout=nhwc' --split-input-file | FileCheck %s --check-prefix=NHWC
// RUN: strata-opt %s --strata-to-linalg '--strata-layout=conv-layout=keep' --split-input-file | FileCheck %s --check-prefix=KEEP

// Rule 2: one layout for a whole conv chain, converted only at its boundary.

// Whole sequence vs per op: an NHWC model written with NCHW convs. Deciding each
// conv alone, NHWC does not pay: it removes the input transpose but needs one
// back for the bias/relu that follows (and conv 2 likewise), so a per-op choice
// converts nothing. The whole chain in NHWC removes both transposes: the filters
// are constants, transposed to HWCF at compile time.
// CHECK-LABEL: func.func @nhwc_model
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x8x3xf32>, %[[B:.+]]: tensor<1x4x1x1xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[P:.+]] = tensor.insert_slice %[[X]] into %{{.+}}[0, 1, 1, 0] [1, 8, 8, 3] [1, 1, 1, 1] : tensor<1x8x8x3xf32> into tensor<1x10x10x3xf32>
// CHECK: %[[C1:.+]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[P]], %{{.+}} : tensor<1x10x10x3xf32>, tensor<3x3x3x4xf32>) {{.*}} -> tensor<1x8x8x4xf32>
// CHECK: linalg.generic {{.*}} ins(%[[C1]], %[[B]] : tensor<1x8x8x4xf32>, tensor<1x4x1x1xf32>)
// CHECK: linalg.pooling_nhwc_max {{.*}} -> tensor<1x4x4x4xf32>
// CHECK: %[[C2:.+]] = linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x4x4x6xf32>
// CHECK-NOT: linalg.transpose
// CHECK-NOT: conv_2d_nchw
// CHECK: return %[[C2]] : tensor<1x4x4x6xf32>
// KEEP-LABEL: func.func @nhwc_model
// KEEP-COUNT-2: linalg.conv_2d_nchw_fchw
// expected-remark@+1 {{strata-layout: removed 2 layout conversions (2 before, 0 after; 12 with a pair around each op); convs in NHWC (deciding each conv alone would convert 0)}}
func.func @nhwc_model(%x: tensor<1x8x8x3xf32>, %b: tensor<1x4x1x1xf32>) -> tensor<1x4x4x6xf32> {
  %0 = "strata.transpose"(%x) {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x3xf32>) -> tensor<1x3x8x8xf32>
  %w1 = "strata.constant"() {value = dense<0.5> : tensor<4x3x3x3xf32>} : () -> tensor<4x3x3x3xf32>
  %1 = "strata.conv2d"(%0, %w1) {dilations = array<i64: 1, 1>, layout = "NCHW", padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %2 = "strata.add"(%1, %b) : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %3 = "strata.relu"(%2) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %4 = "strata.max_pool2d"(%3) {kernel = array<i64: 2, 2>, layout = "NCHW", padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %w2 = "strata.constant"() {value = dense<0.25> : tensor<6x4x3x3xf32>} : () -> tensor<6x4x3x3xf32>
  %5 = "strata.conv2d"(%4, %w2) {dilations = array<i64: 1, 1>, layout = "NCHW", padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x4x4xf32>
  %6 = "strata.transpose"(%5) {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x6x4x4xf32>) -> tensor<1x4x4x6xf32>
  return %6 : tensor<1x4x4x6xf32>
}

// -----

// A plain NCHW chain with an NCHW result: auto keeps it (NHWC would add two
// conversions and, measured, is not faster here), so no remark. Forced NHWC
// converts once at each end of the chain, not around every op, and transposes
// the constant filter at compile time (FCHW [2,1,1,2] -> HWCF [1,2,1,2]).
// CHECK-LABEL: func.func @nchw_chain
// CHECK-NOT: linalg.transpose
// CHECK-COUNT-2: linalg.conv_2d_nchw_fchw
// CHECK-NOT: nhwc
// NHWC-LABEL: func.func @nchw_chain
// NHWC-SAME: (%[[X:.+]]: tensor<2x1x9x7xf32>)
// NHWC-DAG: %[[W:.+]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 3.000000e+00]], {{\[\[}}2.000000e+00, 4.000000e+00]]]]> : tensor<1x2x1x2xf32>
// NHWC-DAG: %[[XT:.+]] = linalg.transpose ins(%[[X]] : tensor<2x1x9x7xf32>) outs(%{{.+}} : tensor<2x9x7x1xf32>) permutation = [0, 2, 3, 1]
// NHWC: linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[XT]], %[[W]] : tensor<2x9x7x1xf32>, tensor<1x2x1x2xf32>)
// NHWC-NOT: linalg.transpose
// NHWC: linalg.generic
// NHWC-NOT: linalg.transpose
// NHWC: linalg.pooling_nhwc_sum
// NHWC-NOT: linalg.transpose
// NHWC: tensor.insert_slice {{.*}} : tensor<2x2x1x2xf32> into tensor<2x4x4x2xf32>
// NHWC: %[[C2:.+]] = linalg.conv_2d_nhwc_hwcf
// NHWC: %[[OUT:.+]] = linalg.transpose ins(%[[C2]] : tensor<2x2x2x3xf32>) outs(%{{.+}} : tensor<2x3x2x2xf32>) permutation = [0, 3, 1, 2]
// NHWC: return %[[OUT]]
func.func @nchw_chain(%x: tensor<2x1x9x7xf32>) -> tensor<2x3x2x2xf32> {
  %w1 = "strata.constant"() {value = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>} : () -> tensor<2x1x1x2xf32>
  %0 = "strata.conv2d"(%x, %w1) {dilations = array<i64: 1, 1>, layout = "NCHW", padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x1x9x7xf32>, tensor<2x1x1x2xf32>) -> tensor<2x2x5x3xf32>
  %1 = "strata.relu"(%0) : (tensor<2x2x5x3xf32>) -> tensor<2x2x5x3xf32>
  %2 = "strata.avg_pool2d"(%1) {kernel = array<i64: 2, 2>, layout = "NCHW", padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x2x5x3xf32>) -> tensor<2x2x2x1xf32>
  %w2 = "strata.constant"() {value = dense<1.0> : tensor<3x2x3x3xf32>} : () -> tensor<3x2x3x3xf32>
  %3 = "strata.conv2d"(%2, %w2) {dilations = array<i64: 1, 1>, layout = "NCHW", padding = array<i64: 1, 1, 1, 2>, strides = array<i64: 1, 1>} : (tensor<2x2x2x1xf32>, tensor<3x2x3x3xf32>) -> tensor<2x3x2x2xf32>
  return %3 : tensor<2x3x2x2xf32>
}

// -----

// A non-constant filter costs one transpose to HWCF; here that is the only conversion
// left once the NHWC input and output transposes cancel (2 before, 1 after).
// CHECK-LABEL: func.func @filter_argument
// CHECK-SAME: (%[[X:.+]]: tensor<1x6x6x2xf32>, %[[W:.+]]: tensor<4x2x3x3xf32>)
// CHECK: %[[WT:.+]] = linalg.transpose ins(%[[W]] : tensor<4x2x3x3xf32>) outs(%{{.+}} : tensor<3x3x2x4xf32>) permutation = [2, 3, 1, 0]
// CHECK: %[[C:.+]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[X]], %[[WT]] : tensor<1x6x6x2xf32>, tensor<3x3x2x4xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: return %[[C]]
// expected-remark@+1 {{strata-layout: removed 1 layout conversions (2 before, 1 after; 5 with a pair around each op); convs in NHWC}}
func.func @filter_argument(%x: tensor<1x6x6x2xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %0 = "strata.transpose"(%x) {permutation = array<i64: 0, 3, 1, 2>} : (tensor<1x6x6x2xf32>) -> tensor<1x2x6x6xf32>
  %1 = "strata.conv2d"(%0, %w) {dilations = array<i64: 1, 1>, layout = "NCHW", padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  %2 = "strata.transpose"(%1) {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %2 : tensor<1x4x4x4xf32>
}
