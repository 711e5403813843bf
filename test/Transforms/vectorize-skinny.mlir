// RUN: strata-opt %s --split-input-file --strata-vectorize=lanes=16 | FileCheck %s --check-prefix=Z
// RUN: strata-opt %s --split-input-file --strata-vectorize=lanes=8 | FileCheck %s --check-prefix=Y
// RUN: strata-opt %s --split-input-file '--strata-vectorize=lanes=16 threads=2' | FileCheck %s --check-prefix=T

// Few rows against a 2 MiB B (passes/skinny_tiles.py): 16 rows of B at a time across
// all of N, a register tile of all 7 rows x 4 vectors (AVX-512) or 2 (AVX2).
// Z-LABEL: func.func @skinny
// Z-SAME: (%[[A:[a-z0-9]+]]: tensor<7x512xf32>, %[[B:[a-z0-9]+]]: tensor<512x1024xf32>, %[[C:[a-z0-9]+]]: tensor<7x1024xf32>)
// Z-NOT: linalg.matmul
// Z: scf.for %[[K0:.+]] = %{{.+}} to %c512 step %c16 iter_args(%{{.+}} = %[[C]])
// Z: tensor.extract_slice %[[B]][%[[K0]], 0] [16, 1024] [1, 1]
// Z: scf.for %{{.+}} = %{{.+}} to %c1024 step %c64
// Z: scf.for %{{.+}} = %{{.+}} to %c16 step %c1
// Z: vector.contract {{.*}} : vector<7x1xf32>, vector<1x64xf32> into vector<7x64xf32>
// Z-NOT: vector.contract
// Z-NOT: vector.mask
// Z: return
// Y-LABEL: func.func @skinny
// Y: scf.for %{{.+}} = %{{.+}} to %c512 step %c16
// Y: scf.for %{{.+}} = %{{.+}} to %c1024 step %c16
// Y: vector.contract {{.*}} : vector<7x1xf32>, vector<1x16xf32> into vector<7x16xf32>
// Y-NOT: vector.contract
// Y: return
// T-LABEL: func.func @skinny
// T-NOT: scf.forall
// T: vector.contract {{.*}} into vector<7x64xf32>
// T: return
func.func @skinny(%a: tensor<7x512xf32>, %b: tensor<512x1024xf32>, %c: tensor<7x1024xf32>) -> tensor<7x1024xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<7x512xf32>, tensor<512x1024xf32>) outs(%c : tensor<7x1024xf32>) -> tensor<7x1024xf32>
  return %0 : tensor<7x1024xf32>
}

// -----

// 13 rows: register tiles of 5 rows, then a peeled 3-row tile (static, no masks).
// Z-LABEL: func.func @rows_split
// Z: scf.for %{{.+}} = %{{.+}} to %c512 step %c16
// Z: scf.for %{{.+}} = %{{.+}} to %c10 step %c5
// Z: vector.contract {{.*}} : vector<5x1xf32>, vector<1x64xf32> into vector<5x64xf32>
// Z: vector.contract {{.*}} : vector<3x1xf32>, vector<1x64xf32> into vector<3x64xf32>
// Z-NOT: vector.contract
// Z-NOT: vector.mask
// Z: return
func.func @rows_split(%a: tensor<13x512xf32>, %b: tensor<512x1024xf32>, %c: tensor<13x1024xf32>) -> tensor<13x1024xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<13x512xf32>, tensor<512x1024xf32>) outs(%c : tensor<13x1024xf32>) -> tensor<13x1024xf32>
  return %0 : tensor<13x1024xf32>
}

// -----

// Past parallel-flops on 2 threads: N splits into two 1024-column halves, one per
// thread, each walking K in 16-row steps.
// T-LABEL: func.func @threads
// T-SAME: (%[[A:[a-z0-9]+]]: tensor<7x2048xf32>, %[[B:[a-z0-9]+]]: tensor<2048x2048xf32>, %[[C:[a-z0-9]+]]: tensor<7x2048xf32>)
// T: scf.forall (%[[T:.+]]) in (2) shared_outs(%[[OUT:.+]] = %[[C]])
// T: %[[J:.+]] = affine.apply #{{.+}}(%[[T]])
// T: tensor.extract_slice %[[B]][0, %[[J]]] [2048, 1024] [1, 1]
// T: scf.for %{{.+}} = %{{.+}} to %c2048 step %c16
// T: scf.for %{{.+}} = %{{.+}} to %c1024 step %c64
// T: vector.contract {{.*}} : vector<7x1xf32>, vector<1x64xf32> into vector<7x64xf32>
// T: tensor.parallel_insert_slice %{{.+}} into %[[OUT]][0, %[[J]]] [7, 1024] [1, 1]
// Z-LABEL: func.func @threads
// Z-NOT: scf.forall
// Z: scf.for %{{.+}} = %{{.+}} to %c2048 step %c16
// Z: scf.for %{{.+}} = %{{.+}} to %c2048 step %c64
func.func @threads(%a: tensor<7x2048xf32>, %b: tensor<2048x2048xf32>, %c: tensor<7x2048xf32>) -> tensor<7x2048xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<7x2048xf32>, tensor<2048x2048xf32>) outs(%c : tensor<7x2048xf32>) -> tensor<7x2048xf32>
  return %0 : tensor<7x2048xf32>
}

// -----

// A B of 1 MiB stays in L2: the default tiles (64x128x128 cache; 16 vector accumulators
// with AVX-512's 32 registers: 7 rows x 2 vectors).
// Z-LABEL: func.func @small_b
// Z: scf.for %{{.+}} = %{{.+}} to %c512 step %c128
// Z: scf.for %{{.+}} = %{{.+}} to %c512 step %c128
// Z: scf.for %{{.+}} = %{{.+}} to %c128 step %c32
// Z: scf.for %{{.+}} = %{{.+}} to %c128 step %c1
// Z: vector.contract {{.*}} : vector<7x1xf32>, vector<1x32xf32> into vector<7x32xf32>
// Z-NOT: vector<7x64xf32>
// Z: return
func.func @small_b(%a: tensor<7x512xf32>, %b: tensor<512x512xf32>, %c: tensor<7x512xf32>) -> tensor<7x512xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<7x512xf32>, tensor<512x512xf32>) outs(%c : tensor<7x512xf32>) -> tensor<7x512xf32>
  return %0 : tensor<7x512xf32>
}

// -----

// f16 operands keep the default tiles (the skinny tiles are sized for f32 registers).
// Z-LABEL: func.func @other_dtype
// Z: scf.for %{{.+}} = %{{.+}} to %c1024 step %c128
// Z: scf.for %{{.+}} = %{{.+}} to %c512 step %c128
// Z: vector.contract {{.*}} into vector<7x32xf32>
// Z-NOT: vector<7x64xf32>
// Z: return
func.func @other_dtype(%a: tensor<7x512xf16>, %b: tensor<512x1024xf16>, %c: tensor<7x1024xf32>) -> tensor<7x1024xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<7x512xf16>, tensor<512x1024xf16>) outs(%c : tensor<7x1024xf32>) -> tensor<7x1024xf32>
  return %0 : tensor<7x1024xf32>
}

// -----

// B read transposed (x @ w.T folded by strata-layout, B as N x K): B's rows do not run
// along N, so the default tiles.
// Z-LABEL: func.func @transposed_b
// Z-NOT: vector<7x64xf32>
// Z: return
func.func @transposed_b(%a: tensor<7x512xf32>, %bt: tensor<1024x512xf32>, %c: tensor<7x1024xf32>) -> tensor<7x1024xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %bt : tensor<7x512xf32>, tensor<1024x512xf32>) outs(%c : tensor<7x1024xf32>) -> tensor<7x1024xf32>
  return %0 : tensor<7x1024xf32>
}
