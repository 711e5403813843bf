// RUN: strata-opt %s --split-input-file --strata-vectorize=lanes=16 | FileCheck %s
// RUN: strata-opt %s --split-input-file '--strata-vectorize=lanes=16 reductions=false' | FileCheck %s --check-prefix=OFF

// A decode step's scores, q @ k.T with one query per head (strata-layout has folded the
// transpose: B read as N x K): each score is a dot product of q's row and a row of K,
// vectorized along the head dim in 16-lane partial sums, combined once per score; no
// register tile reading K's columns a lane at a time.
// CHECK-LABEL: func.func @scores
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<2x1x64xf32>, %[[K:[a-z0-9]+]]: tensor<2x100x64xf32>)
// CHECK-NOT: linalg.batch_matmul
// CHECK: scf.for %[[H:[a-z0-9]+]] = %{{.+}} to %c2 step %c1
// CHECK: scf.for %[[N:[a-z0-9]+]] = %{{.+}} to %c100 step %c1
// CHECK: %[[QROW:.+]] = tensor.extract_slice %[[Q]][%[[H]], 0, 0] [1, 1, 64]
// CHECK: %[[KROW:.+]] = tensor.extract_slice %[[K]][%[[H]], %[[N]], 0] [1, 1, 64]
// CHECK: scf.for %[[D:[a-z0-9]+]] = %{{.+}} to %c64 step %c16 iter_args
// CHECK: tensor.extract_slice %[[QROW]][0, 0, %[[D]]] [1, 1, 16]
// CHECK: tensor.extract_slice %[[KROW]][0, 0, %[[D]]] [1, 1, 16]
// CHECK: %[[P:.+]] = arith.mulf {{.*}} : vector<1x1x1x16xf32>
// CHECK: arith.addf %{{.+}}, %[[P]] fastmath<reassoc,contract> : vector<1x1x1x16xf32>
// CHECK: vector.multi_reduction <add>, %{{.+}}, %{{.+}} [3] : vector<1x1x1x16xf32> to vector<1x1x1xf32>
// Without the row reductions, the matmul keeps its register tiles.
// OFF-LABEL: func.func @scores
// OFF-NOT: vector.multi_reduction
// OFF: vector.contract
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#bt = affine_map<(b, m, n, k) -> (b, n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @scores(%q: tensor<2x1x64xf32>, %k: tensor<2x100x64xf32>) -> tensor<2x1x100xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x1x100xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x1x100xf32>) -> tensor<2x1x100xf32>
  %0 = linalg.batch_matmul indexing_maps = [#a, #bt, #c] ins(%q, %k : tensor<2x1x64xf32>, tensor<2x100x64xf32>) outs(%c : tensor<2x1x100xf32>) -> tensor<2x1x100xf32>
  return %0 : tensor<2x1x100xf32>
}

// -----

// Five rows are more than DOT_ROWS (4), and B in standard order is not read by rows:
// both keep the matmul's register tiles.
// CHECK-LABEL: func.func @not_dot_rows
// CHECK-NOT: vector.multi_reduction
// CHECK: vector.contract
// CHECK: vector.contract
// CHECK: return
#a2 = affine_map<(m, n, k) -> (m, k)>
#bt2 = affine_map<(m, n, k) -> (n, k)>
#c2 = affine_map<(m, n, k) -> (m, n)>
func.func @not_dot_rows(%x: tensor<5x64xf32>, %w: tensor<48x64xf32>, %y: tensor<1x64xf32>, %v: tensor<64x48xf32>, %c: tensor<5x48xf32>, %d: tensor<1x48xf32>) -> (tensor<5x48xf32>, tensor<1x48xf32>) {
  %0 = linalg.matmul indexing_maps = [#a2, #bt2, #c2] ins(%x, %w : tensor<5x64xf32>, tensor<48x64xf32>) outs(%c : tensor<5x48xf32>) -> tensor<5x48xf32>
  %1 = linalg.matmul ins(%y, %v : tensor<1x64xf32>, tensor<64x48xf32>) outs(%d : tensor<1x48xf32>) -> tensor<1x48xf32>
  return %0, %1 : tensor<5x48xf32>, tensor<1x48xf32>
}
