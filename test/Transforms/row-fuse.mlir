// RUN: strata-opt %s --split-input-file '--strata-row-fuse=lanes=8 unroll=2' | FileCheck %s
// RUN: strata-opt %s --split-input-file '--strata-row-fuse=lanes=8 unroll=2 threads=2 parallel-elements=1' | FileCheck %s --check-prefix=PAR
// RUN: strata-opt %s --split-input-file '--strata-row-fuse=report=true' 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: not strata-opt %s '--strata-row-fuse=lanes=100' 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: strata-row-fuse: option 'lanes' must be at most 64, got 100

// layer_norm as strata lowers it: shifted moments (one reduction generic, two
// results), per-row mean and 1/sqrt(var + eps), the normalizing generic. One row
// loop: a sweep carrying two vector accumulators (the masked last step keeps the
// old accumulator in the lanes past the end), the per-row arithmetic on scalars,
// a sweep writing the output row. The three generics and the fill are gone.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.+]]: tensor<4x17xf32>, %[[G:.+]]: tensor<17xf32>, %[[B:.+]]: tensor<17xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[R:.+]] = scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[O:.+]] = %{{.+}}) -> (tensor<4x17xf32>)
// CHECK: %[[MASK:.+]] = vector.create_mask %{{.+}} : vector<16xi1>
// CHECK: %[[X0:.+]] = tensor.extract %[[X]][%[[I]], %{{.+}}] : tensor<4x17xf32>
// CHECK: %[[X0V:.+]] = vector.broadcast %[[X0]] : f32 to vector<16xf32>
// CHECK: %[[ACC:.+]]:2 = scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>)
// CHECK: %[[V:.+]] = vector.transfer_read %[[X]][%[[I]], %{{.+}}], %{{.+}} {in_bounds = [true]}
// CHECK: %[[C:.+]] = arith.subf %[[V]], %[[X0V]] : vector<16xf32>
// CHECK: arith.addf %{{.+}}, %[[C]] : vector<16xf32>
// CHECK: arith.mulf %[[C]], %[[C]] : vector<16xf32>
// CHECK: scf.yield
// CHECK: %[[T:.+]] = vector.transfer_read %[[X]][%[[I]], %{{.+}}], %{{.+}} : tensor<4x17xf32>, vector<16xf32>
// CHECK: %[[S1:.+]] = arith.addf %[[ACC]]#0, %{{.+}} : vector<16xf32>
// CHECK: %[[S2:.+]] = arith.addf %[[ACC]]#1, %{{.+}} : vector<16xf32>
// CHECK: %[[K1:.+]] = arith.select %[[MASK]], %[[S1]], %[[ACC]]#0 : vector<16xi1>, vector<16xf32>
// CHECK: %[[K2:.+]] = arith.select %[[MASK]], %[[S2]], %[[ACC]]#1 : vector<16xi1>, vector<16xf32>
// CHECK: %[[SUM1:.+]] = vector.reduction <add>, %[[K1]] : vector<16xf32> into f32
// CHECK: %[[SUM2:.+]] = vector.reduction <add>, %[[K2]] : vector<16xf32> into f32
// CHECK: %[[MEAN:.+]] = arith.divf %[[SUM1]], %{{.+}} : f32
// CHECK: math.rsqrt %{{.+}} : f32
// CHECK: scf.for {{.*}} -> (tensor<1x17xf32>)
// CHECK: vector.transfer_read %[[X]]
// CHECK: vector.transfer_read %[[G]]
// CHECK: vector.transfer_read %[[B]]
// CHECK: vector.transfer_write
// CHECK: tensor.insert_slice %{{.+}} into %[[O]][%[[I]], 0] [1, 17] [1, 1]
// CHECK-NOT: linalg.
// CHECK: return %[[R]] : tensor<4x17xf32>
// PAR-LABEL: func.func @layer_norm
// PAR: scf.forall (%{{.+}}) in (4) shared_outs
// PAR: tensor.parallel_insert_slice
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d0)>
#map3 = affine_map<(d0) -> (d0)>
#map4 = affine_map<(d0, d1) -> (d1)>
func.func @layer_norm(%arg0: tensor<4x17xf32>, %arg1: tensor<17xf32>, %arg2: tensor<17xf32>) -> tensor<4x17xf32> {
  %cst = arith.constant 9.99999974E-6 : f32
  %cst_0 = arith.constant 1.700000e+01 : f32
  %cst_1 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4xf32>
  %1 = linalg.fill ins(%cst_1 : f32) outs(%0 : tensor<4xf32>) -> tensor<4xf32>
  %2:2 = linalg.generic {indexing_maps = [#map, #map1, #map2, #map2], iterator_types = ["parallel", "reduction"]} ins(%arg0, %arg0 : tensor<4x17xf32>, tensor<4x17xf32>) outs(%1, %1 : tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32, %out_3: f32):
    %6 = arith.subf %in, %in_2 : f32
    %7 = arith.addf %out, %6 : f32
    %8 = arith.mulf %6, %6 : f32
    %9 = arith.addf %out_3, %8 : f32
    linalg.yield %7, %9 : f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>)
  %3:2 = linalg.generic {indexing_maps = [#map3, #map3, #map3, #map3], iterator_types = ["parallel"]} ins(%2#0, %2#1 : tensor<4xf32>, tensor<4xf32>) outs(%0, %0 : tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32, %out_3: f32):
    %6 = arith.divf %in, %cst_0 : f32
    %7 = arith.divf %in_2, %cst_0 : f32
    %8 = arith.mulf %6, %6 : f32
    %9 = arith.subf %7, %8 : f32
    %10 = arith.maximumf %9, %cst_1 : f32
    %11 = arith.addf %10, %cst : f32
    %12 = math.rsqrt %11 : f32
    linalg.yield %6, %12 : f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>)
  %4 = tensor.empty() : tensor<4x17xf32>
  %5 = linalg.generic {indexing_maps = [#map, #map1, #map2, #map2, #map4, #map4, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg0, %3#0, %3#1, %arg1, %arg2 : tensor<4x17xf32>, tensor<4x17xf32>, tensor<4xf32>, tensor<4xf32>, tensor<17xf32>, tensor<17xf32>) outs(%4 : tensor<4x17xf32>) {
  ^bb0(%in: f32, %in_2: f32, %in_3: f32, %in_4: f32, %in_5: f32, %in_6: f32, %out: f32):
    %6 = arith.subf %in, %in_2 : f32
    %7 = arith.subf %6, %in_3 : f32
    %8 = arith.mulf %7, %in_4 : f32
    %9 = arith.mulf %8, %in_5 : f32
    %10 = arith.addf %9, %in_6 : f32
    linalg.yield %10 : f32
  } -> tensor<4x17xf32>
  return %5 : tensor<4x17xf32>
}

// -----

// rms_norm written from ops: x * x (computed in the sweep, not read: its generic
// has one use), a linalg.reduce, mean and rsqrt on R x 1, the consumer reading the
// per-row value through (d0, 0). Steps of 16 divide 64: no mask.
// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME: (%[[X:.+]]: tensor<4x64xf32>, %[[G:.+]]: tensor<64xf32>)
// CHECK-NOT: linalg.
// CHECK-NOT: vector.create_mask
// CHECK: %[[ACC:.+]] = scf.for {{.*}} -> (vector<16xf32>)
// CHECK: %[[V:.+]] = vector.transfer_read %[[X]]
// CHECK: %[[SQ:.+]] = arith.mulf %[[V]], %{{.+}} : vector<16xf32>
// CHECK: arith.addf %[[SQ]], %{{.+}} : vector<16xf32>
// CHECK: %[[SUM:.+]] = vector.reduction <add>, %[[ACC]] : vector<16xf32> into f32
// CHECK: %[[MEAN:.+]] = arith.divf %[[SUM]], %{{.+}} : f32
// CHECK: %[[R:.+]] = math.rsqrt %{{.+}} : f32
// CHECK: %[[RV:.+]] = vector.broadcast %[[R]] : f32 to vector<16xf32>
// CHECK: scf.for
// CHECK: arith.mulf %{{.+}}, %[[RV]] : vector<16xf32>
// CHECK-NOT: linalg.
// CHECK: return
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0) -> (d0)>
#map2 = affine_map<(d0, d1) -> ()>
#map3 = affine_map<(d0, d1) -> (d1)>
#map4 = affine_map<(d0, d1) -> (d0, 0)>
func.func @rms_norm(%arg0: tensor<4x64xf32>, %arg1: tensor<64xf32>) -> tensor<4x64xf32> {
  %cst = arith.constant dense<9.99999997E-7> : tensor<f32>
  %cst_0 = arith.constant 6.400000e+01 : f32
  %cst_1 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x64xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg0 : tensor<4x64xf32>, tensor<4x64xf32>) outs(%0 : tensor<4x64xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %8 = arith.mulf %in, %in_2 : f32
    linalg.yield %8 : f32
  } -> tensor<4x64xf32>
  %2 = tensor.empty() : tensor<4xf32>
  %3 = linalg.fill ins(%cst_1 : f32) outs(%2 : tensor<4xf32>) -> tensor<4xf32>
  %reduced = linalg.reduce ins(%1 : tensor<4x64xf32>) outs(%3 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %4 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%reduced : tensor<4xf32>) outs(%2 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %8 = arith.divf %in, %cst_0 : f32
    linalg.yield %8 : f32
  } -> tensor<4xf32>
  %expanded = tensor.expand_shape %4 [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %5 = tensor.empty() : tensor<4x1xf32>
  %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded, %cst : tensor<4x1xf32>, tensor<f32>) outs(%5 : tensor<4x1xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %8 = arith.addf %in, %in_2 : f32
    %9 = math.rsqrt %8 : f32
    linalg.yield %9 : f32
  } -> tensor<4x1xf32>
  %7 = linalg.generic {indexing_maps = [#map3, #map, #map4, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1, %arg0, %6 : tensor<64xf32>, tensor<4x64xf32>, tensor<4x1xf32>) outs(%0 : tensor<4x64xf32>) {
  ^bb0(%in: f32, %in_2: f32, %in_3: f32, %out: f32):
    %8 = arith.mulf %in_2, %in_3 : f32
    %9 = arith.mulf %8, %in : f32
    linalg.yield %9 : f32
  } -> tensor<4x64xf32>
  return %7 : tensor<4x64xf32>
}

// -----

// A materialized row input (exp(x - m), which has two users) is read by both
// sweeps: the reduction over it and the consumer share one row loop, and the
// consumer's second read of the row hits the cache.
// CHECK-LABEL: func.func @sum_of_exp
// CHECK: %[[EX:.+]] = linalg.generic
// CHECK: math.exp
// CHECK-NOT: strata.nonpositive
// CHECK: scf.for
// CHECK: vector.transfer_read %[[EX]]
// CHECK: vector.reduction <add>
// CHECK: vector.transfer_read %[[EX]]
// CHECK: arith.divf %{{.+}}, %{{.+}} : vector<16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return
#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @sum_of_exp(%x: tensor<4x64xf32>, %m: tensor<4xf32>) -> tensor<4x64xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<4x64xf32>
  %ex = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<4x64xf32>, tensor<4xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    %v = math.exp %s : f32
    linalg.yield %v : f32
  } -> tensor<4x64xf32>
  %r0 = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<4x64xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %out = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<4x64xf32>, tensor<4xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.divf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<4x64xf32>
  return %out : tensor<4x64xf32>
}

// -----

// A reduction whose init is not its combiner's neutral value (a sum from 1) would
// count the init once per lane: nothing changes, and report=true says why at the
// consumer.
// REPORT: row-fuse.mlir:[[# @LINE + 16]]:10: remark: strata-row-fuse: not fused: a reduction init that is not the combiner's neutral value
// CHECK-LABEL: func.func @not_neutral
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: scf.for
#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @not_neutral(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %one = arith.constant 1.000000e+00 : f32
  %e = tensor.empty() : tensor<4x64xf32>
  %r0 = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%one : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x64xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %out = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<4x64xf32>, tensor<4xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.divf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<4x64xf32>
  return %out : tensor<4x64xf32>
}

// -----

// Rank 3 (rms_norm over the last of 2x3x16): the flat row index is split into
// (i0, i1) for the reads and per-row values; the output is collapsed to 6 x 16
// around the row loop and expanded back.
// CHECK-LABEL: func.func @rms3
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x16xf32>, %[[G:.+]]: tensor<16xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1], [2]] : tensor<2x3x16xf32> into tensor<6x16xf32>
// CHECK: %[[R:.+]] = scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %[[FLAT]]) -> (tensor<6x16xf32>)
// CHECK: %[[I1:.+]] = arith.remui %[[I]], %{{.+}} : index
// CHECK: %[[I0:.+]] = arith.divui %[[I]], %{{.+}} : index
// CHECK: vector.transfer_read %[[X]][%[[I0]], %[[I1]], %{{.+}}]
// CHECK: vector.reduction <add>
// CHECK: math.rsqrt
// CHECK: vector.transfer_read %[[G]][%{{.+}}]
// CHECK: %[[OUT:.+]] = tensor.expand_shape %[[R]] {{\[\[}}0, 1], [2]] output_shape [2, 3, 16] : tensor<6x16xf32> into tensor<2x3x16xf32>
// CHECK: return %[[OUT]]
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> ()>
#map3 = affine_map<(d0, d1, d2) -> (d2)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
func.func @rms3(%arg0: tensor<2x3x16xf32>, %arg1: tensor<16xf32>) -> tensor<2x3x16xf32> {
  %cst = arith.constant dense<9.99999997E-7> : tensor<f32>
  %cst_0 = arith.constant 1.600000e+01 : f32
  %cst_1 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x3x16xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %arg0 : tensor<2x3x16xf32>, tensor<2x3x16xf32>) outs(%0 : tensor<2x3x16xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %8 = arith.mulf %in, %in_2 : f32
    linalg.yield %8 : f32
  } -> tensor<2x3x16xf32>
  %2 = tensor.empty() : tensor<2x3xf32>
  %3 = linalg.fill ins(%cst_1 : f32) outs(%2 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %reduced = linalg.reduce ins(%1 : tensor<2x3x16xf32>) outs(%3 : tensor<2x3xf32>) dimensions = [2] 
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %4 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%reduced : tensor<2x3xf32>) outs(%2 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %8 = arith.divf %in, %cst_0 : f32
    linalg.yield %8 : f32
  } -> tensor<2x3xf32>
  %expanded = tensor.expand_shape %4 [[0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xf32> into tensor<2x3x1xf32>
  %5 = tensor.empty() : tensor<2x3x1xf32>
  %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded, %cst : tensor<2x3x1xf32>, tensor<f32>) outs(%5 : tensor<2x3x1xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %8 = arith.addf %in, %in_2 : f32
    %9 = math.rsqrt %8 : f32
    linalg.yield %9 : f32
  } -> tensor<2x3x1xf32>
  %7 = linalg.generic {indexing_maps = [#map3, #map, #map4, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1, %arg0, %6 : tensor<16xf32>, tensor<2x3x16xf32>, tensor<2x3x1xf32>) outs(%0 : tensor<2x3x16xf32>) {
  ^bb0(%in: f32, %in_2: f32, %in_3: f32, %out: f32):
    %8 = arith.mulf %in_2, %in_3 : f32
    %9 = arith.mulf %8, %in : f32
    linalg.yield %9 : f32
  } -> tensor<2x3x16xf32>
  return %7 : tensor<2x3x16xf32>
}

// -----

// log-softmax written from ops: max, then sum(exp(x - max)) over a producer that
// needs the max (a second sweep), then x - max - log(sum). One row loop with two
// reduction sweeps and the writing sweep; the producer is computed in the second
// sweep, not stored. A NaN in a row makes the sum and so the whole row NaN, so the
// max sweep takes the NaN-skipping x > m ? x : m (one vmaxps) instead of maximumf.
// CHECK-LABEL: func.func @log_softmax_ops
// CHECK-SAME: (%[[X:.+]]: tensor<4x64xf32>)
// CHECK-NOT: linalg.
// CHECK: scf.for
// CHECK: %[[MAXV:.+]] = scf.for {{.*}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (vector<16xf32>)
// CHECK: %[[V:.+]] = vector.transfer_read %[[X]]
// CHECK-NOT: arith.maximumf
// CHECK: %[[GT:.+]] = arith.cmpf ogt, %[[V]], %[[ACC]] : vector<16xf32>
// CHECK: %[[SEL:.+]] = arith.select %[[GT]], %[[V]], %[[ACC]]
// CHECK: scf.yield %[[SEL]]
// CHECK: %[[MAX:.+]] = vector.reduction <maximumf>, %[[MAXV]]
// CHECK: %[[MB:.+]] = vector.broadcast %[[MAX]]
// CHECK: %[[SUMV:.+]] = scf.for {{.*}} -> (vector<16xf32>)
// CHECK: %[[D:.+]] = arith.subf %{{.+}}, %[[MB]] : vector<16xf32>
// CHECK: math.exp %[[D]] {strata.nonpositive} : vector<16xf32>
// CHECK: %[[SUM:.+]] = vector.reduction <add>, %[[SUMV]]
// CHECK: %[[SB:.+]] = vector.broadcast %[[SUM]]
// CHECK: math.log %[[SB]] : vector<16xf32>
// CHECK: vector.transfer_write
// CHECK-NOT: linalg.
// CHECK: return
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
func.func @log_softmax_ops(%arg0: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %cst = arith.constant 0xFF800000 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4xf32>) -> tensor<4xf32>
  %reduced = linalg.reduce ins(%arg0 : tensor<4x64xf32>) outs(%1 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %8 = arith.maximumf %in, %init : f32
      linalg.yield %8 : f32
    }
  %expanded = tensor.expand_shape %reduced [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %2 = tensor.empty() : tensor<4x64xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %expanded : tensor<4x64xf32>, tensor<4x1xf32>) outs(%2 : tensor<4x64xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.subf %in, %in_1 : f32
    %9 = math.exp %8 : f32
    linalg.yield %9 : f32
  } -> tensor<4x64xf32>
  %4 = linalg.fill ins(%cst_0 : f32) outs(%0 : tensor<4xf32>) -> tensor<4xf32>
  %reduced_2 = linalg.reduce ins(%3 : tensor<4x64xf32>) outs(%4 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %8 = arith.addf %in, %init : f32
      linalg.yield %8 : f32
    }
  %expanded_3 = tensor.expand_shape %reduced_2 [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %5 = linalg.generic {indexing_maps = [#map, #map1, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %expanded, %expanded_3 : tensor<4x64xf32>, tensor<4x1xf32>, tensor<4x1xf32>) outs(%2 : tensor<4x64xf32>) {
  ^bb0(%in: f32, %in_1: f32, %in_2: f32, %out: f32):
    %8 = arith.subf %in, %in_1 : f32
    %9 = math.log %in_2 : f32
    %10 = arith.subf %8, %9 : f32
    linalg.yield %10 : f32
  } -> tensor<4x64xf32>
  return %5 : tensor<4x64xf32>
}

// -----

// exp(x - max(y)) with y another tensor: x - max(y) may be positive, so the exp keeps
// its full expansion (no strata.nonpositive); the same max of x itself marks it.
// Nothing else makes the row NaN here, so the max of y keeps NaN-propagating maximumf.
// CHECK-LABEL: func.func @max_of_another
// CHECK: arith.maximumf %{{.+}}, %{{.+}} : vector<16xf32>
// CHECK-NOT: arith.cmpf
// CHECK: %[[D:.+]] = arith.subf %{{.+}}, %{{.+}} : vector<16xf32>
// CHECK: math.exp %[[D]] : vector<16xf32>
// CHECK-LABEL: func.func @maxnum_generic_of_x
// CHECK: %[[D:.+]] = arith.subf %{{.+}}, %{{.+}} : vector<16xf32>
// CHECK: math.exp %[[D]] {strata.nonpositive} : vector<16xf32>
#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @max_of_another(%x: tensor<4x64xf32>, %y: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %r0 = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.reduce ins(%y : tensor<4x64xf32>) outs(%f : tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %r = arith.maximumf %in, %init : f32
      linalg.yield %r : f32
    }
  %e = tensor.empty() : tensor<4x64xf32>
  %out = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<4x64xf32>, tensor<4xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    %v = math.exp %s : f32
    linalg.yield %v : f32
  } -> tensor<4x64xf32>
  return %out : tensor<4x64xf32>
}
func.func @maxnum_generic_of_x(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %r0 = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x64xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maxnumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<4x64xf32>
  %out = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<4x64xf32>, tensor<4xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    %v = math.exp %s : f32
    linalg.yield %v : f32
  } -> tensor<4x64xf32>
  return %out : tensor<4x64xf32>
}

// -----

// x - max(x) alone: one NaN leaves the rest of its row finite, so the max keeps its
// NaN-propagating form (maximumf): no cmpf/select form anywhere.
// CHECK-LABEL: func.func @x_minus_max
// CHECK: scf.for {{.*}} -> (vector<16xf32>)
// CHECK: arith.maximumf %{{.+}}, %{{.+}} : vector<16xf32>
// CHECK-NOT: arith.cmpf
// CHECK: return
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
func.func @x_minus_max(%arg0: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %cst = arith.constant 0xFF800000 : f32
  %0 = tensor.empty() : tensor<4xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4xf32>) -> tensor<4xf32>
  %reduced = linalg.reduce ins(%arg0 : tensor<4x64xf32>) outs(%1 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %8 = arith.maximumf %in, %init : f32
      linalg.yield %8 : f32
    }
  %expanded = tensor.expand_shape %reduced [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %2 = tensor.empty() : tensor<4x64xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %expanded : tensor<4x64xf32>, tensor<4x1xf32>) outs(%2 : tensor<4x64xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %8 = arith.subf %in, %in_1 : f32
    linalg.yield %8 : f32
  } -> tensor<4x64xf32>
  return %3 : tensor<4x64xf32>
}
