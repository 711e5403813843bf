// RUN: strata-opt %s --split-input-file '--strata-vectorize=lanes=16 pack-m=32 pack-n=64 pack-k=32' | FileCheck %s
// RUN: strata-opt %s --split-input-file '--strata-vectorize=lanes=16 pack-m=32 pack-n=64 pack-k=32 stream-b=false' | FileCheck %s --check-prefix=WHOLE
// RUN: strata-opt %s --split-input-file '--strata-vectorize=lanes=16 pack-m=32 pack-n=64 pack-k=32 threads=2 parallel-flops=1' | FileCheck %s --check-prefix=PAR
// RUN: strata-opt %s --split-input-file '--strata-vectorize=lanes=16 pack-m=32 pack-n=64 pack-k=32' --strata-bufferize | FileCheck %s --check-prefix=BUF

// 64x96 @ 96x128 in cache tiles of 32 rows x 64 columns x 32 deep (8x32 register
// tiles): B is packed one 32 x 64 tile at a time, inside the N and K loops, into a
// 2x32x32 tensor of its own (two 32-wide panels), copied by 8 x 32 vectors (8 rows of
// B, each row across all panels before the next 8), and then
// used by every M tile; no pack of the whole of B comes before the product.
// CHECK-LABEL: func.func @stream_b
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<64x96xf32>, %[[B:[a-z0-9]+]]: tensor<96x128xf32>)
// CHECK-NOT: tensor<4x96x32xf32>
// CHECK: %[[PA:.+]] = scf.for {{.*}} -> (tensor<8x96x8xf32>)
// CHECK-NOT: tensor<4x96x32xf32>
// CHECK: scf.for %[[N:[a-z0-9]+]] = %{{.+}} to %c4 step %c2
// CHECK-NEXT: scf.for %[[K:[a-z0-9]+]] = %{{.+}} to %c96 step %c32
// CHECK: %[[AK:.+]] = tensor.extract_slice %[[PA]][0, %[[K]], 0] [8, 32, 8]
// CHECK: %[[BT:.+]] = tensor.extract_slice %[[B]][%[[K]], %{{.+}}] [32, 64]
// CHECK: %[[DEST:.+]] = tensor.empty() : tensor<2x32x32xf32>
// B's rows are read in order: 8 rows at a time, each across both panels
// CHECK: %[[PB:.+]] = scf.for %{{.+}} = %{{.+}} to %c32 step %c8 iter_args(%{{.+}} = %[[DEST]]) -> (tensor<2x32x32xf32>)
// CHECK-NEXT: scf.for %{{.+}} = %{{.+}} to %c2 step %c1
// CHECK: tensor.extract_slice %[[BT]][{{.+}}] [8, 32]
// CHECK: vector.transfer_read {{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK: vector.transfer_write {{.*}} : vector<8x32xf32>, tensor<1x8x32xf32>
// CHECK: scf.for %[[M:[a-z0-9]+]] = %{{.+}} to %c8 step %c4
// CHECK: tensor.extract_slice %[[AK]][%[[M]], 0, 0] [4, 32, 8]
// CHECK: tensor.extract_slice %[[PB]][%{{.+}}, %{{.+}}, 0] [1, 1, 32]
// CHECK: vector.contract {{.*}} : vector<1x8xf32>, vector<1x32xf32> into vector<8x32xf32>
// C's unpack: 8 x 32 vector copies
// CHECK: vector.transfer_write {{.*}} : vector<8x32xf32>, tensor<8x32xf32>
// CHECK: return
// The whole-matrix pack (stream-b=false): B's 4 panels before the product's loops.
// WHOLE-LABEL: func.func @stream_b
// WHOLE: scf.for {{.*}} -> (tensor<4x96x32xf32>)
// WHOLE: scf.for {{.*}} -> (tensor<8x4x8x32xf32>)
// WHOLE: vector.contract
// With threads the N tiles are an scf.forall: each thread clears its tiles of C and
// packs the tiles of B it uses.
// PAR-LABEL: func.func @stream_b
// PAR: scf.forall {{.*}} -> (tensor<8x96x8xf32>)
// PAR: scf.forall (%[[T:.+]]) in (2) {{.*}} -> (tensor<8x4x8x32xf32>)
// PAR: vector.transfer_write %{{.+}}, %{{.+}} {in_bounds = [true, true]} : vector<8x32xf32>, tensor<1x1x8x32xf32>
// PAR: scf.for %[[K:[a-z0-9]+]] = %{{.+}} to %c96 step %c32
// PAR: scf.for {{.*}} -> (tensor<2x32x32xf32>)
// PAR: vector.transfer_read {{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// PAR: vector.contract
// PAR: scf.forall.in_parallel
// The tile's buffer is allocated once, before the loops (buffer-loop-hoisting).
// BUF-LABEL: func.func @stream_b
// BUF: %[[TILE:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2x32x32xf32>
// BUF: scf.for
// BUF-NOT: memref.alloc
// BUF: memref.subview %[[TILE]]
// BUF: memref.dealloc %[[TILE]]
func.func @stream_b(%a: tensor<64x96xf32>, %b: tensor<96x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x128xf32>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

// -----

// One K tile (K = pack-k): B is packed whole, and each register tile starts from zero.
// CHECK-LABEL: func.func @one_k_tile
// CHECK: scf.for {{.*}} -> (tensor<4x32x32xf32>)
// CHECK: vector.contract
// PAR-LABEL: func.func @one_k_tile
// PAR: scf.forall {{.*}} -> (tensor<8x32x8xf32>, tensor<4x32x32xf32>)
func.func @one_k_tile(%a: tensor<64x32xf32>, %b: tensor<32x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x128xf32>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

// -----

// N not a multiple of the cache tile's columns: B is packed whole.
// CHECK-LABEL: func.func @partial_n
// CHECK: scf.for {{.*}} -> (tensor<3x96x32xf32>)
// CHECK: vector.contract
func.func @partial_n(%a: tensor<64x96xf32>, %b: tensor<96x96xf32>, %c: tensor<64x96xf32>) -> tensor<64x96xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x96xf32>) outs(%c : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %0 : tensor<64x96xf32>
}
