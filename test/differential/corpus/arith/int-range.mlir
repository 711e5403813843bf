// Integer range analysis folds comparisons it can decide.
// RUN: %opt %s --int-range-optimizations
// RUN: %opt %s --int-range-optimizations --canonicalize

func.func @bounded(%i: index) -> i1 {
  %c16 = arith.constant 16 : index
  %c100 = arith.constant 100 : index
  %r = arith.remui %i, %c16 : index
  %lt = arith.cmpi ult, %r, %c100 : index
  return %lt : i1
}
