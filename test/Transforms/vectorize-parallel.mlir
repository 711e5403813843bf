// RUN: strata-opt %s --split-input-file '--strata-vectorize=threads=2 register-n=16 pack=false' | FileCheck %s
// RUN: strata-opt %s --split-input-file '--strata-vectorize=register-n=16 pack=false' | FileCheck %s --check-prefix=SEQ
// RUN: strata-opt %s --split-input-file '--strata-vectorize=threads=2 register-n=16 pack=false' --strata-bufferize '--strata-lower-to-llvm=threads=2' | FileCheck %s --check-prefix=LLVM

// threads=2: a large matmul (256x512x512, 134 MFLOP) gets its 64x128 cache
// tiles as one scf.forall (4 x 4 tiles); the K loop and the register tiles
// stay sequential inside it. Without threads the tiles are scf.for loops.
// CHECK-LABEL: func.func @big
// CHECK: scf.forall (%{{.+}}, %{{.+}}) in (4, 4) shared_outs(%{{.+}} = %{{.+}}) -> (tensor<256x512xf32>)
// CHECK: scf.for {{.*}} -> (tensor<64x128xf32>)
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32>
// CHECK: tensor.parallel_insert_slice
// SEQ-LABEL: func.func @big
// SEQ-NOT: scf.forall
// SEQ: vector.contract
// LLVM-LABEL: llvm.func @big
// LLVM: llvm.call @mlirAsyncRuntimeCreateGroup
// LLVM: llvm.call @mlirAsyncRuntimeAwaitAllInGroup
// LLVM-NOT: scf.
func.func @big(%a: tensor<256x512xf32>, %b: tensor<512x512xf32>) -> tensor<256x512xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x512xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x512xf32>, tensor<512x512xf32>) outs(%c : tensor<256x512xf32>) -> tensor<256x512xf32>
  return %r : tensor<256x512xf32>
}

// -----

// A small matmul (64x64x64, 0.5 MFLOP: less than parallel-flops) stays sequential.
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.forall
// CHECK: vector.contract
// LLVM-LABEL: llvm.func @small
// LLVM-NOT: mlirAsyncRuntime
// LLVM: llvm.return
func.func @small(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// A row sum over 2048x1024 (2M elements, at least parallel-elements): one
// forall iteration per row, each with 16-lane partial accumulators.
// CHECK-LABEL: func.func @rows
// CHECK: scf.forall (%{{.+}}) in (2048) shared_outs
// CHECK: vector.transfer_read {{.*}} vector<1x16xf32>
// CHECK: vector.multi_reduction <add>
// SEQ-LABEL: func.func @rows
// SEQ-NOT: scf.forall
// SEQ: vector.multi_reduction <add>
// LLVM-LABEL: llvm.func @rows
// LLVM: llvm.call @mlirAsyncRuntimeCreateGroup
func.func @rows(%x: tensor<2048x1024xf32>) -> tensor<2048xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<2048xf32>) -> tensor<2048xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2048x1024xf32>) outs(%c : tensor<2048xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2048xf32>
  return %r : tensor<2048xf32>
}
