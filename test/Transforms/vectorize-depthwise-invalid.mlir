// RUN: strata-opt %s --split-input-file --strata-vectorize-depthwise --verify-diagnostics

// strata-vectorize-depthwise works on tensors, before bufferization.
func.func @memrefs(%x: memref<1x10x10x8xf32>, %w: memref<3x3x8xf32>, %o: memref<1x8x8x8xf32>) {
  // expected-error@+1 {{strata-vectorize-depthwise: linalg.depthwise_conv_2d_nhwc_hwc has memref operands: run strata-vectorize-depthwise before bufferization}}
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x10x10x8xf32>, memref<3x3x8xf32>) outs(%o : memref<1x8x8x8xf32>)
  return
}
