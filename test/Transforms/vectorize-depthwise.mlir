// RUN: strata-opt %s --split-input-file --strata-vectorize-depthwise=lanes=16 | FileCheck %s
// RUN: strata-opt %s --split-input-file --strata-vectorize-depthwise=lanes=8 | FileCheck %s --check-prefix=AVX2
// RUN: strata-opt %s --split-input-file --strata-vectorize-depthwise="lanes=16 threads=2 parallel-flops=1" | FileCheck %s --check-prefix=PAR
// RUN: strata-opt %s --split-input-file --strata-vectorize-depthwise="lanes=16 report=true" 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT

// NHWC depthwise conv + relu: register tiles of 4 columns x 32 channels (AVX-512: two
// vectors), the window rows a loop whose accumulator stays a vector, one FMA per window
// column, the zero init and the relu fused into the tile; no linalg op is left.
// CHECK-LABEL: func.func @dw_relu
// CHECK-SAME: (%[[X:.+]]: tensor<1x10x18x32xf32>, %[[W:.+]]: tensor<3x3x32xf32>)
// CHECK-NOT: linalg.
// CHECK: scf.for %[[OH:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: scf.for %[[OW:.+]] = %{{.+}} to %{{.+}} step %[[C4:.+]] iter_args(%[[OUT:.+]] = %{{.+}})
// CHECK: %[[ACC:.+]] = scf.for %[[KH:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[A:.+]] = %{{.+}}) -> (vector<1x4x32xf32>)
// CHECK: %[[IN:.+]] = vector.transfer_read %[[X]][%{{.+}}, %{{.+}}, %[[OW]], %{{.+}}], %{{.+}} : tensor<1x10x18x32xf32>, vector<6x32xf32>
// CHECK: %[[F:.+]] = vector.transfer_read %[[W]][%[[KH]], %{{.+}}, %{{.+}}], %{{.+}} : tensor<3x3x32xf32>, vector<3x32xf32>
// CHECK-COUNT-3: vector.fma {{.*}} : vector<4x32xf32>
// CHECK: scf.yield
// CHECK: %[[R:.+]] = vector.extract %[[ACC]][0]
// CHECK: %[[RELU:.+]] = arith.maximumf %[[R]], %{{.+}} : vector<4x32xf32>
// CHECK: vector.transfer_write %[[RELU]], %[[OUT]][%{{.+}}, %[[OH]], %[[OW]], %{{.+}}]
// CHECK-NOT: linalg.

// AVX2 (8 lanes): one vector of channels, 4 columns (live: 4 + 6 + 3 + 3 <= 16 ymm).
// AVX2-LABEL: func.func @dw_relu
// AVX2-COUNT-3: vector.fma {{.*}} : vector<4x8xf32>

// threads: output rows as an scf.forall.
// PAR-LABEL: func.func @dw_relu
// PAR: scf.forall
// PAR: vector.fma

// REPORT: remark: strata-vectorize-depthwise: linalg.depthwise_conv_2d_nhwc_hwc at {{.+}}vectorize-depthwise.mlir:{{[0-9]+}}:{{[0-9]+}} in register tiles of 4 columns x 32 channels
// REPORT: remark: strata-vectorize-depthwise: linalg.depthwise_conv_2d_nchw_chw at {{.+}}vectorize-depthwise.mlir:{{[0-9]+}}:{{[0-9]+}} in register tiles of 7 columns x 6 channels
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @dw_relu(%x: tensor<1x10x18x32xf32>, %w: tensor<3x3x32xf32>) -> tensor<1x8x16x32xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x16x32xf32>
  %i = linalg.fill ins(%cst : f32) outs(%e : tensor<1x8x16x32xf32>) -> tensor<1x8x16x32xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x10x18x32xf32>, tensor<3x3x32xf32>) outs(%i : tensor<1x8x16x32xf32>) -> tensor<1x8x16x32xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%0 : tensor<1x8x16x32xf32>) outs(%e : tensor<1x8x16x32xf32>) {
    ^bb0(%in: f32, %out: f32):
      %2 = arith.maximumf %in, %cst : f32
      linalg.yield %2 : f32
    } -> tensor<1x8x16x32xf32>
  return %1 : tensor<1x8x16x32xf32>
}

// -----

// NCHW: the input and the result transposed around the NHWC kernel (vector tiles with
// permuted transfers), the filter to [KH, KW, C], the zero init made NHWC; 6 channels (no
// multiple of the vector width) are one tile, 7 columns.
// CHECK-LABEL: func.func @dw_nchw
// CHECK-SAME: (%[[X:.+]]: tensor<1x6x9x9xf32>, %[[W:.+]]: tensor<6x3x3xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[XT:.+]] = scf.for
// CHECK: vector.transfer_read %[[X]]{{.*}} permutation_map = {{.*}} : tensor<1x6x9x9xf32>, vector<3x6xf32>
// CHECK: %[[WT:.+]] = scf.for
// CHECK: vector.transfer_read %[[W]]{{.*}} permutation_map = {{.*}} : tensor<6x3x3xf32>, vector<3x6xf32>
// CHECK: %[[Y:.+]] = scf.for
// CHECK: vector.transfer_read %[[XT]]{{.*}} : tensor<1x9x9x6xf32>, vector<9x6xf32>
// CHECK: vector.transfer_read %[[WT]]{{.*}} : tensor<3x3x6xf32>, vector<3x6xf32>
// CHECK-COUNT-3: vector.fma {{.*}} : vector<7x6xf32>
// CHECK: %[[R:.+]] = scf.for
// CHECK: vector.transfer_read %[[Y]]{{.*}} permutation_map = {{.*}} : tensor<1x7x7x6xf32>, vector<7x7xf32>
// CHECK: return %[[R]]
func.func @dw_nchw(%x: tensor<1x6x9x9xf32>, %w: tensor<6x3x3xf32>) -> tensor<1x6x7x7xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x6x7x7xf32>
  %i = linalg.fill ins(%cst : f32) outs(%e : tensor<1x6x7x7xf32>) -> tensor<1x6x7x7xf32>
  %0 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x6x9x9xf32>, tensor<6x3x3xf32>) outs(%i : tensor<1x6x7x7xf32>) -> tensor<1x6x7x7xf32>
  return %0 : tensor<1x6x7x7xf32>
}

// -----

// Left alone: dynamic shapes, bf16 operands (scalar loops, see strata-vectorize).
// CHECK-LABEL: func.func @kept
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} tensor<?x10x10x8xf32>
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} tensor<1x10x10x8xbf16>
// CHECK-NOT: vector.
func.func @kept(%x: tensor<?x10x10x8xf32>, %w: tensor<3x3x8xf32>, %o: tensor<?x8x8x8xf32>,
                %xb: tensor<1x10x10x8xbf16>, %wb: tensor<3x3x8xbf16>, %ob: tensor<1x8x8x8xf32>) -> (tensor<?x8x8x8xf32>, tensor<1x8x8x8xf32>) {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<?x10x10x8xf32>, tensor<3x3x8xf32>) outs(%o : tensor<?x8x8x8xf32>) -> tensor<?x8x8x8xf32>
  %1 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xb, %wb : tensor<1x10x10x8xbf16>, tensor<3x3x8xbf16>) outs(%ob : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %0, %1 : tensor<?x8x8x8xf32>, tensor<1x8x8x8xf32>
}
