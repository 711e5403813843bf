// RUN: strata-opt %s --split-input-file '--strata-attention=block-q=4 block-k=4' | FileCheck %s
// RUN: strata-opt %s --split-input-file '--strata-attention=block-q=4 block-k=4 threads=2 parallel-flops=1' | FileCheck %s --check-prefix=FORALL
// Remarks (what was fused, and why not) with report=true, checked in place:
// RUN: strata-opt %s --split-input-file '--strata-attention=block-q=4 block-k=4 report=true' --verify-diagnostics > /dev/null
// Without report=true there are no remarks at all:
// RUN: strata-opt %s --split-input-file '--strata-attention=block-q=4 block-k=4' 2>&1 >/dev/null | count 0

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> ()>
// softmax(q @ k^T * 0.5) @ v, 2 heads x 10 queries x 10 keys, head dim 4, tiles 4 x 4:
// two full query tiles and one of 2 rows; two full key tiles and one of 2 keys.
// CHECK-LABEL: func.func @attn
// CHECK-SAME: (%[[Q:.+]]: tensor<2x10x4xf32>, %[[K:.+]]: tensor<2x10x4xf32>, %[[V:.+]]: tensor<2x10x3xf32>)
// CHECK: %[[KT:.+]] = linalg.transpose ins(%[[K]] : tensor<2x10x4xf32>) outs(%{{.+}} : tensor<2x4x10xf32>) permutation = [0, 2, 1]
// CHECK: %[[OUT:.+]] = scf.for %[[H:.+]] = %{{.+}} iter_args(%{{.+}}) -> (tensor<2x10x3xf32>)
// CHECK: scf.for %[[T:.+]] = %{{.+}} iter_args(%{{.+}}) -> (tensor<2x10x3xf32>)
// CHECK: %[[QS:.+]] = tensor.extract_slice %[[Q]][%[[H]], %{{.+}}, 0] [1, 4, 4] [1, 1, 1] : tensor<2x10x4xf32> to tensor<4x4xf32>
// CHECK: arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK: %[[LOOP:.+]]:3 = scf.for %{{.+}} iter_args(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x3xf32>)
// CHECK: tensor.extract_slice %[[KT]][%[[H]], 0, %{{.+}}] [1, 4, 4] [1, 1, 1] : tensor<2x4x10xf32> to tensor<4x4xf32>
// CHECK: tensor.extract_slice %[[V]][%[[H]], %{{.+}}, 0] [1, 4, 3] [1, 1, 1] : tensor<2x10x3xf32> to tensor<4x3xf32>
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%{{.+}} : tensor<4x4xf32>)
// CHECK: arith.maxnumf
// CHECK: math.exp
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x4xf32>, tensor<4x3xf32>) outs(%{{.+}} : tensor<4x3xf32>)
// CHECK: scf.yield
// The remainder key tile (keys 8 and 9) after the loop:
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x4xf32>, tensor<4x2xf32>) outs(%{{.+}} : tensor<4x2xf32>)
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<4x2xf32>, tensor<2x3xf32>) outs(%{{.+}} : tensor<4x3xf32>)
// CHECK: arith.divf
// CHECK: tensor.insert_slice %{{.+}} into %{{.+}}[%[[H]], %{{.+}}, 0] [1, 4, 3] [1, 1, 1] : tensor<4x3xf32> into tensor<2x10x3xf32>
// The remainder query tile (rows 8 and 9):
// CHECK: tensor.extract_slice %[[Q]][%{{.+}}, %{{.+}}, 0] [1, 2, 4] [1, 1, 1] : tensor<2x10x4xf32> to tensor<2x4xf32>
// CHECK: tensor.insert_slice %{{.+}} into %{{.+}}[%{{.+}}, %{{.+}}, 0] [1, 2, 3] [1, 1, 1] : tensor<2x3xf32> into tensor<2x10x3xf32>
// No 10 x 10 scores, no softmax, no batch matmul:
// CHECK-NOT: tensor<2x10x10xf32>
// CHECK-NOT: linalg.softmax
// CHECK-NOT: linalg.batch_matmul
// CHECK: return
// FORALL-LABEL: func.func @attn
// FORALL: scf.forall (%[[H:.+]], %{{.+}}) in (2, 2) shared_outs(%{{.+}} = %{{.+}}) -> (tensor<2x10x3xf32>)
// FORALL: scf.forall.in_parallel
// FORALL-NEXT: tensor.parallel_insert_slice %{{.+}} into %{{.+}}[%[[H]], %{{.+}}, 0] [1, 4, 3] [1, 1, 1] : tensor<4x3xf32> into tensor<2x10x3xf32>
// FORALL: scf.forall (%{{.+}}, %{{.+}}) in (2, 1) shared_outs(%{{.+}} = %{{.+}}) -> (tensor<2x10x3xf32>)
// FORALL-NOT: tensor<2x10x10xf32>
func.func @attn(%arg0: tensor<2x10x4xf32>, %arg1: tensor<2x10x4xf32>, %arg2: tensor<2x10x3xf32>) -> tensor<2x10x3xf32> {
  %cst = arith.constant dense<5.000000e-01> : tensor<f32>
  %cst_0 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x4x10xf32>
  %transposed = linalg.transpose ins(%arg1 : tensor<2x10x4xf32>) outs(%0 : tensor<2x4x10xf32>) permutation = [0, 2, 1]
  %1 = tensor.empty() : tensor<2x10x10xf32>
  %2 = linalg.fill ins(%cst_0 : f32) outs(%1 : tensor<2x10x10xf32>) -> tensor<2x10x10xf32>
  %3 = linalg.batch_matmul ins(%arg0, %transposed : tensor<2x10x4xf32>, tensor<2x4x10xf32>) outs(%2 : tensor<2x10x10xf32>) -> tensor<2x10x10xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%3, %cst : tensor<2x10x10xf32>, tensor<f32>) outs(%1 : tensor<2x10x10xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %9 = arith.mulf %in, %in_1 : f32
    linalg.yield %9 : f32
  } -> tensor<2x10x10xf32>
  // expected-remark@+1 {{strata-attention: fused 2x10x10 attention (head dim 4, value dim 3, scale 0.5): tiles 4 queries x 4 keys, sequential, no 10x10 scores in memory}}
  %5 = linalg.softmax dimension(2) ins(%4 : tensor<2x10x10xf32>) outs(%1 : tensor<2x10x10xf32>) -> tensor<2x10x10xf32>
  %6 = tensor.empty() : tensor<2x10x3xf32>
  %7 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<2x10x3xf32>) -> tensor<2x10x3xf32>
  %8 = linalg.batch_matmul ins(%5, %arg2 : tensor<2x10x10xf32>, tensor<2x10x3xf32>) outs(%7 : tensor<2x10x3xf32>) -> tensor<2x10x3xf32>
  return %8 : tensor<2x10x3xf32>
}

// -----

// Single head (2-d), causal: scores + the constant causal mask, no scale. Key tiles
// past a query tile's last row are skipped (the loop bound is an affine.min of the
// query offset) and every score is masked against the diagonal with its indices.
// CHECK-LABEL: func.func @causal
// CHECK-SAME: (%[[Q:.+]]: tensor<6x2xf32>, %[[K:.+]]: tensor<6x2xf32>, %[[V:.+]]: tensor<6x2xf32>)
// CHECK: tensor.expand_shape %[[Q]] {{\[}}[0, 1], [2]] output_shape [1, 6, 2] : tensor<6x2xf32> into tensor<1x6x2xf32>
// CHECK: %[[Q0:.+]] = affine.apply
// CHECK: %[[HI:.+]] = affine.min #{{.+}}(%[[Q0]])
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[HI]] step
// CHECK: linalg.matmul
// CHECK: linalg.index 0 : index
// CHECK: linalg.index 1 : index
// CHECK: arith.cmpi ugt
// CHECK: arith.select
// CHECK: tensor.collapse_shape %{{.+}} {{\[}}[0, 1], [2]] : tensor<1x6x2xf32> into tensor<6x2xf32>
// CHECK-NOT: tensor<6x6xf32>
// CHECK-NOT: linalg.softmax
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @causal(%arg0: tensor<6x2xf32>, %arg1: tensor<6x2xf32>, %arg2: tensor<6x2xf32>) -> tensor<6x2xf32> {
  %mask = arith.constant dense<[[0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<6x6xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x6xf32>
  %t = linalg.transpose ins(%arg1 : tensor<6x2xf32>) outs(%0 : tensor<2x6xf32>) permutation = [1, 0]
  %1 = tensor.empty() : tensor<6x6xf32>
  %2 = linalg.fill ins(%zero : f32) outs(%1 : tensor<6x6xf32>) -> tensor<6x6xf32>
  %3 = linalg.matmul ins(%arg0, %t : tensor<6x2xf32>, tensor<2x6xf32>) outs(%2 : tensor<6x6xf32>) -> tensor<6x6xf32>
  %4 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%3, %mask : tensor<6x6xf32>, tensor<6x6xf32>) outs(%1 : tensor<6x6xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %a = arith.addf %in, %m : f32
    linalg.yield %a : f32
  } -> tensor<6x6xf32>
  // expected-remark@+1 {{strata-attention: fused 1x6x6 attention (head dim 2, scale 1, causal): tiles 4 queries x 4 keys, sequential, no 6x6 scores in memory}}
  %5 = linalg.softmax dimension(1) ins(%4 : tensor<6x6xf32>) outs(%1 : tensor<6x6xf32>) -> tensor<6x6xf32>
  %6 = tensor.empty() : tensor<6x2xf32>
  %7 = linalg.fill ins(%zero : f32) outs(%6 : tensor<6x2xf32>) -> tensor<6x2xf32>
  %8 = linalg.matmul ins(%5, %arg2 : tensor<6x6xf32>, tensor<6x2xf32>) outs(%7 : tensor<6x2xf32>) -> tensor<6x2xf32>
  return %8 : tensor<6x2xf32>
}

// -----

// Not the pattern, left alone: the scores have a second user.
// CHECK-LABEL: func.func @scores_used_twice
// CHECK: linalg.softmax
// CHECK: linalg.matmul
// CHECK-NOT: scf.for
func.func @scores_used_twice(%q: tensor<4x2xf32>, %k: tensor<4x2xf32>, %v: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x4xf32>
  %t = linalg.transpose ins(%k : tensor<4x2xf32>) outs(%0 : tensor<2x4xf32>) permutation = [1, 0]
  %1 = tensor.empty() : tensor<4x4xf32>
  %2 = linalg.fill ins(%zero : f32) outs(%1 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %3 = linalg.matmul ins(%q, %t : tensor<4x2xf32>, tensor<2x4xf32>) outs(%2 : tensor<4x4xf32>) -> tensor<4x4xf32>
  // expected-remark@+1 {{strata-attention: not fused: the scores has 2 users}}
  %5 = linalg.softmax dimension(1) ins(%3 : tensor<4x4xf32>) outs(%1 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %6 = tensor.empty() : tensor<4x2xf32>
  %7 = linalg.fill ins(%zero : f32) outs(%6 : tensor<4x2xf32>) -> tensor<4x2xf32>
  %8 = linalg.matmul ins(%5, %v : tensor<4x4xf32>, tensor<4x2xf32>) outs(%7 : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %8, %3 : tensor<4x2xf32>, tensor<4x4xf32>
}

// -----

// Not the pattern: a mask that is not the causal one (row 0 sees key 1).
// CHECK-LABEL: func.func @other_mask
// CHECK: linalg.softmax
// CHECK-NOT: scf.for
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @other_mask(%q: tensor<2x2xf32>, %k: tensor<2x2xf32>, %v: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %mask = arith.constant dense<[[0.0, 0.0], [0.0, 0.0]]> : tensor<2x2xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x2xf32>
  %t = linalg.transpose ins(%k : tensor<2x2xf32>) outs(%0 : tensor<2x2xf32>) permutation = [1, 0]
  %2 = linalg.fill ins(%zero : f32) outs(%0 : tensor<2x2xf32>) -> tensor<2x2xf32>
  %3 = linalg.matmul ins(%q, %t : tensor<2x2xf32>, tensor<2x2xf32>) outs(%2 : tensor<2x2xf32>) -> tensor<2x2xf32>
  %4 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%3, %mask : tensor<2x2xf32>, tensor<2x2xf32>) outs(%0 : tensor<2x2xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %a = arith.addf %in, %m : f32
    linalg.yield %a : f32
  } -> tensor<2x2xf32>
  // expected-remark@+1 {{strata-attention: not fused: the softmax input is not (scaled, masked) scores of a matmul}}
  %5 = linalg.softmax dimension(1) ins(%4 : tensor<2x2xf32>) outs(%0 : tensor<2x2xf32>) -> tensor<2x2xf32>
  %8 = linalg.matmul ins(%5, %v : tensor<2x2xf32>, tensor<2x2xf32>) outs(%2 : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %8 : tensor<2x2xf32>
}

// -----

// Not fused: f16 (the fused kernel is f32 only).
// CHECK-LABEL: func.func @f16
// CHECK: linalg.softmax
// CHECK-NOT: scf.for
func.func @f16(%q: tensor<2x2xf16>, %k: tensor<2x2xf16>, %v: tensor<2x2xf16>) -> tensor<2x2xf16> {
  %zero = arith.constant 0.000000e+00 : f16
  %0 = tensor.empty() : tensor<2x2xf16>
  %t = linalg.transpose ins(%k : tensor<2x2xf16>) outs(%0 : tensor<2x2xf16>) permutation = [1, 0]
  %2 = linalg.fill ins(%zero : f16) outs(%0 : tensor<2x2xf16>) -> tensor<2x2xf16>
  %3 = linalg.matmul ins(%q, %t : tensor<2x2xf16>, tensor<2x2xf16>) outs(%2 : tensor<2x2xf16>) -> tensor<2x2xf16>
  // expected-remark@+1 {{strata-attention: not fused: element type f16 (only f32 is fused)}}
  %5 = linalg.softmax dimension(1) ins(%3 : tensor<2x2xf16>) outs(%0 : tensor<2x2xf16>) -> tensor<2x2xf16>
  %8 = linalg.matmul ins(%5, %v : tensor<2x2xf16>, tensor<2x2xf16>) outs(%2 : tensor<2x2xf16>) -> tensor<2x2xf16>
  return %8 : tensor<2x2xf16>
}

// -----

// PyTorch's multi-head form (batch 2, 4 tokens, 2 heads of dim 2, from one 2x4x12
// projection): Q and V are read, and the output written, where the projection keeps
// them (batch, seq, head, dim); only K's transpose (D before the keys) is kept.
// CHECK-LABEL: func.func @multi_head
// CHECK-NOT: permutation = [0, 2, 1, 3]
// CHECK: %[[KT4:.+]] = linalg.transpose ins(%{{.+}} : tensor<2x4x2x2xf32>) outs(%{{.+}} : tensor<2x2x2x4xf32>) permutation = [0, 2, 3, 1]
// CHECK: %[[KT:.+]] = tensor.collapse_shape %[[KT4]] {{\[\[}}0, 1], [2], [3]] : tensor<2x2x2x4xf32> into tensor<4x2x4xf32>
// CHECK-NOT: permutation = [0, 2, 1, 3]
// CHECK: scf.for %[[H:[^ ]+]] =
// CHECK: %[[B:.+]] = affine.apply #{{.+}}(%[[H]])
// CHECK: %[[N:.+]] = affine.apply #{{.+}}(%[[H]])
// CHECK: tensor.extract_slice %[[Q4:.+]][%[[B]], %{{.+}}, %[[N]], 0] [1, 4, 1, 2] [1, 1, 1, 1] : tensor<2x4x2x2xf32> to tensor<4x2xf32>
// CHECK: tensor.extract_slice %[[KT]][%[[H]], 0, %{{.+}}] [1, 2, 4] [1, 1, 1] : tensor<4x2x4xf32> to tensor<2x4xf32>
// CHECK: tensor.extract_slice %[[V4:.+]][%[[B]], %{{.+}}, %[[N]], 0] [1, 4, 1, 2] [1, 1, 1, 1] : tensor<2x4x2x2xf32> to tensor<4x2xf32>
// CHECK: tensor.insert_slice %{{.+}} into %{{.+}}[%[[B]], %{{.+}}, %[[N]], 0] [1, 4, 1, 2] [1, 1, 1, 1] : tensor<4x2xf32> into tensor<2x4x2x2xf32>
// CHECK-NOT: permutation = [0, 2, 1, 3]
// CHECK-NOT: linalg.softmax
// CHECK-NOT: linalg.batch_matmul
// CHECK: %[[OUT:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0], [1], [2, 3]] : tensor<2x4x2x2xf32> into tensor<2x4x4xf32>
// CHECK: return %[[OUT]]
// FORALL-LABEL: func.func @multi_head
// FORALL: scf.forall (%[[H:.+]], %{{.+}}) in (4, 1) shared_outs(%[[D:.+]] = %{{.+}}) -> (tensor<2x4x2x2xf32>)
// FORALL: tensor.parallel_insert_slice %{{.+}} into %[[D]][%{{.+}}, %{{.+}}, %{{.+}}, 0] [1, 4, 1, 2] [1, 1, 1, 1] : tensor<4x2xf32> into tensor<2x4x2x2xf32>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map4s = affine_map<(d0, d1, d2, d3) -> ()>
func.func @multi_head(%x: tensor<2x4x12xf32>) -> tensor<2x4x4xf32> {
  %half = arith.constant dense<5.000000e-01> : tensor<f32>
  %zero = arith.constant 0.000000e+00 : f32
  %qs = tensor.extract_slice %x[0, 0, 0] [2, 4, 4] [1, 1, 1] : tensor<2x4x12xf32> to tensor<2x4x4xf32>
  %q4 = tensor.expand_shape %qs [[0], [1], [2, 3]] output_shape [2, 4, 2, 2] : tensor<2x4x4xf32> into tensor<2x4x2x2xf32>
  %e0 = tensor.empty() : tensor<2x2x4x2xf32>
  %qt = linalg.transpose ins(%q4 : tensor<2x4x2x2xf32>) outs(%e0 : tensor<2x2x4x2xf32>) permutation = [0, 2, 1, 3]
  %q = tensor.collapse_shape %qt [[0, 1], [2], [3]] : tensor<2x2x4x2xf32> into tensor<4x4x2xf32>
  %ks = tensor.extract_slice %x[0, 0, 4] [2, 4, 4] [1, 1, 1] : tensor<2x4x12xf32> to tensor<2x4x4xf32>
  %k4 = tensor.expand_shape %ks [[0], [1], [2, 3]] output_shape [2, 4, 2, 2] : tensor<2x4x4xf32> into tensor<2x4x2x2xf32>
  %e1 = tensor.empty() : tensor<2x2x2x4xf32>
  %kt4 = linalg.transpose ins(%k4 : tensor<2x4x2x2xf32>) outs(%e1 : tensor<2x2x2x4xf32>) permutation = [0, 2, 3, 1]
  %kt = tensor.collapse_shape %kt4 [[0, 1], [2], [3]] : tensor<2x2x2x4xf32> into tensor<4x2x4xf32>
  %vs = tensor.extract_slice %x[0, 0, 8] [2, 4, 4] [1, 1, 1] : tensor<2x4x12xf32> to tensor<2x4x4xf32>
  %v4 = tensor.expand_shape %vs [[0], [1], [2, 3]] output_shape [2, 4, 2, 2] : tensor<2x4x4xf32> into tensor<2x4x2x2xf32>
  %vt = linalg.transpose ins(%v4 : tensor<2x4x2x2xf32>) outs(%e0 : tensor<2x2x4x2xf32>) permutation = [0, 2, 1, 3]
  %v = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<2x2x4x2xf32> into tensor<4x4x2xf32>
  %e2 = tensor.empty() : tensor<4x4x4xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<4x4x2xf32>, tensor<4x2x4xf32>) outs(%z2 : tensor<4x4x4xf32>) -> tensor<4x4x4xf32>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [2, 2, 4, 4] : tensor<4x4x4xf32> into tensor<2x2x4x4xf32>
  %e3 = tensor.empty() : tensor<2x2x4x4xf32>
  %x4 = linalg.generic {indexing_maps = [#map4, #map4s, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s4, %half : tensor<2x2x4x4xf32>, tensor<f32>) outs(%e3 : tensor<2x2x4x4xf32>) {
  ^bb0(%in: f32, %c: f32, %out: f32):
    %m = arith.mulf %in, %c : f32
    linalg.yield %m : f32
  } -> tensor<2x2x4x4xf32>
  // expected-remark@+1 {{strata-attention: fused 4x4x4 attention (head dim 2, scale 0.5): tiles 4 queries x 4 keys, sequential, no 4x4 scores in memory}}
  %p4 = linalg.softmax dimension(3) ins(%x4 : tensor<2x2x4x4xf32>) outs(%e3 : tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %p = tensor.collapse_shape %p4 [[0, 1], [2], [3]] : tensor<2x2x4x4xf32> into tensor<4x4x4xf32>
  %e4 = tensor.empty() : tensor<4x4x2xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4x4x2xf32>) -> tensor<4x4x2xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x4x4xf32>, tensor<4x4x2xf32>) outs(%z4 : tensor<4x4x2xf32>) -> tensor<4x4x2xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [2, 2, 4, 2] : tensor<4x4x2xf32> into tensor<2x2x4x2xf32>
  %e5 = tensor.empty() : tensor<2x4x2x2xf32>
  %ot = linalg.transpose ins(%o4 : tensor<2x2x4x2xf32>) outs(%e5 : tensor<2x4x2x2xf32>) permutation = [0, 2, 1, 3]
  %out = tensor.collapse_shape %ot [[0], [1], [2, 3]] : tensor<2x4x2x2xf32> into tensor<2x4x4xf32>
  return %out : tensor<2x4x4xf32>
}

// -----

// A 4-d softmax whose probabilities are not collapsed to (batch x heads) for a matmul:
// not fused, and said so.
// CHECK-LABEL: func.func @four_d_no_merge
// CHECK: linalg.softmax
#map4b = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @four_d_no_merge(%s: tensor<2x2x4x4xf32>, %v: tensor<4x4x4xf32>) -> tensor<2x2x4x4xf32> {
  %e = tensor.empty() : tensor<2x2x4x4xf32>
  // expected-remark@+1 {{strata-attention: not fused: the softmax does not feed a matmul, nor a collapse of its leading dims into one}}
  %p = linalg.softmax dimension(3) ins(%s : tensor<2x2x4x4xf32>) outs(%e : tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %c = tensor.collapse_shape %p [[0], [1, 2], [3]] : tensor<2x2x4x4xf32> into tensor<2x8x4xf32>
  %r = tensor.expand_shape %c [[0], [1, 2], [3]] output_shape [2, 2, 4, 4] : tensor<2x8x4xf32> into tensor<2x2x4x4xf32>
  %y = linalg.generic {indexing_maps = [#map4b, #map4b], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r : tensor<2x2x4x4xf32>) outs(%e : tensor<2x2x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x2x4x4xf32>
  return %y : tensor<2x2x4x4xf32>
}

// -----

// A runtime mask (PyTorch's masked_fill(~mask, -inf) of a bool buffer, stored as i8)
// after the scale: fused, the mask a fourth input of the kernel, read by tiles and
// applied to each tile of scores; the exponentials are guarded for rows that see no
// key in a tile.
// CHECK-LABEL: func.func @runtime_mask
// CHECK-SAME: (%{{.+}}: tensor<2x6x4xf32>, %{{.+}}: tensor<2x4x6xf32>, %{{.+}}: tensor<2x6x4xf32>, %[[M:.+]]: tensor<6x6xi8>)
// CHECK: scf.for
// CHECK: %[[MT:.+]] = tensor.extract_slice %[[M]][%{{.+}}, %{{.+}}] [4, 4] [1, 1] : tensor<6x6xi8> to tensor<4x4xi8>
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %[[MT]] : tensor<4x4xf32>, tensor<4x4xi8>)
// CHECK: arith.cmpi ne, %{{.+}}, %{{.+}} : i8
// CHECK: arith.select %{{.+}}, %{{.+}}, %{{.+}} : f32
// CHECK: arith.cmpf oeq
// CHECK-NOT: linalg.softmax
// CHECK-NOT: linalg.batch_matmul
// CHECK: return
#m3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#m3s = affine_map<(d0, d1, d2) -> ()>
#m3k = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @runtime_mask(%q: tensor<2x6x4xf32>, %kt: tensor<2x4x6xf32>, %v: tensor<2x6x4xf32>, %mask: tensor<6x6xi8>) -> tensor<2x6x4xf32> {
  %half = arith.constant dense<5.000000e-01> : tensor<f32>
  %ninf = arith.constant dense<0xFF800000> : tensor<f32>
  %zero = arith.constant 0.000000e+00 : f32
  %c0_i8 = arith.constant 0 : i8
  %e = tensor.empty() : tensor<2x6x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x6x4xf32>, tensor<2x4x6xf32>) outs(%z : tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %x = linalg.generic {indexing_maps = [#m3, #m3s, #m3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s, %half : tensor<2x6x6xf32>, tensor<f32>) outs(%e : tensor<2x6x6xf32>) {
  ^bb0(%in: f32, %c: f32, %out: f32):
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x6x6xf32>
  %y = linalg.generic {indexing_maps = [#m3k, #m3s, #m3, #m3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mask, %ninf, %x : tensor<6x6xi8>, tensor<f32>, tensor<2x6x6xf32>) outs(%e : tensor<2x6x6xf32>) {
  ^bb0(%m: i8, %n: f32, %in: f32, %out: f32):
    %b = arith.cmpi ne, %m, %c0_i8 : i8
    %r = arith.select %b, %n, %in : f32
    linalg.yield %r : f32
  } -> tensor<2x6x6xf32>
  // expected-remark@+1 {{strata-attention: fused 2x6x6 attention (head dim 4, scale 0.5, masked where the i8 mask is nonzero): tiles 4 queries x 4 keys, sequential, no 6x6 scores in memory}}
  %p = linalg.softmax dimension(2) ins(%y : tensor<2x6x6xf32>) outs(%e : tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %e2 = tensor.empty() : tensor<2x6x4xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x6x6xf32>, tensor<2x6x4xf32>) outs(%z2 : tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
  return %o : tensor<2x6x4xf32>
}

// -----

// A negative scale applied after a mask would turn its -inf into +inf: not fused.
// CHECK-LABEL: func.func @negative_scale_after_mask
// CHECK: linalg.softmax
#n3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#n3s = affine_map<(d0, d1, d2) -> ()>
#n3k = affine_map<(d0, d1, d2) -> (d1, d2)>
func.func @negative_scale_after_mask(%q: tensor<1x4x2xf32>, %kt: tensor<1x2x4xf32>, %v: tensor<1x4x2xf32>, %mask: tensor<4x4xi1>) -> tensor<1x4x2xf32> {
  %neg = arith.constant dense<-5.000000e-01> : tensor<f32>
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<1x4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<1x4x2xf32>, tensor<1x2x4xf32>) outs(%z : tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %y = linalg.generic {indexing_maps = [#n3k, #n3, #n3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mask, %s : tensor<4x4xi1>, tensor<1x4x4xf32>) outs(%e : tensor<1x4x4xf32>) {
  ^bb0(%m: i1, %in: f32, %out: f32):
    %r = arith.select %m, %in, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<1x4x4xf32>
  %x = linalg.generic {indexing_maps = [#n3, #n3s, #n3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y, %neg : tensor<1x4x4xf32>, tensor<f32>) outs(%e : tensor<1x4x4xf32>) {
  ^bb0(%in: f32, %c: f32, %out: f32):
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x4x4xf32>
  // expected-remark@+1 {{strata-attention: not fused: a scale of -0.5 (not positive) after a mask}}
  %p = linalg.softmax dimension(2) ins(%x : tensor<1x4x4xf32>) outs(%e : tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %e2 = tensor.empty() : tensor<1x4x2xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<1x4x4xf32>, tensor<1x4x2xf32>) outs(%z2 : tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  return %o : tensor<1x4x2xf32>
}

// -----

// A softmax that feeds no matmul is no candidate: no remark, nothing changes.
// CHECK-LABEL: func.func @plain_softmax
// CHECK: linalg.softmax
func.func @plain_softmax(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = tensor.empty() : tensor<2x4xf32>
  %1 = linalg.softmax dimension(1) ins(%x : tensor<2x4xf32>) outs(%0 : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}
