// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-to-linalg --split-input-file | FileCheck %s --check-prefix=GONE

// No strata op is left anywhere in the output.
// GONE-NOT: strata.

// A reshape that merges consecutive dims is one collapse_shape.
// CHECK-LABEL: func.func @reshape_collapse
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NOT: strata.
// CHECK-NEXT: %[[R:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_collapse(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %0 = "strata.reshape"(%x) : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

// One that splits dims is one expand_shape.
// CHECK-LABEL: func.func @reshape_expand
// CHECK-SAME: (%[[X:.+]]: tensor<6x4xf32>)
// CHECK-NOT: strata.
// CHECK-NEXT: %[[R:.+]] = tensor.expand_shape %[[X]] {{\[}}[0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_expand(%x: tensor<6x4xf32>) -> tensor<2x3x4xf32> {
  %0 = "strata.reshape"(%x) : (tensor<6x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// No regrouping exists: collapse to 1-D, then expand.
// CHECK-LABEL: func.func @reshape_general
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-NOT: strata.
// CHECK-NEXT: %[[F:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK-NEXT: %[[R:.+]] = tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_general(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = "strata.reshape"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// One dynamic result dim: the element count divided by the static dims.
// CHECK-LABEL: func.func @reshape_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<?x4xf32>)
// CHECK-NOT: strata.
// CHECK: %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x4xf32>
// CHECK: %[[C4:.+]] = arith.constant 4 : index
// CHECK: %[[N:.+]] = arith.muli %[[D]], %[[C4]] : index
// CHECK: %[[C2:.+]] = arith.constant 2 : index
// CHECK: %[[M:.+]] = arith.divui %[[N]], %[[C2]] : index
// CHECK: %[[F:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
// CHECK: %[[R:.+]] = tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [2, %[[M]]] : tensor<?xf32> into tensor<2x?xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_dynamic(%x: tensor<?x4xf32>) -> tensor<2x?xf32> {
  %0 = "strata.reshape"(%x) : (tensor<?x4xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// A dynamic input reshaped to a static shape: flatten, cast to the static count, expand.
// CHECK-LABEL: func.func @reshape_dynamic_to_static
// CHECK-SAME: (%[[X:.+]]: tensor<?x4xf32>)
// CHECK-NOT: strata.
// CHECK-NEXT: %[[F:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
// CHECK-NEXT: %[[C:.+]] = tensor.cast %[[F]] : tensor<?xf32> to tensor<8xf32>
// CHECK-NEXT: %[[R:.+]] = tensor.expand_shape %[[C]] {{\[}}[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_dynamic_to_static(%x: tensor<?x4xf32>) -> tensor<2x4xf32> {
  %0 = "strata.reshape"(%x) : (tensor<?x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Rank 0 to unit dims.
// CHECK-LABEL: func.func @reshape_scalar
// CHECK-SAME: (%[[X:.+]]: tensor<f32>)
// CHECK-NOT: strata.
// CHECK-NEXT: %[[R:.+]] = tensor.expand_shape %[[X]] [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_scalar(%x: tensor<f32>) -> tensor<1x1xf32> {
  %0 = "strata.reshape"(%x) : (tensor<f32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NOT: strata.
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK: %[[R:.+]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[E]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK-NEXT: return %[[R]]
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = "strata.transpose"(%x) {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// A dynamic dim moves with the permutation.
// CHECK-LABEL: func.func @transpose_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<?x3xi32>)
// CHECK-NOT: strata.
// CHECK: %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x3xi32>
// CHECK: %[[E:.+]] = tensor.empty(%[[D]]) : tensor<3x?xi32>
// CHECK: %[[R:.+]] = linalg.transpose ins(%[[X]] : tensor<?x3xi32>) outs(%[[E]] : tensor<3x?xi32>) permutation = [1, 0]
// CHECK-NEXT: return %[[R]]
func.func @transpose_dynamic(%x: tensor<?x3xi32>) -> tensor<3x?xi32> {
  %0 = "strata.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<?x3xi32>) -> tensor<3x?xi32>
  return %0 : tensor<3x?xi32>
}

// -----

// Only leading dims added: linalg.broadcast.
// CHECK-LABEL: func.func @broadcast_to
// CHECK-SAME: (%[[X:.+]]: tensor<8xf32>)
// CHECK-NOT: strata.
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x4x8xf32>
// CHECK: %[[R:.+]] = linalg.broadcast ins(%[[X]] : tensor<8xf32>) outs(%[[E]] : tensor<2x4x8xf32>) dimensions = [0, 1]
// CHECK-NEXT: return %[[R]]
func.func @broadcast_to(%x: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %0 = "strata.broadcast_to"(%x) : (tensor<8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// A trailing dynamic dim is taken from the input.
// CHECK-LABEL: func.func @broadcast_to_dynamic
// CHECK-SAME: (%[[X:.+]]: tensor<?xf32>)
// CHECK-NOT: strata.
// CHECK: %[[D:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?xf32>
// CHECK: %[[E:.+]] = tensor.empty(%[[D]]) : tensor<3x?xf32>
// CHECK: %[[R:.+]] = linalg.broadcast ins(%[[X]] : tensor<?xf32>) outs(%[[E]] : tensor<3x?xf32>) dimensions = [0]
// CHECK-NEXT: return %[[R]]
func.func @broadcast_to_dynamic(%x: tensor<?xf32>) -> tensor<3x?xf32> {
  %0 = "strata.broadcast_to"(%x) : (tensor<?xf32>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// -----

// A stretched size-1 dim needs a generic that reads index 0.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @broadcast_to_stretch
// CHECK-SAME: (%[[X:.+]]: tensor<4x1xf32>)
// CHECK-NOT: strata.
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x4x8xf32>
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<4x1xf32>) outs(%[[E]] : tensor<2x4x8xf32>)
// CHECK-NEXT: ^bb0(%[[V:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: return %[[R]]
// CHECK-NOT: linalg.broadcast
func.func @broadcast_to_stretch(%x: tensor<4x1xf32>) -> tensor<2x4x8xf32> {
  %0 = "strata.broadcast_to"(%x) : (tensor<4x1xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// concat: a chain of binary concats along one axis lowers as one concat: an empty
// result and one insert_slice per input, at running offsets.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<2x3xf32>)
// CHECK-NOT: strata.
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x9xf32>
// CHECK: %[[S0:.+]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x9xf32>
// CHECK: %[[S1:.+]] = tensor.insert_slice %[[B]] into %[[S0]][0, 3] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x9xf32>
// CHECK: %[[S2:.+]] = tensor.insert_slice %[[A]] into %[[S1]][0, 6] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x9xf32>
// CHECK-NEXT: return %[[S2]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x9xf32> {
  %0 = "strata.concat"(%a, %b) {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  %1 = "strata.concat"(%0, %a) {axis = -1 : i64} : (tensor<2x6xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
  return %1 : tensor<2x9xf32>
}

// -----

// Dynamic concat sizes: the result dim is the sum of the tensor.dims, and the
// second slice starts at the first input's size.
// CHECK-LABEL: func.func @concat_dynamic
// CHECK-SAME: (%[[A:.+]]: tensor<?x4xf32>, %[[B:.+]]: tensor<?x4xf32>)
// CHECK-NOT: strata.
// CHECK: %[[DA:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x4xf32>
// CHECK: %[[DB:.+]] = tensor.dim %[[B]], %{{.+}} : tensor<?x4xf32>
// CHECK: %[[N:.+]] = arith.addi %[[DA]], %[[DB]] : index
// CHECK: %[[E:.+]] = tensor.empty(%[[N]]) : tensor<?x4xf32>
// CHECK: %[[SA:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x4xf32>
// CHECK: %[[S0:.+]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] {{\[}}%[[SA]], 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
// CHECK: %[[SA2:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x4xf32>
// CHECK: %[[OFF:.+]] = arith.addi %{{.+}}, %[[SA2]] : index
// CHECK: %[[SB:.+]] = tensor.dim %[[B]], %{{.+}} : tensor<?x4xf32>
// CHECK: %[[S1:.+]] = tensor.insert_slice %[[B]] into %[[S0]]{{\[}}%[[OFF]], 0] {{\[}}%[[SB]], 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
// CHECK: return %[[S1]]
func.func @concat_dynamic(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = "strata.concat"(%a, %b) {axis = 0 : i64} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Empty inputs of a concat are not inserted (the last one's offset would be the
// result's size, which tensor.insert_slice rejects), and a concat with an empty
// result is a filled empty tensor, as an empty slice (found by test_program_fuzz.py).
// CHECK-LABEL: func.func @concat_empty
// CHECK-SAME: (%[[A:.+]]: tensor<2x3xf32>, %[[Z:.+]]: tensor<0x3xf32>, %[[Y:.+]]: tensor<0x2xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT: %[[S:.+]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x3xf32>
// CHECK-NOT: insert_slice
// CHECK: %[[E2:.+]] = tensor.empty() : tensor<0x5xf32>
// CHECK-NEXT: %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E2]] : tensor<0x5xf32>)
// CHECK-NEXT: return %[[S]], %[[F]]
func.func @concat_empty(%a: tensor<2x3xf32>, %z: tensor<0x3xf32>, %y: tensor<0x2xf32>) -> (tensor<2x3xf32>, tensor<0x5xf32>) {
  %0 = "strata.concat"(%a, %z) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
  %1 = "strata.concat"(%z, %y) {axis = 1 : i64} : (tensor<0x3xf32>, tensor<0x2xf32>) -> tensor<0x5xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<0x5xf32>
}

// -----

// slice: one extract_slice with the offsets, result sizes and strides.
// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:.+]]: tensor<8x10xf32>)
// CHECK-NOT: strata.
// CHECK-NEXT: %[[R:.+]] = tensor.extract_slice %[[X]][1, 0] [3, 5] [2, 2] : tensor<8x10xf32> to tensor<3x5xf32>
// CHECK-NEXT: return %[[R]]
func.func @slice(%x: tensor<8x10xf32>) -> tensor<3x5xf32> {
  %0 = "strata.slice"(%x) {starts = array<i64: 1, 0>, limits = array<i64: 7, 10>, steps = array<i64: 2, 2>} : (tensor<8x10xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// An empty slice (numpy's x[2:] of a size-2 dim, found by test_program_fuzz.py) is a
// filled empty tensor: its start may equal the dim's size, which tensor.extract_slice
// rejects. (Not a bare tensor.empty: bufferization may then give its undefined contents
// the buffer of another result, and buffer-results-to-out-params crashes on a buffer
// returned twice.)
// CHECK-LABEL: func.func @slice_empty
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>, %[[Y:.+]]: tensor<0xf32>)
// CHECK-NOT: extract_slice
// CHECK: %[[E:.+]] = tensor.empty() : tensor<0x3xf32>
// CHECK: %[[A:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E]] : tensor<0x3xf32>)
// CHECK: %[[E2:.+]] = tensor.empty() : tensor<0xf32>
// CHECK: %[[B:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E2]] : tensor<0xf32>)
// CHECK: return %[[A]], %[[B]]
func.func @slice_empty(%x: tensor<2x3xf32>, %y: tensor<0xf32>) -> (tensor<0x3xf32>, tensor<0xf32>) {
  %0 = "strata.slice"(%x) {starts = array<i64: 2, 0>, limits = array<i64: 2, 3>, steps = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<0x3xf32>
  %1 = "strata.slice"(%y) {starts = array<i64: 0>, limits = array<i64: 0>, steps = array<i64: 1>} : (tensor<0xf32>) -> tensor<0xf32>
  return %0, %1 : tensor<0x3xf32>, tensor<0xf32>
}

// -----

// constant: arith.constant with the same dense value.
// CHECK-LABEL: func.func @constant
// CHECK-NOT: strata.
// CHECK-NEXT: %[[F:.+]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: %[[I:.+]] = arith.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
// CHECK-NEXT: return %[[F]], %[[I]]
func.func @constant() -> (tensor<2xf32>, tensor<2x3xi32>) {
  %0 = "strata.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %1 = "strata.constant"() {value = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>} : () -> tensor<2x3xi32>
  return %0, %1 : tensor<2xf32>, tensor<2x3xi32>
}

// -----

// A reshape of a source with a dynamic dim and a 0 has no elements: a filled empty
// result (a dynamic result dim is 0), not a collapse of the 0 with the dynamic dim,
// which failed to verify once bufferized (found by test_program_fuzz.py).
// CHECK-LABEL: func.func @reshape_empty_dynamic
// CHECK-NOT: collapse_shape
// CHECK: %[[E:.+]] = tensor.empty() : tensor<0xf32>
// CHECK: %[[A:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E]] : tensor<0xf32>)
// CHECK: %[[Z:.+]] = arith.constant 0 : index
// CHECK: %[[E2:.+]] = tensor.empty(%[[Z]]) : tensor<?x3xf32>
// CHECK: %[[B:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E2]] : tensor<?x3xf32>)
// CHECK: return %[[A]], %[[B]]
func.func @reshape_empty_dynamic(%x: tensor<?x33x1x0xf32>) -> (tensor<0xf32>, tensor<?x3xf32>) {
  %0 = "strata.reshape"(%x) : (tensor<?x33x1x0xf32>) -> tensor<0xf32>
  %1 = "strata.reshape"(%x) : (tensor<?x33x1x0xf32>) -> tensor<?x3xf32>
  return %0, %1 : tensor<0xf32>, tensor<?x3xf32>
}
