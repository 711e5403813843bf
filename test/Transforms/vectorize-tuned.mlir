// RUN: strata-opt %s --split-input-file '--strata-vectorize=lanes=16 tuned=1x128x160x96xf32:pack0.cm32.cn80.ck32' | FileCheck %s
// RUN: strata-opt %s --split-input-file '--strata-vectorize=lanes=16 tuned=1x128x160x96xf32:pm64.pn64.pk32' | FileCheck %s --check-prefix=PACKED
// RUN: strata-opt %s --split-input-file '--strata-vectorize=lanes=16 tuned=1x128x160x96xf32:cm0' --verify-diagnostics

// strata-vectorize's `tuned` option (passes/tuning.py): per matmul signature
// (batch x M x N x K x dtype), tiles that override the pass's options for that
// op only. The 128x160x96 matmul runs tiled in place (pack0) with 32x80x32
// cache tiles and 8x16 register tiles, while @other (another signature) keeps
// the default: packed panels.

// CHECK-LABEL: func.func @tuned
// CHECK-SAME: (%[[A:[a-z0-9]+]]: tensor<128x96xf32>, %[[B:[a-z0-9]+]]: tensor<96x160xf32>, %[[C:[a-z0-9]+]]: tensor<128x160xf32>)
// CHECK-NOT: linalg.pack
// CHECK: scf.for %{{.+}} = %c0 to %c128 step %c32
// CHECK: scf.for %{{.+}} = %c0 to %c160 step %c80
// CHECK: scf.for %{{.+}} = %c0 to %c96 step %c32
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32>
// CHECK-NOT: linalg.pack
// CHECK: return
// PACKED-LABEL: func.func @tuned
// PACKED-SAME: (%{{[a-z0-9]+}}: tensor<128x96xf32>, %{{[a-z0-9]+}}: tensor<96x160xf32>, %[[C:[a-z0-9]+]]: tensor<128x160xf32>)
// A and B are packed into panels by vector copies (whole panels: 128 = 16x8, 160 = 5x32),
// C's packed tile accumulates over 32-deep K steps and is copied back out by vectors.
// PACKED: tensor.empty() : tensor<16x96x8xf32>
// PACKED: tensor.empty() : tensor<5x96x32xf32>
// PACKED: linalg.pack %[[C]] {{.*}} inner_tiles = [8, 32] {{.*}} -> tensor<16x5x8x32xf32>
// PACKED: scf.for %{{.+}} = %c0 to %c96 step %c32
// PACKED: vector.contract {{.*}} : vector<1x8xf32>, vector<1x32xf32> into vector<8x32xf32>
// PACKED: vector.transfer_write {{.*}} : vector<8x32xf32>, tensor<8x32xf32>
// PACKED-NOT: linalg.unpack
// PACKED: return
func.func @tuned(%a: tensor<128x96xf32>, %b: tensor<96x160xf32>, %c: tensor<128x160xf32>) -> tensor<128x160xf32> {
  // expected-error@+1 {{strata-vectorize: tuned tiles for 1x128x160x96xf32: option 'cache-m' must be at least 1, got 0}}
  %0 = linalg.matmul ins(%a, %b : tensor<128x96xf32>, tensor<96x160xf32>) outs(%c : tensor<128x160xf32>) -> tensor<128x160xf32>
  return %0 : tensor<128x160xf32>
}

// -----

// CHECK-LABEL: func.func @other
// CHECK: tensor.empty() : tensor<16x64x8xf32>
// CHECK: linalg.pack {{.*}} -> tensor<16x5x8x32xf32>
// CHECK: vector.contract {{.*}} : vector<1x8xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: vector.transfer_write {{.*}} : vector<8x32xf32>, tensor<8x32xf32>
// CHECK-NOT: linalg.unpack
// PACKED-LABEL: func.func @other
// PACKED: tensor.empty() : tensor<16x64x8xf32>
func.func @other(%a: tensor<128x64xf32>, %b: tensor<64x160xf32>, %c: tensor<128x160xf32>) -> tensor<128x160xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x160xf32>) outs(%c : tensor<128x160xf32>) -> tensor<128x160xf32>
  return %0 : tensor<128x160xf32>
}
