// index and ub dialects to LLVM.
// RUN: %opt %s --convert-index-to-llvm
// RUN: %opt %s --convert-index-to-llvm --convert-ub-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts

func.func @f(%a: index, %b: index) -> (index, index, i64) {
  %s = index.add %a, %b
  %m = index.maxs %s, %a
  %p = ub.poison : i64
  return %s, %m, %p : index, index, i64
}
