// RUN: strata-opt %s --split-input-file '--strata-row-blocks=rows=16 tail-rows=4' | FileCheck %s
// RUN: strata-opt %s --split-input-file '--strata-row-blocks=rows=16 tail-rows=0' | FileCheck %s --check-prefix=PAD
// RUN: strata-opt %s --split-input-file '--strata-row-blocks=report=true' --verify-diagnostics -o /dev/null
// RUN: not strata-opt %s '--strata-row-blocks=rows=0' 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: strata-row-blocks: option 'rows' must be at least 1, got 0

// A dynamic batch through a matmul's M, a bias and a softmax over the other axis:
// a static clone per block size, then full blocks of 16, blocks of 4, and the
// last rows padded with zeros to 4 and sliced back.
// CHECK-LABEL: func.func private @mm__rows16
// CHECK-SAME: (%{{.+}}: tensor<16x4xf32>, %{{.+}}: tensor<4x3xf32>, %{{.+}}: tensor<3xf32>) -> tensor<16x3xf32>
// CHECK-NOT: llvm.emit_c_interface
// CHECK: "strata.matmul"(%{{.+}}, %{{.+}}) : (tensor<16x4xf32>, tensor<4x3xf32>) -> tensor<16x3xf32>
// CHECK: "strata.softmax"(%{{.+}}) : (tensor<16x3xf32>) -> tensor<16x3xf32>
// CHECK-LABEL: func.func private @mm__rows4
// CHECK-SAME: -> tensor<4x3xf32>
// CHECK-LABEL: func.func @mm
// CHECK-SAME: (%[[X:.+]]: tensor<?x4xf32>, %[[W:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<3xf32>) -> tensor<?x3xf32>
// CHECK-NOT: strata.matmul
// CHECK: %[[N:.+]] = tensor.dim %[[X]], %{{.+}} : tensor<?x4xf32>
// CHECK: %[[E:.+]] = tensor.empty(%[[N]]) : tensor<?x3xf32>
// CHECK: %[[FULL:.+]] = scf.for %[[I:[^ ]+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[O:.+]] = %[[E]]) -> (tensor<?x3xf32>)
// CHECK: %[[XS:.+]] = tensor.extract_slice %[[X]][%[[I]], 0] [16, 4] [1, 1] : tensor<?x4xf32> to tensor<16x4xf32>
// CHECK: %[[Y:.+]] = func.call @mm__rows16(%[[XS]], %[[W]], %[[B]])
// CHECK: %[[INS:.+]] = tensor.insert_slice %[[Y]] into %[[O]][%[[I]], 0] [16, 3] [1, 1] : tensor<16x3xf32> into tensor<?x3xf32>
// CHECK: scf.yield %[[INS]]
// CHECK: %[[FOURS:.+]] = scf.for %{{.+}} iter_args(%{{.+}} = %[[FULL]])
// CHECK: func.call @mm__rows4
// CHECK: %[[OUT:.+]] = scf.if %{{.+}} -> (tensor<?x3xf32>) {
// CHECK: %[[T:.+]] = tensor.extract_slice %[[X]][%{{.+}}, 0] [%[[LEFT:.+]], 4] [1, 1] : tensor<?x4xf32> to tensor<?x4xf32>
// CHECK: %[[P:.+]] = tensor.pad %[[T]] low[0, 0] high[%{{.+}}, 0]
// CHECK: tensor.yield %{{.+}} : f32
// CHECK: } : tensor<?x4xf32> to tensor<4x4xf32>
// CHECK: %[[YT:.+]] = func.call @mm__rows4(%[[P]], %[[W]], %[[B]])
// CHECK: %[[YS:.+]] = tensor.extract_slice %[[YT]][0, 0] [%[[LEFT]], 3] [1, 1] : tensor<4x3xf32> to tensor<?x3xf32>
// CHECK: tensor.insert_slice %[[YS]] into %[[FOURS]]
// CHECK: } else {
// CHECK: scf.yield %[[FOURS]]
// CHECK: return %[[OUT]] : tensor<?x3xf32>

// PAD-LABEL: func.func private @mm__rows16
// PAD-NOT: @mm__rows4
// PAD-LABEL: func.func @mm
// PAD: scf.for
// PAD: tensor.pad
// PAD: func.call @mm__rows16
// PAD-NOT: scf.for
// PAD: return

// expected-remark@+1 {{strata-row-blocks: @mm runs in blocks of 64 then 8 rows}}
func.func @mm(%arg0: tensor<?x4xf32>, %arg1: tensor<4x3xf32>, %arg2: tensor<3xf32>) -> tensor<?x3xf32> {
  %0 = "strata.matmul"(%arg0, %arg1) : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  %1 = "strata.add"(%0, %arg2) : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %2 = "strata.softmax"(%1) : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %2 : tensor<?x3xf32>
}

// -----

// The batch dim moves: a transpose puts it on axis 1 of the result, which the
// blocks are inserted along.
// CHECK-LABEL: func.func private @t__rows16
// CHECK-SAME: (%{{.+}}: tensor<16x4xf32>) -> tensor<4x16xf32>
// CHECK-LABEL: func.func @t
// CHECK: scf.for %[[I:[^ ]+]] = {{.*}} -> (tensor<4x?xf32>)
// CHECK: tensor.insert_slice %{{.+}} into %{{.+}}[0, %[[I]]] [4, 16] [1, 1] : tensor<4x16xf32> into tensor<4x?xf32>

// expected-remark@+1 {{strata-row-blocks: @t runs in blocks of 64 then 8 rows}}
func.func @t(%arg0: tensor<?x4xf32>) -> tensor<4x?xf32> {
  %0 = "strata.transpose"(%arg0) {permutation = array<i64: 1, 0>} : (tensor<?x4xf32>) -> tensor<4x?xf32>
  %1 = "strata.exp"(%0) : (tensor<4x?xf32>) -> tensor<4x?xf32>
  return %1 : tensor<4x?xf32>
}

// -----

// Not row-independent: left as they are.
// CHECK-LABEL: func.func @colsum
// CHECK-NOT: scf.for
// CHECK: "strata.sum"
// expected-remark@+1 {{strata-row-blocks: @colsum keeps its dynamic dims: a reduction over the batch dim}}
func.func @colsum(%arg0: tensor<?x4xf32>) -> tensor<4xf32> {
  %0 = "strata.sum"(%arg0) {axes = array<i64: 0>} : (tensor<?x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// expected-remark@+1 {{strata-row-blocks: @dynk keeps its dynamic dims: the batch dim is the matmul's reduction (K) dim}}
func.func @dynk(%arg0: tensor<2x?xf32>, %arg1: tensor<?x3xf32>) -> tensor<2x3xf32> {
  %0 = "strata.matmul"(%arg0, %arg1) : (tensor<2x?xf32>, tensor<?x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// expected-remark@+1 {{strata-row-blocks: @apart keeps its dynamic dims: arguments with dynamic dims that never meet (they may differ)}}
func.func @apart(%arg0: tensor<?x4xf32>, %arg1: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %0 = "strata.exp"(%arg0) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = "strata.exp"(%arg1) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0, %1 : tensor<?x4xf32>, tensor<?x4xf32>
}

// The two batch arguments meet in the add: one size, both sliced per block.
// CHECK-LABEL: func.func @together
// CHECK-SAME: (%[[A:.+]]: tensor<?x4xf32>, %[[B:.+]]: tensor<?x4xf32>)
// CHECK: scf.for %[[I:[^ ]+]] =
// CHECK: %[[AS:.+]] = tensor.extract_slice %[[A]][%[[I]], 0] [16, 4]
// CHECK: %[[BS:.+]] = tensor.extract_slice %[[B]][%[[I]], 0] [16, 4]
// CHECK: func.call @together__rows16(%[[AS]], %[[BS]])
// expected-remark@+1 {{strata-row-blocks: @together runs in blocks of 64 then 8 rows}}
func.func @together(%arg0: tensor<?x4xf32>, %arg1: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = "strata.add"(%arg0, %arg1) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
