// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s --check-prefix=GONE

// No strata op is left anywhere in the output.
// GONE-NOT: strata.

// sum: linalg.reduce from a zero-filled init over the reduced dims.
// CHECK-LABEL: func.func @sum
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// CHECK-NOT: strata.
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<4xf32>)
// CHECK: %[[R:.+]] = linalg.reduce ins(%[[X]] : tensor<4x8xf32>) outs(%[[INIT]] : tensor<4xf32>) dimensions = [1]
// CHECK-NEXT: (%[[IN:.+]]: f32, %[[ACC:.+]]: f32) {
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[IN]], %[[ACC]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[R]] : tensor<4xf32>
func.func @sum(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = "strata.sum"(%x) {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A negative axis with keepdims: reduce, then expand_shape re-inserts the unit dim.
// CHECK-LABEL: func.func @sum_keepdims
// CHECK-SAME: (%[[X:.+]]: tensor<4x8x2xf32>)
// CHECK-NOT: strata.
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<4x2xf32>)
// CHECK: %[[R:.+]] = linalg.reduce ins(%[[X]] : tensor<4x8x2xf32>) outs(%[[INIT]] : tensor<4x2xf32>) dimensions = [1]
// CHECK: arith.addf
// CHECK: %[[K:.+]] = tensor.expand_shape %[[R]] {{\[}}[0], [1, 2]] output_shape [4, 1, 2] : tensor<4x2xf32> into tensor<4x1x2xf32>
// CHECK-NEXT: return %[[K]] : tensor<4x1x2xf32>
func.func @sum_keepdims(%x: tensor<4x8x2xf32>) -> tensor<4x1x2xf32> {
  %0 = "strata.sum"(%x) {axes = array<i64: -2>, keepdims = true} : (tensor<4x8x2xf32>) -> tensor<4x1x2xf32>
  return %0 : tensor<4x1x2xf32>
}

// -----

// sum of i32 adds with addi.
// CHECK-LABEL: func.func @sum_i32
// CHECK-NOT: strata.
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : i32) outs(%{{.+}} : tensor<8xi32>)
// CHECK: linalg.reduce ins(%{{.+}} : tensor<4x8xi32>) outs(%[[INIT]] : tensor<8xi32>) dimensions = [0]
// CHECK: arith.addi %{{.+}}, %{{.+}} : i32
func.func @sum_i32(%x: tensor<4x8xi32>) -> tensor<8xi32> {
  %0 = "strata.sum"(%x) {axes = array<i64: 0>} : (tensor<4x8xi32>) -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

// max of floats starts from -inf, of i32 from INT32_MIN.
// CHECK-LABEL: func.func @max
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>, %[[I:.+]]: tensor<4x8xi32>)
// CHECK-NOT: strata.
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<4x8xf32> into tensor<32xf32>
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[FINIT:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<f32>)
// CHECK: %[[FR:.+]] = linalg.reduce ins(%[[FLAT]] : tensor<32xf32>) outs(%[[FINIT]] : tensor<f32>) dimensions = [0]
// CHECK: arith.maximumf %{{.+}}, %{{.+}} : f32
// CHECK: %[[IMIN:.+]] = arith.constant -2147483648 : i32
// CHECK: %[[IINIT:.+]] = linalg.fill ins(%[[IMIN]] : i32) outs(%{{.+}} : tensor<8xi32>)
// CHECK: %[[IR:.+]] = linalg.reduce ins(%[[I]] : tensor<4x8xi32>) outs(%[[IINIT]] : tensor<8xi32>) dimensions = [0]
// CHECK: arith.maxsi %{{.+}}, %{{.+}} : i32
// CHECK: return %[[FR]], %[[IR]]
func.func @max(%x: tensor<4x8xf32>, %i: tensor<4x8xi32>) -> (tensor<f32>, tensor<8xi32>) {
  %0 = "strata.max"(%x) {axes = array<i64: 0, 1>} : (tensor<4x8xf32>) -> tensor<f32>
  %1 = "strata.max"(%i) {axes = array<i64: 0>} : (tensor<4x8xi32>) -> tensor<8xi32>
  return %0, %1 : tensor<f32>, tensor<8xi32>
}

// -----

// Reducing every dim with keepdims expands a rank-0 tensor.
// CHECK-LABEL: func.func @max_keepdims_all
// CHECK-NOT: strata.
// CHECK: %[[R:.+]] = linalg.reduce ins(%{{.+}} : tensor<32xf32>) outs(%{{.+}} : tensor<f32>) dimensions = [0]
// CHECK: %[[K:.+]] = tensor.expand_shape %[[R]] [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK-NEXT: return %[[K]]
func.func @max_keepdims_all(%x: tensor<4x8xf32>) -> tensor<1x1xf32> {
  %0 = "strata.max"(%x) {axes = array<i64: 0, 1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// Adjacent reduced dims are collapsed into one first (static sizes): a mean over H, W
// (a global average pool) reduces the last dim only, which strata-vectorize vectorizes;
// non-adjacent axes, and runs with a dynamic dim, stay as they are.
// CHECK-LABEL: func.func @adjacent_axes
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4x5xf32>, %[[Y:.+]]: tensor<2x3x4xf32>, %[[Z:.+]]: tensor<2x?x4xf32>)
// CHECK: %[[HW:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1], [2, 3]] : tensor<2x3x4x5xf32> into tensor<2x3x20xf32>
// CHECK: %[[S:.+]] = linalg.reduce ins(%[[HW]] : tensor<2x3x20xf32>) outs(%{{.+}} : tensor<2x3xf32>) dimensions = [2]
// CHECK: linalg.reduce ins(%[[Y]] : tensor<2x3x4xf32>) outs(%{{.+}} : tensor<3xf32>) dimensions = [0, 2]
// CHECK: linalg.reduce ins(%[[Z]] : tensor<2x?x4xf32>) outs(%{{.+}} : tensor<2xf32>) dimensions = [1, 2]
func.func @adjacent_axes(%x: tensor<2x3x4x5xf32>, %y: tensor<2x3x4xf32>, %z: tensor<2x?x4xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<2xf32>) {
  %0 = "strata.sum"(%x) {axes = array<i64: 2, 3>} : (tensor<2x3x4x5xf32>) -> tensor<2x3xf32>
  %1 = "strata.sum"(%y) {axes = array<i64: 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %2 = "strata.sum"(%z) {axes = array<i64: 1, 2>} : (tensor<2x?x4xf32>) -> tensor<2xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<3xf32>, tensor<2xf32>
}

// -----

// mean: the sum divided by the static count, then keepdims.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @mean_keepdims
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// CHECK-NOT: strata.
// CHECK: %[[S:.+]] = linalg.reduce ins(%[[X]] : tensor<4x8xf32>) outs(%{{.+}} : tensor<4xf32>) dimensions = [1]
// CHECK: arith.addf
// CHECK: %[[N:.+]] = arith.constant 8.000000e+00 : f32
// CHECK: %[[M:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel"]} ins(%[[S]] : tensor<4xf32>) outs(%{{.+}} : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[Q:.+]] = arith.divf %[[V]], %[[N]] : f32
// CHECK-NEXT: linalg.yield %[[Q]] : f32
// CHECK: %[[K:.+]] = tensor.expand_shape %[[M]] {{\[}}[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
// CHECK-NEXT: return %[[K]]
func.func @mean_keepdims(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %0 = "strata.mean"(%x) {axes = array<i64: 1>, keepdims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// mean over a dynamic dim: the count is the tensor.dim, converted to f32.
// CHECK-LABEL: func.func @mean_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<4x?xf32>)
// CHECK-NOT: strata.
// CHECK: %[[S:.+]] = linalg.reduce ins(%[[X]] : tensor<4x?xf32>) outs(%{{.+}} : tensor<4xf32>) dimensions = [1]
// CHECK: %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<4x?xf32>
// CHECK: %[[DI:.+]] = arith.index_cast %[[D]] : index to i64
// CHECK: %[[DF:.+]] = arith.sitofp %[[DI]] : i64 to f32
// CHECK: %[[M:.+]] = linalg.generic {{.*}} ins(%[[S]] : tensor<4xf32>)
// CHECK: arith.divf %{{.+}}, %[[DF]] : f32
// CHECK: return %[[M]]
func.func @mean_dynamic(%x: tensor<4x?xf32>) -> tensor<4xf32> {
  %0 = "strata.mean"(%x) {axes = array<i64: 1>} : (tensor<4x?xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// f16 reductions extend to f32 first and round the result.
// CHECK-LABEL: func.func @sum_f16
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf16>)
// CHECK-NOT: strata.
// CHECK: %[[XE:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf16>) outs(%{{.+}} : tensor<4x8xf32>)
// CHECK: arith.extf %{{.+}} : f16 to f32
// CHECK: %[[R:.+]] = linalg.reduce ins(%[[XE]] : tensor<4x8xf32>) outs(%{{.+}} : tensor<4xf32>) dimensions = [1]
// CHECK: %[[T:.+]] = linalg.generic {{.*}} ins(%[[R]] : tensor<4xf32>) outs(%{{.+}} : tensor<4xf16>)
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK: return %[[T]] : tensor<4xf16>
func.func @sum_f16(%x: tensor<4x8xf16>) -> tensor<4xf16> {
  %0 = "strata.sum"(%x) {axes = array<i64: 1>} : (tensor<4x8xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// softmax: linalg.softmax along the (normalized) axis.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// CHECK-NOT: strata.
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[S0:.+]] = linalg.softmax dimension(0) ins(%[[X]] : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[S1:.+]] = linalg.softmax dimension(1) ins(%[[X]] : tensor<4x8xf32>) outs(%{{.+}} : tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: return %[[S0]], %[[S1]]
func.func @softmax(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = "strata.softmax"(%x) {axis = 0 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = "strata.softmax"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// bf16 softmax runs in f32 between an extf and a truncf generic.
// CHECK-LABEL: func.func @softmax_bf16
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xbf16>)
// CHECK-NOT: strata.
// CHECK: %[[XE:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xbf16>) outs(%{{.+}} : tensor<4x8xf32>)
// CHECK: arith.extf %{{.+}} : bf16 to f32
// CHECK: %[[S:.+]] = linalg.softmax dimension(1) ins(%[[XE]] : tensor<4x8xf32>) outs(%{{.+}} : tensor<4x8xf32>)
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[S]] : tensor<4x8xf32>) outs(%{{.+}} : tensor<4x8xbf16>)
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK: return %[[R]]
func.func @softmax_bf16(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %0 = "strata.softmax"(%x) : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

// layer_norm: one pass computes the moments of x shifted by its first normalized
// element (sum and sum of squares); a generic over the rows turns them into the
// mean and 1/sqrt(var + eps) once per row; one generic normalizes. Statistics
// are read by the leading dims, scale and bias by the trailing ones.
// CHECK-DAG: #[[ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[FIRST:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-DAG: #[[STAT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[TAIL:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[ROWS:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.+]]: tensor<2x4x8xf32>, %[[SC:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK-NOT: strata.
// CHECK: %[[N:.+]] = arith.constant 8.000000e+00 : f32
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[I1:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<2x4xf32>)
// CHECK: %[[I2:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.+}} : tensor<2x4xf32>)
// CHECK: %[[MOM:.+]]:2 = linalg.generic {indexing_maps = [#[[ID3]], #[[FIRST]], #[[STAT]], #[[STAT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[X]] : tensor<2x4x8xf32>, tensor<2x4x8xf32>) outs(%[[I1]], %[[I2]] : tensor<2x4xf32>, tensor<2x4xf32>)
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[A0:.+]]: f32, %[[S1:.+]]: f32, %[[S2:.+]]: f32):
// CHECK-NEXT: %[[C:.+]] = arith.subf %[[A]], %[[A0]] : f32
// CHECK-NEXT: %[[S1N:.+]] = arith.addf %[[S1]], %[[C]] : f32
// CHECK-NEXT: %[[C2:.+]] = arith.mulf %[[C]], %[[C]] : f32
// CHECK-NEXT: %[[S2N:.+]] = arith.addf %[[S2]], %[[C2]] : f32
// CHECK-NEXT: linalg.yield %[[S1N]], %[[S2N]] : f32, f32
// CHECK: %[[EPS:.+]] = arith.constant 1.000000e-03 : f32
// CHECK: %[[ST:.+]]:2 = linalg.generic {indexing_maps = [#[[ROWS]], #[[ROWS]], #[[ROWS]], #[[ROWS]]], iterator_types = ["parallel", "parallel"]} ins(%[[MOM]]#0, %[[MOM]]#1 : tensor<2x4xf32>, tensor<2x4xf32>)
// CHECK-NEXT: ^bb0(%[[M1:.+]]: f32, %[[M2:.+]]: f32, %{{.+}}: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[MEAN:.+]] = arith.divf %[[M1]], %[[N]] : f32
// CHECK-NEXT: %[[EX2:.+]] = arith.divf %[[M2]], %[[N]] : f32
// CHECK-NEXT: %[[MEAN2:.+]] = arith.mulf %[[MEAN]], %[[MEAN]] : f32
// CHECK-NEXT: %[[VAR:.+]] = arith.subf %[[EX2]], %[[MEAN2]] : f32
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[VARP:.+]] = arith.maximumf %[[VAR]], %[[Z]] : f32
// CHECK-NEXT: %[[VE:.+]] = arith.addf %[[VARP]], %[[EPS]] : f32
// CHECK-NEXT: %[[INV:.+]] = math.rsqrt %[[VE]] : f32
// CHECK-NEXT: linalg.yield %[[MEAN]], %[[INV]] : f32, f32
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID3]], #[[FIRST]], #[[STAT]], #[[STAT]], #[[TAIL]], #[[TAIL]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[X]], %[[ST]]#0, %[[ST]]#1, %[[SC]], %[[B]] : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK-NEXT: ^bb0(%[[XV:.+]]: f32, %[[X0:.+]]: f32, %[[MV:.+]]: f32, %[[IV:.+]]: f32, %[[SV:.+]]: f32, %[[BV:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[XS:.+]] = arith.subf %[[XV]], %[[X0]] : f32
// CHECK-NEXT: %[[XC:.+]] = arith.subf %[[XS]], %[[MV]] : f32
// CHECK-NEXT: %[[XN:.+]] = arith.mulf %[[XC]], %[[IV]] : f32
// CHECK-NEXT: %[[XSC:.+]] = arith.mulf %[[XN]], %[[SV]] : f32
// CHECK-NEXT: %[[Y:.+]] = arith.addf %[[XSC]], %[[BV]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
// CHECK: return %[[R]]
func.func @layer_norm(%x: tensor<2x4x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %0 = "strata.layer_norm"(%x, %s, %b) {epsilon = 1.0e-3 : f64} : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// layer_norm over the last two dims (axis = 1 of a rank-3 input), default epsilon.
// CHECK-DAG: #[[ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[FIRST:.+]] = affine_map<(d0, d1, d2) -> (d0, 0, 0)>
// CHECK-DAG: #[[STAT:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[TAIL:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @layer_norm_axis1
// CHECK-NOT: strata.
// CHECK: %[[N:.+]] = arith.constant 3.200000e+01 : f32
// CHECK: linalg.generic {indexing_maps = [#[[ID3]], #[[FIRST]], #[[STAT]], #[[STAT]]], iterator_types = ["parallel", "reduction", "reduction"]} ins(%{{.+}}, %{{.+}} : tensor<2x4x8xf32>, tensor<2x4x8xf32>) outs(%{{.+}}, %{{.+}} : tensor<2xf32>, tensor<2xf32>)
// CHECK: arith.constant 9.99999974E-6 : f32
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%{{.+}}, %{{.+}} : tensor<2xf32>, tensor<2xf32>)
// CHECK: arith.divf %{{.+}}, %[[N]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[ID3]], #[[FIRST]], #[[STAT]], #[[STAT]], #[[TAIL]], #[[TAIL]], #[[ID3]]]
func.func @layer_norm_axis1(%x: tensor<2x4x8xf32>, %s: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = "strata.layer_norm"(%x, %s, %b) {axis = 1 : i64} : (tensor<2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}
