// RUN: strata-opt %s --split-input-file --strata-blas --verify-diagnostics

func.func @tensors(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error@+1 {{strata-blas: linalg.matmul marked strata.blas has tensor operands: run strata-blas after bufferization}}
  %0 = linalg.matmul {strata.blas} ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @dynamic(%a: memref<?x8xf32>, %b: memref<8x16xf32>, %c: memref<?x16xf32>) {
  // expected-error@+1 {{strata-blas: linalg.matmul marked strata.blas has dynamic shapes (memref<?x8xf32>); the BLAS path needs static shapes}}
  linalg.matmul {strata.blas} ins(%a, %b : memref<?x8xf32>, memref<8x16xf32>) outs(%c : memref<?x16xf32>)
  return
}

// -----

func.func @f16(%a: memref<4x8xf16>, %b: memref<8x16xf16>, %c: memref<4x16xf32>) {
  // expected-error@+1 {{strata-blas: linalg.matmul marked strata.blas has f16 operands; the BLAS path is f32 only}}
  linalg.matmul {strata.blas} ins(%a, %b : memref<4x8xf16>, memref<8x16xf16>) outs(%c : memref<4x16xf32>)
  return
}

// -----

func.func @batch_f16(%a: memref<2x4x8xf32>, %b: memref<2x8x16xf32>, %c: memref<2x4x16xf16>) {
  // expected-error@+1 {{strata-blas: linalg.batch_matmul marked strata.blas has f16 operands; the BLAS path is f32 only}}
  linalg.batch_matmul {strata.blas} ins(%a, %b : memref<2x4x8xf32>, memref<2x8x16xf32>) outs(%c : memref<2x4x16xf16>)
  return
}
