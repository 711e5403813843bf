// RUN: strata-opt %s --split-input-file --strata-to-linalg '--strata-fuse=blas=auto threads=2 report=true' 2>&1 >/dev/null | FileCheck %s --check-prefix=SHARED
// RUN: strata-opt %s --split-input-file --strata-to-linalg '--strata-fuse=blas=auto threads=2' | FileCheck %s --check-prefix=IR
// RUN: strata-opt %s --split-input-file --strata-to-linalg '--strata-fuse=blas=always threads=2' | FileCheck %s --check-prefix=ALWAYS

// Two batch matmuls the cost model would give to OpenBLAS on 2 threads: with more
// than one contraction in the program, the generated code between the calls runs on
// OpenMP's workers, and the two thread pools would spin against each other on the
// same cores, so both are generated code (the reason is in the remark). blas=always
// still makes them BLAS calls.
// SHARED: remark: strata-fuse: [{{[0-9a-f]+}}] generated code for linalg.batch_matmul at {{.*}}fuse-blas-threads.mlir:[[@LINE+9]]:8 (12x128x128x64; 2 contractions on 2 threads: OpenBLAS's workers would take the cores from the generated code's): predicted BLAS
// SHARED: remark: strata-fuse: [{{[0-9a-f]+}}] generated code for linalg.batch_matmul at {{.*}}fuse-blas-threads.mlir:[[@LINE+9]]:8 (12x128x128x64; 2 contractions on 2 threads: OpenBLAS's workers would take the cores from the generated code's): predicted BLAS
// IR-LABEL: func.func @two
// IR-NOT: strata.blas
// IR: return
// ALWAYS-LABEL: func.func @two
// ALWAYS: linalg.batch_matmul {strata.blas}
// ALWAYS: linalg.batch_matmul {strata.blas}
func.func @two(%q: tensor<12x128x64xf32>, %k: tensor<12x64x128xf32>, %v: tensor<12x128x64xf32>, %w: tensor<12x64x128xf32>) -> (tensor<12x128x128xf32>, tensor<12x128x128xf32>) {
  %0 = "strata.matmul"(%q, %k) : (tensor<12x128x64xf32>, tensor<12x64x128xf32>) -> tensor<12x128x128xf32>
  %1 = "strata.matmul"(%v, %w) : (tensor<12x128x64xf32>, tensor<12x64x128xf32>) -> tensor<12x128x128xf32>
  return %0, %1 : tensor<12x128x128xf32>, tensor<12x128x128xf32>
}

// -----

// One contraction alone (nothing else runs on OpenMP's workers): the cost model's choice.
// SHARED: remark: strata-fuse: [{{[0-9a-f]+}}] BLAS sgemm for linalg.batch_matmul at {{.*}}fuse-blas-threads.mlir:[[@LINE+5]]:8 (12x128x128x64; the cost model)
// IR-LABEL: func.func @one
// IR: linalg.batch_matmul {strata.blas}
// IR: return
func.func @one(%q: tensor<12x128x64xf32>, %k: tensor<12x64x128xf32>) -> tensor<12x128x128xf32> {
  %0 = "strata.matmul"(%q, %k) : (tensor<12x128x64xf32>, tensor<12x64x128xf32>) -> tensor<12x128x128xf32>
  return %0 : tensor<12x128x128xf32>
}
