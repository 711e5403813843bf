// RUN: strata-opt %s --split-input-file --strata-lower-vectors | FileCheck %s

// A NaN-ignoring row max over 16 lanes: a tree of halves (vector maxnumf on 8, 4, 2 and
// 1 lanes), then the accumulator; no vector.reduction left for LLVM to expand into 16
// dependent scalar steps.
// CHECK-LABEL: func.func @row_max
// CHECK-SAME: (%[[V:.+]]: vector<16xf32>, %[[ACC:.+]]: f32)
// CHECK-NOT: vector.reduction
// CHECK: %[[LO:.+]] = vector.extract_strided_slice %[[V]] {offsets = [0], sizes = [8], strides = [1]}
// CHECK: %[[HI:.+]] = vector.extract_strided_slice %[[V]] {offsets = [8], sizes = [8], strides = [1]}
// CHECK: %[[H8:.+]] = arith.maxnumf %[[LO]], %[[HI]] fastmath<reassoc> : vector<8xf32>
// CHECK: arith.maxnumf {{.*}} : vector<4xf32>
// CHECK: arith.maxnumf {{.*}} : vector<2xf32>
// CHECK: %[[H1:.+]] = arith.maxnumf {{.*}} : vector<1xf32>
// CHECK: %[[E:.+]] = vector.extract %[[H1]][0] : f32 from vector<1xf32>
// CHECK: %[[R:.+]] = arith.maxnumf %[[E]], %[[ACC]] fastmath<reassoc> : f32
// CHECK: return %[[R]]
func.func @row_max(%v: vector<16xf32>, %acc: f32) -> f32 {
  %0 = vector.reduction <maxnumf>, %v, %acc fastmath<reassoc> : vector<16xf32> into f32
  return %0 : f32
}

// -----

// NaN-propagating min (maximumf/minimumf) the same way, without an accumulator.
// CHECK-LABEL: func.func @row_min
// CHECK-NOT: vector.reduction
// CHECK: arith.minimumf {{.*}} : vector<4xf32>
// CHECK: arith.minimumf {{.*}} : vector<2xf32>
// CHECK: %[[H1:.+]] = arith.minimumf {{.*}} : vector<1xf32>
// CHECK: %[[E:.+]] = vector.extract %[[H1]][0] : f32 from vector<1xf32>
// CHECK: return %[[E]]
func.func @row_min(%v: vector<8xf32>) -> f32 {
  %0 = vector.reduction <minimumf>, %v : vector<8xf32> into f32
  return %0 : f32
}

// -----

// Sums stay one vector.reduction (LLVM makes a shuffle tree of a reassociable add), and
// so do reductions of 2 lanes or of a width that is not a power of two.
// CHECK-LABEL: func.func @kept
// CHECK: vector.reduction <add>, %{{.+}} fastmath<reassoc> : vector<16xf32> into f32
// CHECK: vector.reduction <maxnumf>, %{{.+}} : vector<2xf32> into f32
// CHECK: vector.reduction <maxnumf>, %{{.+}} : vector<12xf32> into f32
func.func @kept(%v: vector<16xf32>, %w: vector<2xf32>, %u: vector<12xf32>) -> (f32, f32, f32) {
  %0 = vector.reduction <add>, %v fastmath<reassoc> : vector<16xf32> into f32
  %1 = vector.reduction <maxnumf>, %w : vector<2xf32> into f32
  %2 = vector.reduction <maxnumf>, %u : vector<12xf32> into f32
  return %0, %1, %2 : f32, f32, f32
}

// -----

// An outer-product contraction (the packed micro-kernel's step): broadcast FMAs.
// CHECK-LABEL: func.func @outer
// CHECK-NOT: vector.contract
// CHECK-COUNT-4: vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT: vector.fma
// CHECK: return
#a = affine_map<(m, n, k) -> (k, m)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @outer(%x: vector<1x4xf32>, %y: vector<1x16xf32>, %acc: vector<4x16xf32>) -> vector<4x16xf32> {
  %0 = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc : vector<1x4xf32>, vector<1x16xf32> into vector<4x16xf32>
  return %0 : vector<4x16xf32>
}
