// strata-vectorize: the per-tile im2col copies strata-fuse makes (linalg.copy or, from
// f16/bf16, an extf generic, marked strata.im2col_part) are copied one vector per row
// of their last dim, masked past its end; unmarked copies are left to LLVM.
// RUN: strata-opt %s --pass-pipeline='builtin.module(strata-vectorize{lanes=16})' | FileCheck %s
// RUN: strata-opt %s --pass-pipeline='builtin.module(strata-vectorize{lanes=8})' | FileCheck %s --check-prefix=AVX2

// 12 columns in a 16-lane vector: a masked read and write per row of 4 x 6.
// CHECK-LABEL: func.func @f32_part
// CHECK: %[[MASK:.*]] = arith.constant dense<[true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false]> : vector<16xi1>
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %c4
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %c6
// CHECK: %[[SRC:.*]] = tensor.extract_slice %arg0[0, %[[C]], %[[R]], 0] [1, 1, 1, 12]
// CHECK: %[[M:.*]] = vector.broadcast %[[MASK]] : vector<16xi1> to vector<1x1x1x16xi1>
// CHECK: %[[V:.*]] = vector.transfer_read %[[SRC]]{{.*}}, %[[M]] {{.*}} : tensor<1x1x1x12xf32>, vector<1x1x1x16xf32>
// CHECK: vector.transfer_write %[[V]], %{{.*}}, %[[M]] {{.*}} : vector<1x1x1x16xf32>, tensor<1x1x1x12xf32>
// CHECK-NOT: linalg.copy
// CHECK: return
// AVX2-LABEL: func.func @f32_part
// AVX2: vector.transfer_read {{.*}} : tensor<1x1x1x12xf32>, vector<1x1x1x16xf32>
func.func @f32_part(%src: tensor<1x4x6x12xf32>, %dst: tensor<1x4x6x12xf32>) -> tensor<1x4x6x12xf32> {
  %0 = linalg.copy {strata.im2col_part} ins(%src : tensor<1x4x6x12xf32>) outs(%dst : tensor<1x4x6x12xf32>) -> tensor<1x4x6x12xf32>
  return %0 : tensor<1x4x6x12xf32>
}

// Widened while copied: f16 rows read as vectors, extended, written as f32 (no mask:
// 32 is two 16-lane vectors).
// CHECK-LABEL: func.func @f16_part
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[H:.*]] = vector.transfer_read {{.*}} : tensor<1x1x1x32xf16>, vector<1x1x1x32xf16>
// CHECK: %[[W:.*]] = arith.extf %[[H]] : vector<1x1x1x32xf16> to vector<1x1x1x32xf32>
// CHECK: vector.transfer_write %[[W]]
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @f16_part(%src: tensor<1x3x5x32xf16>, %dst: tensor<1x3x5x32xf32>) -> tensor<1x3x5x32xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%src : tensor<1x3x5x32xf16>) outs(%dst : tensor<1x3x5x32xf32>) attrs = {strata.im2col_part} {
  ^bb0(%a: f16, %b: f32):
    %e = arith.extf %a : f16 to f32
    linalg.yield %e : f32
  } -> tensor<1x3x5x32xf32>
  return %0 : tensor<1x3x5x32xf32>
}

// CHECK-LABEL: func.func @unmarked
// CHECK-NOT: vector.transfer_read
// CHECK: linalg.copy ins(%arg0
func.func @unmarked(%src: tensor<1x4x6x12xf32>, %dst: tensor<1x4x6x12xf32>) -> tensor<1x4x6x12xf32> {
  %0 = linalg.copy ins(%src : tensor<1x4x6x12xf32>) outs(%dst : tensor<1x4x6x12xf32>) -> tensor<1x4x6x12xf32>
  return %0 : tensor<1x4x6x12xf32>
}
