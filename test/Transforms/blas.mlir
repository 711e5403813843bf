// RUN: strata-opt %s --split-input-file --strata-blas | FileCheck %s
// RUN: strata-opt %s --split-input-file '--strata-blas=threads=2' | FileCheck %s --check-prefix=THREADS
// The calls survive the rest of the pipeline as llvm.call of the external symbols:
// RUN: strata-opt %s --split-input-file --strata-blas --strata-lower-to-llvm | FileCheck %s --check-prefix=LLVM

// The CBLAS functions are declared once per module, private and external.
// CHECK: func.func private @scipy_cblas_sgemm64_(i32, i32, i32, i64, i64, i64, f32, i64, i64, i64, i64, f32, i64, i64)
// CHECK: func.func private @scipy_openblas_get_num_threads64_() -> i32
// CHECK: func.func private @scipy_openblas_set_num_threads64_(i32)
// A zero-filled output: the fill goes, beta is 0; row-major (101), no transposes (111),
// M=4 N=16 K=8, lda=K, ldb=N, ldc=N; the thread count is set around the call and restored.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:[a-z0-9]+]]: memref<4x8xf32>, %[[B:[a-z0-9]+]]: memref<8x16xf32>, %[[C:[a-z0-9]+]]: memref<4x16xf32>)
// CHECK-NOT: linalg.fill
// CHECK: %[[OLD:.+]] = call @scipy_openblas_get_num_threads64_() : () -> i32
// CHECK: %[[ONE:.+]] = arith.constant 1 : i32
// CHECK: call @scipy_openblas_set_num_threads64_(%[[ONE]]) : (i32) -> ()
// CHECK: %[[PA:.+]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[IA:.+]] = arith.index_cast %[[PA]] : index to i64
// CHECK: %[[PB:.+]] = memref.extract_aligned_pointer_as_index %[[B]]
// CHECK: %[[IB:.+]] = arith.index_cast %[[PB]] : index to i64
// CHECK: %[[PC:.+]] = memref.extract_aligned_pointer_as_index %[[C]]
// CHECK: %[[IC:.+]] = arith.index_cast %[[PC]] : index to i64
// CHECK: %[[ORDER:.+]] = arith.constant 101 : i32
// CHECK: %[[TA:.+]] = arith.constant 111 : i32
// CHECK: %[[TB:.+]] = arith.constant 111 : i32
// CHECK: %[[M:.+]] = arith.constant 4 : i64
// CHECK: %[[N:.+]] = arith.constant 16 : i64
// CHECK: %[[K:.+]] = arith.constant 8 : i64
// CHECK: %[[ALPHA:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[LDA:.+]] = arith.constant 8 : i64
// CHECK: %[[LDB:.+]] = arith.constant 16 : i64
// CHECK: %[[BETA:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[LDC:.+]] = arith.constant 16 : i64
// CHECK: call @scipy_cblas_sgemm64_(%[[ORDER]], %[[TA]], %[[TB]], %[[M]], %[[N]], %[[K]], %[[ALPHA]], %[[IA]], %[[LDA]], %[[IB]], %[[LDB]], %[[BETA]], %[[IC]], %[[LDC]])
// CHECK: call @scipy_openblas_set_num_threads64_(%[[OLD]]) : (i32) -> ()
// CHECK-NOT: linalg.matmul
// CHECK: return
// THREADS-LABEL: func.func @matmul
// THREADS: %[[OLD:.+]] = call @scipy_openblas_get_num_threads64_()
// THREADS: %[[TWO:.+]] = arith.constant 2 : i32
// THREADS: call @scipy_openblas_set_num_threads64_(%[[TWO]])
// THREADS: call @scipy_cblas_sgemm64_
// THREADS: call @scipy_openblas_set_num_threads64_(%[[OLD]])
// LLVM: llvm.func @scipy_cblas_sgemm64_(i32, i32, i32, i64, i64, i64, f32, i64, i64, i64, i64, f32, i64, i64)
// LLVM-LABEL: llvm.func @matmul
// LLVM: llvm.call @scipy_openblas_get_num_threads64_()
// LLVM: llvm.call @scipy_cblas_sgemm64_
// LLVM: llvm.call @scipy_openblas_set_num_threads64_
func.func @matmul(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul {strata.blas} ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// No zero fill before it: linalg's C += A B is beta = 1.
// CHECK-LABEL: func.func @accumulate
// CHECK: %[[ALPHA:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[BETA:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: call @scipy_cblas_sgemm64_(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[ALPHA]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[BETA]], %{{.+}}, %{{.+}})
// CHECK-NOT: linalg.matmul
func.func @accumulate(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul {strata.blas} ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A fill of another value is kept (beta = 1 adds to it).
// CHECK-LABEL: func.func @fill_of_one
// CHECK: linalg.fill
// CHECK: call @scipy_cblas_sgemm64_
func.func @fill_of_one(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  %one = arith.constant 1.000000e+00 : f32
  linalg.fill ins(%one : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul {strata.blas} ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// B read through (n, k) (a transpose strata-layout folded into the maps): TransB = 112
// with ldb = K.
// CHECK-LABEL: func.func @transposed_b
// CHECK-SAME: (%[[A:[a-z0-9]+]]: memref<4x8xf32>, %[[BT:[a-z0-9]+]]: memref<16x8xf32>, %[[C:[a-z0-9]+]]: memref<4x16xf32>)
// CHECK: %[[PB:.+]] = memref.extract_aligned_pointer_as_index %[[BT]]
// CHECK: %[[IB:.+]] = arith.index_cast %[[PB]] : index to i64
// CHECK: %[[TA:.+]] = arith.constant 111 : i32
// CHECK: %[[TB:.+]] = arith.constant 112 : i32
// CHECK: arith.constant 4 : i64
// CHECK: arith.constant 16 : i64
// CHECK: arith.constant 8 : i64
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK: arith.constant 8 : i64
// CHECK: %[[LDB:.+]] = arith.constant 8 : i64
// CHECK: call @scipy_cblas_sgemm64_(%{{.+}}, %[[TA]], %[[TB]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[IB]], %[[LDB]], %{{.+}}, %{{.+}}, %{{.+}})
// CHECK-NOT: linalg.matmul
func.func @transposed_b(%a: memref<4x8xf32>, %bt: memref<16x8xf32>, %c: memref<4x16xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %bt : memref<4x8xf32>, memref<16x8xf32>) outs(%c : memref<4x16xf32>) {strata.blas}
  return
}

// -----

// A column-major output: C^T = B^T A^T, M and N swapped (16 x 4), both operands
// transposed, A and B swapped.
// CHECK-LABEL: func.func @column_major_output
// CHECK-SAME: (%[[A:[a-z0-9]+]]: memref<4x8xf32>, %[[B:[a-z0-9]+]]: memref<8x16xf32>, %[[CT:[a-z0-9]+]]: memref<16x4xf32>)
// CHECK: %[[PB:.+]] = memref.extract_aligned_pointer_as_index %[[B]]
// CHECK: %[[IB:.+]] = arith.index_cast %[[PB]]
// CHECK: %[[PA:.+]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[IA:.+]] = arith.index_cast %[[PA]]
// CHECK: %[[TA:.+]] = arith.constant 112 : i32
// CHECK: %[[TB:.+]] = arith.constant 112 : i32
// CHECK: %[[M:.+]] = arith.constant 16 : i64
// CHECK: %[[N:.+]] = arith.constant 4 : i64
// CHECK: %[[K:.+]] = arith.constant 8 : i64
// CHECK: call @scipy_cblas_sgemm64_(%{{.+}}, %[[TA]], %[[TB]], %[[M]], %[[N]], %[[K]], %{{.+}}, %[[IB]], %{{.+}}, %[[IA]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}})
func.func @column_major_output(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %ct: memref<16x4xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (n, m)>]
      ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%ct : memref<16x4xf32>) {strata.blas}
  return
}

// -----

// batch_matmul: one call per matrix, the pointers advanced by the batch strides in bytes.
// CHECK-LABEL: func.func @batch
// CHECK: %[[IA:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK: %[[IB:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK: %[[IC:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step
// CHECK: %[[I64:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[SA:.+]] = arith.constant 128 : i64
// CHECK: %[[OA:.+]] = arith.muli %[[I64]], %[[SA]]
// CHECK: %[[XA:.+]] = arith.addi %[[IA]], %[[OA]]
// CHECK: %[[SB:.+]] = arith.constant 512 : i64
// CHECK: %[[OB:.+]] = arith.muli %[[I64]], %[[SB]]
// CHECK: %[[XB:.+]] = arith.addi %[[IB]], %[[OB]]
// CHECK: %[[SC:.+]] = arith.constant 256 : i64
// CHECK: %[[OC:.+]] = arith.muli %[[I64]], %[[SC]]
// CHECK: %[[XC:.+]] = arith.addi %[[IC]], %[[OC]]
// CHECK: func.call @scipy_cblas_sgemm64_(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[XA]], %{{.+}}, %[[XB]], %{{.+}}, %{{.+}}, %[[XC]], %{{.+}})
// CHECK-NOT: linalg.batch_matmul
func.func @batch(%a: memref<3x4x8xf32>, %b: memref<3x8x16xf32>, %c: memref<3x4x16xf32>) {
  linalg.batch_matmul {strata.blas} ins(%a, %b : memref<3x4x8xf32>, memref<3x8x16xf32>) outs(%c : memref<3x4x16xf32>)
  return
}

// -----

// batch_matmul whose lhs has no batch dim (strata-conv-to-matmul's NCHW conv with N > 1:
// one filter matrix for every image): the batch count comes from the output, the lhs
// pointer advances by 0 bytes.
// CHECK-LABEL: func.func @batch_shared_lhs
// CHECK: %[[IA:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK: scf.for %[[I:.+]] = %[[LO:.+]] to %[[C3:.+]] step
// CHECK: %[[I64:.+]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[SA:.+]] = arith.constant 0 : i64
// CHECK: %[[OA:.+]] = arith.muli %[[I64]], %[[SA]]
// CHECK: %[[XA:.+]] = arith.addi %[[IA]], %[[OA]]
// CHECK: %[[SB:.+]] = arith.constant 512 : i64
// CHECK: func.call @scipy_cblas_sgemm64_(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[XA]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}})
// CHECK-NOT: linalg.batch_matmul
func.func @batch_shared_lhs(%a: memref<4x8xf32>, %b: memref<3x8x16xf32>, %c: memref<3x4x16xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %b : memref<4x8xf32>, memref<3x8x16xf32>) outs(%c : memref<3x4x16xf32>) {strata.blas}
  return
}

// -----

// A view with two non-unit strides: CBLAS cannot take it, so it is copied first
// (and the copy freed after the call).
// CHECK-LABEL: func.func @strided_view
// CHECK-SAME: (%[[A:[a-z0-9]+]]: memref<4x8xf32, strided<[32, 2], offset: 1>>
// CHECK: %[[COPY:.+]] = memref.alloc() : memref<4x8xf32>
// CHECK: memref.copy %[[A]], %[[COPY]]
// CHECK: %[[PA:.+]] = memref.extract_aligned_pointer_as_index %[[COPY]]
// CHECK: call @scipy_cblas_sgemm64_
// CHECK: memref.dealloc %[[COPY]]
func.func @strided_view(%a: memref<4x8xf32, strided<[32, 2], offset: 1>>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul {strata.blas} ins(%a, %b : memref<4x8xf32, strided<[32, 2], offset: 1>>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A row-major view at a static offset: the pointer is advanced by 4 x offset bytes.
// CHECK-LABEL: func.func @static_offset
// CHECK: %[[P:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK: %[[BYTES:.+]] = arith.constant 20 : i64
// CHECK: %[[AT:.+]] = arith.addi %[[P]], %[[BYTES]] : i64
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK: %[[LDA:.+]] = arith.constant 16 : i64
// CHECK: call @scipy_cblas_sgemm64_(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[AT]], %[[LDA]],
func.func @static_offset(%a: memref<4x8xf32, strided<[16, 1], offset: 5>>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul {strata.blas} ins(%a, %b : memref<4x8xf32, strided<[16, 1], offset: 5>>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A dynamic offset is read from the view's metadata.
// CHECK-LABEL: func.func @dynamic_offset
// CHECK: %[[P:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK: %{{.+}}, %[[OFFSET:.+]], %{{.+}}:2, %{{.+}}:2 = memref.extract_strided_metadata
// CHECK: %[[O64:.+]] = arith.index_cast %[[OFFSET]] : index to i64
// CHECK: %[[BYTES:.+]] = arith.muli %[[O64]], %{{.+}} : i64
// CHECK: %[[AT:.+]] = arith.addi %[[P]], %[[BYTES]] : i64
// CHECK: call @scipy_cblas_sgemm64_(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[AT]],
func.func @dynamic_offset(%a: memref<4x8xf32, strided<[8, 1], offset: ?>>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul {strata.blas} ins(%a, %b : memref<4x8xf32, strided<[8, 1], offset: ?>>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// Unmarked matmuls are strata's own; a module without marked ops gets no declarations.
// CHECK-NOT: scipy_cblas_sgemm64_
// CHECK-LABEL: func.func @unmarked
// CHECK: linalg.matmul
// CHECK-NOT: call
func.func @unmarked(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}
