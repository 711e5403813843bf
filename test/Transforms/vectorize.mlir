// RUN: strata-opt %s --split-input-file '--strata-vectorize=register-n=16 pack=false' | FileCheck %s
// RUN: strata-opt %s --split-input-file '--strata-vectorize=register-n=16 pack=false' --strata-bufferize --strata-lower-vectors | FileCheck %s --check-prefix=LOWER

// 64x256 * 256x128: the cache tiles (64x128x128) leave one K loop of two steps;
// register tiles of 8x16 with K step 1 around one vector.contract on vector<8x16xf32>.
// CHECK-DAG: #[[MA:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[MB:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[MC:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_static
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<64x256xf32>, %[[B:[a-z0-9]+]]: tensor<256x128xf32>, %[[C:[a-z0-9]+]]: tensor<64x128xf32>)
// CHECK-NOT: linalg.matmul
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG: %[[C64:.+]] = arith.constant 64 : index
// CHECK-DAG: %[[C128:.+]] = arith.constant 128 : index
// CHECK-DAG: %[[C256:.+]] = arith.constant 256 : index
// CHECK: %[[R:.+]] = scf.for %[[K0:.+]] = %{{.+}} to %[[C256]] step %[[C128]] iter_args(%{{.+}} = %[[C]]) -> (tensor<64x128xf32>)
// CHECK: tensor.extract_slice %[[A]][0, %[[K0]]] [64, 128] [1, 1] : tensor<64x256xf32> to tensor<64x128xf32>
// CHECK: tensor.extract_slice %[[B]][%[[K0]], 0] [128, 128] [1, 1] : tensor<256x128xf32> to tensor<128x128xf32>
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[C64]] step %[[C8]]
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[C128]] step %[[C16]]
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[C128]] step %[[C1]]
// CHECK: %[[VA:.+]] = vector.transfer_read {{.*}} {in_bounds = [true, true]} : tensor<8x1xf32>, vector<8x1xf32>
// CHECK: %[[VB:.+]] = vector.transfer_read {{.*}} {in_bounds = [true, true]} : tensor<1x16xf32>, vector<1x16xf32>
// CHECK: %[[VC:.+]] = vector.transfer_read {{.*}} {in_bounds = [true, true]} : tensor<8x16xf32>, vector<8x16xf32>
// CHECK: %[[VR:.+]] = vector.contract {indexing_maps = [#[[MA]], #[[MB]], #[[MC]]], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %[[VA]], %[[VB]], %[[VC]] : vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32>
// CHECK: vector.transfer_write %[[VR]], {{.*}} : vector<8x16xf32>, tensor<8x16xf32>
// CHECK-NOT: linalg.matmul
// CHECK: return %[[R]] : tensor<64x128xf32>
// LOWER-LABEL: func.func @matmul_static
// LOWER-NOT: vector.contract
// LOWER-NOT: linalg.matmul
// LOWER-COUNT-8: vector.fma %{{.+}}, %{{.+}}, %{{.+}} : vector<16xf32>
// LOWER-NOT: vector.fma
// LOWER-NOT: vector.contract
// LOWER: return
func.func @matmul_static(%a: tensor<64x256xf32>, %b: tensor<256x128xf32>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x256xf32>, tensor<256x128xf32>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

// -----

// 33x65 * 65x17: the cache tile is the whole op, but no dim is a multiple of
// the 8x16 register tile. The register loops are peeled: main 8x16 tiles, then
// 8x1, 1x16 and 1x1 remainder tiles, all of static shape, so nothing is masked.
// CHECK-LABEL: func.func @matmul_odd
// CHECK-NOT: vector.mask
// CHECK-NOT: vector.create_mask
// CHECK: scf.for %{{.+}} = %{{.+}} to %c32 step %c8
// CHECK: scf.for %{{.+}} = %{{.+}} to %c65 step %c1
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x1xf32> into vector<8x1xf32>
// CHECK: vector.contract {{.*}} : vector<1x1xf32>, vector<1x16xf32> into vector<1x16xf32>
// CHECK: vector.contract {{.*}} : vector<1x1xf32>, vector<1x1xf32> into vector<1x1xf32>
// CHECK-NOT: linalg.matmul
// CHECK-NOT: vector.mask
// CHECK: return
// LOWER-LABEL: func.func @matmul_odd
// LOWER-NOT: vector.contract
// LOWER-NOT: arith.select
// LOWER: vector.fma %{{.+}}, %{{.+}}, %{{.+}} : vector<16xf32>
// LOWER: return
func.func @matmul_odd(%a: tensor<33x65xf32>, %b: tensor<65x17xf32>, %c: tensor<33x17xf32>) -> tensor<33x17xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<33x65xf32>, tensor<65x17xf32>) outs(%c : tensor<33x17xf32>) -> tensor<33x17xf32>
  return %0 : tensor<33x17xf32>
}

// -----

// 131x65 * 65x17: M is prime and larger than the 64-row cache tile, so cache
// tiles are partial (affine.min sizes) and register tiles are read, computed
// and written under masks.
// CHECK-DAG: #[[MINC:.+]] = affine_map<(d0) -> (-d0 + 131, 64)>
// CHECK-DAG: #[[MINM:.+]] = affine_map<(d0)[s0] -> (-d0 + s0, 8)>
// CHECK-DAG: #[[MINN:.+]] = affine_map<(d0) -> (-d0 + 17, 16)>
// CHECK-LABEL: func.func @matmul_partial_cache
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %c131 step %c64
// CHECK: %[[CM:.+]] = affine.min #[[MINC]](%[[I]])
// CHECK: scf.for %[[II:.+]] = %{{.+}} to %[[CM]] step %c8
// CHECK: scf.for %[[J:.+]] = %{{.+}} to %c17 step %c16
// CHECK: affine.min #[[MINM]](%[[II]])[%[[CM]]]
// CHECK: %[[N:.+]] = affine.min #[[MINN]](%[[J]])
// CHECK: vector.create_mask %[[N]] : vector<16xi1>
// CHECK: vector.mask %{{.+}} { vector.contract {{.*}} : vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32> } : vector<8x16x1xi1> -> vector<8x16xf32>
// CHECK-NOT: linalg.matmul
// CHECK: return
// After lowering, the masked contraction is FMAs whose results are selected by
// the mask.
// LOWER-LABEL: func.func @matmul_partial_cache
// LOWER-NOT: vector.contract
// LOWER-NOT: vector.mask{{ }}
// LOWER: %[[F:.+]] = vector.fma %{{.+}}, %{{.+}}, %[[ACC:.+]] : vector<16xf32>
// LOWER-NEXT: arith.select %{{.+}}, %[[F]], %[[ACC]] : vector<16xi1>, vector<16xf32>
// LOWER: return
func.func @matmul_partial_cache(%a: tensor<131x65xf32>, %b: tensor<65x17xf32>, %c: tensor<131x17xf32>) -> tensor<131x17xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<131x65xf32>, tensor<65x17xf32>) outs(%c : tensor<131x17xf32>) -> tensor<131x17xf32>
  return %0 : tensor<131x17xf32>
}

// -----

// batch_matmul: the batch dim is tiled by 1 and the rest as for matmul. (Dims below
// the 64x128x128 cache tile become affine.min sizes, so even this 16x16x32 case
// is vectorized with masks; only the contraction is checked here.)
// CHECK-LABEL: func.func @batch_matmul
// CHECK-NOT: linalg.batch_matmul
// CHECK: scf.for
// CHECK: vector.contract {{.*}} into vector<1x8x16xf32>
// CHECK-NOT: linalg.batch_matmul
// CHECK: return
// LOWER-LABEL: func.func @batch_matmul
// LOWER-NOT: vector.contract
// LOWER: vector.fma
// LOWER: return
func.func @batch_matmul(%a: tensor<2x16x32xf32>, %b: tensor<2x32x16xf32>, %c: tensor<2x16x16xf32>) -> tensor<2x16x16xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x16x32xf32>, tensor<2x32x16xf32>) outs(%c : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  return %0 : tensor<2x16x16xf32>
}

// -----

// Dynamic shapes are left alone (for LLVM's loop vectorizer).
// CHECK-LABEL: func.func @matmul_dynamic
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<?x64xf32>, %[[B:[a-z0-9]+]]: tensor<64x?xf32>, %[[C:[a-z0-9]+]]: tensor<?x?xf32>)
// CHECK-NOT: scf.for
// CHECK-NOT: vector.
// CHECK-NEXT: %[[R:.+]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<?x64xf32>, tensor<64x?xf32>) outs(%[[C]] : tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK-NEXT: return %[[R]]
// LOWER-LABEL: func.func @matmul_dynamic
// LOWER-NOT: vector.
// LOWER: linalg.matmul ins(%{{.+}}, %{{.+}} : memref<?x64xf32>, memref<64x?xf32>)
// LOWER-NOT: vector.
// LOWER: return
func.func @matmul_dynamic(%a: tensor<?x64xf32>, %b: tensor<64x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// C is a zero fill only the matmul reads, K fits one cache tile (64 <= 128) and the
// register tiles divide the op: each 8x16 register tile starts its accumulator from the
// fill's value in registers (the fill fused into the tile folds away), so no pass writes
// and rereads C before the product, and the outer fill is gone.
// CHECK-LABEL: func.func @zero_init
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<32x64xf32>, %[[B:[a-z0-9]+]]: tensor<64x48xf32>)
// CHECK-NOT: linalg.fill
// CHECK: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<8x16xf32>
// CHECK: %[[E:.+]] = tensor.empty() : tensor<32x48xf32>
// CHECK: scf.for %{{.+}} = %{{.+}} to %c32 step %c8 iter_args(%{{.+}} = %[[E]])
// CHECK: %[[TILE:.+]] = tensor.extract_slice %{{.+}} [8, 16] [1, 1] : tensor<32x48xf32> to tensor<8x16xf32>
// CHECK: %[[INIT:.+]] = vector.transfer_write %[[ZERO]], %[[TILE]]
// CHECK: scf.for %{{.+}} = %{{.+}} to %c64 step %c1 iter_args(%{{.+}} = %[[INIT]]) -> (tensor<8x16xf32>)
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32>
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @zero_init(%a: tensor<32x64xf32>, %b: tensor<64x48xf32>) -> tensor<32x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x48xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x48xf32>) outs(%c : tensor<32x48xf32>) -> tensor<32x48xf32>
  return %0 : tensor<32x48xf32>
}
