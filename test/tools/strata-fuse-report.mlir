// --strata-fuse-report turns on report=true for every strata-fuse in the pipeline:
// each fusion decision is a remark on stderr at the consumer (or the matmul).
// RUN: strata-opt %s --split-input-file --compile-to=fused --strata-fuse-report 2>&1 >/dev/null | FileCheck %s
// RUN: strata-opt %s --split-input-file --compile-to=llvm --strata-fuse-report 2>&1 >/dev/null | FileCheck %s
// RUN: strata-opt %s --split-input-file --strata-to-linalg --strata-fuse --strata-fuse-report 2>&1 >/dev/null | FileCheck %s
// The IR is the same with or without the flag:
// RUN: strata-opt %s --split-input-file --compile-to=fused --strata-fuse-report 2>/dev/null > %t.report
// RUN: strata-opt %s --split-input-file --compile-to=fused 2>/dev/null > %t.plain
// RUN: diff %t.report %t.plain
// RUN: FileCheck %s --check-prefix=IR < %t.plain
// Without the flag there is no remark:
// RUN: strata-opt %s --split-input-file --compile-to=fused 2>&1 >/dev/null | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: strata-opt %s --split-input-file --compile-to=fused 2>&1 >/dev/null | count 0
// A pipeline without strata-fuse has nothing to report:
// RUN: strata-opt %s --split-input-file --compile-to=linalg --strata-fuse-report 2>&1 >/dev/null | count 0

// QUIET-NOT: remark

// CHECK: {{.*}}strata-fuse-report.mlir:[[@LINE+7]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] fused linalg.generic at {{.*}}strata-fuse-report.mlir:[[@LINE+6]]:8 into linalg.generic at {{.*}}strata-fuse-report.mlir:[[@LINE+7]]:8: single use; saves 16384 bytes of intermediates
// IR-LABEL: func.func @chain
// IR: linalg.generic
// IR-NOT: linalg.generic
// IR: return
func.func @chain(%x: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %0 = "strata.exp"(%x) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %1 = "strata.neg"(%0) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  return %1 : tensor<64x32xf32>
}

// -----

// CHECK: {{.*}}strata-fuse-report.mlir:[[@LINE+10]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] fused linalg.generic at {{.*}}strata-fuse-report.mlir:[[@LINE+9]]:8 into linalg.generic at {{.*}}strata-fuse-report.mlir:[[@LINE+10]]:8: single use; saves 262144 bytes of intermediates
// CHECK: {{.*}}strata-fuse-report.mlir:[[@LINE+9]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] tiled linalg.generic at {{.*}}strata-fuse-report.mlir:[[@LINE+9]]:8 by [64, 128] with linalg.matmul at {{.*}}strata-fuse-report.mlir:[[@LINE+7]]:8 fused into each tile: the epilogue runs on the tile while it is in cache
// IR-LABEL: func.func @matmul_bias_relu
// IR: scf.for
// IR: scf.for
// IR: linalg.matmul {{.*}} -> tensor<64x128xf32>
// IR: return
func.func @matmul_bias_relu(%x: tensor<128x64xf32>, %w: tensor<64x256xf32>, %b: tensor<256xf32>) -> tensor<128x256xf32> {
  %0 = "strata.matmul"(%x, %w) : (tensor<128x64xf32>, tensor<64x256xf32>) -> tensor<128x256xf32>
  %1 = "strata.add"(%0, %b) : (tensor<128x256xf32>, tensor<256xf32>) -> tensor<128x256xf32>
  %2 = "strata.relu"(%1) : (tensor<128x256xf32>) -> tensor<128x256xf32>
  return %2 : tensor<128x256xf32>
}

// -----

// (Small enough that the pipeline's blas=auto keeps it generated code: no BLAS remark.)
// CHECK: {{.*}}strata-fuse-report.mlir:[[@LINE+3]]:8: remark: strata-fuse: not tiling linalg.matmul at {{.*}}strata-fuse-report.mlir:[[@LINE+3]]:8 with its epilogue: 2 users (it is computed once)
// CHECK-NOT: remark: strata-fuse: [{{[0-9a-f]+}}] {{fused|tiled|not fusing}}
func.func @matmul_two_users(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>, %b: tensor<32xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>) {
  %0 = "strata.matmul"(%x, %w) : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  %1 = "strata.add"(%0, %b) : (tensor<16x32xf32>, tensor<32xf32>) -> tensor<16x32xf32>
  %2 = "strata.relu"(%0) : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %1, %2 : tensor<16x32xf32>, tensor<16x32xf32>
}
