// strata-fuse's choice between generated code and a BLAS call (blas=auto|always|never).
// RUN: strata-opt %s --split-input-file --strata-to-linalg '--strata-fuse=blas=auto' | FileCheck %s
// RUN: strata-opt %s --split-input-file --strata-to-linalg '--strata-fuse=blas=auto report=true' 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// RUN: strata-opt %s --split-input-file --strata-to-linalg '--strata-fuse=blas=always' | FileCheck %s --check-prefix=ALWAYS
// RUN: strata-opt %s --split-input-file --strata-to-linalg '--strata-fuse=blas=always report=true' 2>&1 >/dev/null | FileCheck %s --check-prefix=ALWAYS-REPORT
// blas=never (strata-fuse's default) marks nothing and says nothing about BLAS:
// RUN: strata-opt %s --split-input-file --strata-to-linalg --strata-fuse | FileCheck %s --check-prefix=NEVER
// RUN: strata-opt %s --split-input-file --strata-to-linalg '--strata-fuse=report=true' 2>&1 >/dev/null | FileCheck %s --check-prefix=NEVER-REPORT
// The whole pipeline: the marked matmul is a call after bufferization, the others are loops.
// RUN: strata-opt %s --split-input-file --pass-pipeline='builtin.module(strata-cpu{compile-to=bufferized})' | FileCheck %s --check-prefix=PIPELINE
// RUN: strata-opt %s --split-input-file --pass-pipeline='builtin.module(strata-cpu{compile-to=bufferized blas=never})' | FileCheck %s --check-prefix=PIPELINE-NEVER
// With fusion off, strata-fuse still chooses (and fuses nothing):
// RUN: strata-opt %s --split-input-file --pass-pipeline='builtin.module(strata-cpu{compile-to=bufferized fusion=false blas=always})' | FileCheck %s --check-prefix=UNFUSED
//
// Overrides by candidate key (the file is read from stdin so that keys do not depend
// on its path; recompute them with the KEYS run when lines above a keyed op move):
// RUN: strata-opt --split-input-file --strata-to-linalg '--strata-fuse=blas=auto report=true' < %s 2>&1 >/dev/null | FileCheck %s --check-prefix=KEYS
// RUN: strata-opt --split-input-file --strata-to-linalg '--strata-fuse=blas=auto decisions=fa9853c9=off,2c34abbd=on' < %s | FileCheck %s --check-prefix=OVERRIDE

// A large matmul with an epilogue: strata-vectorize's packed panels (outside any epilogue
// tile) with the epilogue as its own loop are predicted faster than both the epilogue tiled
// into unpacked register tiles and a BLAS call; nothing is tiled and nothing is marked.
// CHECK-LABEL: func.func @mlp_layer
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<192x1024xf32>, %[[W:[a-z0-9]+]]: tensor<1024x2048xf32>, %[[B:[a-z0-9]+]]: tensor<2048xf32>)
// CHECK-NOT: scf.for
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<192x1024xf32>, tensor<1024x2048xf32>)
// CHECK-NOT: scf.for
// CHECK: %[[E:.+]] = linalg.generic {{.*}} ins(%[[MM]], %[[B]] : tensor<192x2048xf32>, tensor<2048xf32>)
// CHECK: return %[[E]]
// REPORT: fuse-blas.mlir:[[@LINE+18]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] generated code for linalg.matmul at {{.*}}fuse-blas.mlir:[[@LINE+18]]:8 (192x2048x1024; the cost model): predicted BLAS {{[0-9.]+}} ms, generated [[P:[0-9.]+]] ms; its epilogue linalg.generic at {{.*}}fuse-blas.mlir:[[@LINE+20]]:8 runs as its own loop
// REPORT: fuse-blas.mlir:[[@LINE+19]]:8: remark: strata-fuse: not tiling linalg.generic at {{.*}}fuse-blas.mlir:[[@LINE+19]]:8 with linalg.matmul at {{.*}}fuse-blas.mlir:[[@LINE+17]]:8: the matmul runs on packed panels and the epilogue as its own loop (predicted [[P]] ms; tiled together {{[0-9.]+}} ms)
// REPORT-NOT: tiled linalg.generic at {{.*}}fuse-blas.mlir:[[@LINE+18]]
// ALWAYS-LABEL: func.func @mlp_layer
// ALWAYS: linalg.matmul {strata.blas}
// NEVER-LABEL: func.func @mlp_layer
// NEVER-NOT: scf.for
// NEVER: linalg.matmul ins
// NEVER-NOT: strata.blas
// PIPELINE-LABEL: func.func @mlp_layer
// PIPELINE-NOT: call @scipy_cblas_sgemm64_
// PIPELINE: vector.transpose
// PIPELINE: scf.for {{.*}} iter_args({{.*}}) -> (vector<{{[0-9]+}}x{{[0-9]+}}xf32>)
// PIPELINE: vector.contract
// PIPELINE: linalg.generic
// PIPELINE-NEVER-LABEL: func.func @mlp_layer
// PIPELINE-NEVER-NOT: call @scipy_cblas_sgemm64_
func.func @mlp_layer(%x: tensor<192x1024xf32>, %w: tensor<1024x2048xf32>, %b: tensor<2048xf32>) -> tensor<192x2048xf32> {
  %0 = "strata.matmul"(%x, %w) : (tensor<192x1024xf32>, tensor<1024x2048xf32>) -> tensor<192x2048xf32>
  %1 = "strata.add"(%0, %b) : (tensor<192x2048xf32>, tensor<2048xf32>) -> tensor<192x2048xf32>
  %2 = "strata.relu"(%1) : (tensor<192x2048xf32>) -> tensor<192x2048xf32>
  return %2 : tensor<192x2048xf32>
}

// -----

// A small matmul stays generated, its epilogue tiled into it.
// CHECK-LABEL: func.func @small
// CHECK: scf.for
// CHECK: linalg.matmul ins
// CHECK-NOT: strata.blas
// REPORT: fuse-blas.mlir:[[@LINE+11]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] generated code for linalg.matmul at {{.*}}fuse-blas.mlir:[[@LINE+11]]:8 (8x16x8; the cost model): predicted BLAS {{[0-9.]+}} us, generated {{[0-9.]+}} us; its epilogue linalg.generic at {{.*}}fuse-blas.mlir:[[@LINE+13]]:8 is tiled into the generated kernel
// REPORT: fuse-blas.mlir:[[@LINE+12]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] tiled linalg.generic
// ALWAYS-LABEL: func.func @small
// ALWAYS-NOT: scf.for
// ALWAYS: linalg.matmul {strata.blas}
// ALWAYS-REPORT: fuse-blas.mlir:[[@LINE+6]]:8: remark: strata-fuse: BLAS sgemm for linalg.matmul at {{.*}}fuse-blas.mlir:[[@LINE+6]]:8 (8x16x8; blas=always): predicted BLAS
// UNFUSED-LABEL: func.func @small
// UNFUSED: call @scipy_cblas_sgemm64_
// UNFUSED: linalg.generic
// UNFUSED: linalg.generic
func.func @small(%x: tensor<8x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %0 = "strata.matmul"(%x, %w) : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %1 = "strata.add"(%0, %b) : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %2 = "strata.relu"(%1) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %2 : tensor<8x16xf32>
}

// -----

// A skinny matmul (4 rows against a 1024x1024 weight): OpenBLAS would pack the whole
// weight for 4 rows of output; generated code reads it once.
// CHECK-LABEL: func.func @skinny
// CHECK: linalg.matmul ins
// CHECK-NOT: strata.blas
// REPORT: remark: strata-fuse: [{{[0-9a-f]+}}] generated code for linalg.matmul at {{.*}} (4x1024x1024; the cost model)
func.func @skinny(%x: tensor<4x1024xf32>, %w: tensor<1024x1024xf32>) -> tensor<4x1024xf32> {
  %0 = "strata.matmul"(%x, %w) : (tensor<4x1024xf32>, tensor<1024x1024xf32>) -> tensor<4x1024xf32>
  return %0 : tensor<4x1024xf32>
}

// -----

// batch_matmul: 2 products of 192x1024x1024 with a relu epilogue (each B operand larger
// than L2): packed panels with the relu as its own loop, as for @mlp_layer.
// CHECK-LABEL: func.func @batched
// CHECK-NOT: scf.for
// CHECK: linalg.batch_matmul ins
// CHECK-NOT: strata.blas
// CHECK: return
// REPORT: remark: strata-fuse: [{{[0-9a-f]+}}] generated code for linalg.batch_matmul at {{.*}} (2x192x1024x1024; the cost model)
// REPORT: remark: strata-fuse: not tiling linalg.generic at {{.*}} with linalg.batch_matmul at {{.*}}: the matmul runs on packed panels
// A batch of BLAS calls is a loop of sgemm calls:
// UNFUSED-LABEL: func.func @batched
// UNFUSED: scf.for
// UNFUSED: func.call @scipy_cblas_sgemm64_
func.func @batched(%x: tensor<2x192x1024xf32>, %w: tensor<2x1024x1024xf32>) -> tensor<2x192x1024xf32> {
  %0 = "strata.matmul"(%x, %w) : (tensor<2x192x1024xf32>, tensor<2x1024x1024xf32>) -> tensor<2x192x1024xf32>
  %1 = "strata.relu"(%0) : (tensor<2x192x1024xf32>) -> tensor<2x192x1024xf32>
  return %1 : tensor<2x192x1024xf32>
}

// -----

// Only f32: an f16 matmul (f32 accumulator) is never a BLAS call.
// ALWAYS-LABEL: func.func @half
// ALWAYS-NOT: strata.blas
// ALWAYS: return
// NEVER-REPORT-NOT: BLAS
// NEVER-REPORT-NOT: generated code
func.func @half(%x: tensor<64x64xf16>, %w: tensor<64x64xf16>) -> tensor<64x64xf16> {
  %0 = "strata.matmul"(%x, %w) : (tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<64x64xf16>
  return %0 : tensor<64x64xf16>
}

// -----

// KEYS: <stdin>:[[@LINE+7]]:8: remark: strata-fuse: [fa9853c9] BLAS sgemm for linalg.matmul
// KEYS: <stdin>:[[@LINE+7]]:8: remark: strata-fuse: [2c34abbd] generated code for linalg.matmul
// OVERRIDE-LABEL: func.func @overridden
// OVERRIDE: %[[BIG:.+]] = linalg.matmul ins
// OVERRIDE: %[[SMALL:.+]] = linalg.matmul {strata.blas} ins
// OVERRIDE: return %[[BIG]], %[[SMALL]]
func.func @overridden(%x: tensor<256x8192xf32>, %w: tensor<8192x48xf32>, %y: tensor<8x8xf32>) -> (tensor<256x48xf32>, tensor<8x8xf32>) {
  %0 = "strata.matmul"(%x, %w) : (tensor<256x8192xf32>, tensor<8192x48xf32>) -> tensor<256x48xf32>
  %1 = "strata.matmul"(%y, %y) : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0, %1 : tensor<256x48xf32>, tensor<8x8xf32>
}

// -----

// x @ W.T of a torch nn.Linear (96 rows, 512 -> 1024): a BLAS call reads W as it is
// (the transpose becomes its flag), and so does generated code on packed panels:
// strata-layout folds the transpose into the matmul and strata-vectorize packs B's
// N x K rows into the same panels. With the epilogue as its own loop, generated code
// is predicted as fast (within the 15% margin) and chosen. Tiling the epilogue into
// unpacked register tiles would read W through a transpose copy (2 MiB at a few GB/s).
// CHECK-LABEL: func.func @linear_transposed_weight
// CHECK: %[[T:.+]] = linalg.transpose
// CHECK: %[[M:.+]] = linalg.matmul ins(%{{.+}}, %[[T]] : tensor<96x512xf32>, tensor<512x1024xf32>)
// CHECK-NOT: scf.forall
// CHECK: linalg.generic {{.*}} ins(%[[M]], %{{.+}} : tensor<96x1024xf32>, tensor<1024xf32>)
// CHECK: return
// REPORT: remark: strata-fuse: [{{[0-9a-f]+}}] generated code for linalg.matmul at {{.*}}fuse-blas.mlir:[[@LINE+19]]:8 (96x1024x512; the cost model): {{.*}}; its epilogue linalg.generic at {{.*}} runs as its own loop
// REPORT: remark: strata-fuse: not tiling linalg.generic at {{.*}}: the matmul runs on packed panels and the epilogue as its own loop
// The transpose is gone: W's rows are read into the B panels by vector transposes
// (AVX2; the bias add then runs in C's unpack, on 6 x 16 vectors), or in place by a
// weight-stationary matmul whose small x and result are transposed by 16 x 16 vector
// tiles (AVX-512: passes/weight_stationary.py; the bias add its own loop).
// PIPELINE-LABEL: func.func @linear_transposed_weight
// PIPELINE-SAME: %[[W:[a-z0-9]+]]: memref<1024x512xf32>
// PIPELINE-NOT: linalg.transpose
// PIPELINE-DAG: vector.transpose %{{.+}}, [1, 0] : vector<{{16x16|16x8|32x8}}xf32> to vector<{{16x16|8x16|8x32}}xf32>
// PIPELINE-DAG: memref.subview %[[W]]
// PIPELINE: vector.contract
// PIPELINE-NOT: call @scipy_cblas_sgemm64_
// PIPELINE: {{linalg.generic|arith.addf .+ : vector<6x16xf32>}}
// PIPELINE: return
// NEVER-LABEL: func.func @linear_transposed_weight
// NEVER-NOT: strata.blas
func.func @linear_transposed_weight(%x: tensor<96x512xf32>, %w: tensor<1024x512xf32>, %b: tensor<1024xf32>) -> tensor<96x1024xf32> {
  %t = "strata.transpose"(%w) {permutation = array<i64: 1, 0>} : (tensor<1024x512xf32>) -> tensor<512x1024xf32>
  %0 = "strata.matmul"(%x, %t) : (tensor<96x512xf32>, tensor<512x1024xf32>) -> tensor<96x1024xf32>
  %1 = "strata.add"(%0, %b) : (tensor<96x1024xf32>, tensor<1024xf32>) -> tensor<96x1024xf32>
  return %1 : tensor<96x1024xf32>
}
