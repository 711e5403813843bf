// RUN: strata-opt %s --split-input-file '--strata-vectorize=threads=2 register-n=16 pack=false' | FileCheck %s
// RUN: strata-opt %s --split-input-file '--strata-vectorize=register-n=16 pack=false' | FileCheck %s --check-prefix=SEQ
// RUN: strata-opt %s --split-input-file '--strata-vectorize=threads=2 register-n=16 pack=false' --strata-bufferize '--strata-lower-to-llvm=threads=2' | FileCheck %s --check-prefix=LLVM
// RUN: strata-opt %s --split-input-file '--strata-vectorize=threads=2 register-n=16 pack=false' --strata-bufferize '--strata-lower-to-llvm=threads=2 thread-runtime=async' | FileCheck %s --check-prefix=ASYNC

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
// The forall runs as one OpenMP region of 2 threads over the 16 flattened tiles
// (thread-runtime=omp, the default), or as async runtime tasks.
// LLVM-LABEL: llvm.func @big
// LLVM-DAG: %[[T:.+]] = llvm.mlir.constant(2 : i32) : i32
// LLVM-DAG: %[[N:.+]] = llvm.mlir.constant(16 : index) : i64
// LLVM: omp.parallel num_threads(%[[T]] : i32) {
// LLVM-NEXT: omp.wsloop {
// LLVM-NEXT: omp.loop_nest (%{{.+}}) : i64 = (%{{.+}}) to (%[[N]]) step
// LLVM-NOT: scf.
// LLVM-NOT: mlirAsyncRuntime
// LLVM: omp.terminator
// ASYNC-LABEL: llvm.func @big
// ASYNC-NOT: omp.
// ASYNC: llvm.call @mlirAsyncRuntimeCreateGroup
// ASYNC: llvm.call @mlirAsyncRuntimeAwaitAllInGroup
// ASYNC-NOT: scf.
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
// LLVM-NOT: omp.parallel
// LLVM: llvm.return
// ASYNC-LABEL: llvm.func @small
// ASYNC-NOT: mlirAsyncRuntime
// ASYNC: llvm.return
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
// LLVM: omp.parallel num_threads
// LLVM: omp.loop_nest
// ASYNC-LABEL: llvm.func @rows
// ASYNC: llvm.call @mlirAsyncRuntimeCreateGroup
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
