// RUN: strata-opt %s --split-input-file --strata-vectorize=lanes=16 | FileCheck %s --check-prefix=Z
// RUN: strata-opt %s --split-input-file --strata-vectorize=lanes=8 | FileCheck %s --check-prefix=Y
// RUN: strata-opt %s --split-input-file --strata-vectorize=lanes=16 --strata-bufferize --strata-lower-vectors | FileCheck %s --check-prefix=ZLOWER
// RUN: strata-opt %s --split-input-file --strata-vectorize=lanes=8 --strata-bufferize --strata-lower-vectors | FileCheck %s --check-prefix=YLOWER
// RUN: strata-opt %s --split-input-file '--strata-vectorize=lanes=16 threads=2 parallel-flops=1 pack-m=32 pack-n=32' | FileCheck %s --check-prefix=PAR
// RUN: strata-opt %s --split-input-file --strata-vectorize=lanes=16 --loop-invariant-subset-hoisting --canonicalize | FileCheck %s --check-prefix=HOIST

// 100x33 * 33x70 (no dim a multiple of a register tile): A is packed into
// zero-padded row panels [M/mr][K][mr], B into column panels [N/nr][K][nr] (its
// outer dims transposed), C into [M/mr][N/nr][mr][nr]. Per N panel, per M panel,
// a K loop of one outer product vector<mr> x vector<nr>; C is unpacked after.
// AVX-512 (16 lanes): 8x32; AVX2 (8 lanes): 6x16.
// Z-LABEL: func.func @packed_odd
// Z-SAME: (%[[A:[a-z0-9]+]]: tensor<100x33xf32>, %[[B:[a-z0-9]+]]: tensor<33x70xf32>, %[[C:[a-z0-9]+]]: tensor<100x70xf32>)
// Z-NOT: linalg.matmul
// Z: %[[PA:.+]] = linalg.pack %[[A]] padding_value(%{{.+}} : f32) inner_dims_pos = [0] inner_tiles = [8] into %{{.+}} : tensor<100x33xf32> -> tensor<13x33x8xf32>
// Z: %[[PB:.+]] = linalg.pack %[[B]] padding_value(%{{.+}} : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1] inner_tiles = [32] into %{{.+}} : tensor<33x70xf32> -> tensor<3x33x32xf32>
// Z: %[[PC:.+]] = linalg.pack %[[C]] {{.*}} inner_tiles = [8, 32] {{.*}} -> tensor<13x3x8x32xf32>
// Z: %[[R:.+]] = scf.for %[[NP:.+]] = %{{.+}} to %c3 step %c1 iter_args(%{{.+}} = %[[PC]])
// Z: scf.for %[[MP:.+]] = %{{.+}} to %c13 step %c1
// Z: scf.for %[[K:.+]] = %{{.+}} to %c33 step %c1
// Z: tensor.extract_slice %[[PA]][%[[MP]], %[[K]], 0] [1, 1, 8]
// Z: tensor.extract_slice %[[PB]][%[[NP]], %[[K]], 0] [1, 1, 32]
// Z: vector.contract {{.*}} : vector<1x8xf32>, vector<1x32xf32> into vector<8x32xf32>
// Z-NOT: vector.mask
// Z: %[[U:.+]] = linalg.unpack %[[R]] inner_dims_pos = [0, 1] inner_tiles = [8, 32] into %[[C]] : tensor<13x3x8x32xf32> -> tensor<100x70xf32>
// Z: return %[[U]]
// Y-LABEL: func.func @packed_odd
// Y: linalg.pack {{.*}} inner_tiles = [6] {{.*}} -> tensor<17x33x6xf32>
// Y: linalg.pack {{.*}} outer_dims_perm = [1, 0] inner_dims_pos = [1] inner_tiles = [16] {{.*}} -> tensor<5x33x16xf32>
// Y: vector.contract {{.*}} : vector<1x6xf32>, vector<1x16xf32> into vector<6x16xf32>
// Y: linalg.unpack
// The micro-kernel: per K step, one B panel row and mr broadcast FMAs.
// ZLOWER-LABEL: func.func @packed_odd
// ZLOWER-NOT: linalg.pack
// ZLOWER-NOT: vector.contract
// ZLOWER-COUNT-8: vector.fma %{{.+}}, %{{.+}}, %{{.+}} : vector<32xf32>
// ZLOWER-NOT: vector.fma
// ZLOWER: return
// YLOWER-LABEL: func.func @packed_odd
// YLOWER-NOT: vector.contract
// YLOWER-COUNT-6: vector.fma %{{.+}}, %{{.+}}, %{{.+}} : vector<16xf32>
// YLOWER-NOT: vector.fma
// YLOWER: return
// With threads, the cache tiles of panels form an scf.forall; K stays sequential.
// PAR-LABEL: func.func @packed_odd
// PAR: scf.forall
// PAR: scf.for
// PAR: vector.contract
func.func @packed_odd(%a: tensor<100x33xf32>, %b: tensor<33x70xf32>, %c: tensor<100x70xf32>) -> tensor<100x70xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<100x33xf32>, tensor<33x70xf32>) outs(%c : tensor<100x70xf32>) -> tensor<100x70xf32>
  return %0 : tensor<100x70xf32>
}

// -----

// Batch matmul: the same panels with the batch dim in front.
// Z-LABEL: func.func @packed_batch
// Z-NOT: linalg.batch_matmul
// Z: linalg.pack {{.*}} inner_dims_pos = [1] inner_tiles = [8] {{.*}} -> tensor<2x9x20x8xf32>
// Z: linalg.pack {{.*}} outer_dims_perm = [0, 2, 1] inner_dims_pos = [2] inner_tiles = [32] {{.*}} -> tensor<2x3x20x32xf32>
// Z: vector.contract {{.*}} : vector<1x8xf32>, vector<1x32xf32> into vector<8x32xf32>
// Z: linalg.unpack
// Y-LABEL: func.func @packed_batch
// Y: vector.contract {{.*}} : vector<1x6xf32>, vector<1x16xf32> into vector<6x16xf32>
// ZLOWER-LABEL: func.func @packed_batch
// ZLOWER-COUNT-8: vector.fma %{{.+}}, %{{.+}}, %{{.+}} : vector<32xf32>
// ZLOWER-NOT: vector.fma
// ZLOWER: return
// YLOWER-LABEL: func.func @packed_batch
// YLOWER-COUNT-6: vector.fma %{{.+}}, %{{.+}}, %{{.+}} : vector<16xf32>
// PAR-LABEL: func.func @packed_batch
// PAR: scf.forall
func.func @packed_batch(%a: tensor<2x65x20xf32>, %b: tensor<2x20x66xf32>, %c: tensor<2x65x66xf32>) -> tensor<2x65x66xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x65x20xf32>, tensor<2x20x66xf32>) outs(%c : tensor<2x65x66xf32>) -> tensor<2x65x66xf32>
  return %0 : tensor<2x65x66xf32>
}

// -----

// A few rows against a large B (or a few columns): not packed (packing B would
// add a full read and write of it); the unpacked register tiles run instead.
// Z-LABEL: func.func @skinny
// Z-NOT: linalg.pack
// Z: vector.contract
// Z-NOT: linalg.pack
// Z: return
func.func @skinny(%a: tensor<7x256xf32>, %b: tensor<256x256xf32>, %c: tensor<7x256xf32>) -> tensor<7x256xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<7x256xf32>, tensor<256x256xf32>) outs(%c : tensor<7x256xf32>) -> tensor<7x256xf32>
  return %0 : tensor<7x256xf32>
}

// -----

// A transposed operand folded into the indexing maps (``x @ w.T``, strata-layout's
// fold of PyTorch's nn.Linear): B (N x K) packs into the same [N/nr][K][nr] panels
// with no outer transpose (an 8-row K step of a panel read as vector<32x8> and
// transposed), and the same micro-kernel runs; no transpose of B is left.
// Z-LABEL: func.func @transposed_b
// Z-SAME: (%[[A:[a-z0-9]+]]: tensor<96x64xf32>, %[[B:[a-z0-9]+]]: tensor<80x64xf32>
// Z-NOT: linalg.transpose
// Z: tensor.extract_slice %[[A]]{{.*}} [8, 8] [1, 1] : tensor<96x64xf32> to tensor<8x8xf32>
// Z: %[[PB0:.+]] = tensor.empty() : tensor<3x64x32xf32>
// Z: scf.for {{.*}} iter_args(%{{.+}} = %[[PB0]])
// Z: tensor.extract_slice %[[B]]{{.*}} : tensor<80x64xf32> to tensor<?x?xf32>
// Z: vector.transpose %{{.+}}, [1, 0] : vector<32x8xf32> to vector<8x32xf32>
// Z: vector.contract {{.*}} : vector<1x8xf32>, vector<1x32xf32> into vector<8x32xf32>
// Z-NOT: linalg.transpose
// Z: return
// Y-LABEL: func.func @transposed_b
// Y: vector.transpose %{{.+}}, [1, 0] : vector<16x8xf32> to vector<8x16xf32>
// Y: vector.contract {{.*}} : vector<1x6xf32>, vector<1x16xf32> into vector<6x16xf32>
// ZLOWER-LABEL: func.func @transposed_b
// ZLOWER-COUNT-8: vector.fma %{{.+}}, %{{.+}}, %{{.+}} : vector<32xf32>
// ZLOWER-NOT: vector.fma
// ZLOWER: return
func.func @transposed_b(%a: tensor<96x64xf32>, %b: tensor<80x64xf32>, %c: tensor<96x80xf32>) -> tensor<96x80xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
       ins(%a, %b : tensor<96x64xf32>, tensor<80x64xf32>) outs(%c : tensor<96x80xf32>) -> tensor<96x80xf32>
  return %0 : tensor<96x80xf32>
}

// -----

// A transposed A (K x M): its panels are rows of A^T read as they are (no vector
// transpose), 4 K steps (dividing K = 20) of 8 columns at a time, masked past M.
// Z-LABEL: func.func @transposed_a
// Z-SAME: (%[[A:[a-z0-9]+]]: tensor<20x100xf32>
// Z: %[[PA0:.+]] = tensor.empty() : tensor<13x20x8xf32>
// Z: scf.for {{.*}} iter_args(%{{.+}} = %[[PA0]])
// Z: tensor.extract_slice %[[A]]{{.*}} : tensor<20x100xf32> to tensor<?x?xf32>
// Z-NOT: vector.transpose
// Z: vector.contract {{.*}} : vector<1x8xf32>, vector<1x32xf32> into vector<8x32xf32>
// Z: return
func.func @transposed_a(%a: tensor<20x100xf32>, %b: tensor<20x70xf32>, %c: tensor<100x70xf32>) -> tensor<100x70xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
       ins(%a, %b : tensor<20x100xf32>, tensor<20x70xf32>) outs(%c : tensor<100x70xf32>) -> tensor<100x70xf32>
  return %0 : tensor<100x70xf32>
}

// -----

// A batch matmul with B transposed (attention's q @ k^T): B's pack needs no outer
// transpose either.
// Z-LABEL: func.func @transposed_batch
// Z-SAME: %[[B:[a-z0-9]+]]: tensor<2x66x20xf32>
// Z: linalg.pack %[[B]] padding_value(%{{.+}} : f32) inner_dims_pos = [1] inner_tiles = [32] into %{{.+}} : tensor<2x66x20xf32> -> tensor<2x3x20x32xf32>
// Z: vector.contract {{.*}} : vector<1x8xf32>, vector<1x32xf32> into vector<8x32xf32>
// Z: linalg.unpack
func.func @transposed_batch(%a: tensor<2x65x20xf32>, %b: tensor<2x66x20xf32>, %c: tensor<2x65x66xf32>) -> tensor<2x65x66xf32> {
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
       ins(%a, %b : tensor<2x65x20xf32>, tensor<2x66x20xf32>) outs(%c : tensor<2x65x66xf32>) -> tensor<2x65x66xf32>
  return %0 : tensor<2x65x66xf32>
}

// -----

// Dims that are multiples of the panels: the packs and the unpack become vector
// copies (an 8x8 transpose per 8 K steps of an A panel, 8x32 rows of B, one 8x32
// tile of C at a time) instead of linalg.pack / linalg.unpack. K is one cache tile, so
// C's zero fill is tiled with each register tile: its accumulator starts as a zero
// vector written into its own tile (after hoisting, the K loop's first value), no fill
// of C's panels before the product, and the unpack writes every element of C. With
// threads the two packs share one scf.forall, the product's forall computes its own C
// panels, and the unpack is a third forall writing row blocks of C.
// Z-LABEL: func.func @packed_divisible
// Z-SAME: (%[[A:[a-z0-9]+]]: tensor<64x48xf32>, %[[B:[a-z0-9]+]]: tensor<48x64xf32>)
// Z: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// Z-NOT: linalg.pack
// Z: %[[E:.+]] = tensor.empty() : tensor<64x64xf32>
// Z: tensor.extract_slice %[[A]]{{.*}} [8, 8] [1, 1] : tensor<64x48xf32> to tensor<8x8xf32>
// Z: vector.transpose %{{.+}}, [1, 0] : vector<8x8xf32> to vector<8x8xf32>
// Z: tensor.extract_slice %[[B]]{{.*}} [8, 32] [1, 1] : tensor<48x64xf32> to tensor<8x32xf32>
// Z: %[[PC:.+]] = tensor.empty() : tensor<8x2x8x32xf32>
// Z: %[[R:.+]] = scf.for {{.*}} iter_args(%{{.+}} = %[[PC]])
// Z: scf.for
// Z: %[[TILE:.+]] = tensor.extract_slice {{.+}} to tensor<1x1x8x32xf32>
// Z: %[[INIT:.+]] = vector.transfer_write %[[ZERO]], %[[TILE]]
// Z: scf.for {{.+}} iter_args(%{{.+}} = %[[INIT]])
// Z: vector.contract
// Z: %[[U:.+]] = scf.for {{.*}} iter_args(%{{.+}} = %[[E]]) -> (tensor<64x64xf32>)
// Z: tensor.extract_slice %[[R]]{{.*}} [1, 1, 8, 32] [1, 1, 1, 1]
// Z: vector.transfer_write {{.*}} : vector<8x32xf32>, tensor<8x32xf32>
// Z-NOT: linalg.unpack
// Z-NOT: linalg.fill
// Z: return %[[U]]
// AVX2: 64 rows are no whole number of 6-row panels: A's last panel and C's last row
// of tiles are masked vector copies.
// Y-LABEL: func.func @packed_divisible
// Y-NOT: linalg.pack
// Y: vector.transfer_read {{.*}} : tensor<?x?xf32>, vector<6x8xf32>
// Y: vector.transpose %{{.+}}, [1, 0] : vector<6x8xf32> to vector<8x6xf32>
// Y: vector.transfer_write {{.*}} : vector<8x16xf32>, tensor<1x8x16xf32>
// Y: vector.transfer_write {{.*}} : vector<6x16xf32>, tensor<?x16xf32>
// Y-NOT: linalg.unpack
// Y: return
// The pipeline hoists each register tile's accumulator out of its K loop: it starts
// from the zero vector, the zeros never stored.
// HOIST-LABEL: func.func @packed_divisible
// HOIST: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// HOIST: scf.for %{{.+}} = %c0 to %c48 step %c1 iter_args(%[[ACC:.+]] = %[[ZERO]]) -> (vector<8x32xf32>)
// HOIST: vector.contract {{.+}} %[[ACC]] : vector<1x8xf32>, vector<1x32xf32> into vector<8x32xf32>
// HOIST-NOT: vector.transfer_write %[[ZERO]]
// HOIST: return
// PAR-LABEL: func.func @packed_divisible
// PAR: %[[P:.+]]:2 = scf.forall (%{{.+}}) in (2) shared_outs
// PAR: vector.transpose
// PAR: vector.transfer_write {{.*}} : vector<8x32xf32>, tensor<1x8x32xf32>
// PAR: %[[C:.+]] = scf.forall (%{{.+}}, %{{.+}}) in (2, 2)
// PAR-NOT: linalg.fill
// PAR: %[[INIT:.+]] = vector.transfer_write %{{.+}} : vector<8x32xf32>, tensor<1x1x8x32xf32>
// PAR: scf.for {{.+}} iter_args(%{{.+}} = %[[INIT]])
// PAR: vector.contract
// PAR: scf.forall (%{{.+}}) in (2)
// PAR: tensor.extract_slice %[[C]]
// PAR-NOT: linalg.unpack
// PAR: return
func.func @packed_divisible(%a: tensor<64x48xf32>, %b: tensor<48x64xf32>) -> tensor<64x64xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%cst : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x48xf32>, tensor<48x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// Two matmuls whose C is one zero fill (CSE shares it): each gets a fill (and an empty
// tensor) of its own, which then goes like packed_divisible's: both unpacks write into
// an empty tensor (CSE makes the two one again), and no fill of a 64x64 C is left for
// bufferization to copy into C's buffer.
// Z-LABEL: func.func @shared_zero_fill
// Z-NOT: linalg.fill {{.*}} -> tensor<64x64xf32>
// Z: %[[E:.+]] = tensor.empty() : tensor<64x64xf32>
// Z: %[[U1:.+]] = scf.for {{.*}} iter_args(%{{.+}} = %[[E]]) -> (tensor<64x64xf32>)
// Z: %[[U2:.+]] = scf.for {{.*}} iter_args(%{{.+}} = %[[E]]) -> (tensor<64x64xf32>)
// Z-NOT: linalg.fill {{.*}} -> tensor<64x64xf32>
// Z: return %[[U1]], %[[U2]]
func.func @shared_zero_fill(%a: tensor<64x48xf32>, %b: tensor<48x64xf32>, %d: tensor<64x32xf32>, %w: tensor<32x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%cst : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x48xf32>, tensor<48x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = linalg.matmul ins(%d, %w : tensor<64x32xf32>, tensor<32x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0, %1 : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// N = 70 is no whole number of 32-column panels: B's last panel and C's last column of
// tiles are partial. They are still vector copies: the reads of B and the writes of C
// are masked (the mask's width is what is left of N), the padding read as zeros.
// Z-LABEL: func.func @packed_partial_b
// Z-SAME: (%[[A:[a-z0-9]+]]: tensor<64x48xf32>, %[[B:[a-z0-9]+]]: tensor<48x70xf32>)
// Z-NOT: linalg.pack
// Z: vector.transpose %{{.+}}, [1, 0] : vector<8x8xf32> to vector<8x8xf32>
// Z: scf.for %{{.+}} = %c0 to %c3 step %c1 iter_args(%{{.+}} = %{{.+}}) -> (tensor<3x48x32xf32>)
// Z: vector.create_mask %{{.+}} : vector<32xi1>
// Z: vector.transfer_read %{{.+}}[%c0, %c0], %{{.+}}, %{{.+}} {in_bounds = [true, true]} : tensor<?x?xf32>, vector<8x32xf32>
// Z: vector.contract
// Z: %[[U:.+]] = scf.for %{{.+}} = %c0 to %c64 step %c8 iter_args(%{{.+}} = %{{.+}}) -> (tensor<64x70xf32>)
// Z: scf.for %{{.+}} = %c0 to %c70 step %c32
// Z: vector.create_mask %{{.+}} : vector<32xi1>
// Z: vector.transfer_write %{{.+}}, %{{.+}}[%c0, %c0], %{{.+}} {in_bounds = [true, true]} : vector<8x32xf32>, tensor<8x?xf32>
// Z-NOT: linalg.unpack
// Z: return %[[U]]
// ZLOWER-LABEL: func.func @packed_partial_b
// ZLOWER-NOT: vector.mask
// ZLOWER: vector.maskedload
// ZLOWER: vector.maskedstore
// ZLOWER: return
func.func @packed_partial_b(%a: tensor<64x48xf32>, %b: tensor<48x70xf32>) -> tensor<64x70xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x70xf32>
  %c = linalg.fill ins(%cst : f32) outs(%e : tensor<64x70xf32>) -> tensor<64x70xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x48xf32>, tensor<48x70xf32>) outs(%c : tensor<64x70xf32>) -> tensor<64x70xf32>
  return %0 : tensor<64x70xf32>
}
