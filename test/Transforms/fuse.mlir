// RUN: strata-opt %s --split-input-file --strata-to-linalg --strata-fuse | FileCheck %s
// RUN: strata-opt %s --split-input-file --strata-to-linalg '--strata-fuse=report=true' 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// Without report=true there are no remarks at all:
// RUN: strata-opt %s --split-input-file --strata-to-linalg --strata-fuse 2>&1 >/dev/null | count 0
// The limit on the fused body:
// RUN: strata-opt %s --split-input-file --strata-to-linalg '--strata-fuse=max-fused-ops=5' | FileCheck %s --check-prefix=LIMIT
// RUN: strata-opt %s --split-input-file --strata-to-linalg '--strata-fuse=max-fused-ops=5 report=true' 2>&1 >/dev/null | FileCheck %s --check-prefix=LIMIT-REPORT
// The epilogue loop nest after cleanup: the untiled matmul is dead and goes away.
// RUN: strata-opt %s --split-input-file --strata-to-linalg --strata-fuse --canonicalize | FileCheck %s --check-prefix=CLEAN
//
// Overrides by candidate key. A key hashes the two ops' locations, so it depends
// on the file name and the line numbers: these RUN lines read the file from stdin
// (locations are <stdin>:line:col) and the keys below must be recomputed (KEYS run,
// with report=true) whenever lines above a keyed op move.
// RUN: strata-opt --split-input-file --strata-to-linalg '--strata-fuse=report=true' < %s 2>&1 >/dev/null | FileCheck %s --check-prefix=KEYS
// RUN: strata-opt --split-input-file --strata-to-linalg '--strata-fuse=decisions=c2af8921=off,149cec33=off' < %s | FileCheck %s --check-prefix=OFF
// RUN: strata-opt --split-input-file --strata-to-linalg '--strata-fuse=report=true decisions=c2af8921=off,149cec33=off' < %s 2>&1 >/dev/null | FileCheck %s --check-prefix=OFF-REPORT

//===----------------------------------------------------------------------===//
// Elementwise producer -> consumer
//===----------------------------------------------------------------------===//

// A chain of five elementwise ops with three kinds of broadcast is one loop nest.
// Each fused producer's input maps are composed with the consumer's map of the
// fused operand: %u (1x16) is read through (0, d1), %v (16) through (d1).
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL0:.+]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<4x16xf32>, %[[U:[a-z0-9]+]]: tensor<1x16xf32>, %[[V:[a-z0-9]+]]: tensor<16xf32>, %[[R:[a-z0-9]+]]: tensor<4x1xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[G:.+]] = linalg.generic {indexing_maps = [#[[ROW]], #[[ID]], #[[COL0]], #[[COL]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[R]], %[[X]], %[[U]], %[[V]] : tensor<4x1xf32>, tensor<4x16xf32>, tensor<1x16xf32>, tensor<16xf32>) outs(%{{.+}} : tensor<4x16xf32>)
// CHECK-NEXT: ^bb0(%[[IR:[a-z0-9_]+]]: f32, %[[IX:[a-z0-9_]+]]: f32, %[[IU:[a-z0-9_]+]]: f32, %[[IV:[a-z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[A:.+]] = arith.addf %[[IU]], %[[IV]] : f32
// CHECK-NEXT: %[[M:.+]] = arith.mulf %[[IX]], %[[A]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.subf %[[M]], %[[IR]] : f32
// CHECK-NEXT: %[[N:.+]] = arith.negf %[[S]] : f32
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[RELU:.+]] = arith.maximumf %[[N]], %[[ZERO]] : f32
// CHECK-NEXT: linalg.yield %[[RELU]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]] : tensor<4x16xf32>
// Each step of the chain is one remark at the consumer, naming both ops:
// REPORT: {{.*}}fuse.mlir:[[@LINE+10]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] fused linalg.generic at {{.*}}fuse.mlir:[[@LINE+9]]:8 into linalg.generic at {{.*}}fuse.mlir:[[@LINE+10]]:8: single use; saves 128 bytes of intermediates
// REPORT: {{.*}}fuse.mlir:[[@LINE+10]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] fused linalg.generic at {{.*}}fuse.mlir:[[@LINE+9]]:8 into linalg.generic at {{.*}}fuse.mlir:[[@LINE+10]]:8: single use; saves 512 bytes of intermediates
// REPORT: {{.*}}fuse.mlir:[[@LINE+10]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] fused linalg.generic at {{.*}}fuse.mlir:[[@LINE+9]]:8 into linalg.generic at {{.*}}fuse.mlir:[[@LINE+10]]:8: single use; saves 512 bytes of intermediates
// REPORT: {{.*}}fuse.mlir:[[@LINE+10]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] fused linalg.generic at {{.*}}fuse.mlir:[[@LINE+9]]:8 into linalg.generic at {{.*}}fuse.mlir:[[@LINE+10]]:8: single use; saves 512 bytes of intermediates
// REPORT-NOT: remark
// LIMIT-LABEL: func.func @chain
// The max-fused-ops=5 run stops the chain before relu (the fused body would be 6 ops).
// LIMIT-COUNT-2: linalg.generic
func.func @chain(%x: tensor<4x16xf32>, %u: tensor<1x16xf32>, %v: tensor<16xf32>, %r: tensor<4x1xf32>) -> tensor<4x16xf32> {
  %0 = "strata.add"(%u, %v) : (tensor<1x16xf32>, tensor<16xf32>) -> tensor<1x16xf32>
  %1 = "strata.mul"(%x, %0) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %2 = "strata.sub"(%1, %r) : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %3 = "strata.neg"(%2) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %4 = "strata.relu"(%3) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %4 : tensor<4x16xf32>
}

// -----

// An expensive producer (exp) with a single user is fused: no recomputation.
// CHECK-LABEL: func.func @single_use
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<64x32xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[G:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<64x32xf32>)
// CHECK-NEXT: ^bb0(%[[IN:[a-z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[E:.+]] = math.exp %[[IN]] : f32
// CHECK-NEXT: %[[N:.+]] = arith.negf %[[E]] : f32
// CHECK-NEXT: linalg.yield %[[N]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]
// REPORT: {{.*}}fuse.mlir:[[@LINE+15]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] fused linalg.generic at {{.*}}fuse.mlir:[[@LINE+14]]:8 into linalg.generic at {{.*}}fuse.mlir:[[@LINE+15]]:8: single use; saves 16384 bytes of intermediates
// REPORT-NOT: remark
// KEYS: <stdin>:[[@LINE+13]]:8: remark: strata-fuse: [c2af8921] fused linalg.generic at <stdin>:[[@LINE+12]]:8 into linalg.generic at <stdin>:[[@LINE+13]]:8
// decisions=c2af8921=off keeps the two loops apart:
// OFF-LABEL: func.func @single_use
// OFF: %[[E:.+]] = linalg.generic
// OFF-NEXT: ^bb0
// OFF-NEXT: math.exp
// OFF-NEXT: linalg.yield
// OFF: linalg.generic {{.*}} ins(%[[E]] : tensor<64x32xf32>)
// OFF-NEXT: ^bb0
// OFF-NEXT: arith.negf
// OFF-REPORT: <stdin>:[[@LINE+3]]:8: remark: strata-fuse: [c2af8921] not fusing linalg.generic at <stdin>:[[@LINE+2]]:8 into linalg.generic at <stdin>:[[@LINE+3]]:8: disabled by the measured decision
func.func @single_use(%x: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %0 = "strata.exp"(%x) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %1 = "strata.neg"(%0) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  return %1 : tensor<64x32xf32>
}

// -----

// Refused: exp with two users. Fusing would compute exp twice per element to save
// one read; it stays one loop, computed once, and both consumers read its result.
// CHECK-LABEL: func.func @two_users
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<64x32xf32>)
// CHECK: %[[E:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<64x32xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.exp
// CHECK-NEXT: linalg.yield
// CHECK-NOT: math.exp
// CHECK: %[[A:.+]] = linalg.generic {{.*}} ins(%[[E]] : tensor<64x32xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.negf
// CHECK-NOT: math.exp
// CHECK: %[[B:.+]] = linalg.generic {{.*}} ins(%[[E]], %[[X]] : tensor<64x32xf32>, tensor<64x32xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.mulf
// CHECK-NOT: math.exp
// CHECK: return %[[A]], %[[B]]
// REPORT: {{.*}}fuse.mlir:[[@LINE+5]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] not fusing linalg.generic at {{.*}}fuse.mlir:[[@LINE+4]]:8 into linalg.generic at {{.*}}fuse.mlir:[[@LINE+5]]:8: 2 users; recomputing costs 8192, not less than the 8192 bytes it saves
// REPORT: {{.*}}fuse.mlir:[[@LINE+5]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] not fusing linalg.generic at {{.*}}fuse.mlir:[[@LINE+3]]:8 into linalg.generic at {{.*}}fuse.mlir:[[@LINE+5]]:8: 2 users; recomputing costs 8192, not less than the 8192 bytes it saves
// REPORT-NOT: remark
func.func @two_users(%x: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>) {
  %0 = "strata.exp"(%x) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %1 = "strata.neg"(%0) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %2 = "strata.mul"(%0, %x) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  return %1, %2 : tensor<64x32xf32>, tensor<64x32xf32>
}

// -----

// A cheap producer with two users is recomputed in both (neg is one flop).
// CHECK-LABEL: func.func @two_users_cheap
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<64x32xf32>)
// CHECK: %[[A:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<64x32xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.negf
// CHECK-NEXT: math.absf
// CHECK: %[[B:.+]] = linalg.generic {{.*}} ins(%[[X]], %[[X]] : tensor<64x32xf32>, tensor<64x32xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.negf
// CHECK-NEXT: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: return %[[A]], %[[B]]
// REPORT: {{.*}}fuse.mlir:[[@LINE+5]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] fused linalg.generic at {{.*}}fuse.mlir:[[@LINE+4]]:8 into linalg.generic at {{.*}}fuse.mlir:[[@LINE+5]]:8: 2 users, cheap to recompute; saves 8192 bytes of intermediates
// REPORT: {{.*}}fuse.mlir:[[@LINE+5]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] fused linalg.generic at {{.*}}fuse.mlir:[[@LINE+3]]:8 into linalg.generic at {{.*}}fuse.mlir:[[@LINE+5]]:8: single use; saves 16384 bytes of intermediates
// REPORT-NOT: remark
func.func @two_users_cheap(%x: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>) {
  %0 = "strata.neg"(%x) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %1 = "strata.abs"(%0) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %2 = "strata.mul"(%0, %x) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  return %1, %2 : tensor<64x32xf32>, tensor<64x32xf32>
}

// -----

// Refused: exp of a 32-vector broadcast into a 64x32 loop would run exp 64 times
// per element. The neg on the other operand is still fused; the refused edge stays
// refused after its consumer was replaced by the fused op (one remark, not two).
// CHECK-DAG: #[[ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @broadcast_exp
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<64x32xf32>, %[[B:[a-z0-9]+]]: tensor<32xf32>)
// CHECK: %[[E:.+]] = linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]} ins(%[[B]] : tensor<32xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.exp
// CHECK-NEXT: linalg.yield
// CHECK: %[[G:.+]] = linalg.generic {indexing_maps = [#[[COL]], #[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[E]], %[[X]] : tensor<32xf32>, tensor<64x32xf32>)
// CHECK-NEXT: ^bb0(%[[IE:[a-z0-9_]+]]: f32, %[[IX:[a-z0-9_]+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[N:.+]] = arith.negf %[[IX]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[IE]], %[[N]] : f32
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK-NOT: math.exp
// CHECK: return %[[G]]
// REPORT: {{.*}}fuse.mlir:[[@LINE+6]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] not fusing linalg.generic at {{.*}}fuse.mlir:[[@LINE+4]]:8 into linalg.generic at {{.*}}fuse.mlir:[[@LINE+6]]:8: broadcasts into a 64x larger iteration space: recomputes 8064 to save 256 bytes
// REPORT: {{.*}}fuse.mlir:[[@LINE+5]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] fused linalg.generic at {{.*}}fuse.mlir:[[@LINE+4]]:8 into linalg.generic at {{.*}}fuse.mlir:[[@LINE+5]]:8: single use; saves 16384 bytes of intermediates
// REPORT-NOT: remark
func.func @broadcast_exp(%x: tensor<64x32xf32>, %b: tensor<32xf32>) -> tensor<64x32xf32> {
  %0 = "strata.exp"(%b) : (tensor<32xf32>) -> tensor<32xf32>
  %1 = "strata.neg"(%x) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %2 = "strata.add"(%0, %1) : (tensor<32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  return %2 : tensor<64x32xf32>
}

// -----

// max-fused-ops: add, mul and neg fuse into 4 ops (with the yield); adding relu
// would make 6, over a limit of 5. With the default limit (16) it is one loop.
// CHECK-LABEL: func.func @limit
// CHECK: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return
// LIMIT-LABEL: func.func @limit
// LIMIT: %[[G1:.+]] = linalg.generic
// LIMIT-NEXT: ^bb0
// LIMIT-NEXT: arith.addf
// LIMIT-NEXT: arith.mulf
// LIMIT-NEXT: arith.negf
// LIMIT-NEXT: linalg.yield
// LIMIT: %[[G2:.+]] = linalg.generic {{.*}} ins(%[[G1]] : tensor<64x32xf32>)
// LIMIT-NEXT: ^bb0
// LIMIT-NEXT: arith.constant
// LIMIT-NEXT: arith.maximumf
// LIMIT-NEXT: linalg.yield
// LIMIT-NOT: linalg.generic
// LIMIT: return %[[G2]]
// LIMIT-REPORT: {{.*}}fuse.mlir:[[@LINE+11]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] fused linalg.generic at {{.*}}fuse.mlir:[[@LINE+10]]:8 into linalg.generic at {{.*}}fuse.mlir:[[@LINE+11]]:8: single use
// LIMIT-REPORT: {{.*}}fuse.mlir:[[@LINE+11]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] fused linalg.generic at {{.*}}fuse.mlir:[[@LINE+10]]:8 into linalg.generic at {{.*}}fuse.mlir:[[@LINE+11]]:8: single use
// LIMIT-REPORT: {{.*}}fuse.mlir:[[@LINE+11]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] not fusing linalg.generic at {{.*}}fuse.mlir:[[@LINE+10]]:8 into linalg.generic at {{.*}}fuse.mlir:[[@LINE+11]]:8: the fused body would have 6 ops (limit 5)
// LIMIT-REPORT-NOT: fused linalg.generic at {{.*}}fuse.mlir:[[@LINE+9]]:8
// With the default limit, three fusions:
// REPORT: {{.*}}fuse.mlir:[[@LINE+6]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] fused linalg.generic at {{.*}}fuse.mlir:[[@LINE+5]]:8 into linalg.generic at {{.*}}fuse.mlir:[[@LINE+6]]:8: single use
// REPORT: {{.*}}fuse.mlir:[[@LINE+6]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] fused linalg.generic at {{.*}}fuse.mlir:[[@LINE+5]]:8 into linalg.generic at {{.*}}fuse.mlir:[[@LINE+6]]:8: single use
// REPORT: {{.*}}fuse.mlir:[[@LINE+6]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] fused linalg.generic at {{.*}}fuse.mlir:[[@LINE+5]]:8 into linalg.generic at {{.*}}fuse.mlir:[[@LINE+6]]:8: single use
// REPORT-NOT: remark
func.func @limit(%x: tensor<64x32xf32>, %b: tensor<64x32xf32>, %c: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %0 = "strata.add"(%x, %b) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  %1 = "strata.mul"(%0, %c) : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  %2 = "strata.neg"(%1) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %3 = "strata.relu"(%2) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  return %3 : tensor<64x32xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Epilogue tile-and-fuse
//===----------------------------------------------------------------------===//

// matmul -> bias -> relu: bias and relu fuse into one generic, which is then tiled
// 64x128 with the fill and the matmul computed per tile inside the loops.
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<128x64xf32>, %[[W:[a-z0-9]+]]: tensor<64x256xf32>, %[[B:[a-z0-9]+]]: tensor<256xf32>)
// CHECK-DAG: %[[C64:.+]] = arith.constant 64 : index
// CHECK-DAG: %[[C128:.+]] = arith.constant 128 : index
// CHECK-DAG: %[[C256:.+]] = arith.constant 256 : index
// CHECK: %[[LI:.+]] = scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %[[C64]] iter_args(%{{.+}} = %{{.+}}) -> (tensor<128x256xf32>)
// CHECK: scf.for %[[J:.+]] = %{{.+}} to %[[C256]] step %{{.+}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (tensor<128x256xf32>)
// CHECK-DAG: %[[XS:.+]] = tensor.extract_slice %[[X]][%[[I]], 0] [64, 64] [1, 1] : tensor<128x64xf32> to tensor<64x64xf32>
// CHECK-DAG: %[[WS:.+]] = tensor.extract_slice %[[W]][0, %[[J]]] [64, 128] [1, 1] : tensor<64x256xf32> to tensor<64x128xf32>
// CHECK: %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<64x128xf32>) -> tensor<64x128xf32>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[XS]], %[[WS]] : tensor<64x64xf32>, tensor<64x128xf32>) outs(%[[F]] : tensor<64x128xf32>) -> tensor<64x128xf32>
// CHECK: %[[BS:.+]] = tensor.extract_slice %[[B]][%[[J]]] [128] [1] : tensor<256xf32> to tensor<128xf32>
// CHECK: %[[E:.+]] = linalg.generic {{.*}} ins(%[[MM]], %[[BS]] : tensor<64x128xf32>, tensor<128xf32>) outs(%{{.+}} : tensor<64x128xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: linalg.yield
// CHECK: tensor.insert_slice %[[E]] into %[[ACC]][%[[I]], %[[J]]] [64, 128] [1, 1] : tensor<64x128xf32> into tensor<128x256xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[LI]]
// CLEAN-LABEL: func.func @matmul_bias_relu
// CLEAN-NOT: linalg.matmul
// CLEAN: scf.for {{.*}} step %c64
// CLEAN-NOT: linalg.generic
// CLEAN: scf.for {{.*}} step %c128
// CLEAN: linalg.fill {{.*}} -> tensor<64x128xf32>
// CLEAN: linalg.matmul {{.*}} -> tensor<64x128xf32>
// CLEAN: linalg.generic
// CLEAN-NOT: linalg.matmul
// CLEAN: return
// REPORT: {{.*}}fuse.mlir:[[@LINE+20]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] fused linalg.generic at {{.*}}fuse.mlir:[[@LINE+19]]:8 into linalg.generic at {{.*}}fuse.mlir:[[@LINE+20]]:8: single use; saves 262144 bytes of intermediates
// REPORT: {{.*}}fuse.mlir:[[@LINE+19]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] tiled linalg.generic at {{.*}}fuse.mlir:[[@LINE+19]]:8 by [64, 128] with linalg.matmul at {{.*}}fuse.mlir:[[@LINE+17]]:8 fused into each tile: the epilogue runs on the tile while it is in cache
// REPORT-NOT: remark
// KEYS: <stdin>:[[@LINE+17]]:8: remark: strata-fuse: [149cec33] tiled linalg.generic at <stdin>:[[@LINE+17]]:8 by [64, 128] with linalg.matmul at <stdin>:[[@LINE+15]]:8
// decisions=149cec33=off leaves the matmul whole (bias and relu are still fused):
// OFF-LABEL: func.func @matmul_bias_relu
// OFF-NOT: scf.for
// OFF: %[[MM:.+]] = linalg.matmul {{.*}} -> tensor<128x256xf32>
// OFF-NOT: scf.for
// OFF: linalg.generic {{.*}} ins(%[[MM]], %{{.+}} : tensor<128x256xf32>, tensor<256xf32>)
// OFF-NEXT: ^bb0
// OFF-NEXT: arith.addf
// OFF-NEXT: arith.constant
// OFF-NEXT: arith.maximumf
// OFF-NOT: scf.for
// OFF: return
// OFF-REPORT: <stdin>:[[@LINE+4]]:8: remark: strata-fuse: [149cec33] not fusing linalg.matmul at <stdin>:[[@LINE+2]]:8 into its epilogue: disabled by the measured decision
func.func @matmul_bias_relu(%x: tensor<128x64xf32>, %w: tensor<64x256xf32>, %b: tensor<256xf32>) -> tensor<128x256xf32> {
  %0 = "strata.matmul"(%x, %w) : (tensor<128x64xf32>, tensor<64x256xf32>) -> tensor<128x256xf32>
  %1 = "strata.add"(%0, %b) : (tensor<128x256xf32>, tensor<256xf32>) -> tensor<128x256xf32>
  %2 = "strata.relu"(%1) : (tensor<128x256xf32>) -> tensor<128x256xf32>
  return %2 : tensor<128x256xf32>
}

// -----

// Dims that 64 and 128 don't divide get the largest of 32, 16, 8 that does: 48x80
// tiles by 16x16.
// CHECK-LABEL: func.func @matmul_small_tiles
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG: %[[C48:.+]] = arith.constant 48 : index
// CHECK-DAG: %[[C80:.+]] = arith.constant 80 : index
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[C48]] step %[[C16]]
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[C80]] step %[[C16]]
// CHECK: linalg.matmul {{.*}} -> tensor<16x16xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.+}} : tensor<16x16xf32>)
// REPORT: {{.*}}fuse.mlir:[[@LINE+4]]:8: remark: strata-fuse: [{{[0-9a-f]+}}] tiled linalg.generic at {{.*}}fuse.mlir:[[@LINE+4]]:8 by [16, 16] with linalg.matmul at {{.*}}fuse.mlir:[[@LINE+3]]:8 fused into each tile
// REPORT-NOT: remark
func.func @matmul_small_tiles(%x: tensor<48x32xf32>, %w: tensor<32x80xf32>, %b: tensor<80xf32>) -> tensor<48x80xf32> {
  %0 = "strata.matmul"(%x, %w) : (tensor<48x32xf32>, tensor<32x80xf32>) -> tensor<48x80xf32>
  %1 = "strata.add"(%0, %b) : (tensor<48x80xf32>, tensor<80xf32>) -> tensor<48x80xf32>
  return %1 : tensor<48x80xf32>
}

// -----

// Refused: a matmul with two users is not tiled into either epilogue (that would
// compute it twice); it is computed once and both generics read it.
// CHECK-LABEL: func.func @matmul_two_users
// CHECK-NOT: scf.for
// CHECK: %[[MM:.+]] = linalg.matmul {{.*}} -> tensor<128x256xf32>
// CHECK-NOT: linalg.matmul
// CHECK: %[[A:.+]] = linalg.generic {{.*}} ins(%[[MM]], %{{.+}} : tensor<128x256xf32>, tensor<256xf32>)
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[MM]] : tensor<128x256xf32>)
// CHECK-NOT: scf.for
// CHECK-NOT: linalg.matmul
// CHECK: return %[[A]], %[[R]]
// The remark is at the matmul:
// REPORT: {{.*}}fuse.mlir:[[@LINE+3]]:8: remark: strata-fuse: not tiling linalg.matmul at {{.*}}fuse.mlir:[[@LINE+3]]:8 with its epilogue: 2 users (it is computed once)
// REPORT-NOT: remark
func.func @matmul_two_users(%x: tensor<128x64xf32>, %w: tensor<64x256xf32>, %b: tensor<256xf32>) -> (tensor<128x256xf32>, tensor<128x256xf32>) {
  %0 = "strata.matmul"(%x, %w) : (tensor<128x64xf32>, tensor<64x256xf32>) -> tensor<128x256xf32>
  %1 = "strata.add"(%0, %b) : (tensor<128x256xf32>, tensor<256xf32>) -> tensor<128x256xf32>
  %2 = "strata.relu"(%0) : (tensor<128x256xf32>) -> tensor<128x256xf32>
  return %1, %2 : tensor<128x256xf32>, tensor<128x256xf32>
}

// -----

// A matmul with an empty result (found by test_program_fuzz.py) has no epilogue to
// tile: it is left alone (the tile sizes used to divide by its zero dim).
// CHECK-LABEL: func.func @matmul_empty
// CHECK-NOT: scf.for
// CHECK: linalg.matmul {{.*}} -> tensor<0x5xf32>
// CHECK: linalg.generic
// REPORT: {{.*}}fuse.mlir:[[@LINE+4]]:8: remark: strata-fuse: not tiling the epilogue: it has no elements
// REPORT-NOT: remark
func.func @matmul_empty(%x: tensor<0x4xf32>, %w: tensor<4x5xf32>) -> tensor<0x5xf32> {
  %0 = "strata.matmul"(%x, %w) : (tensor<0x4xf32>, tensor<4x5xf32>) -> tensor<0x5xf32>
  %1 = "strata.relu"(%0) : (tensor<0x5xf32>) -> tensor<0x5xf32>
  return %1 : tensor<0x5xf32>
}

// -----

// A gather (a generic with no inputs that reads its loop indices) is not merged into a
// reduction over its rows: the reduced loop would be sized by no operand ('invalid
// indexing maps are non-invertible'); the max stays a reduction of the gathered tensor.
// REPORT: remark: strata-fuse: {{.*}} not fusing linalg.generic at {{.*}} the fused body would have
// CHECK-LABEL: func.func @gather_into_argmax
// CHECK: %[[G:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} outs(
// CHECK: tensor.extract
// CHECK: %[[MAX:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[G]] : tensor<4x3xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[G]], %[[MAX]],
func.func @gather_into_argmax(%t: tensor<10x3xf32>, %i: tensor<4xi64>) -> tensor<4xi32> {
  %g = "strata.gather"(%t, %i) {axis = 0 : i64} : (tensor<10x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  %a = "strata.argmax"(%g) {axis = 1 : i64} : (tensor<4x3xf32>) -> tensor<4xi32>
  return %a : tensor<4xi32>
}
