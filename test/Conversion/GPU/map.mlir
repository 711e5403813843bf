// RUN: strata-opt %s --split-input-file --strata-gpu-map | FileCheck %s

// Elementwise: 1x256 tiles per block, one element per thread, thread x along
// the contiguous (last) dim so that neighbouring threads touch neighbouring addresses.
// CHECK-LABEL: func.func @add
// CHECK: scf.forall (%{{.+}}, %{{.+}}) in (1024, 2) shared_outs
// CHECK: scf.forall (%{{.+}}, %{{.+}}) in (1, 256) shared_outs
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<1x1xf32>, tensor<1x1xf32>) {{.*}} attrs = {strata.gpu = "elementwise"}
// CHECK: arith.addf
// CHECK: {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK: {mapping = [#gpu.block<y>, #gpu.block<x>]}
func.func @add(%a: tensor<1024x512xf32>, %b: tensor<1024x512xf32>) -> tensor<1024x512xf32> {
  %e = tensor.empty() : tensor<1024x512xf32>
  %0 = linalg.add ins(%a, %b : tensor<1024x512xf32>, tensor<1024x512xf32>) outs(%e : tensor<1024x512xf32>) -> tensor<1024x512xf32>
  return %0 : tensor<1024x512xf32>
}

// -----

// Row reduction: one block per row (tiles of 1 row), no thread loop yet:
// strata-gpu-launch turns the row generic into a block-wide gpu.all_reduce.
// CHECK-LABEL: func.func @rowsum
// CHECK: linalg.fill {{.*}}strata.gpu = "elementwise"
// CHECK: scf.forall (%{{.+}}) in (128) shared_outs
// CHECK-NOT: scf.forall
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} ins(%{{.+}} : tensor<1x1000xf32>) outs(%{{.+}} : tensor<1xf32>) attrs = {strata.gpu = "reduce"}
// CHECK: {mapping = [#gpu.block<x>]}
func.func @rowsum(%a: tensor<128x1000xf32>) -> tensor<128xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  %r = linalg.reduce ins(%a : tensor<128x1000xf32>) outs(%f : tensor<128xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %r : tensor<128xf32>
}

// -----

// Matmul: 64x64 output tiles per block and a K loop of 16 inside.
// CHECK-LABEL: func.func @mm
// CHECK: scf.forall (%{{.+}}, %{{.+}}) in (4, 8) shared_outs
// CHECK: scf.for %{{.+}} = %c0 to %c128 step %c16
// CHECK: linalg.matmul {strata.gpu = "matmul"} ins(%{{.+}}, %{{.+}} : tensor<64x16xf32>, tensor<16x64xf32>) outs(%{{.+}} : tensor<64x64xf32>)
// CHECK: {mapping = [#gpu.block<y>, #gpu.block<x>]}
func.func @mm(%a: tensor<256x128xf32>, %b: tensor<128x512xf32>, %c: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x512xf32>) outs(%c : tensor<256x512xf32>) -> tensor<256x512xf32>
  return %r : tensor<256x512xf32>
}

// -----

// A contraction that is not a named matmul: one thread per output element,
// the reduction serial in each thread.
// CHECK-LABEL: func.func @bmm
// CHECK: scf.forall
// CHECK: scf.forall
// CHECK: linalg.batch_matmul {strata.gpu = "thread"} ins(%{{.+}}, %{{.+}} : tensor<1x1x64xf32>, tensor<1x64x1xf32>)
// CHECK: {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
// CHECK: {mapping = [#gpu.block<z>, #gpu.block<y>, #gpu.block<x>]}
func.func @bmm(%a: tensor<4x32x64xf32>, %b: tensor<4x64x32xf32>, %c: tensor<4x32x32xf32>) -> tensor<4x32x32xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x32x64xf32>, tensor<4x64x32xf32>) outs(%c : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  return %r : tensor<4x32x32xf32>
}
