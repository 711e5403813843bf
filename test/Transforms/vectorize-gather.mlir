// RUN: strata-opt %s --split-input-file --pass-pipeline='builtin.module(strata-vectorize{lanes=16})' | FileCheck %s

// A gather (strata.gather's generic: the index read with tensor.extract at the row's
// loop index) whose rows are at least a vector wide: one contiguous vector load of the
// picked row per 64-lane chunk (the last chunk of the 100-wide row masked), no
// vector.gather.
// CHECK-LABEL: func.func @take_rows
// CHECK-SAME: (%[[X:.+]]: tensor<64x100xf32>, %[[I:.+]]: tensor<8xi32>)
// CHECK: scf.for %[[R:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: scf.for %[[C:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: %[[MASK:.+]] = vector.create_mask %{{.+}} : vector<64xi1>
// CHECK: vector.transfer_read %[[I]]
// CHECK: vector.transfer_read %[[X]][%{{.+}}, %{{.+}}], %{{.+}}, %{{.+}} {in_bounds = [true, true]} : tensor<64x100xf32>, vector<1x64xf32>
// CHECK: vector.transfer_write
// CHECK-NOT: vector.gather
// CHECK-NOT: linalg.generic
func.func @take_rows(%x: tensor<64x100xf32>, %ids: tensor<8xi32>) -> tensor<8x100xf32> {
  %e = tensor.empty() : tensor<8x100xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<8x100xf32>) {
  ^bb0(%out: f32):
    %p = linalg.index 0 : index
    %id = tensor.extract %ids[%p] : tensor<8xi32>
    %c63 = arith.constant 63 : i32
    %c0 = arith.constant 0 : i32
    %lo = arith.maxsi %id, %c0 : i32
    %hi = arith.minsi %lo, %c63 : i32
    %row = arith.index_cast %hi : i32 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %x[%row, %col] : tensor<64x100xf32>
    linalg.yield %v : f32
  } -> tensor<8x100xf32>
  return %r : tensor<8x100xf32>
}

// -----

// Rows shorter than a vector are left to LLVM.
// CHECK-LABEL: func.func @short_rows
// CHECK-NOT: vector.
// CHECK: linalg.generic
// CHECK: tensor.extract
func.func @short_rows(%x: tensor<64x5xf32>, %ids: tensor<8xi32>) -> tensor<8x5xf32> {
  %e = tensor.empty() : tensor<8x5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<8x5xf32>) {
  ^bb0(%out: f32):
    %p = linalg.index 0 : index
    %id = tensor.extract %ids[%p] : tensor<8xi32>
    %row = arith.index_cast %id : i32 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %x[%row, %col] : tensor<64x5xf32>
    linalg.yield %v : f32
  } -> tensor<8x5xf32>
  return %r : tensor<8x5xf32>
}

// -----

// A reversed leading axis (strata.flip's generic) reads whole rows: vector loads; a
// reversed last axis would need vector.gather, slower than LLVM's own loop: left alone.
// CHECK-LABEL: func.func @flip_rows
// CHECK: vector.transfer_read %{{.+}}[%{{.+}}, %{{.+}}], %{{.+}}, %{{.+}} {in_bounds = [true, true]} : tensor<8x100xf32>, vector<1x64xf32>
// CHECK-NOT: vector.gather
// CHECK-LABEL: func.func @flip_columns
// CHECK-NOT: vector.
// CHECK: linalg.generic
func.func @flip_rows(%x: tensor<8x100xf32>) -> tensor<8x100xf32> {
  %e = tensor.empty() : tensor<8x100xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<8x100xf32>) {
  ^bb0(%out: f32):
    %c7 = arith.constant 7 : index
    %i = linalg.index 0 : index
    %row = arith.subi %c7, %i : index
    %col = linalg.index 1 : index
    %v = tensor.extract %x[%row, %col] : tensor<8x100xf32>
    linalg.yield %v : f32
  } -> tensor<8x100xf32>
  return %r : tensor<8x100xf32>
}
func.func @flip_columns(%x: tensor<8x100xf32>) -> tensor<8x100xf32> {
  %e = tensor.empty() : tensor<8x100xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<8x100xf32>) {
  ^bb0(%out: f32):
    %c99 = arith.constant 99 : index
    %row = linalg.index 0 : index
    %j = linalg.index 1 : index
    %col = arith.subi %c99, %j : index
    %v = tensor.extract %x[%row, %col] : tensor<8x100xf32>
    linalg.yield %v : f32
  } -> tensor<8x100xf32>
  return %r : tensor<8x100xf32>
}
