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

// -----

// Two matmuls initialized by one fill (CSE merges equal fills), each with its own
// epilogue: each forall gets its own fill (the first fusion's clone of a shared fill
// used to be matched again for the second matmul: "could not find next producer").
// CHECK-LABEL: func.func @shared_fill
// CHECK: scf.forall
// CHECK: linalg.fill {{.*}} -> tensor<64x128xf32>
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x512xf32>, tensor<512x128xf32>)
// CHECK: scf.forall
// CHECK: linalg.fill {{.*}} -> tensor<64x128xf32>
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<64x512xf32>, tensor<512x128xf32>)
// CHECK-NOT: linalg.fill
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @shared_fill(%a: tensor<256x512xf32>, %b: tensor<512x512xf32>, %c: tensor<512xf32>) -> (tensor<256x512xf32>, tensor<256x512xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  %m0 = linalg.matmul ins(%a, %b : tensor<256x512xf32>, tensor<512x512xf32>) outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%m0, %c : tensor<256x512xf32>, tensor<512xf32>) outs(%e : tensor<256x512xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<256x512xf32>
  %m1 = linalg.matmul ins(%r0, %b : tensor<256x512xf32>, tensor<512x512xf32>) outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%m1, %c : tensor<256x512xf32>, tensor<512xf32>) outs(%e : tensor<256x512xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<256x512xf32>
  return %r0, %r1 : tensor<256x512xf32>, tensor<256x512xf32>
}
