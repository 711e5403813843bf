// RUN: strata-opt %s --split-input-file '--strata-vectorize=lanes=16 threads=2 parallel-flops=1 pack-m=32 pack-n=32' | FileCheck %s --check-prefix=PAR
// RUN: strata-opt %s --split-input-file '--strata-vectorize=lanes=16 pack-m=32 pack-n=32' | FileCheck %s --check-prefix=SEQ
// RUN: strata-opt %s --split-input-file '--strata-vectorize=lanes=16 threads=2 parallel-flops=1 pack-m=32 pack-n=32 epilogue=false' | FileCheck %s --check-prefix=OFF

// A packed matmul's bias + relu computed in the copy that unpacks C: each 8 x 32 tile
// of the epilogue reads its packed tile of C, no unpack and no loop over C of its own.

// PAR-LABEL: func.func @bias_relu
// PAR-SAME: %[[BIAS:[a-z0-9]+]]: tensor<96xf32>
// PAR: %[[PC:.+]] = scf.forall (%{{.+}}, %{{.+}}) in (2, 3)
// PAR: vector.contract
// PAR: scf.forall (%{{.+}}) in (2) shared_outs(%{{.+}} = %[[EMPTY:.+]]) -> (tensor<64x96xf32>)
// PAR: %[[TILES:.+]] = tensor.extract_slice %[[PC]]
// PAR: scf.for
// PAR: scf.for
// PAR: %[[TILE:.+]] = tensor.extract_slice %[[TILES]]{{.+}} to tensor<1x1x8x32xf32>
// PAR: %[[C:.+]] = vector.transfer_read %[[TILE]]{{.+}} : tensor<1x1x8x32xf32>, vector<8x32xf32>
// PAR: %[[B:.+]] = tensor.extract_slice %[[BIAS]]
// PAR: %[[BV:.+]] = vector.transfer_read %[[B]]
// PAR: %[[BB:.+]] = vector.broadcast %[[BV]] : vector<32xf32> to vector<8x32xf32>
// PAR: %[[SUM:.+]] = arith.addf %[[C]], %[[BB]] : vector<8x32xf32>
// PAR: %[[RELU:.+]] = arith.maximumf %[[SUM]]
// PAR: vector.transfer_write %[[RELU]]
// PAR-NOT: linalg.unpack
// PAR-NOT: linalg.generic
// PAR: return

// SEQ-LABEL: func.func @bias_relu
// SEQ-NOT: scf.forall
// SEQ: vector.contract
// SEQ: scf.for %{{.+}} = %c0 to %c64 step %c8
// SEQ: scf.for %{{.+}} = %c0 to %c96 step %c32
// SEQ: %[[C:.+]] = vector.transfer_read %{{.+}} : tensor<1x1x8x32xf32>, vector<8x32xf32>
// SEQ: %[[SUM:.+]] = arith.addf %[[C]]
// SEQ: arith.maximumf %[[SUM]]
// SEQ-NOT: linalg.unpack
// SEQ-NOT: linalg.generic
// SEQ: return

// OFF-LABEL: func.func @bias_relu
// OFF: vector.contract
// OFF: %[[C:.+]] = scf.forall (%{{.+}}) in (2)
// OFF: linalg.generic {{.+}} ins(%[[C]], %{{.+}} : tensor<64x96xf32>, tensor<96xf32>)

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @bias_relu(%a: tensor<64x48xf32>, %b: tensor<48x96xf32>, %bias: tensor<96xf32>) -> tensor<64x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x48xf32>, tensor<48x96xf32>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<64x96xf32>, tensor<96xf32>) outs(%e : tensor<64x96xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

// -----

// 100 rows end in a partial 8-row tile: its epilogue tile is masked, and C's zero fill
// (the unpack's destination) still goes, as the tiles write all of C. The product is
// the residual add's second operand.

// PAR-LABEL: func.func @partial_rows
// PAR-NOT: linalg.fill {{.+}} tensor<100x96xf32>
// PAR: scf.forall (%{{.+}}) in (2) shared_outs(%{{.+}}) -> (tensor<100x96xf32>)
// PAR: %[[C:.+]] = vector.transfer_read %{{.+}} : tensor<1x1x8x32xf32>, vector<8x32xf32>
// PAR: %[[MASK:.+]] = vector.from_elements
// PAR: %[[TMP:.+]] = vector.transfer_write %[[C]], %{{.+}}, %[[MASK]]
// PAR: %[[R:.+]] = vector.transfer_read %{{.+}}, %[[MASK]] {{.+}} : tensor<?x32xf32>, vector<8x32xf32>
// PAR: %[[CV:.+]] = vector.transfer_read %[[TMP]]{{.+}}, %[[MASK]]
// PAR: %[[SUM:.+]] = arith.addf %[[R]], %[[CV]] : vector<8x32xf32>
// PAR: vector.transfer_write %[[SUM]], %{{.+}}, %[[MASK]]
// PAR-NOT: linalg.generic
// PAR: return

func.func @partial_rows(%a: tensor<100x48xf32>, %b: tensor<48x96xf32>, %r: tensor<100x96xf32>) -> tensor<100x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<100x96xf32>) -> tensor<100x96xf32>
  %m = linalg.matmul ins(%a, %b : tensor<100x48xf32>, tensor<48x96xf32>) outs(%f : tensor<100x96xf32>) -> tensor<100x96xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%r, %m : tensor<100x96xf32>, tensor<100x96xf32>) outs(%e : tensor<100x96xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %t = arith.addf %x, %y : f32
    linalg.yield %t : f32
  } -> tensor<100x96xf32>
  return %s : tensor<100x96xf32>
}

// -----

// The product is returned too: it is unpacked whole and the epilogue stays its own loop.

// PAR-LABEL: func.func @product_returned
// PAR: %[[C:.+]] = scf.forall (%{{.+}}) in (2) shared_outs(%{{.+}}) -> (tensor<64x96xf32>)
// PAR: %[[R:.+]] = linalg.generic {{.+}} ins(%[[C]], %{{.+}} : tensor<64x96xf32>, tensor<96xf32>)
// PAR: return %[[C]], %[[R]]

func.func @product_returned(%a: tensor<64x48xf32>, %b: tensor<48x96xf32>, %bias: tensor<96xf32>) -> (tensor<64x96xf32>, tensor<64x96xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x48xf32>, tensor<48x96xf32>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%m, %bias : tensor<64x96xf32>, tensor<96xf32>) outs(%e : tensor<64x96xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<64x96xf32>
  return %m, %r : tensor<64x96xf32>, tensor<64x96xf32>
}

// -----

// A batch matmul's epilogue, per batch: the 3-d epilogue's tiles (1 x 8 x 32) read their
// packed 1 x 1 x 1 x 8 x 32 tile of C, chunks of whole batches on threads.

// PAR-LABEL: func.func @batch_bias
// PAR: scf.forall (%{{.+}}, %{{.+}}, %{{.+}}) in (2, 2, 2)
// PAR: vector.contract
// PAR: scf.forall (%{{.+}}) in (2) shared_outs(%{{.+}}) -> (tensor<2x64x64xf32>)
// PAR: %[[C:.+]] = vector.transfer_read %{{.+}} : tensor<1x1x1x8x32xf32>, vector<8x32xf32>
// PAR: arith.addf %[[C]]
// PAR-NOT: linalg.unpack
// PAR-NOT: linalg.generic
// PAR: return

func.func @batch_bias(%a: tensor<2x64x48xf32>, %b: tensor<2x48x64xf32>, %bias: tensor<64xf32>) -> tensor<2x64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %m = linalg.batch_matmul ins(%a, %b : tensor<2x64x48xf32>, tensor<2x48x64xf32>) outs(%f : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%m, %bias : tensor<2x64x64xf32>, tensor<64xf32>) outs(%e : tensor<2x64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x64x64xf32>
  return %r : tensor<2x64x64xf32>
}
