// RUN: strata-opt %s --split-input-file --strata-to-linalg '--strata-fuse=threads=2' | FileCheck %s
// RUN: strata-opt %s --split-input-file --strata-to-linalg --strata-fuse | FileCheck %s --check-prefix=SEQ

// threads=2: a large matmul (256x512x512, 134 MFLOP) fused with its epilogue is
// tiled as one scf.forall over 64x128 output tiles (4 x 4), the fill and the
// matmul fused into each tile, so the fused kernel still runs on threads.
// CHECK-LABEL: func.func @big
// CHECK-NOT: scf.for
// CHECK: scf.forall (%{{.+}}, %{{.+}}) in (4, 4) shared_outs(%{{.+}} = %{{.+}}) -> (tensor<256x512xf32>)
// CHECK: linalg.fill {{.*}} -> tensor<64x128xf32>
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x512xf32>, tensor<512x128xf32>) outs(%{{.+}} : tensor<64x128xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<64x128xf32>, tensor<128xf32>)
// CHECK: tensor.parallel_insert_slice
// Sequentially, the same tiles are scf.for loops.
// SEQ-LABEL: func.func @big
// SEQ-NOT: scf.forall
// SEQ: scf.for
// SEQ: scf.for
// SEQ: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x512xf32>, tensor<512x128xf32>)
func.func @big(%a: tensor<256x512xf32>, %b: tensor<512x512xf32>, %c: tensor<512xf32>) -> tensor<256x512xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<256x512xf32>, tensor<512x512xf32>) -> tensor<256x512xf32>
  %1 = "strata.add"(%0, %c) : (tensor<256x512xf32>, tensor<512xf32>) -> tensor<256x512xf32>
  %2 = "strata.relu"(%1) : (tensor<256x512xf32>) -> tensor<256x512xf32>
  return %2 : tensor<256x512xf32>
}

// -----

// Below parallel-flops (128x64x128, 2 MFLOP) the fused tiles stay scf.for loops.
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.forall
// CHECK: scf.for
// CHECK: linalg.matmul
func.func @small(%a: tensor<128x64xf32>, %b: tensor<64x128xf32>, %c: tensor<128xf32>) -> tensor<128x128xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<128x64xf32>, tensor<64x128xf32>) -> tensor<128x128xf32>
  %1 = "strata.add"(%0, %c) : (tensor<128x128xf32>, tensor<128xf32>) -> tensor<128x128xf32>
  return %1 : tensor<128x128xf32>
}
