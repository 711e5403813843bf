// RUN: strata-opt %s --split-input-file --strata-vectorize | FileCheck %s

// A row max (linalg.reduce over the last dim) keeps 16 partial maxima per row in
// a vector and combines them once per row; NaN-propagating maximumf throughout.
// CHECK-LABEL: func.func @row_max
// CHECK-SAME: (%[[X:.+]]: tensor<8x64xf32>)
// CHECK-DAG: %[[NEG:.+]] = arith.constant dense<0xFF800000> : vector<1x16xf32>
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %{{.+}}) -> (tensor<8xf32>)
// CHECK: vector.transfer_write %[[NEG]]
// CHECK: %[[ACC:.+]] = scf.for {{.*}} -> (tensor<1x16xf32>)
// CHECK: %[[A:.+]] = vector.transfer_read {{.*}} : tensor<1x16xf32>, vector<1x16xf32>
// CHECK: %[[B:.+]] = vector.transfer_read {{.*}} : tensor<1x16xf32>, vector<1x16xf32>
// CHECK: arith.maximumf %[[A]], %[[B]] fastmath<reassoc,contract> : vector<1x16xf32>
// CHECK: %[[V:.+]] = vector.transfer_read %[[ACC]]
// CHECK: vector.multi_reduction <maximumf>, %[[V]], %{{.+}} [1] : vector<1x16xf32> to vector<1xf32>
// CHECK-NOT: linalg.reduce
// CHECK-NOT: linalg.generic
func.func @row_max(%x: tensor<8x64xf32>) -> tensor<8xf32> {
  %cst = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<8xf32>
  %i = linalg.fill ins(%cst : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.reduce ins(%x : tensor<8x64xf32>) outs(%i : tensor<8xf32>) dimensions = [1]
    (%a: f32, %o: f32) {
      %m = arith.maximumf %a, %o : f32
      linalg.yield %m : f32
    }
  return %r : tensor<8xf32>
}

// -----

// A sum of exp(x - m) (softmax's denominator) with a row-broadcast operand is
// vectorized the same way: the broadcast row value is read once per chunk.
// CHECK-LABEL: func.func @sum_exp
// CHECK: scf.for
// CHECK: scf.for
// CHECK: math.exp %{{.+}} : vector<1x16xf32>
// CHECK: arith.addf {{.*}} : vector<1x16xf32>
// CHECK: vector.multi_reduction <add>
// CHECK-NOT: linalg.generic
func.func @sum_exp(%x: tensor<4x48xf32>, %m: tensor<4xf32>) -> tensor<4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %m : tensor<4x48xf32>, tensor<4xf32>) outs(%i : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %x2 = math.exp %d : f32
    %s = arith.addf %x2, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Left alone: a reduction over a leading dim (not contiguous), a reduction
// shorter than one vector, and f16 data. Their combiners only get reassoc.
// CHECK-LABEL: func.func @not_rows
// CHECK-NOT: vector.
// CHECK: linalg.reduce ins(%{{.+}} : tensor<64x8xf32>) {{.*}} dimensions = [0]
// CHECK: arith.addf %{{.+}}, %{{.+}} fastmath<reassoc,contract> : f32
// CHECK: linalg.reduce ins(%{{.+}} : tensor<8x8xf32>) {{.*}} dimensions = [1]
// CHECK: linalg.reduce ins(%{{.+}} : tensor<8x64xf16>) {{.*}} dimensions = [1]
func.func @not_rows(%a: tensor<64x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x64xf16>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf16>) {
  %z = arith.constant 0.0 : f32
  %zh = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<8xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %eh = tensor.empty() : tensor<8xf16>
  %ih = linalg.fill ins(%zh : f16) outs(%eh : tensor<8xf16>) -> tensor<8xf16>
  %r0 = linalg.reduce ins(%a : tensor<64x8xf32>) outs(%i : tensor<8xf32>) dimensions = [0]
    (%x: f32, %o: f32) {
      %s = arith.addf %x, %o : f32
      linalg.yield %s : f32
    }
  %r1 = linalg.reduce ins(%b : tensor<8x8xf32>) outs(%i : tensor<8xf32>) dimensions = [1]
    (%x: f32, %o: f32) {
      %s = arith.addf %x, %o : f32
      linalg.yield %s : f32
    }
  %r2 = linalg.reduce ins(%c : tensor<8x64xf16>) outs(%ih : tensor<8xf16>) dimensions = [1]
    (%x: f16, %o: f16) {
      %s = arith.addf %x, %o : f16
      linalg.yield %s : f16
    }
  return %r0, %r1, %r2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf16>
}

// -----

// Two accumulators in one pass (layer_norm's shifted moments): both get vector
// partial sums and one combination per row each.
// CHECK-LABEL: func.func @moments
// CHECK: scf.for
// CHECK: scf.for {{.*}} -> (tensor<1x16xf32>, tensor<1x16xf32>)
// CHECK: arith.subf {{.*}} : vector<1x16xf32>
// CHECK-COUNT-2: vector.multi_reduction <add>
// CHECK-NOT: linalg.generic
func.func @moments(%x: tensor<8x64xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %x : tensor<8x64xf32>, tensor<8x64xf32>) outs(%i, %i : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%a: f32, %a0: f32, %s1: f32, %s2: f32):
    %c = arith.subf %a, %a0 : f32
    %n1 = arith.addf %s1, %c : f32
    %c2 = arith.mulf %c, %c : f32
    %n2 = arith.addf %s2, %c2 : f32
    linalg.yield %n1, %n2 : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// An argmax's first index (strata-to-linalg, last axis): f32 data, a row-broadcast best
// value and i32 indices from a constant input, into an i32 minsi accumulator: 16
// partial minima per row (from INT32_MAX), combined once per row with the K it starts
// from. No fastmath on the integer combiner.
// CHECK-LABEL: func.func @first_index
// CHECK-DAG: %[[K:.+]] = arith.constant dense<48> : vector<1x16xi32>
// CHECK-DAG: %[[MAX:.+]] = arith.constant dense<2147483647> : vector<1x16xi32>
// CHECK: scf.for
// CHECK: vector.transfer_write %[[MAX]]
// CHECK: %[[PART:.+]] = scf.for {{.*}} -> (tensor<1x16xi32>)
// CHECK: %[[X:.+]] = vector.transfer_read {{.*}} : tensor<1x16xf32>, vector<1x16xf32>
// CHECK: %[[I:.+]] = vector.transfer_read {{.*}} : tensor<16xi32>, vector<1x16xi32>
// CHECK: %[[EQ:.+]] = arith.cmpf oeq, %[[X]], %{{.+}} : vector<1x16xf32>
// CHECK: %[[NAN:.+]] = arith.cmpf uno, %[[X]], %[[X]] : vector<1x16xf32>
// CHECK: %[[HIT:.+]] = arith.ori %[[EQ]], %[[NAN]] : vector<1x16xi1>
// CHECK: %[[C:.+]] = arith.select %[[HIT]], %[[I]], %[[K]] : vector<1x16xi1>, vector<1x16xi32>
// CHECK: arith.minsi %{{.+}}, %[[C]] : vector<1x16xi32>
// CHECK: %[[V:.+]] = vector.transfer_read %[[PART]]
// CHECK: vector.multi_reduction <minsi>, %[[V]], %{{.+}} [1] : vector<1x16xi32> to vector<1xi32>
// CHECK-NOT: linalg.generic
// CHECK-NOT: fastmath
func.func @first_index(%x: tensor<4x48xf32>, %m: tensor<4xf32>, %iota: tensor<48xi32>) -> tensor<4xi32> {
  %k = arith.constant 48 : i32
  %e = tensor.empty() : tensor<4xi32>
  %i = linalg.fill ins(%k : i32) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %m, %iota : tensor<4x48xf32>, tensor<4xf32>, tensor<48xi32>) outs(%i : tensor<4xi32>) {
  ^bb0(%a: f32, %b: f32, %j: i32, %o: i32):
    %eq = arith.cmpf oeq, %a, %b : f32
    %nan = arith.cmpf uno, %a, %a : f32
    %hit = arith.ori %eq, %nan : i1
    %c = arith.select %hit, %j, %k : i32
    %s = arith.minsi %o, %c : i32
    linalg.yield %s : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// linalg.index in the body: left alone (tiled into partial accumulators, the index
// would count within a tile).
// CHECK-LABEL: func.func @index_in_body
// CHECK-NOT: vector.
// CHECK: linalg.generic
// CHECK: linalg.index 1 : index
// CHECK: arith.minsi

func.func @index_in_body(%x: tensor<4x48xf32>, %m: tensor<4xf32>) -> tensor<4xi32> {
  %k = arith.constant 48 : i32
  %e = tensor.empty() : tensor<4xi32>
  %i = linalg.fill ins(%k : i32) outs(%e : tensor<4xi32>) -> tensor<4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %m : tensor<4x48xf32>, tensor<4xf32>) outs(%i : tensor<4xi32>) {
  ^bb0(%a: f32, %b: f32, %o: i32):
    %eq = arith.cmpf oeq, %a, %b : f32
    %idx = linalg.index 1 : index
    %j = arith.index_cast %idx : index to i32
    %c = arith.select %eq, %j, %k : i32
    %s = arith.minsi %o, %c : i32
    linalg.yield %s : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}
