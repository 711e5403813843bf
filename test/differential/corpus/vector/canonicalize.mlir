// Vector folds: broadcast of a broadcast, extract of a broadcast, shape_cast pairs.
// RUN: %opt %s --canonicalize
// RUN: %opt %s --canonicalize --cse --mlir-print-op-generic

func.func @f(%s: f32, %v: vector<2x4xf32>) -> (f32, vector<2x4xf32>, vector<4x8xf32>) {
  %b = vector.broadcast %s : f32 to vector<8xf32>
  %bb = vector.broadcast %b : vector<8xf32> to vector<4x8xf32>
  %e = vector.extract %b[2] : f32 from vector<8xf32>
  %c = vector.shape_cast %v : vector<2x4xf32> to vector<8xf32>
  %d = vector.shape_cast %c : vector<8xf32> to vector<2x4xf32>
  return %e, %d, %bb : f32, vector<2x4xf32>, vector<4x8xf32>
}
