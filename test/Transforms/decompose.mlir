// RUN: strata-opt %s --strata-decompose --split-input-file | FileCheck %s
// RUN: strata-opt %s --strata-decompose --split-input-file | FileCheck %s --check-prefix=GONE
// RUN: strata-opt %s '--strata-decompose=keep-row-softmax=true' --split-input-file | FileCheck %s --check-prefix=KEEP

// keep-row-softmax: the static f32 last-dim softmaxes (strata-row-kernels' ones) stay,
// the one over the first dim is decomposed.
// KEEP-LABEL: func.func @softmax_last_dim
// KEEP: linalg.softmax dimension(1)
// KEEP-NOT: linalg.generic
// KEEP-LABEL: func.func @softmax_first_dim
// KEEP-NOT: linalg.softmax dimension(0)
// KEEP: linalg.generic
// KEEP: math.exp
// KEEP-LABEL: func.func @another
// KEEP: linalg.softmax dimension(2)

// No linalg.softmax is left anywhere.
// GONE-NOT: linalg.softmax

// softmax -> max-reduce, sub+exp, sum-reduce, div.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @softmax_last_dim
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// CHECK-NOT: linalg.softmax
// CHECK: %[[OUT:.+]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[RED:.+]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[MAXINIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[RED]] : tensor<4xf32>)
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x8xf32>) outs(%[[MAXINIT]] : tensor<4xf32>)
// CHECK: arith.maxnumf
// CHECK: %[[EXP:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]] : tensor<4x8xf32>, tensor<4xf32>) outs(%[[OUT]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[A:.+]]: f32, %[[M:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[D:.+]] = arith.subf %[[A]], %[[M]] : f32
// CHECK-NEXT: %[[E:.+]] = math.exp %[[D]] : f32
// CHECK-NEXT: linalg.yield %[[E]] : f32
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SUMINIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[RED]] : tensor<4xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] : tensor<4x8xf32>) outs(%[[SUMINIT]] : tensor<4xf32>)
// CHECK: arith.addf
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[EXP]], %[[SUM]] : tensor<4x8xf32>, tensor<4xf32>) outs(%[[OUT]] : tensor<4x8xf32>)
// CHECK: arith.divf
// CHECK: return %[[R]] : tensor<4x8xf32>
func.func @softmax_last_dim(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tensor.empty() : tensor<4x8xf32>
  %1 = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// Along dim 0 the reduction is the first loop; every softmax in the module goes.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @softmax_first_dim
// CHECK-NOT: linalg.softmax
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK: math.exp
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK: arith.divf
// CHECK-LABEL: func.func @another
// CHECK-NOT: linalg.softmax
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: math.exp
func.func @softmax_first_dim(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tensor.empty() : tensor<4x8xf32>
  %1 = linalg.softmax dimension(0) ins(%x : tensor<4x8xf32>) outs(%0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
func.func @another(%x: tensor<2x3x5xf32>) -> tensor<2x3x5xf32> {
  %0 = tensor.empty() : tensor<2x3x5xf32>
  %1 = linalg.softmax dimension(2) ins(%x : tensor<2x3x5xf32>) outs(%0 : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %1 : tensor<2x3x5xf32>
}

// -----

// Without a softmax the pass changes nothing.
// CHECK-LABEL: func.func @no_softmax
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK-NEXT: %[[E:.+]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[T:.+]] = linalg.transpose ins(%[[X]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>) permutation = [0]
// CHECK-NEXT: return %[[T]]
func.func @no_softmax(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.empty() : tensor<4xf32>
  %1 = linalg.transpose ins(%x : tensor<4xf32>) outs(%0 : tensor<4xf32>) permutation = [0]
  return %1 : tensor<4xf32>
}

// -----

// A pack whose tiles divide its source pads nothing: no tensor.pad (it would
// bufferize to a fill and a copy), the expand_shape reads the source itself.
// CHECK-LABEL: func.func @pack_divisible
// CHECK-SAME: (%[[A:.+]]: tensor<16x12xf32>)
// CHECK-NOT: linalg.pack
// CHECK-NOT: tensor.pad
// CHECK: %[[X:.+]] = tensor.expand_shape %[[A]] {{\[\[}}0, 1], [2]] output_shape [2, 8, 12]
// CHECK: %[[T:.+]] = linalg.transpose ins(%[[X]] : tensor<2x8x12xf32>) outs(%{{.+}} : tensor<2x12x8xf32>) permutation = [0, 2, 1]
// CHECK: return %[[T]]
// A padded pack keeps its pad.
// CHECK-LABEL: func.func @pack_padded
// CHECK: tensor.pad %{{.+}} low[0, 0] high[3, 0]
// CHECK: linalg.transpose
func.func @pack_divisible(%a: tensor<16x12xf32>) -> tensor<2x12x8xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x12x8xf32>
  %p = linalg.pack %a padding_value(%cst : f32) inner_dims_pos = [0] inner_tiles = [8] into %e : tensor<16x12xf32> -> tensor<2x12x8xf32>
  return %p : tensor<2x12x8xf32>
}
func.func @pack_padded(%a: tensor<13x12xf32>) -> tensor<2x12x8xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x12x8xf32>
  %p = linalg.pack %a padding_value(%cst : f32) inner_dims_pos = [0] inner_tiles = [8] into %e : tensor<13x12xf32> -> tensor<2x12x8xf32>
  return %p : tensor<2x12x8xf32>
}

// -----

// An unpack that keeps every element transposes straight into its destination
// (expanded to the packed shape): no temporary, no copy. One that drops padding
// keeps the copy of the slice.
// CHECK-LABEL: func.func @unpack_whole
// CHECK-SAME: (%[[P:.+]]: tensor<2x3x8x4xf32>, %[[C:.+]]: tensor<16x12xf32>)
// CHECK-NOT: linalg.unpack
// CHECK: %[[X:.+]] = tensor.expand_shape %[[C]] {{\[\[}}0, 1], [2, 3]] output_shape [2, 8, 3, 4]
// CHECK: %[[T:.+]] = linalg.transpose ins(%[[P]] : tensor<2x3x8x4xf32>) outs(%[[X]] : tensor<2x8x3x4xf32>) permutation = [0, 2, 1, 3]
// CHECK: %[[R:.+]] = tensor.collapse_shape %[[T]] {{\[\[}}0, 1], [2, 3]] : tensor<2x8x3x4xf32> into tensor<16x12xf32>
// CHECK-NOT: linalg.copy
// CHECK: return %[[R]]
// CHECK-LABEL: func.func @unpack_part
// CHECK: linalg.transpose
// CHECK: %[[S:.+]] = tensor.extract_slice %{{.+}}[0, 0] [13, 12] [1, 1]
// CHECK: linalg.copy ins(%[[S]] : tensor<13x12xf32>)
func.func @unpack_whole(%p: tensor<2x3x8x4xf32>, %c: tensor<16x12xf32>) -> tensor<16x12xf32> {
  %u = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [8, 4] into %c : tensor<2x3x8x4xf32> -> tensor<16x12xf32>
  return %u : tensor<16x12xf32>
}
func.func @unpack_part(%p: tensor<2x3x8x4xf32>, %c: tensor<13x12xf32>) -> tensor<13x12xf32> {
  %u = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [8, 4] into %c : tensor<2x3x8x4xf32> -> tensor<13x12xf32>
  return %u : tensor<13x12xf32>
}
