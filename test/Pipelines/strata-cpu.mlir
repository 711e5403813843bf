// strata-cpu end to end: strata in, LLVM dialect out (nothing else).
// RUN: strata-opt %s --strata-cpu | FileCheck %s --implicit-check-not=strata. --implicit-check-not=tensor --implicit-check-not=memref --implicit-check-not=linalg --implicit-check-not=scf. --implicit-check-not=arith. --implicit-check-not=math. --implicit-check-not=' vector.' --implicit-check-not=cf. --implicit-check-not=func. --implicit-check-not=affine. --implicit-check-not=ub. --implicit-check-not=bufferization --implicit-check-not=unrealized_conversion_cast
// The same with fusion off, as a textual pipeline with options.
// RUN: strata-opt %s --pass-pipeline='builtin.module(strata-cpu{fusion=false})' | FileCheck %s --implicit-check-not=strata. --implicit-check-not=tensor --implicit-check-not=memref --implicit-check-not=linalg --implicit-check-not=scf. --implicit-check-not=arith. --implicit-check-not=math. --implicit-check-not=' vector.' --implicit-check-not=cf. --implicit-check-not=func. --implicit-check-not=affine. --implicit-check-not=ub. --implicit-check-not=bufferization --implicit-check-not=unrealized_conversion_cast
// An IR dump after every pass, each level ending with its contract check.
// RUN: strata-opt %s --strata-cpu --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// With fusion off (and blas=never) no strata-fuse runs at all; with blas=auto one runs that only
// chooses between generated code and BLAS calls, fusing nothing.
// RUN: strata-opt %s --pass-pipeline='builtin.module(strata-cpu{fusion=false blas=never})' --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFUSE
// RUN: strata-opt %s --pass-pipeline='builtin.module(strata-cpu{fusion=false})' --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFUSE-BLAS

// The softmax is a row kernel writing in place into the result: no temporary, no
// workspace, no malloc, no free.
// CHECK-NOT: llvm.func @malloc
// CHECK-LABEL: llvm.func @mlp(
// CHECK-SAME: %{{.+}}: !llvm.ptr
// CHECK-NOT: strata.workspace
// CHECK-NOT: llvm.call @malloc
// CHECK-DAG: llvm.fmul
// CHECK-DAG: llvm.fadd
// CHECK-NOT: llvm.call @free
// CHECK: llvm.return
// CHECK-NOT: llvm.func

// DUMP: IR Dump After StrataVerify (strata-verify)
// DUMP: IR Dump After StrataCanonicalize (strata-canonicalize)
// DUMP: IR Dump After StrataCheckLevel (strata-check-level)
// DUMP-NEXT: module {
// DUMP: "strata.matmul"
// DUMP: IR Dump After StrataToLinalg (strata-to-linalg)
// DUMP: IR Dump After StrataCheckLevel (strata-check-level)
// DUMP-NOT: strata.
// DUMP: linalg.matmul
// DUMP: IR Dump After StrataFuse (strata-fuse)
// DUMP: IR Dump After StrataCheckLevel (strata-check-level)
// DUMP-NOT: linalg.softmax
// DUMP: IR Dump After StrataLayout (strata-layout)
// DUMP: IR Dump After StrataCheckLevel (strata-check-level)
// DUMP: IR Dump After OneShotBufferizePass (one-shot-bufferize)
// DUMP: IR Dump After BufferResultsToOutParamsPass (buffer-results-to-out-params)
// DUMP: IR Dump After OwnershipBasedBufferDeallocationPass (ownership-based-buffer-deallocation)
// DUMP: IR Dump After StrataWorkspace (strata-workspace)
// DUMP: IR Dump After StrataCheckLevel (strata-check-level)
// DUMP-NOT: tensor<
// DUMP: func.func @mlp(%{{.+}}: memref<4x8xf32>, %{{.+}}: memref<8x16xf32>, %{{.+}}: memref<16xf32>, %{{.+}}: memref<4x16xf32>)
// DUMP: IR Dump After ConvertFuncToLLVMPass (convert-func-to-llvm)
// DUMP: IR Dump After ReconcileUnrealizedCastsPass (reconcile-unrealized-casts)
// DUMP: IR Dump After StrataCheckLevel (strata-check-level)
// DUMP-NEXT: module {
// DUMP: llvm.func @mlp(
// DUMP-NOT: IR Dump

// NOFUSE: IR Dump After StrataToLinalg (strata-to-linalg)
// NOFUSE: IR Dump After StrataCheckLevel (strata-check-level)
// NOFUSE-NOT: strata-fuse
// NOFUSE: IR Dump After StrataDecompose (strata-decompose)
// NOFUSE-NOT: strata-fuse
// NOFUSE: IR Dump After StrataCheckLevel (strata-check-level)
// NOFUSE-NOT: strata-fuse
// NOFUSE: IR Dump After StrataLowerVectors (strata-lower-vectors)
// NOFUSE: IR Dump After StrataCheckLevel (strata-check-level)
// NOFUSE-BLAS: IR Dump After StrataDecompose (strata-decompose)
// NOFUSE-BLAS: IR Dump After StrataFuse (strata-fuse)
// NOFUSE-BLAS-COUNT-3: linalg.generic
// NOFUSE-BLAS: IR Dump After StrataCheckLevel (strata-check-level)
// NOFUSE-BLAS-NOT: strata-fuse
// NOFUSE-BLAS: IR Dump After StrataLowerVectors (strata-lower-vectors)
func.func @mlp(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = "strata.matmul"(%x, %w) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = "strata.add"(%0, %b) : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = "strata.relu"(%1) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %3 = "strata.softmax"(%2) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %3 : tensor<4x16xf32>
}
