// RUN: strata-opt %s --split-input-file --strata-unique-results | FileCheck %s
// RUN: strata-opt %s --split-input-file --strata-unique-results --one-shot-bufferize=bufferize-function-boundaries --canonicalize --cse --canonicalize | FileCheck %s --check-prefix=BUF

// A result returned twice gets a copy for its second use.
// CHECK-LABEL: func.func @twice
// CHECK-SAME: (%[[A:.+]]: tensor<4xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[C:.+]] = linalg.copy {{.*}}ins(%[[A]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK: return %[[A]], %[[C]]
func.func @twice(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %a, %a : tensor<4xf32>, tensor<4xf32>
}

// -----

// Distinct results are left alone; a dynamic dim sizes the copy.
// CHECK-LABEL: func.func @distinct_and_dynamic
// CHECK-SAME: (%[[A:.+]]: tensor<?xf32>, %[[B:.+]]: tensor<?xf32>)
// CHECK: %[[D:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?xf32>
// CHECK: %[[E:.+]] = tensor.empty(%[[D]]) : tensor<?xf32>
// CHECK: %[[C:.+]] = linalg.copy {{.*}}ins(%[[A]] : tensor<?xf32>) outs(%[[E]] : tensor<?xf32>)
// CHECK-NOT: linalg.copy
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @distinct_and_dynamic(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  return %a, %b, %a : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// Two pads of the same shape whose fills CSE merged: each insert gets a fill (and an
// extract_slice for its copy) of its own. Bufferized, each pad is a fill and a copy
// into its own buffer: no copy of a whole padded buffer, no second copy of an interior.
// CHECK-LABEL: func.func @two_pads
// CHECK-SAME: (%[[X:.+]]: tensor<2x4x4xf32>, %[[Y:.+]]: tensor<2x4x4xf32>)
// CHECK: %[[F1:.+]] = linalg.fill {{.*}} -> tensor<2x6x6xf32>
// CHECK: %[[S1:.+]] = tensor.extract_slice %[[F1]][0, 1, 1] [2, 4, 4] [1, 1, 1]
// CHECK: %[[F2:.+]] = linalg.fill {{.*}} -> tensor<2x6x6xf32>
// CHECK: %[[S2:.+]] = tensor.extract_slice %[[F2]][0, 1, 1] [2, 4, 4] [1, 1, 1]
// CHECK: %[[C1:.+]] = linalg.copy ins(%[[X]] : tensor<2x4x4xf32>) outs(%[[S2]] : tensor<2x4x4xf32>)
// CHECK: %[[P1:.+]] = tensor.insert_slice %[[C1]] into %[[F2]][0, 1, 1]
// CHECK: %[[C2:.+]] = linalg.copy ins(%[[Y]] : tensor<2x4x4xf32>) outs(%[[S1]] : tensor<2x4x4xf32>)
// CHECK: %[[P2:.+]] = tensor.insert_slice %[[C2]] into %[[F1]][0, 1, 1]
// CHECK: return %[[P1]], %[[P2]]
// BUF-LABEL: func.func @two_pads
// BUF-COUNT-2: linalg.fill
// BUF-NOT: memref.copy
// BUF: return
func.func @two_pads(%x: tensor<2x4x4xf32>, %y: tensor<2x4x4xf32>) -> (tensor<2x6x6xf32>, tensor<2x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
  %s = tensor.extract_slice %f[0, 1, 1] [2, 4, 4] [1, 1, 1] : tensor<2x6x6xf32> to tensor<2x4x4xf32>
  %c1 = linalg.copy ins(%x : tensor<2x4x4xf32>) outs(%s : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %p1 = tensor.insert_slice %c1 into %f[0, 1, 1] [2, 4, 4] [1, 1, 1] : tensor<2x4x4xf32> into tensor<2x6x6xf32>
  %c2 = linalg.copy ins(%y : tensor<2x4x4xf32>) outs(%s : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %p2 = tensor.insert_slice %c2 into %f[0, 1, 1] [2, 4, 4] [1, 1, 1] : tensor<2x4x4xf32> into tensor<2x6x6xf32>
  return %p1, %p2 : tensor<2x6x6xf32>, tensor<2x6x6xf32>
}

// -----

// One pad into a fill, and a fill read by an op (not inserted into): left alone.
// CHECK-LABEL: func.func @one_pad
// CHECK-COUNT-1: linalg.fill
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @one_pad(%x: tensor<4xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %p = tensor.insert_slice %x into %f[1] [4] [1] : tensor<4xf32> into tensor<6xf32>
  %e2 = tensor.empty() : tensor<6xf32>
  %r = linalg.copy ins(%f : tensor<6xf32>) outs(%e2 : tensor<6xf32>) -> tensor<6xf32>
  return %p, %r : tensor<6xf32>, tensor<6xf32>
}
