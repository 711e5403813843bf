// vector.transfer_read/write to scf loops of loads and stores.
// RUN: %opt %s --convert-vector-to-scf
// RUN: %opt %s --convert-vector-to-scf='full-unroll' --canonicalize

func.func @copy(%src: memref<4x8xf32>, %dst: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %src[%c0, %c0], %pad : memref<4x8xf32>, vector<4x8xf32>
  vector.transfer_write %v, %dst[%c0, %c0] : vector<4x8xf32>, memref<4x8xf32>
  return
}
