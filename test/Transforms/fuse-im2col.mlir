// strata-fuse: a conv's im2col matrix read by a matmul tiled with its epilogue is not
// materialized: each output tile (whole rows of output pixels) copies its own input
// windows inside the tile loop (passes/fusion/im2col.py). Input: strata-conv-to-matmul's
// output (NCHW and NHWC, mode=always), bias + relu as the epilogue.
// RUN: strata-opt %s --pass-pipeline='builtin.module(strata-fuse{threads=2 im2col-parallel-flops=1})' | FileCheck %s --check-prefix=PAR
// RUN: strata-opt %s --pass-pipeline='builtin.module(strata-fuse)' | FileCheck %s --check-prefix=SER
// RUN: strata-opt %s --pass-pipeline='builtin.module(strata-fuse{threads=2 im2col-parallel-flops=1 report=true})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// PAR-DAG: #[[ROWS12:.*]] = affine_map<(d0) -> (d0 floordiv 12)>
// PAR-DAG: #[[ROWS6S2:.*]] = affine_map<(d0) -> ((d0 floordiv 6) * 2)>
// A module whose tiles copy their own windows asks for LLVM -O2 at most (-O3 took 7 s on
// such copies, for no faster code).
// SER: module attributes {strata.max_opt_level = 2 : i64}

#one = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>
#one1 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#one2 = affine_map<(d0, d1) -> (d0, d1)>
#one3 = affine_map<(d0, d1) -> (0, d0, 0, 0)>
#two = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2, d5 * 2 + d3)>
#two1 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#two2 = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#two3 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#two4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#two5 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#two6 = affine_map<(d0, d1, d2) -> (0, d1, 0, 0)>
#three = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d3, d2 + d4, d5)>
#three1 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#three2 = affine_map<(d0, d1) -> (d0, d1)>
#three3 = affine_map<(d0, d1) -> (0, 0, 0, d1)>
module {
// 144 output pixels, 12 per row: 2 tiles of 6 rows; a tile reads 8 padded rows.
// PAR-LABEL: func.func @rows_of_one_image
// PAR-NOT: tensor<1x4x3x3x12x12xf32>
// PAR: scf.forall (%{{.*}}, %{{.*}}) in (1, 2)
// PAR: %[[ROW:.*]] = affine.apply #[[ROWS12]](%{{.*}})
// PAR: %[[WIN:.*]] = tensor.extract_slice %inserted_slice[0, 0, %[[ROW]], 0] [1, 4, 8, 14] [1, 1, 1, 1]
// PAR: %[[TILE:.*]] = tensor.empty() : tensor<1x4x3x3x6x12xf32>
// PAR: %[[SRC:.*]] = tensor.extract_slice %[[WIN]][0, 0, 0, 0] [1, 4, 6, 12] [1, 1, 1, 1]
// PAR: %[[DST:.*]] = tensor.extract_slice %[[TILE]][0, 0, 0, 0, 0, 0] [1, 4, 1, 1, 6, 12]
// PAR: %[[PART:.*]] = linalg.copy {{.*}}strata.im2col_part{{.*}} ins(%[[SRC]] : tensor<1x4x6x12xf32>) outs(%[[DST]] : tensor<1x4x6x12xf32>)
// PAR: tensor.insert_slice %[[PART]] into %[[TILE]][0, 0, 0, 0, 0, 0] [1, 4, 1, 1, 6, 12]
// PAR: tensor.extract_slice %[[WIN]][0, 0, 2, 2] [1, 4, 6, 12] [1, 1, 1, 1]
// PAR: %[[LAST:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 2, 2, 0, 0] [1, 4, 1, 1, 6, 12]
// PAR: %[[B:.*]] = tensor.collapse_shape %[[LAST]] {{\[\[}}0, 1, 2, 3], [4, 5]] : tensor<1x4x3x3x6x12xf32> into tensor<36x72xf32>
// PAR: linalg.matmul ins(%{{.*}}, %[[B]] : tensor<8x36xf32>, tensor<36x72xf32>)
// PAR-NOT: tensor<1x4x3x3x12x12xf32>
// PAR: return
// SER-LABEL: func.func @rows_of_one_image
// SER: scf.for
// SER: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// SER: %[[ROW:.*]] = affine.apply #{{.*}}(%[[J]])
// SER: %[[WIN:.*]] = tensor.extract_slice %inserted_slice[0, 0, %[[ROW]], 0] [1, 4, 8, 14] [1, 1, 1, 1]
// SER: tensor.extract_slice %[[WIN]][0, 0, 0, 0] [1, 4, 6, 12] [1, 1, 1, 1]
// SER: linalg.copy {{.*}}strata.im2col_part
// SER: %[[LAST:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 2, 2, 0, 0] [1, 4, 1, 1, 6, 12]
// SER: %[[B:.*]] = tensor.collapse_shape %[[LAST]] {{.*}} into tensor<36x72xf32>
// SER-NOT: strata.im2col_part
// SER: linalg.matmul ins(%{{.*}}, %[[B]] : tensor<8x36xf32>, tensor<36x72xf32>)
// REPORT: remark: strata-fuse: tiled linalg.matmul at {{.*}} by [8, 72]: it has no elementwise epilogue, and its tiles copy their own im2col windows
// REPORT: remark: strata-fuse: each output tile copies its own im2col windows (1x4x3x3x6x12) while they stay in cache; the 1x4x3x3x12x12 matrix is not materialized
  func.func @rows_of_one_image(%arg0: tensor<1x4x12x12xf32>, %arg1: tensor<8x4x3x3xf32>, %arg2: tensor<1x8x1x1xf32>) -> tensor<1x8x12x12xf32> attributes {llvm.emit_c_interface} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x4x14x14xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x4x14x14xf32>) -> tensor<1x4x14x14xf32>
    %extracted_slice = tensor.extract_slice %1[0, 0, 1, 1] [1, 4, 12, 12] [1, 1, 1, 1] : tensor<1x4x14x14xf32> to tensor<1x4x12x12xf32>
    %2 = linalg.copy {cast = #linalg.type_fn<cast_signed>} ins(%arg0 : tensor<1x4x12x12xf32>) outs(%extracted_slice : tensor<1x4x12x12xf32>) -> tensor<1x4x12x12xf32>
    %inserted_slice = tensor.insert_slice %2 into %1[0, 0, 1, 1] [1, 4, 12, 12] [1, 1, 1, 1] : tensor<1x4x12x12xf32> into tensor<1x4x14x14xf32>
    %3 = tensor.empty() : tensor<1x4x3x3x12x12xf32>
    %4 = linalg.generic {indexing_maps = [#one, #one1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%inserted_slice : tensor<1x4x14x14xf32>) outs(%3 : tensor<1x4x3x3x12x12xf32>) attrs =  {strata.im2col = array<i64: 1, 1, 1, 1, 0>} {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x4x3x3x12x12xf32>
    %collapsed = tensor.collapse_shape %arg1 [[0], [1, 2, 3]] : tensor<8x4x3x3xf32> into tensor<8x36xf32>
    %collapsed_0 = tensor.collapse_shape %4 [[0, 1, 2, 3], [4, 5]] : tensor<1x4x3x3x12x12xf32> into tensor<36x144xf32>
    %5 = tensor.empty() : tensor<8x144xf32>
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<8x144xf32>) -> tensor<8x144xf32>
    %7 = linalg.matmul ins(%collapsed, %collapsed_0 : tensor<8x36xf32>, tensor<36x144xf32>) outs(%6 : tensor<8x144xf32>) -> tensor<8x144xf32>
    %8 = linalg.generic {indexing_maps = [#one2, #one3, #one2], iterator_types = ["parallel", "parallel"]} ins(%7, %arg2 : tensor<8x144xf32>, tensor<1x8x1x1xf32>) outs(%5 : tensor<8x144xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %10 = arith.addf %in, %in_1 : f32
      linalg.yield %10 : f32
    } -> tensor<8x144xf32>
    %9 = linalg.generic {indexing_maps = [#one2, #one2], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<8x144xf32>) outs(%5 : tensor<8x144xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.maximumf %in, %cst : f32
      linalg.yield %10 : f32
    } -> tensor<8x144xf32>
    %expanded = tensor.expand_shape %9 [[0, 1], [2, 3]] output_shape [1, 8, 12, 12] : tensor<8x144xf32> into tensor<1x8x12x12xf32>
    return %expanded : tensor<1x8x12x12xf32>
  }

// Two images, stride 2: a tile per image (36 pixels, 6 rows of 6) reads 13 padded rows
// at row 2 x (its first output row) of its own image. Its copies read every other
// column: not marked for strata-vectorize (a strided vector read is slower).
// PAR-LABEL: func.func @batched_stride_2
// PAR-NOT: tensor<2x4x3x3x6x6xf32>
// PAR: scf.forall (%[[N:.*]], %{{.*}}, %{{.*}}) in (2, 1, 1)
// PAR: %[[ROW:.*]] = affine.apply #[[ROWS6S2]](%{{.*}})
// PAR: %[[WIN:.*]] = tensor.extract_slice %inserted_slice[%[[N]], 0, %[[ROW]], 0] [1, 4, 13, 14] [1, 1, 1, 1]
// PAR: tensor.extract_slice %[[WIN]][0, 0, 0, 0] [1, 4, 6, 6] [1, 1, 2, 2]
// PAR-NOT: strata.im2col_part
// PAR: linalg.copy {cast = #linalg.type_fn<cast_signed>} ins(
// PAR: tensor.extract_slice %[[WIN]][0, 0, 2, 2] [1, 4, 6, 6] [1, 1, 2, 2]
// PAR: %[[LAST:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 2, 2, 0, 0] [1, 4, 1, 1, 6, 6]
// PAR: %[[B:.*]] = tensor.collapse_shape %[[LAST]] {{\[\[}}0], [1, 2, 3], [4, 5]] : tensor<1x4x3x3x6x6xf32> into tensor<1x36x36xf32>
// PAR: linalg.batch_matmul {{.*}} ins(%{{.*}}, %[[B]] : tensor<8x36xf32>, tensor<1x36x36xf32>)
// PAR-NOT: tensor<2x4x3x3x6x6xf32>
// PAR: return
// REPORT: remark: strata-fuse: each output tile copies its own im2col windows (1x4x3x3x6x6) while they stay in cache; the 2x4x3x3x6x6 matrix is not materialized
  func.func @batched_stride_2(%arg0: tensor<2x4x12x12xf32>, %arg1: tensor<8x4x3x3xf32>, %arg2: tensor<1x8x1x1xf32>) -> tensor<2x8x6x6xf32> attributes {llvm.emit_c_interface} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<2x4x14x14xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x4x14x14xf32>) -> tensor<2x4x14x14xf32>
    %extracted_slice = tensor.extract_slice %1[0, 0, 1, 1] [2, 4, 12, 12] [1, 1, 1, 1] : tensor<2x4x14x14xf32> to tensor<2x4x12x12xf32>
    %2 = linalg.copy {cast = #linalg.type_fn<cast_signed>} ins(%arg0 : tensor<2x4x12x12xf32>) outs(%extracted_slice : tensor<2x4x12x12xf32>) -> tensor<2x4x12x12xf32>
    %inserted_slice = tensor.insert_slice %2 into %1[0, 0, 1, 1] [2, 4, 12, 12] [1, 1, 1, 1] : tensor<2x4x12x12xf32> into tensor<2x4x14x14xf32>
    %3 = tensor.empty() : tensor<2x4x3x3x6x6xf32>
    %4 = linalg.generic {indexing_maps = [#two, #two1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%inserted_slice : tensor<2x4x14x14xf32>) outs(%3 : tensor<2x4x3x3x6x6xf32>) attrs =  {strata.im2col = array<i64: 2, 2, 1, 1, 0>} {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x4x3x3x6x6xf32>
    %collapsed = tensor.collapse_shape %4 [[0], [1, 2, 3], [4, 5]] : tensor<2x4x3x3x6x6xf32> into tensor<2x36x36xf32>
    %collapsed_0 = tensor.collapse_shape %arg1 [[0], [1, 2, 3]] : tensor<8x4x3x3xf32> into tensor<8x36xf32>
    %5 = tensor.empty() : tensor<2x8x36xf32>
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<2x8x36xf32>) -> tensor<2x8x36xf32>
    %7 = linalg.batch_matmul indexing_maps = [#two2, #two3, #two4] ins(%collapsed_0, %collapsed : tensor<8x36xf32>, tensor<2x36x36xf32>) outs(%6 : tensor<2x8x36xf32>) -> tensor<2x8x36xf32>
    %8 = linalg.generic {indexing_maps = [#two5, #two6, #two5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%7, %arg2 : tensor<2x8x36xf32>, tensor<1x8x1x1xf32>) outs(%5 : tensor<2x8x36xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %10 = arith.addf %in, %in_1 : f32
      linalg.yield %10 : f32
    } -> tensor<2x8x36xf32>
    %9 = linalg.generic {indexing_maps = [#two5, #two5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8 : tensor<2x8x36xf32>) outs(%5 : tensor<2x8x36xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.maximumf %in, %cst : f32
      linalg.yield %10 : f32
    } -> tensor<2x8x36xf32>
    %expanded = tensor.expand_shape %9 [[0], [1], [2, 3]] output_shape [2, 8, 6, 6] : tensor<2x8x36xf32> into tensor<2x8x6x6xf32>
    return %expanded : tensor<2x8x6x6xf32>
  }

// The same copy without the strata.im2col mark: the matmul's tiles read the matrix. Not a
// conv's im2col matmul, so parallel-flops (default 2^23), not im2col-parallel-flops,
// decides whether its tiles go on threads: one thread here.
// PAR-LABEL: func.func @unmarked_copy
// PAR: %[[COPY:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x3x3x12x12xf32>)
// PAR: %[[B:.*]] = tensor.collapse_shape %[[COPY]] {{.*}} into tensor<36x144xf32>
// PAR-NOT: scf.forall
// PAR: scf.for
// PAR: tensor.extract_slice %[[B]][0, %{{.*}}] [36, 72] [1, 1]
// PAR-NOT: strata.im2col_part
// PAR: return
// REPORT-NOT: 1x4x3x3x12x12 matrix
  func.func @unmarked_copy(%arg0: tensor<1x4x12x12xf32>, %arg1: tensor<8x4x3x3xf32>, %arg2: tensor<1x8x1x1xf32>) -> tensor<1x8x12x12xf32> attributes {llvm.emit_c_interface} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x4x14x14xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x4x14x14xf32>) -> tensor<1x4x14x14xf32>
    %extracted_slice = tensor.extract_slice %1[0, 0, 1, 1] [1, 4, 12, 12] [1, 1, 1, 1] : tensor<1x4x14x14xf32> to tensor<1x4x12x12xf32>
    %2 = linalg.copy {cast = #linalg.type_fn<cast_signed>} ins(%arg0 : tensor<1x4x12x12xf32>) outs(%extracted_slice : tensor<1x4x12x12xf32>) -> tensor<1x4x12x12xf32>
    %inserted_slice = tensor.insert_slice %2 into %1[0, 0, 1, 1] [1, 4, 12, 12] [1, 1, 1, 1] : tensor<1x4x12x12xf32> into tensor<1x4x14x14xf32>
    %3 = tensor.empty() : tensor<1x4x3x3x12x12xf32>
    %4 = linalg.generic {indexing_maps = [#one, #one1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%inserted_slice : tensor<1x4x14x14xf32>) outs(%3 : tensor<1x4x3x3x12x12xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x4x3x3x12x12xf32>
    %collapsed = tensor.collapse_shape %arg1 [[0], [1, 2, 3]] : tensor<8x4x3x3xf32> into tensor<8x36xf32>
    %collapsed_0 = tensor.collapse_shape %4 [[0, 1, 2, 3], [4, 5]] : tensor<1x4x3x3x12x12xf32> into tensor<36x144xf32>
    %5 = tensor.empty() : tensor<8x144xf32>
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<8x144xf32>) -> tensor<8x144xf32>
    %7 = linalg.matmul ins(%collapsed, %collapsed_0 : tensor<8x36xf32>, tensor<36x144xf32>) outs(%6 : tensor<8x144xf32>) -> tensor<8x144xf32>
    %8 = linalg.generic {indexing_maps = [#one2, #one3, #one2], iterator_types = ["parallel", "parallel"]} ins(%7, %arg2 : tensor<8x144xf32>, tensor<1x8x1x1xf32>) outs(%5 : tensor<8x144xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %10 = arith.addf %in, %in_1 : f32
      linalg.yield %10 : f32
    } -> tensor<8x144xf32>
    %9 = linalg.generic {indexing_maps = [#one2, #one2], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<8x144xf32>) outs(%5 : tensor<8x144xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.maximumf %in, %cst : f32
      linalg.yield %10 : f32
    } -> tensor<8x144xf32>
    %expanded = tensor.expand_shape %9 [[0, 1], [2, 3]] output_shape [1, 8, 12, 12] : tensor<8x144xf32> into tensor<1x8x12x12xf32>
    return %expanded : tensor<1x8x12x12xf32>
  }


// NHWC: the matrix's rows are the pixels (144, 12 per row): tiles of whole rows up
// to 64 pixels: 48 (4 rows), each reading 6 padded rows.
// PAR-LABEL: func.func @nhwc_rows
// PAR-NOT: tensor<1x12x12x3x3x4xf32>
// PAR: scf.forall (%{{.*}}, %{{.*}}) in (3, 1)
// PAR: %[[ROW:.*]] = affine.apply #[[ROWS12]](%{{.*}})
// PAR: %[[WIN:.*]] = tensor.extract_slice %inserted_slice[0, %[[ROW]], 0, 0] [1, 6, 14, 4] [1, 1, 1, 1]
// PAR: tensor.extract_slice %[[WIN]][0, 0, 0, 0] [1, 4, 12, 4] [1, 1, 1, 1]
// PAR: linalg.copy {{.*}}strata.im2col_part
// PAR: tensor.extract_slice %[[WIN]][0, 2, 2, 0] [1, 4, 12, 4] [1, 1, 1, 1]
// PAR: %[[LAST:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 2, 2, 0] [1, 4, 12, 1, 1, 4]
// PAR: %[[A:.*]] = tensor.collapse_shape %[[LAST]] {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<1x4x12x3x3x4xf32> into tensor<48x36xf32>
// PAR: linalg.matmul ins(%[[A]], %{{.*}} : tensor<48x36xf32>, tensor<36x8xf32>)
// PAR-NOT: tensor<1x12x12x3x3x4xf32>
// PAR: return
  func.func @nhwc_rows(%arg0: tensor<1x12x12x4xf32>, %arg1: tensor<3x3x4x8xf32>, %arg2: tensor<1x1x1x8xf32>) -> tensor<1x12x12x8xf32> attributes {llvm.emit_c_interface} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x14x14x4xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x14x14x4xf32>) -> tensor<1x14x14x4xf32>
    %extracted_slice = tensor.extract_slice %1[0, 1, 1, 0] [1, 12, 12, 4] [1, 1, 1, 1] : tensor<1x14x14x4xf32> to tensor<1x12x12x4xf32>
    %2 = linalg.copy {cast = #linalg.type_fn<cast_signed>} ins(%arg0 : tensor<1x12x12x4xf32>) outs(%extracted_slice : tensor<1x12x12x4xf32>) -> tensor<1x12x12x4xf32>
    %inserted_slice = tensor.insert_slice %2 into %1[0, 1, 1, 0] [1, 12, 12, 4] [1, 1, 1, 1] : tensor<1x12x12x4xf32> into tensor<1x14x14x4xf32>
    %3 = tensor.empty() : tensor<1x12x12x3x3x4xf32>
    %4 = linalg.generic {indexing_maps = [#three, #three1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%inserted_slice : tensor<1x14x14x4xf32>) outs(%3 : tensor<1x12x12x3x3x4xf32>) attrs =  {strata.im2col = array<i64: 1, 1, 1, 1, 1>} {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x12x12x3x3x4xf32>
    %collapsed = tensor.collapse_shape %4 [[0, 1, 2], [3, 4, 5]] : tensor<1x12x12x3x3x4xf32> into tensor<144x36xf32>
    %collapsed_0 = tensor.collapse_shape %arg1 [[0, 1, 2], [3]] : tensor<3x3x4x8xf32> into tensor<36x8xf32>
    %5 = tensor.empty() : tensor<144x8xf32>
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<144x8xf32>) -> tensor<144x8xf32>
    %7 = linalg.matmul ins(%collapsed, %collapsed_0 : tensor<144x36xf32>, tensor<36x8xf32>) outs(%6 : tensor<144x8xf32>) -> tensor<144x8xf32>
    %8 = linalg.generic {indexing_maps = [#three2, #three3, #three2], iterator_types = ["parallel", "parallel"]} ins(%7, %arg2 : tensor<144x8xf32>, tensor<1x1x1x8xf32>) outs(%5 : tensor<144x8xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %10 = arith.addf %in, %in_1 : f32
      linalg.yield %10 : f32
    } -> tensor<144x8xf32>
    %9 = linalg.generic {indexing_maps = [#three2, #three2], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<144x8xf32>) outs(%5 : tensor<144x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.maximumf %in, %cst : f32
      linalg.yield %10 : f32
    } -> tensor<144x8xf32>
    %expanded = tensor.expand_shape %9 [[0, 1, 2], [3]] output_shape [1, 12, 12, 8] : tensor<144x8xf32> into tensor<1x12x12x8xf32>
    return %expanded : tensor<1x12x12x8xf32>
  }

// No epilogue: the conv's result is returned as it is. The matmul is tiled on its own by
// the same whole-row tiles (its fill fused in), and each tile copies its own windows.
// PAR-LABEL: func.func @no_epilogue
// PAR-NOT: tensor<1x4x3x3x12x12xf32>
// PAR: scf.forall (%{{.*}}, %{{.*}}) in (1, 2) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<8x144xf32>)
// PAR: %[[ROW:.*]] = affine.apply #[[ROWS12]](%{{.*}})
// PAR: tensor.extract_slice %inserted_slice[0, 0, %[[ROW]], 0] [1, 4, 8, 14] [1, 1, 1, 1]
// PAR: linalg.copy {{.*}}strata.im2col_part
// PAR: %[[B:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3], [4, 5]] : tensor<1x4x3x3x6x12xf32> into tensor<36x72xf32>
// PAR: %[[ACC:.*]] = linalg.fill {{.*}} -> tensor<8x72xf32>
// PAR: linalg.matmul ins(%{{.*}}, %[[B]] : tensor<8x36xf32>, tensor<36x72xf32>) outs(%[[ACC]] : tensor<8x72xf32>)
// PAR-NOT: tensor<1x4x3x3x12x12xf32>
// PAR: return
// SER-LABEL: func.func @no_epilogue
// SER: scf.for
// SER: scf.for
// SER: linalg.copy {{.*}}strata.im2col_part
// SER: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x36xf32>, tensor<36x72xf32>)
// SER-NOT: tensor<1x4x3x3x12x12xf32>
// SER: return
// (its tiling remark comes before every function's window remarks: checked first)
// REPORT: remark: strata-fuse: each output tile copies its own im2col windows (1x4x3x3x6x12) while they stay in cache; the 1x4x3x3x12x12 matrix is not materialized
  func.func @no_epilogue(%arg0: tensor<1x4x12x12xf32>, %arg1: tensor<8x4x3x3xf32>) -> tensor<1x8x12x12xf32> attributes {llvm.emit_c_interface} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x4x14x14xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x4x14x14xf32>) -> tensor<1x4x14x14xf32>
    %extracted_slice = tensor.extract_slice %1[0, 0, 1, 1] [1, 4, 12, 12] [1, 1, 1, 1] : tensor<1x4x14x14xf32> to tensor<1x4x12x12xf32>
    %2 = linalg.copy {cast = #linalg.type_fn<cast_signed>} ins(%arg0 : tensor<1x4x12x12xf32>) outs(%extracted_slice : tensor<1x4x12x12xf32>) -> tensor<1x4x12x12xf32>
    %inserted_slice = tensor.insert_slice %2 into %1[0, 0, 1, 1] [1, 4, 12, 12] [1, 1, 1, 1] : tensor<1x4x12x12xf32> into tensor<1x4x14x14xf32>
    %3 = tensor.empty() : tensor<1x4x3x3x12x12xf32>
    %4 = linalg.generic {indexing_maps = [#one, #one1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%inserted_slice : tensor<1x4x14x14xf32>) outs(%3 : tensor<1x4x3x3x12x12xf32>) attrs =  {strata.im2col = array<i64: 1, 1, 1, 1, 0>} {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x4x3x3x12x12xf32>
    %collapsed = tensor.collapse_shape %arg1 [[0], [1, 2, 3]] : tensor<8x4x3x3xf32> into tensor<8x36xf32>
    %collapsed_0 = tensor.collapse_shape %4 [[0, 1, 2, 3], [4, 5]] : tensor<1x4x3x3x12x12xf32> into tensor<36x144xf32>
    %5 = tensor.empty() : tensor<8x144xf32>
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<8x144xf32>) -> tensor<8x144xf32>
    %7 = linalg.matmul ins(%collapsed, %collapsed_0 : tensor<8x36xf32>, tensor<36x144xf32>) outs(%6 : tensor<8x144xf32>) -> tensor<8x144xf32>
    %expanded = tensor.expand_shape %7 [[0, 1], [2, 3]] output_shape [1, 8, 12, 12] : tensor<8x144xf32> into tensor<1x8x12x12xf32>
    return %expanded : tensor<1x8x12x12xf32>
  }
}
