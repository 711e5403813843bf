// RUN: strata-opt %s --split-input-file '--strata-parallelize=threads=2 vector-width=32' | FileCheck %s
// RUN: strata-opt %s --split-input-file '--strata-parallelize=threads=2 vector-width=1' | FileCheck %s --check-prefix=NOVEC
// RUN: strata-opt %s --split-input-file --strata-parallelize | FileCheck %s --check-prefix=OFF
// RUN: strata-opt %s --split-input-file '--strata-parallelize=threads=2 vector-width=32 stream-bytes=0' | FileCheck %s --check-prefix=NOSTREAM
// RUN: strata-opt %s --split-input-file '--strata-parallelize=threads=2' --strata-bufferize '--strata-lower-to-llvm=threads=2' | FileCheck %s --check-prefix=LLVM
// RUN: not strata-opt %s --strata-parallelize=threads=0 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: <unknown>:0: error: strata-parallelize: option 'threads' must be at least 1, got 0

// Compute-heavy elementwise op (exp + div per element over 1024x1024: about
// 8.4M cost units): the rows are split into 2 chunks of an scf.forall, and each
// chunk is tiled by 1 x vector-width and vectorized (LLVM's loop vectorizer
// gives up inside the outlined parallel function). vector-width=1 leaves the
// chunk a linalg.generic.
// CHECK-LABEL: func.func @heavy
// CHECK: scf.forall (%{{.+}}) in (2) shared_outs(%[[OUT:.+]] = %{{.+}}) -> (tensor<1024x1024xf32>)
// CHECK: %[[IN:.+]] = tensor.extract_slice %{{.+}}[%{{.+}}, 0] [512, 1024] [1, 1] : tensor<1024x1024xf32> to tensor<512x1024xf32>
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: scf.for %[[J:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: %[[T:.+]] = tensor.extract_slice %[[IN]][%[[I]], %[[J]]] [1, 32] [1, 1]
// CHECK: %[[V:.+]] = vector.transfer_read %[[T]]{{.*}} : tensor<1x32xf32>, vector<1x32xf32>
// CHECK: %[[E:.+]] = math.exp %[[V]] : vector<1x32xf32>
// CHECK: arith.divf %[[V]], %[[E]] : vector<1x32xf32>
// CHECK: vector.transfer_write
// CHECK-NOT: linalg.generic
// CHECK: tensor.parallel_insert_slice
// NOVEC-LABEL: func.func @heavy
// NOVEC: scf.forall (%{{.+}}) in (2)
// NOVEC: linalg.generic {{.*}} ins(%{{.+}} : tensor<512x1024xf32>) outs(%{{.+}} : tensor<512x1024xf32>)
// NOVEC-NOT: vector.
// OFF-LABEL: func.func @heavy
// OFF-NOT: scf.forall
// LLVM-LABEL: llvm.func @heavy
// LLVM: omp.parallel num_threads
// LLVM-NEXT: omp.wsloop
// LLVM: omp.terminator
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @heavy(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %e = tensor.empty() : tensor<1024x1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1024x1024xf32>) outs(%e : tensor<1024x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = math.exp %in : f32
    %b = arith.divf %in, %a : f32
    linalg.yield %b : f32
  } -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}

// -----

// A memory-bound add is not split, however large (two threads first-touching a
// fresh output run slower than one); its 16 MiB output (stream-bytes) is still
// vectorized, in one loop, so that strata-nontemporal-stores can stream its writes.
// With stream-bytes=0 it stays a linalg.generic (LLVM vectorizes it, plain stores).
// CHECK-LABEL: func.func @add
// CHECK-NOT: scf.forall
// CHECK: scf.for
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c32
// CHECK: %[[A:.+]] = vector.transfer_read {{.*}} vector<1x32xf32>
// CHECK: %[[B:.+]] = vector.transfer_read {{.*}} vector<1x32xf32>
// CHECK: %[[S:.+]] = arith.addf %[[A]], %[[B]] : vector<1x32xf32>
// CHECK: vector.transfer_write %[[S]]
// CHECK-NOT: linalg.generic
// CHECK: return
// NOSTREAM-LABEL: func.func @add
// NOSTREAM-NOT: vector.transfer_write
// NOSTREAM: linalg.generic
// LLVM-LABEL: llvm.func @add
// LLVM-NOT: omp.parallel
// LLVM: llvm.return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @add(%x: tensor<2048x2048xf32>, %y: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  %e = tensor.empty() : tensor<2048x2048xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<2048x2048xf32>, tensor<2048x2048xf32>) outs(%e : tensor<2048x2048xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2048x2048xf32>
  return %r : tensor<2048x2048xf32>
}

// -----

// A small heavy op (exp over 64x64) stays whole, and ops inside loops are not touched.
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.forall
// CHECK: math.exp
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @small(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = tensor.empty() : tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = math.exp %in : f32
    linalg.yield %a : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// A 0-d operand that is not a constant (a function argument) keeps the op whole:
// in the outlined parallel function it would be reloaded on every element
// (measured 3.5x slower).
// CHECK-LABEL: func.func @scalar_operand
// CHECK-NOT: scf.forall
// CHECK: math.exp
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>
func.func @scalar_operand(%x: tensor<1024x1024xf32>, %s: tensor<f32>) -> tensor<1024x1024xf32> {
  %e = tensor.empty() : tensor<1024x1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<1024x1024xf32>, tensor<f32>) outs(%e : tensor<1024x1024xf32>) {
  ^bb0(%in: f32, %k: f32, %out: f32):
    %a = math.exp %in : f32
    %b = arith.divf %a, %k : f32
    linalg.yield %b : f32
  } -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}

// -----

// A 0-d splat constant operand (the 0.5 of x * 0.5) becomes a scalar constant in
// the body, and the op is then split (and vectorized) like any other.
// CHECK-LABEL: func.func @constant_scalar
// CHECK: %[[HALF:.+]] = arith.constant dense<5.000000e-01> : vector<1x32xf32>
// CHECK-NOT: tensor<f32>
// CHECK: scf.forall (%{{.+}}) in (2)
// CHECK: math.exp
// CHECK: arith.mulf %{{.+}}, %[[HALF]] : vector<1x32xf32>
// NOVEC-LABEL: func.func @constant_scalar
// NOVEC: scf.forall (%{{.+}}) in (2)
// NOVEC: linalg.generic {{.*}} ins(%{{.+}} : tensor<512x1024xf32>)
// NOVEC: ^bb0(%[[A:.+]]: f32, %{{.+}}: f32):
// NOVEC: %[[H:.+]] = arith.constant 5.000000e-01 : f32
// NOVEC: arith.mulf %{{.+}}, %[[H]] : f32
// OFF-LABEL: func.func @constant_scalar
// OFF-NOT: scf.forall
// OFF: ins(%{{.+}}, %{{.+}} : tensor<1024x1024xf32>, tensor<f32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>
func.func @constant_scalar(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %half = arith.constant dense<5.000000e-01> : tensor<f32>
  %e = tensor.empty() : tensor<1024x1024xf32>
  %r = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %half : tensor<1024x1024xf32>, tensor<f32>) outs(%e : tensor<1024x1024xf32>) {
  ^bb0(%in: f32, %k: f32, %out: f32):
    %a = math.exp %in : f32
    %b = arith.mulf %a, %k : f32
    linalg.yield %b : f32
  } -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}

// -----

// An elementwise op inside an scf.forall (a fused kernel's tile step, e.g.
// strata-attention's exponentials) is vectorized by 1 x vector-width tiles, whatever
// its size and the thread count: the forall becomes an outlined parallel function,
// where LLVM's loop vectorizer leaves the loop scalar. Not split again; a reduction
// and an op outside the forall that is below the thresholds stay as they are.
// CHECK-LABEL: func.func @in_forall
// CHECK: scf.forall (%[[H:.+]]) in (3) shared_outs(%[[O:[^ ]+]] = %{{.+}}) -> (tensor<3x8x64xf32>, tensor<3x8xf32>)
// CHECK-NOT: scf.forall
// CHECK: %[[T:.+]] = tensor.extract_slice %[[O]][%[[H]], 0, 0] [1, 8, 64] [1, 1, 1] : tensor<3x8x64xf32> to tensor<8x64xf32>
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: scf.for %[[J:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: vector.transfer_read %{{.+}}[%{{.+}}, %{{.+}}], %{{.+}} {in_bounds = [true, true]} : tensor<1x32xf32>, vector<1x32xf32>
// CHECK: math.exp %{{.+}} : vector<1x32xf32>
// CHECK: vector.transfer_write
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: scf.forall.in_parallel
// CHECK: linalg.generic {{.*}} ins(%{{.+}} : tensor<4x4xf32>)
// NOVEC-LABEL: func.func @in_forall
// NOVEC: scf.forall
// NOVEC: linalg.generic {{.*}} ins(%{{.+}} : tensor<8x64xf32>)
// NOVEC-NOT: vector.transfer_read
// NOVEC: scf.forall.in_parallel
// OFF-LABEL: func.func @in_forall
// OFF: scf.forall
// OFF: math.exp %{{.+}} : vector<1x{{16|32}}xf32>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @in_forall(%x: tensor<3x8x64xf32>, %y: tensor<4x4xf32>) -> (tensor<3x8x64xf32>, tensor<3x8xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<3x8x64xf32>
  %er = tensor.empty() : tensor<3x8xf32>
  %r:2 = scf.forall (%h) in (3) shared_outs(%o = %e, %or = %er) -> (tensor<3x8x64xf32>, tensor<3x8xf32>) {
    %xs = tensor.extract_slice %x[%h, 0, 0] [1, 8, 64] [1, 1, 1] : tensor<3x8x64xf32> to tensor<8x64xf32>
    %os = tensor.extract_slice %o[%h, 0, 0] [1, 8, 64] [1, 1, 1] : tensor<3x8x64xf32> to tensor<8x64xf32>
    %ex = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%xs : tensor<8x64xf32>) outs(%os : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %a = math.exp %in : f32
      linalg.yield %a : f32
    } -> tensor<8x64xf32>
    %rs = tensor.empty() : tensor<8xf32>
    %rz = linalg.fill ins(%zero : f32) outs(%rs : tensor<8xf32>) -> tensor<8xf32>
    %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<8x64xf32>) outs(%rz : tensor<8xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    } -> tensor<8xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %ex into %o[%h, 0, 0] [1, 8, 64] [1, 1, 1] : tensor<8x64xf32> into tensor<3x8x64xf32>
      tensor.parallel_insert_slice %sum into %or[%h, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<3x8xf32>
    }
  }
  %e2 = tensor.empty() : tensor<4x4xf32>
  %n = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<4x4xf32>) outs(%e2 : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.negf %in : f32
    linalg.yield %a : f32
  } -> tensor<4x4xf32>
  return %r#0, %r#1, %n : tensor<3x8x64xf32>, tensor<3x8xf32>, tensor<4x4xf32>
}

// -----

// The same tile step inside an scf.for nest (strata-attention's loop nest on one
// thread) is vectorized too, at any thread count: LLVM would vectorize the loop at
// 256 bits on AVX-512 hosts (its preferred width there), half the vector registers.
// CHECK-LABEL: func.func @in_for
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (tensor<3x8x64xf32>)
// CHECK-NOT: scf.forall
// CHECK: vector.transfer_read %{{.+}}[%{{.+}}, %{{.+}}], %{{.+}} {in_bounds = [true, true]} : tensor<1x32xf32>, vector<1x32xf32>
// CHECK: math.exp %{{.+}} : vector<1x32xf32>
// CHECK: tensor.insert_slice
// OFF-LABEL: func.func @in_for
// OFF-NOT: scf.forall
// OFF: math.exp %{{.+}} : vector<1x{{16|32}}xf32>
// OFF: return
// NOVEC-LABEL: func.func @in_for
// NOVEC-NOT: vector.transfer_read
// NOVEC: return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @in_for(%x: tensor<3x8x64xf32>) -> tensor<3x8x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<3x8x64xf32>
  %r = scf.for %h = %c0 to %c3 step %c1 iter_args(%o = %e) -> (tensor<3x8x64xf32>) {
    %xs = tensor.extract_slice %x[%h, 0, 0] [1, 8, 64] [1, 1, 1] : tensor<3x8x64xf32> to tensor<8x64xf32>
    %te = tensor.empty() : tensor<8x64xf32>
    %ex = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%xs : tensor<8x64xf32>) outs(%te : tensor<8x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %a = math.exp %in : f32
      linalg.yield %a : f32
    } -> tensor<8x64xf32>
    %ins = tensor.insert_slice %ex into %o[%h, 0, 0] [1, 8, 64] [1, 1, 1] : tensor<8x64xf32> into tensor<3x8x64xf32>
    scf.yield %ins : tensor<3x8x64xf32>
  }
  return %r : tensor<3x8x64xf32>
}
