// strata-conv-to-matmul: convs as im2col + matmul (a reshaped view for 1x1), epilogues moved
// onto the matmul's iteration space; the cost model keeps tiny convs direct.
// RUN: strata-opt %s --split-input-file '--strata-conv-to-matmul=mode=always' | FileCheck %s
// RUN: strata-opt %s --split-input-file '--strata-conv-to-matmul=report=true' 2>&1 >/dev/null | FileCheck %s --check-prefix=REPORT
// RUN: strata-opt %s --split-input-file '--strata-conv-to-matmul=mode=never' | FileCheck %s --check-prefix=NEVER
// RUN: strata-opt %s --split-input-file --strata-conv-to-matmul | FileCheck %s --check-prefix=AUTO
// Round trip: the output parses back and verifies.
// RUN: strata-opt %s --split-input-file '--strata-conv-to-matmul=mode=always' | strata-opt --split-input-file | FileCheck %s --check-prefix=ROUNDTRIP

// NCHW, N = 1, padded, bias + relu: the padding is a linalg.copy into the slice, the
// windows are copied by one 6-D generic, the filter is only reshaped, and both
// elementwise ops run over the 8 x 100 matmul result; one expand_shape at the end.
// CHECK-DAG: #[[IM2COL:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>
// CHECK-DAG: #[[ID6:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-DAG: #[[ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[BIAS:.+]] = affine_map<(d0, d1) -> (0, d0, 0, 0)>
// CHECK-LABEL: func.func @nchw_bias_relu
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x4x10x10xf32>, %[[W:[a-z0-9]+]]: tensor<8x4x3x3xf32>, %[[B:[a-z0-9]+]]: tensor<1x8x1x1xf32>)
// CHECK-NOT: linalg.conv
// CHECK: %[[PADF:.+]] = linalg.fill {{.*}} -> tensor<1x4x12x12xf32>
// CHECK: %[[SLICE:.+]] = tensor.extract_slice %[[PADF]][0, 0, 1, 1] [1, 4, 10, 10] [1, 1, 1, 1]
// CHECK: %[[COPIED:.+]] = linalg.copy {{.*}}ins(%[[X]] : tensor<1x4x10x10xf32>) outs(%[[SLICE]]
// CHECK: %[[XP:.+]] = tensor.insert_slice %[[COPIED]] into %[[PADF]][0, 0, 1, 1]
// CHECK: %[[COL6:.+]] = linalg.generic {indexing_maps = [#[[IM2COL]], #[[ID6]]]{{.*}} ins(%[[XP]] : tensor<1x4x12x12xf32>) outs(%{{.+}} : tensor<1x4x3x3x10x10xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: %[[COL3:.+]] = tensor.collapse_shape %[[COL6]] {{\[}}[0], [1, 2, 3], [4, 5]] : tensor<1x4x3x3x10x10xf32> into tensor<1x36x100xf32>
// CHECK: %[[WM:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3]] : tensor<8x4x3x3xf32> into tensor<8x36xf32>
// CHECK: %[[COL:.+]] = tensor.collapse_shape %[[COL3]] {{\[}}[0, 1], [2]] : tensor<1x36x100xf32> into tensor<36x100xf32>
// CHECK: %[[ZERO:.+]] = linalg.fill {{.*}} -> tensor<8x100xf32>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[WM]], %[[COL]] : tensor<8x36xf32>, tensor<36x100xf32>) outs(%[[ZERO]] : tensor<8x100xf32>)
// CHECK: %[[ADD:.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[BIAS]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[MM]], %[[B]] : tensor<8x100xf32>, tensor<1x8x1x1xf32>)
// CHECK: arith.addf
// CHECK: %[[RELU:.+]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[ADD]] : tensor<8x100xf32>)
// CHECK: arith.maximumf
// CHECK: %[[OUT:.+]] = tensor.expand_shape %[[RELU]] {{\[}}[0, 1], [2, 3]] output_shape [1, 8, 10, 10] : tensor<8x100xf32> into tensor<1x8x10x10xf32>
// CHECK-NEXT: return %[[OUT]]
// REPORT: conv-to-matmul.mlir:[[@LINE+13]]:8: remark: strata-conv-to-matmul: linalg.conv_2d_nchw_fchw at {{.*}}conv-to-matmul.mlir:[[@LINE+13]]:8 as an im2col copy of 0.0137 MiB + 8x100x36 matmul (NCHW 1x4x12x12 -> 1x8x10x10, 3x3; the cost model): predicted {{[0-9.]+}} us (copy {{[0-9.]+}} us + generated matmul {{[0-9.]+}} us), direct {{[0-9.]+}} us
// NEVER-LABEL: func.func @nchw_bias_relu
// NEVER: linalg.conv_2d_nchw_fchw
// NEVER-NOT: linalg.matmul
// ROUNDTRIP-LABEL: func.func @nchw_bias_relu
// ROUNDTRIP: linalg.matmul
func.func @nchw_bias_relu(%x: tensor<1x4x10x10xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<1x8x1x1xf32>) -> tensor<1x8x10x10xf32> {
  %zero = arith.constant 0.0 : f32
  %pe = tensor.empty() : tensor<1x4x12x12xf32>
  %pf = linalg.fill ins(%zero : f32) outs(%pe : tensor<1x4x12x12xf32>) -> tensor<1x4x12x12xf32>
  %xp = tensor.insert_slice %x into %pf[0, 0, 1, 1] [1, 4, 10, 10] [1, 1, 1, 1] : tensor<1x4x10x10xf32> into tensor<1x4x12x12xf32>
  %e = tensor.empty() : tensor<1x8x10x10xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x10x10xf32>) -> tensor<1x8x10x10xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xp, %w : tensor<1x4x12x12xf32>, tensor<8x4x3x3xf32>) outs(%f : tensor<1x8x10x10xf32>) -> tensor<1x8x10x10xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b : tensor<1x8x10x10xf32>, tensor<1x8x1x1xf32>) outs(%e : tensor<1x8x10x10xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %s = arith.addf %in, %in_0 : f32
    linalg.yield %s : f32
  } -> tensor<1x8x10x10xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<1x8x10x10xf32>) outs(%e : tensor<1x8x10x10xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x10x10xf32>
  return %r : tensor<1x8x10x10xf32>
}

// -----

// NCHW, N = 2, stride 2, dilation 2 x 1: a batch_matmul whose filter has no batch dim.
// CHECK-DAG: #[[STRIDED:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2 * 2, d5 * 2 + d3)>
// CHECK-DAG: #[[LHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-DAG: #[[RHS:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[OUT3:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @nchw_batch_strided
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x3x11x9xf32>, %[[W:[a-z0-9]+]]: tensor<5x3x3x3xf32>)
// CHECK: %[[COL6:.+]] = linalg.generic {indexing_maps = [#[[STRIDED]], {{.+}}]{{.*}} ins(%[[X]] : tensor<2x3x11x9xf32>) outs(%{{.+}} : tensor<2x3x3x3x4x3xf32>)
// CHECK: %[[COL:.+]] = tensor.collapse_shape %[[COL6]] {{\[}}[0], [1, 2, 3], [4, 5]] : tensor<2x3x3x3x4x3xf32> into tensor<2x27x12xf32>
// CHECK: %[[WM:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3]] : tensor<5x3x3x3xf32> into tensor<5x27xf32>
// CHECK: %[[MM:.+]] = linalg.batch_matmul indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT3]]] ins(%[[WM]], %[[COL]] : tensor<5x27xf32>, tensor<2x27x12xf32>) outs(%{{.+}} : tensor<2x5x12xf32>)
// CHECK: %[[OUT:.+]] = tensor.expand_shape %[[MM]] {{\[}}[0], [1], [2, 3]] output_shape [2, 5, 4, 3]
// CHECK: return %[[OUT]]
// REPORT: remark: strata-conv-to-matmul: kept linalg.conv_2d_nchw_fchw at {{.*}}conv-to-matmul.mlir:[[@LINE+5]]:8 direct (NCHW 2x3x11x9 -> 2x5x4x3, 3x3, stride 2x2, dilation 2x1; the cost model): predicted
func.func @nchw_batch_strided(%x: tensor<2x3x11x9xf32>, %w: tensor<5x3x3x3xf32>) -> tensor<2x5x4x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x5x4x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x5x4x3xf32>) -> tensor<2x5x4x3xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<2x3x11x9xf32>, tensor<5x3x3x3xf32>) outs(%f : tensor<2x5x4x3xf32>) -> tensor<2x5x4x3xf32>
  return %c : tensor<2x5x4x3xf32>
}

// -----

// NHWC: col[N*OH*OW, KH*KW*C] @ W[KH*KW*C, F]; the HWCF filter is already that matrix.
// CHECK-DAG: #[[WIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d3, d2 + d4, d5)>
// CHECK-LABEL: func.func @nhwc
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<2x9x9x3xf32>, %[[W:[a-z0-9]+]]: tensor<3x3x3x6xf32>)
// CHECK: %[[COL6:.+]] = linalg.generic {indexing_maps = [#[[WIN]], {{.+}}]{{.*}} ins(%[[X]] : tensor<2x9x9x3xf32>) outs(%{{.+}} : tensor<2x7x7x3x3x3xf32>)
// CHECK: %[[COL:.+]] = tensor.collapse_shape %[[COL6]] {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<2x7x7x3x3x3xf32> into tensor<98x27xf32>
// CHECK: %[[WM:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1, 2], [3]] : tensor<3x3x3x6xf32> into tensor<27x6xf32>
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[COL]], %[[WM]] : tensor<98x27xf32>, tensor<27x6xf32>)
// CHECK: %[[OUT:.+]] = tensor.expand_shape %[[MM]] {{\[}}[0, 1, 2], [3]] output_shape [2, 7, 7, 6]
// CHECK: return %[[OUT]]
// REPORT: remark: strata-conv-to-matmul: linalg.conv_2d_nhwc_hwcf at {{.*}}conv-to-matmul.mlir:[[@LINE+5]]:8 as an im2col copy of {{.+}} MiB + 98x6x27 matmul (NHWC 2x9x9x3 -> 2x7x7x6, 3x3; the cost model)
func.func @nhwc(%x: tensor<2x9x9x3xf32>, %w: tensor<3x3x3x6xf32>) -> tensor<2x7x7x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x7x7x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x7x7x6xf32>) -> tensor<2x7x7x6xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x9x9x3xf32>, tensor<3x3x3x6xf32>) outs(%f : tensor<2x7x7x6xf32>) -> tensor<2x7x7x6xf32>
  return %c : tensor<2x7x7x6xf32>
}

// -----

// 1x1, stride 1: no copy at all, the input reshaped is the matrix.
// CHECK-LABEL: func.func @pointwise
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x16x7x7xf32>, %[[W:[a-z0-9]+]]: tensor<32x16x1x1xf32>)
// CHECK-NOT: linalg.generic
// CHECK: %[[X3:.+]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1], [2, 3]] : tensor<1x16x7x7xf32> into tensor<1x16x49xf32>
// CHECK: %[[WM:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3]] : tensor<32x16x1x1xf32> into tensor<32x16xf32>
// CHECK: %[[XM:.+]] = tensor.collapse_shape %[[X3]] {{\[}}[0, 1], [2]] : tensor<1x16x49xf32> into tensor<16x49xf32>
// CHECK-NOT: linalg.generic
// CHECK: %[[MM:.+]] = linalg.matmul ins(%[[WM]], %[[XM]] : tensor<32x16xf32>, tensor<16x49xf32>)
// CHECK: tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2, 3]] output_shape [1, 32, 7, 7]
// REPORT: remark: strata-conv-to-matmul: linalg.conv_2d_nchw_fchw at {{.*}}conv-to-matmul.mlir:[[@LINE+5]]:8 as a reshaped view + 32x49x16 matmul (NCHW 1x16x7x7 -> 1x32x7x7, 1x1; the cost model)
func.func @pointwise(%x: tensor<1x16x7x7xf32>, %w: tensor<32x16x1x1xf32>) -> tensor<1x32x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x7x7xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x7x7xf32>, tensor<32x16x1x1xf32>) outs(%f : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %c : tensor<1x32x7x7xf32>
}

// -----

// f16: widened to f32 while copied (and the filter once), so the matmul is f32.
// CHECK-LABEL: func.func @half
// CHECK: %[[COL6:.+]] = linalg.generic {{.*}} ins(%{{.+}} : tensor<1x4x6x6xf16>) outs(%{{.+}} : tensor<1x4x3x3x4x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f16, %{{.+}}: f32):
// CHECK-NEXT: %[[WIDE:.+]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT: linalg.yield %[[WIDE]] : f32
// CHECK: %[[WM:.+]] = linalg.generic {{.*}} ins(%{{.+}} : tensor<8x36xf16>) outs(%{{.+}} : tensor<8x36xf32>)
// CHECK: arith.extf
// CHECK: linalg.matmul ins(%[[WM]], %{{.+}} : tensor<8x36xf32>, tensor<36x16xf32>) outs(%{{.+}} : tensor<8x16xf32>)
// REPORT: remark: strata-conv-to-matmul: kept linalg.conv_2d_nchw_fchw at {{.*}}conv-to-matmul.mlir:[[@LINE+5]]:8 direct (NCHW 1x4x6x6 -> 1x8x4x4, 3x3; the cost model)
func.func @half(%x: tensor<1x4x6x6xf16>, %w: tensor<8x4x3x3xf16>) -> tensor<1x8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x6x6xf16>, tensor<8x4x3x3xf16>) outs(%f : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %c : tensor<1x8x4x4xf32>
}

// -----

// Dynamic shapes stay direct, even with mode=always.
// CHECK-LABEL: func.func @dynamic
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.matmul
// REPORT: remark: strata-conv-to-matmul: kept linalg.conv_2d_nchw_fchw at {{.*}}conv-to-matmul.mlir:[[@LINE+2]]:8 direct: dynamic shapes, an integer type or an empty tensor
func.func @dynamic(%x: tensor<?x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %o: tensor<?x8x4x4xf32>) -> tensor<?x8x4x4xf32> {
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<?x4x6x6xf32>, tensor<8x4x3x3xf32>) outs(%o : tensor<?x8x4x4xf32>) -> tensor<?x8x4x4xf32>
  return %c : tensor<?x8x4x4xf32>
}

// -----

// Rows of whole vectors (OW = 32, a multiple of 8 and 16 lanes), an even number of input
// channels: strata-vectorize runs it direct in register tiles (passes/direct_conv.py),
// predicted as fast as the generated matmul without the im2col copy, so it stays a conv;
// its zero padding becomes a linalg.copy into the padded buffer (not a strided
// memref.copy once bufferized). mode=always still makes it a matmul.
// CHECK-LABEL: func.func @vector_rows
// CHECK: linalg.batch_matmul
// AUTO-LABEL: func.func @vector_rows
// AUTO-SAME: (%[[X:[a-z0-9]+]]: tensor<2x8x16x32xf32>, %[[W:[a-z0-9]+]]: tensor<16x8x3x3xf32>)
// AUTO: %[[PADF:.+]] = linalg.fill {{.*}} -> tensor<2x8x18x34xf32>
// AUTO: %[[SLICE:.+]] = tensor.extract_slice %[[PADF]][0, 0, 1, 1] [2, 8, 16, 32] [1, 1, 1, 1]
// AUTO: %[[COPIED:.+]] = linalg.copy {{.*}}ins(%[[X]] : tensor<2x8x16x32xf32>) outs(%[[SLICE]]
// AUTO: %[[XP:.+]] = tensor.insert_slice %[[COPIED]] into %[[PADF]][0, 0, 1, 1]
// AUTO: linalg.conv_2d_nchw_fchw {{.*}} ins(%[[XP]], %[[W]] : tensor<2x8x18x34xf32>, tensor<16x8x3x3xf32>)
// AUTO-NOT: linalg.batch_matmul
// AUTO: return
// REPORT: remark: strata-conv-to-matmul: kept linalg.conv_2d_nchw_fchw at {{.*}}conv-to-matmul.mlir:[[@LINE+8]]:8 direct (NCHW 2x8x18x34 -> 2x16x16x32, 3x3; the cost model): predicted {{[0-9.]+}} {{u|m}}s (copy {{[0-9.]+}} us + generated matmul {{[0-9.]+}} {{u|m}}s), direct in register tiles {{[0-9.]+}} {{u|m}}s
func.func @vector_rows(%x: tensor<2x8x16x32xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<2x16x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %pe = tensor.empty() : tensor<2x8x18x34xf32>
  %pf = linalg.fill ins(%zero : f32) outs(%pe : tensor<2x8x18x34xf32>) -> tensor<2x8x18x34xf32>
  %xp = tensor.insert_slice %x into %pf[0, 0, 1, 1] [2, 8, 16, 32] [1, 1, 1, 1] : tensor<2x8x16x32xf32> into tensor<2x8x18x34xf32>
  %e = tensor.empty() : tensor<2x16x16x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x16x16x32xf32>) -> tensor<2x16x16x32xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xp, %w : tensor<2x8x18x34xf32>, tensor<16x8x3x3xf32>) outs(%f : tensor<2x16x16x32xf32>) -> tensor<2x16x16x32xf32>
  return %c : tensor<2x16x16x32xf32>
}

// -----

// Windows that tile the input (kernel = stride, no padding: a ViT patch embedding): the
// im2col matrix is the input seen as patches and transposed, one linalg.transpose of an
// expand_shape view, not the window-copy generic (which strata-fuse would copy per tile).
// CHECK-LABEL: func.func @patches
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<1x3x32x48xf32>, %[[W:[a-z0-9]+]]: tensor<8x3x16x16xf32>)
// CHECK-NOT: strata.im2col
// CHECK: %[[V:.+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1], [2, 3], [4, 5]] output_shape [1, 3, 2, 16, 3, 16] : tensor<1x3x32x48xf32> into tensor<1x3x2x16x3x16xf32>
// CHECK: %[[T:.+]] = linalg.transpose ins(%[[V]] : tensor<1x3x2x16x3x16xf32>) outs(%{{.+}} : tensor<1x3x16x16x2x3xf32>) permutation = [0, 1, 3, 5, 2, 4]
// CHECK: %[[COL:.+]] = tensor.collapse_shape %[[T]]
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x768xf32>, tensor<768x6xf32>)
// CHECK-NOT: linalg.conv_2d
// CHECK: return
func.func @patches(%x: tensor<1x3x32x48xf32>, %w: tensor<8x3x16x16xf32>) -> tensor<1x8x2x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x2x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x2x3xf32>) -> tensor<1x8x2x3xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<16> : tensor<2xi64>} ins(%x, %w : tensor<1x3x32x48xf32>, tensor<8x3x16x16xf32>) outs(%f : tensor<1x8x2x3xf32>) -> tensor<1x8x2x3xf32>
  return %c : tensor<1x8x2x3xf32>
}
