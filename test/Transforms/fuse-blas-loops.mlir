// strata-fuse's BLAS choice leaves a matmul inside a loop (a tile of a kernel, as
// strata-attention makes) to generated code, even with blas=always: a call per tile,
// and OpenBLAS's threads nested in the loop's, would cost more than they save.
// RUN: strata-opt %s '--strata-fuse=blas=always' | FileCheck %s
// RUN: strata-opt %s '--strata-fuse=blas=always report=true' 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT

// CHECK-LABEL: func.func @tiles
// CHECK: scf.forall
// CHECK: linalg.matmul ins(
// CHECK-NOT: strata.blas
// CHECK: scf.for
// CHECK: linalg.matmul ins(
// CHECK-NOT: strata.blas
// CHECK: %[[TOP:.+]] = linalg.matmul {strata.blas}
// CHECK: return
// REPORT-NOT: BLAS sgemm for linalg.matmul at {{.*}}fuse-blas-loops.mlir:[[@LINE+14]]:
// REPORT-NOT: BLAS sgemm for linalg.matmul at {{.*}}fuse-blas-loops.mlir:[[@LINE+21]]:
// REPORT: BLAS sgemm for linalg.matmul at {{.*}}fuse-blas-loops.mlir:[[@LINE+26]]:{{[0-9]+}} (256x256x256; blas=always)
func.func @tiles(%a: tensor<4x64x64xf32>, %b: tensor<64x256xf32>, %x: tensor<256x256xf32>)
    -> (tensor<4x64x256xf32>, tensor<4x64x256xf32>, tensor<256x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<4x64x256xf32>
  %t = tensor.empty() : tensor<64x256xf32>
  %r = scf.forall (%i) in (4) shared_outs(%o = %e) -> (tensor<4x64x256xf32>) {
    %ai = tensor.extract_slice %a[%i, 0, 0] [1, 64, 64] [1, 1, 1] : tensor<4x64x64xf32> to tensor<64x64xf32>
    %z = linalg.fill ins(%zero : f32) outs(%t : tensor<64x256xf32>) -> tensor<64x256xf32>
    %m = linalg.matmul ins(%ai, %b : tensor<64x64xf32>, tensor<64x256xf32>) outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %m into %o[%i, 0, 0] [1, 64, 256] [1, 1, 1] : tensor<64x256xf32> into tensor<4x64x256xf32>
    }
  }
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%o = %e) -> (tensor<4x64x256xf32>) {
    %ai = tensor.extract_slice %a[%i, 0, 0] [1, 64, 64] [1, 1, 1] : tensor<4x64x64xf32> to tensor<64x64xf32>
    %z = linalg.fill ins(%zero : f32) outs(%t : tensor<64x256xf32>) -> tensor<64x256xf32>
    %m = linalg.matmul ins(%ai, %b : tensor<64x64xf32>, tensor<64x256xf32>) outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32>
    %n = tensor.insert_slice %m into %o[%i, 0, 0] [1, 64, 256] [1, 1, 1] : tensor<64x256xf32> into tensor<4x64x256xf32>
    scf.yield %n : tensor<4x64x256xf32>
  }
  %ex = tensor.empty() : tensor<256x256xf32>
  %zx = linalg.fill ins(%zero : f32) outs(%ex : tensor<256x256xf32>) -> tensor<256x256xf32>
  %top = linalg.matmul ins(%x, %x : tensor<256x256xf32>, tensor<256x256xf32>) outs(%zx : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r, %s, %top : tensor<4x64x256xf32>, tensor<4x64x256xf32>, tensor<256x256xf32>
}
