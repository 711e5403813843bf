// RUN: strata-opt %s --split-input-file --pass-pipeline='builtin.module(strata-vectorize{lanes=16})' | FileCheck %s
// RUN: strata-opt %s --split-input-file --pass-pipeline='builtin.module(strata-vectorize{lanes=16 stationary-rows=0})' | FileCheck %s --check-prefix=OFF
// RUN: strata-opt %s --split-input-file --pass-pipeline='builtin.module(strata-vectorize{lanes=8})' | FileCheck %s --check-prefix=AVX2

// x @ W^T (nn.Linear's weight, N x K) with few rows: (W @ x^T)^T. x and the result are
// transposed by 16 x 16 vector tiles; the matmul's register tiles read W in place
// (8 rows of W broadcast per K step against 16 columns of x^T), with no packed panels.
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.+]]: tensor<16x64xf32>, %[[W:.+]]: tensor<128x64xf32>)
// CHECK: %[[XT:.+]] = scf.for {{.*}} -> (tensor<64x16xf32>)
// CHECK: %[[TILE:.+]] = vector.transfer_read %{{.+}} : tensor<16x16xf32>, vector<16x16xf32>
// CHECK: vector.transpose %[[TILE]], [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// CHECK: %[[CT:.+]] = scf.for {{.*}} -> (tensor<128x16xf32>)
// CHECK: tensor.extract_slice %[[W]]
// CHECK: %[[ROWS:.+]] = vector.transfer_read %{{.+}} : tensor<8x1xf32>, vector<8x1xf32>
// CHECK: %[[COLS:.+]] = vector.transfer_read %{{.+}} : tensor<1x16xf32>, vector<1x16xf32>
// CHECK: vector.contract {{.*}} %[[ROWS]], %[[COLS]], %{{.+}} : vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32>
// CHECK: %[[C:.+]] = scf.for {{.*}} -> (tensor<16x128xf32>)
// CHECK: tensor.extract_slice %[[CT]]
// CHECK: vector.transpose %{{.+}}, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// CHECK: return %[[C]]
// CHECK-NOT: linalg.transpose
// CHECK-NOT: linalg.matmul
// Off, or with AVX2 (8 lanes: the unpacked tiles are no faster there): the matmul
// reads W through its transposed map, nothing is transposed.
// OFF-LABEL: func.func @linear
// OFF-NOT: vector.transpose
// OFF: vector.contract
// OFF-NOT: vector.transpose
// OFF: return
// AVX2-LABEL: func.func @linear
// AVX2-NOT: vector.transpose
// AVX2: vector.contract
// AVX2-NOT: vector.transpose
// AVX2: return
func.func @linear(%x: tensor<16x64xf32>, %w: tensor<128x64xf32>) -> tensor<16x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x128xf32>) -> tensor<16x128xf32>
  %r = linalg.matmul indexing_maps = [#a, #b, #c] ins(%x, %w : tensor<16x64xf32>, tensor<128x64xf32>) outs(%f : tensor<16x128xf32>) -> tensor<16x128xf32>
  return %r : tensor<16x128xf32>
}

// -----

// Not swapped: a result accumulated into (not a zero fill), rows that are not whole
// vector tiles, and activations as large as the weight (2*M*(N+K) > N*K).
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @kept
// CHECK-NOT: vector<16x16xf32>
// CHECK: return
func.func @kept(%x: tensor<16x64xf32>, %w: tensor<128x64xf32>, %acc: tensor<16x128xf32>,
                %y: tensor<24x64xf32>, %big: tensor<64x64xf32>) -> (tensor<16x128xf32>, tensor<24x128xf32>, tensor<64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %r = linalg.matmul indexing_maps = [#a, #b, #c] ins(%x, %w : tensor<16x64xf32>, tensor<128x64xf32>) outs(%acc : tensor<16x128xf32>) -> tensor<16x128xf32>
  %e2 = tensor.empty() : tensor<24x128xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<24x128xf32>) -> tensor<24x128xf32>
  %r2 = linalg.matmul indexing_maps = [#a, #b, #c] ins(%y, %w : tensor<24x64xf32>, tensor<128x64xf32>) outs(%f2 : tensor<24x128xf32>) -> tensor<24x128xf32>
  %e3 = tensor.empty() : tensor<64x128xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %r3 = linalg.matmul indexing_maps = [#a, #b, #c] ins(%big, %w : tensor<64x64xf32>, tensor<128x64xf32>) outs(%f3 : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r, %r2, %r3 : tensor<16x128xf32>, tensor<24x128xf32>, tensor<64x128xf32>
}
