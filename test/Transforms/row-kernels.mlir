// RUN: strata-opt %s --split-input-file '--strata-row-kernels=lanes=8 unroll=2' | FileCheck %s
// RUN: strata-opt %s --split-input-file '--strata-row-kernels=lanes=8 unroll=2 threads=2 parallel-elements=1' | FileCheck %s --check-prefix=PAR
// RUN: strata-opt %s --split-input-file '--strata-row-kernels=lanes=8 unroll=2 online-bytes=4' | FileCheck %s --check-prefix=ONLINE
// RUN: strata-opt %s --split-input-file '--strata-row-kernels=lanes=8 unroll=2 fuse=false' | FileCheck %s --check-prefix=NOFUSE
// RUN: strata-opt %s --split-input-file '--strata-row-kernels=lanes=8 unroll=2 stream-bytes=1' | FileCheck %s --check-prefix=STREAM
// RUN: strata-opt %s --split-input-file '--strata-row-kernels=lanes=8 unroll=2 stream-bytes=1 threads=2 parallel-elements=1' | FileCheck %s --check-prefix=PARSTREAM
// RUN: not strata-opt %s '--strata-row-kernels=unroll=0' 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: strata-row-kernels: option 'unroll' must be at least 1, got 0

// A row of 17: steps of 16 (8 lanes x 2), one full step and one masked step
// (an out-of-bounds transfer padded with -inf); max, exp-and-sum into the
// output row, then scale by 1/sum. The output is the scf.for's carried tensor.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.+]]: tensor<4x17xf32>)
// CHECK-NOT: linalg.softmax
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x17xf32>
// CHECK: %[[R:.+]] = scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[O:.+]] = %[[E]]) -> (tensor<4x17xf32>)
// CHECK: %[[ROW:.+]] = tensor.extract_slice %[[O]][%[[I]], 0] [1, 17] [1, 1]
// CHECK: %[[M1:.+]] = scf.for {{.*}} -> (vector<16xf32>)
// CHECK: vector.transfer_read %[[X]][%[[I]], %{{.+}}], %{{.+}} {in_bounds = [true]} : tensor<4x17xf32>, vector<16xf32>
// CHECK: %[[GT1:.+]] = arith.cmpf ogt, %[[V1:.+]], %[[A1:.+]] : vector<16xf32>
// CHECK-NEXT: arith.select %[[GT1]], %[[V1]], %[[A1]] : vector<16xi1>, vector<16xf32>
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[TAIL:.+]] = vector.transfer_read %[[X]][%[[I]], %{{.+}}], %[[NINF]] : tensor<4x17xf32>, vector<16xf32>
// CHECK: %[[GT2:.+]] = arith.cmpf ogt, %[[TAIL]], %[[M1]] : vector<16xf32>
// CHECK-NEXT: %[[M2:.+]] = arith.select %[[GT2]], %[[TAIL]], %[[M1]] : vector<16xi1>, vector<16xf32>
// CHECK: %[[MAX:.+]] = vector.reduction <maximumf>, %[[M2]] : vector<16xf32> into f32
// CHECK: %[[MAXV:.+]] = vector.broadcast %[[MAX]] : f32 to vector<16xf32>
// CHECK: %[[ES:.+]]:2 = scf.for {{.*}} iter_args(%{{.+}} = %[[ROW]], %{{.+}} = %{{.+}}) -> (tensor<1x17xf32>, vector<16xf32>)
// CHECK: arith.subf %{{.+}}, %[[MAXV]] : vector<16xf32>
// CHECK: math.exp %{{.+}} : vector<16xf32>
// CHECK: vector.transfer_write {{.*}} {in_bounds = [true]} : vector<16xf32>, tensor<1x17xf32>
// CHECK: %[[LASTW:.+]] = vector.transfer_write %{{.+}}, %[[ES]]#0[%{{.+}}, %{{.+}}] : vector<16xf32>, tensor<1x17xf32>
// CHECK: %[[SUMV:.+]] = arith.addf %[[ES]]#1, %{{.+}} : vector<16xf32>
// CHECK: %[[SUM:.+]] = vector.reduction <add>, %[[SUMV]] : vector<16xf32> into f32
// CHECK: %[[INV:.+]] = arith.divf %{{.+}}, %[[SUM]] : f32
// CHECK: %[[INVV:.+]] = vector.broadcast %[[INV]] : f32 to vector<16xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.+}} = %[[LASTW]]) -> (tensor<1x17xf32>)
// CHECK: arith.mulf %{{.+}}, %[[INVV]] : vector<16xf32>
// CHECK: vector.transfer_write {{.*}} {in_bounds = [true]} : vector<16xf32>, tensor<1x17xf32>
// CHECK: arith.mulf %{{.+}}, %[[INVV]] : vector<16xf32>
// CHECK: %[[DONE:.+]] = vector.transfer_write %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}] : vector<16xf32>, tensor<1x17xf32>
// CHECK: %[[INS:.+]] = tensor.insert_slice %[[DONE]] into %[[O]][%[[I]], 0] [1, 17] [1, 1]
// CHECK: scf.yield %[[INS]] : tensor<4x17xf32>
// CHECK: return %[[R]] : tensor<4x17xf32>
// PAR-LABEL: func.func @softmax
// PAR: %[[R:.+]] = scf.forall (%[[I:.+]]) in (4) shared_outs(%[[O:.+]] = %{{.+}}) -> (tensor<4x17xf32>)
// PAR: tensor.extract_slice %[[O]][%[[I]], 0] [1, 17] [1, 1]
// PAR: scf.forall.in_parallel
// PAR-NEXT: tensor.parallel_insert_slice %{{.+}} into %[[O]][%[[I]], 0] [1, 17] [1, 1]
// PAR: return %[[R]]
// stream-bytes: an output that large is written once (for non-temporal stores): the
// exp-and-sum sweep writes the exponentials (marked <= 0 for the cheaper expansion) to a
// scratch row of their own, and the last sweep reads them from there and writes them
// scaled into the output; no exp is computed twice.
// STREAM-LABEL: func.func @softmax
// STREAM: %[[O:.+]] = tensor.extract_slice %{{.+}}[%{{.+}}, 0] [1, 17] [1, 1]
// STREAM: vector.reduction <maximumf>
// STREAM: %[[MAXV:.+]] = vector.broadcast %{{.+}} : f32 to vector<16xf32>
// STREAM: %[[SCRATCH:.+]] = tensor.empty() : tensor<1x17xf32>
// STREAM: %[[S:.+]]:2 = scf.for {{.*}} iter_args(%[[ROW:.+]] = %[[SCRATCH]], %{{.+}} = %{{.+}}) -> (tensor<1x17xf32>, vector<16xf32>)
// STREAM: %[[D:.+]] = arith.subf %{{.+}}, %[[MAXV]] : vector<16xf32>
// STREAM: %[[E:.+]] = math.exp %[[D]] {strata.nonpositive} : vector<16xf32>
// STREAM: vector.transfer_write %[[E]], %[[ROW]]
// STREAM: %[[TAIL:.+]] = vector.transfer_write %{{.+}}, %[[S]]#0
// STREAM: vector.reduction <add>
// STREAM: %[[INVV:.+]] = vector.broadcast %{{.+}} : f32 to vector<16xf32>
// STREAM: scf.for {{.*}} iter_args(%{{.+}} = %[[O]]) -> (tensor<1x17xf32>)
// STREAM-NOT: math.exp
// STREAM: %[[SE:.+]] = vector.transfer_read %[[TAIL]]
// STREAM: %[[Y:.+]] = arith.mulf %[[SE]], %[[INVV]] : vector<16xf32>
// STREAM: vector.transfer_write %[[Y]]
// STREAM: return
// With threads, one block of rows per thread (4 rows: 2 x 2), an scf.for over its rows,
// so that the scratch row is allocated once per block.
// PARSTREAM-LABEL: func.func @softmax
// PARSTREAM: scf.forall (%[[C:.+]]) in (2) shared_outs(%[[O:.+]] = %{{.+}}) -> (tensor<4x17xf32>)
// PARSTREAM: %[[FIRST:.+]] = arith.muli %[[C]], %c2
// PARSTREAM: %[[SLAB:.+]] = tensor.extract_slice %[[O]][%[[FIRST]], 0] [2, 17] [1, 1]
// PARSTREAM: %[[DONE:.+]] = scf.for %[[R:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %[[SLAB]]) -> (tensor<2x17xf32>)
// PARSTREAM: arith.addi %[[FIRST]], %[[R]]
// PARSTREAM: tensor.empty() : tensor<1x17xf32>
// PARSTREAM: scf.forall.in_parallel
// PARSTREAM-NEXT: tensor.parallel_insert_slice %[[DONE]] into %[[O]][%[[FIRST]], 0] [2, 17] [1, 1]
// ONLINE-LABEL: func.func @softmax
// ONLINE: %[[MD:.+]]:2 = scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>)
// ONLINE: %[[MN:.+]] = arith.maximumf
// ONLINE: math.exp
// ONLINE: math.exp
// ONLINE: math.fma
// ONLINE: vector.reduction <maximumf>
// ONLINE: vector.reduction <add>
// ONLINE-NOT: vector.reduction
// ONLINE: return
func.func @softmax(%x: tensor<4x17xf32>) -> tensor<4x17xf32> {
  %e = tensor.empty() : tensor<4x17xf32>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<4x17xf32>) outs(%e : tensor<4x17xf32>) -> tensor<4x17xf32>
  return %0 : tensor<4x17xf32>
}

// -----

// log of a softmax: a log-softmax kernel (no exponentials written; the output
// is x - (max + log(sum))); both ops are gone. With fuse=false only the softmax
// is a kernel and the log stays.
// CHECK-LABEL: func.func @log_softmax
// CHECK-NOT: linalg.
// CHECK: %[[MAX:.+]] = vector.reduction <maximumf>
// CHECK: %[[S:.+]] = scf.for {{.*}} -> (vector<16xf32>)
// CHECK: math.exp
// CHECK-NOT: vector.transfer_write
// CHECK: %[[SUM:.+]] = vector.reduction <add>
// CHECK: %[[LOG:.+]] = math.log %[[SUM]] : f32
// CHECK: %[[SHIFT:.+]] = arith.addf %[[MAX]], %[[LOG]] : f32
// CHECK: %[[SHIFTV:.+]] = vector.broadcast %[[SHIFT]]
// CHECK: arith.subf %{{.+}}, %[[SHIFTV]] : vector<16xf32>
// CHECK: vector.transfer_write
// CHECK-NOT: linalg.
// CHECK: return
// NOFUSE-LABEL: func.func @log_softmax
// NOFUSE: scf.for
// NOFUSE: linalg.generic
// NOFUSE: math.log %{{.+}} : f32
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @log_softmax(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %e = tensor.empty() : tensor<4x64xf32>
  %0 = linalg.softmax dimension(1) ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) -> tensor<4x64xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %l = math.log %in : f32
    linalg.yield %l : f32
  } -> tensor<4x64xf32>
  return %1 : tensor<4x64xf32>
}

// -----

// A cheap single-use producer (x * s + b, with b a column vector) is computed in
// the sweeps from its inputs; the generic is gone. With fuse=false it stays, and
// the kernel writes in place into its result (the loop carries the producer's
// tensor, and the sweeps read the row from there).
// CHECK-LABEL: func.func @producer
// CHECK-SAME: (%[[X:.+]]: tensor<4x32xf32>, %[[B:.+]]: tensor<32xf32>)
// CHECK-NOT: linalg.generic
// CHECK: scf.for
// CHECK: %[[V:.+]] = vector.transfer_read %[[X]][%{{.+}}, %{{.+}}]
// CHECK: %[[C:.+]] = vector.transfer_read %[[B]][%{{.+}}]
// CHECK: %[[M:.+]] = arith.mulf %[[V]], %{{.+}} : vector<16xf32>
// CHECK: arith.addf %[[M]], %[[C]] : vector<16xf32>
// CHECK: arith.cmpf ogt
// CHECK-NOT: linalg.generic
// CHECK: return
// NOFUSE-LABEL: func.func @producer
// NOFUSE: %[[P:.+]] = linalg.generic
// NOFUSE: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[O:.+]] = %[[P]]) -> (tensor<4x32xf32>)
// NOFUSE: %[[ROW:.+]] = tensor.extract_slice %[[O]]
// NOFUSE: vector.transfer_read %[[ROW]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @producer(%x: tensor<4x32xf32>, %b: tensor<32xf32>) -> tensor<4x32xf32> {
  %s = arith.constant 0.125 : f32
  %e = tensor.empty() : tensor<4x32xf32>
  %p = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<4x32xf32>, tensor<32xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%in: f32, %c: f32, %out: f32):
    %m = arith.mulf %in, %s : f32
    %a = arith.addf %m, %c : f32
    linalg.yield %a : f32
  } -> tensor<4x32xf32>
  %e2 = tensor.empty() : tensor<4x32xf32>
  %0 = linalg.softmax dimension(1) ins(%p : tensor<4x32xf32>) outs(%e2 : tensor<4x32xf32>) -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

// An expensive producer (exp) stays its own op; the kernel writes in place into
// its result.
// CHECK-LABEL: func.func @expensive_producer
// CHECK: %[[P:.+]] = linalg.generic
// CHECK: math.exp %{{.+}} : f32
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[O:.+]] = %[[P]]) -> (tensor<4x32xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @expensive_producer(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %e = tensor.empty() : tensor<4x32xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x32xf32>) outs(%e : tensor<4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = math.exp %in : f32
    linalg.yield %a : f32
  } -> tensor<4x32xf32>
  %e2 = tensor.empty() : tensor<4x32xf32>
  %0 = linalg.softmax dimension(1) ins(%p : tensor<4x32xf32>) outs(%e2 : tensor<4x32xf32>) -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// -----

// Rank 3: the rows are collapsed to 2-D around the kernel.
// CHECK-LABEL: func.func @rank3
// CHECK: %[[X2:.+]] = tensor.collapse_shape %{{.+}} {{\[\[}}0, 1], [2]] : tensor<2x3x8xf32> into tensor<6x8xf32>
// CHECK: %[[R:.+]] = scf.for {{.*}} -> (tensor<6x8xf32>)
// CHECK: tensor.expand_shape %[[R]] {{\[\[}}0, 1], [2]] output_shape [2, 3, 8] : tensor<6x8xf32> into tensor<2x3x8xf32>
func.func @rank3(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %e = tensor.empty() : tensor<2x3x8xf32>
  %0 = linalg.softmax dimension(2) ins(%x : tensor<2x3x8xf32>) outs(%e : tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %0 : tensor<2x3x8xf32>
}

// -----

// Left to strata-decompose: another dim, dynamic shapes, f16.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.for
// CHECK-COUNT-3: linalg.softmax
// CHECK-NOT: scf.for
func.func @left_alone(%x: tensor<4x8xf32>, %d: tensor<?x8xf32>, %h: tensor<4x8xf16>) -> (tensor<4x8xf32>, tensor<?x8xf32>, tensor<4x8xf16>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.softmax dimension(0) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %d, %c0 : tensor<?x8xf32>
  %ed = tensor.empty(%n) : tensor<?x8xf32>
  %1 = linalg.softmax dimension(1) ins(%d : tensor<?x8xf32>) outs(%ed : tensor<?x8xf32>) -> tensor<?x8xf32>
  %eh = tensor.empty() : tensor<4x8xf16>
  %2 = linalg.softmax dimension(1) ins(%h : tensor<4x8xf16>) outs(%eh : tensor<4x8xf16>) -> tensor<4x8xf16>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<?x8xf32>, tensor<4x8xf16>
}
