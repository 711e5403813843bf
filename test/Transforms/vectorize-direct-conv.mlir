// RUN: strata-opt %s --split-input-file --strata-vectorize="lanes=16" --loop-invariant-subset-hoisting --canonicalize --cse | FileCheck %s
// RUN: strata-opt %s --split-input-file --strata-vectorize="lanes=8" --loop-invariant-subset-hoisting --canonicalize --cse | FileCheck %s --check-prefix=AVX2
// RUN: strata-opt %s --split-input-file --strata-vectorize="lanes=16 threads=2" | FileCheck %s --check-prefix=PAR

// An NCHW conv of whole vector rows (passes/direct_conv.py): register tiles of 8 output
// channels x 32 pixels of a row (4 x 16 with 8 lanes), two input channels per step
// reading the input at the window's shift, the accumulator carried in registers
// through the input-channel, kh and kw loops; no linalg.conv is left.
// CHECK-LABEL: func.func @tile
// CHECK-SAME: (%[[X:.+]]: tensor<1x64x6x34xf32>, %[[W:.+]]: tensor<64x64x3x3xf32>, %[[O:.+]]: tensor<1x64x4x32xf32>)
// CHECK-NOT: linalg.conv
// CHECK: scf.for %[[F:.+]] = %{{.+}} to %{{.+}} step %c8
// CHECK: scf.for %[[OH:.+]] = %{{.+}} to %c4 step %c1
// CHECK: %[[A0:.+]] = vector.transfer_read {{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK: scf.for %[[C:.+]] = %{{.+}} to %c64 step %c2 iter_args(%{{.+}} = %[[A0]]) -> (vector<8x32xf32>)
// CHECK: scf.for %[[KH:.+]] = %{{.+}} to %c3 step %c1 iter_args
// CHECK: scf.for %[[KW:.+]] = %{{.+}} to %c3 step %c1 iter_args(%[[ACC:.+]] = %{{.+}}) -> (vector<8x32xf32>)
// CHECK: %[[ROW:.+]] = affine.apply #{{.+}}(%[[OH]], %[[KH]])
// CHECK: tensor.extract_slice %[[W]][%[[F]], %[[C]], %[[KH]], %[[KW]]] [8, 2, 1, 1]
// CHECK: tensor.extract_slice %[[X]][0, %[[C]], %[[ROW]], %[[KW]]] [1, 2, 1, 32]
// CHECK: %[[WV:.+]] = vector.transfer_read {{.*}} : tensor<8x2xf32>, vector<8x2xf32>
// CHECK: %[[XV:.+]] = vector.transfer_read {{.*}} : tensor<2x32xf32>, vector<2x32xf32>
// CHECK: vector.contract {{.*}} %[[WV]], %[[XV]], %[[ACC]] : vector<8x2xf32>, vector<2x32xf32> into vector<8x32xf32>
// CHECK-NOT: linalg.conv
// AVX2-LABEL: func.func @tile
// AVX2-NOT: linalg.conv
// AVX2: vector.contract {{.*}} : vector<4x2xf32>, vector<2x16xf32> into vector<4x16xf32>
// AVX2-NOT: linalg.conv
// AVX2: return
func.func @tile(%x: tensor<1x64x6x34xf32>, %w: tensor<64x64x3x3xf32>, %o: tensor<1x64x4x32xf32>) -> tensor<1x64x4x32xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x64x6x34xf32>, tensor<64x64x3x3xf32>) outs(%o : tensor<1x64x4x32xf32>) -> tensor<1x64x4x32xf32>
  return %r : tensor<1x64x4x32xf32>
}

// -----

// Stride 2 in height, dilation 2: a row of the tile reads input row 2 * oh + 2 * kh;
// 16-pixel rows with 20 output channels: 4 x 16 tiles (16 and 8 do not divide 20).
// CHECK-LABEL: func.func @strided_rows
// CHECK: affine.apply #[[$M:.+]](%{{.+}}, %{{.+}})
// CHECK: vector.contract {{.*}} : vector<4x2xf32>, vector<2x16xf32> into vector<4x16xf32>
// CHECK-NOT: linalg.conv
func.func @strided_rows(%x: tensor<1x6x9x20xf32>, %w: tensor<20x6x3x3xf32>, %o: tensor<1x20x3x16xf32>) -> tensor<1x20x3x16xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<2> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%x, %w : tensor<1x6x9x20xf32>, tensor<20x6x3x3xf32>) outs(%o : tensor<1x20x3x16xf32>) -> tensor<1x20x3x16xf32>
  return %r : tensor<1x20x3x16xf32>
}

// -----

// Rows of 56 pixels: three column pieces of whole register tiles, 32 + 16 + 8 (widths of
// two vectors, one, half of one: power-of-two vectors), each on its own slice of the
// input and of the output, inserted back; 16 rows of accumulators for the narrower ones.
// CHECK-LABEL: func.func @pieces
// CHECK-NOT: linalg.conv
// CHECK: tensor.extract_slice %{{.+}}[0, 0, 0, 0] [1, 16, 4, 34] [1, 1, 1, 1]
// CHECK: vector.contract {{.*}} : vector<8x2xf32>, vector<2x32xf32> into vector<8x32xf32>
// CHECK: tensor.extract_slice %{{.+}}[0, 0, 0, 32] [1, 16, 4, 18] [1, 1, 1, 1]
// CHECK: vector.contract {{.*}} : vector<16x2xf32>, vector<2x16xf32> into vector<16x16xf32>
// CHECK: tensor.extract_slice %{{.+}}[0, 0, 0, 48] [1, 16, 4, 10] [1, 1, 1, 1]
// CHECK: vector.contract {{.*}} : vector<16x2xf32>, vector<2x8xf32> into vector<16x8xf32>
// CHECK-NOT: linalg.conv
// CHECK: return
func.func @pieces(%x: tensor<1x16x4x58xf32>, %w: tensor<16x16x3x3xf32>, %o: tensor<1x16x2x56xf32>) -> tensor<1x16x2x56xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x4x58xf32>, tensor<16x16x3x3xf32>) outs(%o : tensor<1x16x2x56xf32>) -> tensor<1x16x2x56xf32>
  return %r : tensor<1x16x2x56xf32>
}

// -----

// Not run this way (left to the loops LLVM makes of linalg.conv): rows of 30 pixels (16 + 8
// leave 6),
// width stride 2, an odd number of input channels, f16.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-4: linalg.conv_2d_nchw_fchw
// CHECK-NOT: vector.contract
// CHECK: return
func.func @kept(%x: tensor<1x8x6x32xf32>, %w: tensor<8x8x3x3xf32>, %o: tensor<1x8x4x30xf32>,
                %x2: tensor<1x8x6x34xf32>, %o2: tensor<1x8x4x16xf32>,
                %x3: tensor<1x3x6x34xf32>, %w3: tensor<8x3x3x3xf32>, %o3: tensor<1x8x4x32xf32>,
                %x4: tensor<1x8x6x34xf16>, %w4: tensor<8x8x3x3xf16>) -> (tensor<1x8x4x30xf32>, tensor<1x8x4x16xf32>, tensor<1x8x4x32xf32>, tensor<1x8x4x32xf32>) {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x6x32xf32>, tensor<8x8x3x3xf32>) outs(%o : tensor<1x8x4x30xf32>) -> tensor<1x8x4x30xf32>
  %r2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} ins(%x2, %w : tensor<1x8x6x34xf32>, tensor<8x8x3x3xf32>) outs(%o2 : tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32>
  %r3 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x3, %w3 : tensor<1x3x6x34xf32>, tensor<8x3x3x3xf32>) outs(%o3 : tensor<1x8x4x32xf32>) -> tensor<1x8x4x32xf32>
  %r4 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x4, %w4 : tensor<1x8x6x34xf16>, tensor<8x8x3x3xf16>) outs(%o3 : tensor<1x8x4x32xf32>) -> tensor<1x8x4x32xf32>
  return %r, %r2, %r3, %r4 : tensor<1x8x4x30xf32>, tensor<1x8x4x16xf32>, tensor<1x8x4x32xf32>, tensor<1x8x4x32xf32>
}

// -----

// With threads, a conv that strata-fuse did not tile (no epilogue) of at least
// parallel-flops gets its (image, 4-row) tiles as an scf.forall, each in register tiles.
// PAR-LABEL: func.func @whole
// PAR: scf.forall (%{{.+}}, %{{.+}}) in (4, 8)
// PAR: vector.contract {{.*}} : vector<8x2xf32>, vector<2x32xf32> into vector<8x32xf32>
// PAR: scf.forall.in_parallel
// PAR-NOT: linalg.conv
func.func @whole(%x: tensor<4x64x34x34xf32>, %w: tensor<64x64x3x3xf32>, %o: tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<4x64x34x34xf32>, tensor<64x64x3x3xf32>) outs(%o : tensor<4x64x32x32xf32>) -> tensor<4x64x32x32xf32>
  return %r : tensor<4x64x32x32xf32>
}
