// Sparse conditional constant propagation through branches and loops.
// RUN: %opt %s --sccp
// RUN: %opt %s --sccp --canonicalize --symbol-privatize

func.func @f(%c: i1) -> i32 {
  %a = arith.constant 4 : i32
  %b = arith.constant 4 : i32
  cf.cond_br %c, ^x(%a : i32), ^x(%b : i32)
^x(%v: i32):
  %d = arith.addi %v, %v : i32
  return %d : i32
}
