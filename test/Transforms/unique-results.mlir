// RUN: strata-opt %s --split-input-file --strata-unique-results | FileCheck %s

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
