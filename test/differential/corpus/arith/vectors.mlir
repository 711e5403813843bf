// Elementwise arith on vectors and splat constants.
// RUN: %opt %s --canonicalize
// RUN: %opt %s --convert-arith-to-llvm --mlir-elide-elementsattrs-if-larger=2

func.func @splat(%v: vector<4xf32>) -> vector<4xf32> {
  %zero = arith.constant dense<0.0> : vector<4xf32>
  %r = arith.addf %v, %zero : vector<4xf32>
  %k = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  %s = arith.mulf %r, %k : vector<4xf32>
  return %s : vector<4xf32>
}
