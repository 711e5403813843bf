// RUN: strata-opt %s '--strata-fuse=blas=auto tuned=1x256x384x512xf32:blas1.pm64' | FileCheck %s --check-prefix=BLAS
// RUN: strata-opt %s '--strata-fuse=blas=auto tuned=1x256x384x512xf32:blas0,1x7x4096x4096xf32:blas0' | FileCheck %s --check-prefix=GEN
// RUN: strata-opt %s '--strata-fuse=blas=never tuned=1x256x384x512xf32:blas1' | FileCheck %s --check-prefix=NEVER

// strata-fuse reads the `blas` knob of the tuned text (passes/tuning.py): with
// blas=auto, blas1 makes the matmul of that signature a BLAS call and blas0
// generated code, whatever the cost model predicts; other knobs (pm64) are
// strata-vectorize's; other signatures keep the cost model's choice; with
// blas=never the knob does nothing (no BLAS calls at all).

// BLAS-LABEL: func.func @mm
// BLAS: linalg.matmul {strata.blas} ins(%{{.+}}, %{{.+}} : tensor<256x512xf32>, tensor<512x384xf32>)
// BLAS: return
// GEN-LABEL: func.func @mm
// GEN-NOT: strata.blas
// GEN: return
// NEVER-LABEL: func.func @mm
// NEVER-NOT: strata.blas
// NEVER: return
func.func @mm(%a: tensor<256x512xf32>, %b: tensor<512x384xf32>) -> tensor<256x384xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x384xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<256x512xf32>, tensor<512x384xf32>) outs(%c : tensor<256x384xf32>) -> tensor<256x384xf32>
  return %0 : tensor<256x384xf32>
}
