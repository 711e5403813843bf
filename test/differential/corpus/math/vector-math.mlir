// math on vectors: to LLVM intrinsics, and to libm calls per element.
// RUN: %opt %s --convert-math-to-llvm
// RUN: %opt %s --convert-math-to-libm --canonicalize

func.func @f(%v: vector<4xf32>) -> (vector<4xf32>, vector<4xf32>) {
  %e = math.exp %v : vector<4xf32>
  %t = math.tan %v : vector<4xf32>
  return %e, %t : vector<4xf32>, vector<4xf32>
}
