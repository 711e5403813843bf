// Each level's contract check, run on its own over every chunk. With
// --implicit-check-not=error:, the errors listed are all the errors: the chunks
// that are valid at a level report none.
//
// RUN: not strata-opt %s --split-input-file --pass-pipeline='builtin.module(strata-check-level{level=linalg})' 2>&1 | FileCheck %s --check-prefix=LINALG --implicit-check-not=error:
// RUN: not strata-opt %s --split-input-file --pass-pipeline='builtin.module(strata-check-level{level=bufferized})' 2>&1 | FileCheck %s --check-prefix=BUFFERIZED --implicit-check-not=error:
// RUN: not strata-opt %s --pass-pipeline='builtin.module(strata-check-level{level=nonsense})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// A strata op left at the linalg level is an error at that op.
// LINALG: check-level.mlir:[[# @LINE + 3]]:8: error: level 'linalg' allows only arith, linalg, math, scf, tensor ops; found 'strata.relu'
// BUFFERIZED: check-level.mlir:[[# @LINE + 2]]:8: error: level 'bufferized' allows only {{.*}}memref{{.*}} ops; found 'strata.relu'
func.func @leftover_strata_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "strata.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Valid linalg-level IR: no error at the linalg level; the bufferized level
// rejects the tensor op.
// BUFFERIZED: check-level.mlir:[[# @LINE + 2]]:8: error: level 'bufferized' allows only {{.*}} ops; found 'tensor.empty'
func.func @valid_linalg(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// At the bufferized level an allowed op (arith) producing a tensor is an error.
// BUFFERIZED: check-level.mlir:[[# @LINE + 3]]:8: error: level 'bufferized' allows no tensor values; 'arith.constant' produces one
// LINALG: check-level.mlir:[[# @LINE + 3]]:8: error: level 'linalg' allows only arith, linalg, math, scf, tensor ops; found 'bufferization.to_buffer'
func.func @tensor_value() -> memref<4xf32> {
  %0 = arith.constant dense<1.0> : tensor<4xf32>
  %1 = bufferization.to_buffer %0 : tensor<4xf32> to memref<4xf32>
  return %1 : memref<4xf32>
}

// -----

// So is a tensor function argument (valid at the linalg level).
// BUFFERIZED: check-level.mlir:[[# @LINE + 1]]:1: error: level 'bufferized' allows no tensor values; 'func.func' has a tensor block argument
func.func @tensor_argument(%a: tensor<4xf32>) {
  return
}

// -----

// Valid bufferized IR: no error at the bufferized level; memref is not allowed at linalg.
// LINALG: check-level.mlir:[[# @LINE + 2]]:3: error: level 'linalg' allows only arith, linalg, math, scf, tensor ops; found 'memref.copy'
func.func @valid_bufferized(%a: memref<4xf32>, %b: memref<4xf32>) {
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  return
}

// UNKNOWN: error: strata-check-level: unknown level 'nonsense' (levels: strata, linalg, fused, layout, bufferized, llvm)
