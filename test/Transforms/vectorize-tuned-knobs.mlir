// RUN: strata-opt %s '--strata-vectorize=lanes=16 tuned=1x96x128x64xf32:mr12.nr32' | FileCheck %s --check-prefix=MICRO
// RUN: strata-opt %s '--strata-vectorize=lanes=16 tuned=1x96x128x64xf32:pack0.rn32' | FileCheck %s --check-prefix=INPLACE
// RUN: strata-opt %s '--strata-vectorize=lanes=16 threads=2 tuned=1x96x128x64xf32:pm32' | FileCheck %s --check-prefix=SERIAL
// RUN: strata-opt %s '--strata-vectorize=lanes=16 threads=2 tuned=1x96x128x64xf32:pf1.pm32' | FileCheck %s --check-prefix=SPLIT
// RUN: strata-opt %s '--strata-vectorize=lanes=16 tuned=1x96x128x64xf32:nr20' --verify-diagnostics

// The tuning knobs beyond cache tiles (passes/tuning.py), each for one matmul
// signature: the packed micro-kernel's shape (mr rows x nr columns, nr a multiple
// of the lanes), the register columns of a tile in place (rn), and the thread
// split (pf: the fewest flops run on threads; 1 splits this 1.6 MFLOP matmul,
// which the default threshold keeps on one thread).

// MICRO-LABEL: func.func @tuned
// A as 8 panels of 12 rows, B as 4 panels of 32 columns, a 12x32 accumulator
// MICRO: tensor.empty() : tensor<8x64x12xf32>
// MICRO: tensor.empty() : tensor<4x64x32xf32>
// MICRO: linalg.pack %{{.+}} inner_tiles = [12, 32] {{.*}} -> tensor<8x4x12x32xf32>
// MICRO: vector.contract {{.*}} : vector<1x12xf32>, vector<1x32xf32> into vector<12x32xf32>
// MICRO-NOT: vector<8x32xf32>
// MICRO: return

// INPLACE-LABEL: func.func @tuned
// INPLACE-NOT: linalg.pack
// INPLACE: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// INPLACE-NOT: linalg.pack
// INPLACE: return

// SERIAL-LABEL: func.func @tuned
// SERIAL-NOT: scf.forall
// SERIAL: vector.contract {{.*}} into vector<8x32xf32>
// SERIAL-NOT: scf.forall
// SERIAL: return

// SPLIT-LABEL: func.func @tuned
// the packs, then the row blocks on threads: 32 rows would make 3 blocks, one thread
// computing two while the other waits; 4 blocks of 24 rows share evenly
// SPLIT: scf.forall (%{{.+}}) in (2)
// SPLIT: %[[C:.+]] = tensor.empty() : tensor<12x4x8x32xf32>
// SPLIT: scf.forall (%{{.+}}) in (4) shared_outs(%{{.+}} = %[[C]])
// SPLIT: vector.contract {{.*}} into vector<8x32xf32>
// SPLIT: return
func.func @tuned(%a: tensor<96x64xf32>, %b: tensor<64x128xf32>, %c: tensor<96x128xf32>) -> tensor<96x128xf32> {
  // expected-error@+1 {{strata-vectorize: option 'micro-n' must be a multiple of the 16 vector lanes, got 20}}
  %0 = linalg.matmul ins(%a, %b : tensor<96x64xf32>, tensor<64x128xf32>) outs(%c : tensor<96x128xf32>) -> tensor<96x128xf32>
  return %0 : tensor<96x128xf32>
}
