// RUN: strata-opt %s --strata-bufferize --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-bufferize --split-input-file | FileCheck %s --check-prefix=NOTENSOR

// No tensor type is left anywhere: not in signatures, not in bodies.
// NOTENSOR-NOT: tensor<

// An elementwise result is written in place into the caller's out-param:
// no allocation, no copy.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @elementwise_in_place
// CHECK-SAME: (%[[A:.+]]: memref<4xf32>, %[[B:.+]]: memref<4xf32>, %[[OUT:.+]]: memref<4xf32>) {
// CHECK-NOT: memref.alloc
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel"]} ins(%[[A]], %[[B]] : memref<4xf32>, memref<4xf32>) outs(%[[OUT]] : memref<4xf32>)
// CHECK: arith.addf
// CHECK-NOT: memref.copy
// CHECK-NOT: memref.alloc
// CHECK: return{{$}}
func.func @elementwise_in_place(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.empty() : tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%0 : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// A temporary (the matmul before the relu) is allocated and freed after its last use.
// CHECK-LABEL: func.func @temporary_is_freed
// CHECK-SAME: (%[[B:.+]]: memref<4x8xf32>, %[[C:.+]]: memref<8x16xf32>, %[[OUT:.+]]: memref<4x16xf32>) {
// CHECK: %[[T:.+]] = memref.alloc() {{.*}}: memref<4x16xf32>
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[T]] : memref<4x16xf32>)
// CHECK: linalg.matmul ins(%[[B]], %[[C]] : memref<4x8xf32>, memref<8x16xf32>) outs(%[[T]] : memref<4x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[T]] : memref<4x16xf32>) outs(%[[OUT]] : memref<4x16xf32>)
// CHECK: arith.maximumf
// CHECK: memref.dealloc %[[T]] : memref<4x16xf32>
// CHECK-NEXT: return{{$}}
// CHECK-NOT: memref.copy
func.func @temporary_is_freed(%b: tensor<4x8xf32>, %c: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mm = linalg.matmul ins(%b, %c : tensor<4x8xf32>, tensor<8x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<4x16xf32>) outs(%e2 : tensor<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %cst : f32
    linalg.yield %m : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// strata-bufferize decomposes softmax first; its reduction buffer is one alloc, freed.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.+]]: memref<4x8xf32>, %[[OUT:.+]]: memref<4x8xf32>) {
// CHECK-NOT: linalg.softmax
// CHECK: %[[R:.+]] = memref.alloc() {{.*}}: memref<4xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : memref<4x8xf32>) outs(%[[R]] : memref<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[R]] : memref<4x8xf32>, memref<4xf32>) outs(%[[OUT]] : memref<4x8xf32>)
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[OUT]] : memref<4x8xf32>) outs(%[[R]] : memref<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[OUT]], %[[R]] : memref<4x8xf32>, memref<4xf32>) outs(%[[OUT]] : memref<4x8xf32>)
// CHECK: arith.divf
// CHECK: memref.dealloc %[[R]] : memref<4xf32>
// CHECK-NEXT: return{{$}}
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tensor.empty() : tensor<4x8xf32>
  %1 = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// A dynamic result cannot be hoisted to the out-param: it is allocated, copied
// out and freed.
// CHECK-LABEL: func.func @dynamic_result
// CHECK-SAME: (%[[X:.+]]: memref<?x4xf32>, %[[OUT:.+]]: memref<4x?xf32>) {
// CHECK: %[[D:.+]] = memref.dim %[[X]], %{{.+}} : memref<?x4xf32>
// CHECK: %[[T:.+]] = memref.alloc(%[[D]]) {{.*}}: memref<4x?xf32>
// CHECK: linalg.transpose ins(%[[X]] : memref<?x4xf32>) outs(%[[T]] : memref<4x?xf32>) permutation = [1, 0]
// CHECK: memref.copy %[[T]], %[[OUT]] : memref<4x?xf32> to memref<4x?xf32>
// CHECK: memref.dealloc %[[T]] : memref<4x?xf32>
// CHECK-NEXT: return{{$}}
func.func @dynamic_result(%a: tensor<?x4xf32>) -> tensor<4x?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%d) : tensor<4x?xf32>
  %t = linalg.transpose ins(%a : tensor<?x4xf32>) outs(%e : tensor<4x?xf32>) permutation = [1, 0]
  return %t : tensor<4x?xf32>
}

// -----

// Two results become two out-params, in order.
// CHECK-LABEL: func.func @two_results
// CHECK-SAME: (%[[A:.+]]: memref<4xf32>, %[[O0:.+]]: memref<4xf32>, %[[O1:.+]]: memref<2xf32>) {
// CHECK-NOT: memref.alloc
// CHECK: linalg.transpose ins(%[[A]] : memref<4xf32>) outs(%[[O0]] : memref<4xf32>)
// CHECK: %[[V:.+]] = memref.subview %[[O0]][1] [2] [1]
// CHECK: memref.copy %[[V]], %[[O1]]
// CHECK-NEXT: return{{$}}
func.func @two_results(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %t = linalg.transpose ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) permutation = [0]
  %s = tensor.extract_slice %t[1] [2] [1] : tensor<4xf32> to tensor<2xf32>
  return %t, %s : tensor<4xf32>, tensor<2xf32>
}
