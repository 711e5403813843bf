// Scalar arith to the LLVM dialect.
// RUN: %opt %s --convert-arith-to-llvm
// RUN: %opt %s --convert-arith-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts

func.func @scalar(%a: i32, %b: i32, %x: f64) -> (i32, f64, i1) {
  %s = arith.addi %a, %b : i32
  %m = arith.muli %s, %a : i32
  %e = arith.extsi %m : i32 to i64
  %t = arith.trunci %e : i64 to i16
  %u = arith.extui %t : i16 to i32
  %y = arith.mulf %x, %x : f64
  %c = arith.cmpf olt, %y, %x : f64
  return %u, %y, %c : i32, f64, i1
}
