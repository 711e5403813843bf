// cf branches and asserts to the LLVM dialect.
// RUN: %opt %s --convert-cf-to-llvm
// RUN: %opt %s --convert-cf-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts

func.func @loop(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  cf.br ^head(%c0 : i64)
^head(%i: i64):
  %go = arith.cmpi slt, %i, %n : i64
  cf.cond_br %go, ^body, ^exit
^body:
  %j = arith.addi %i, %c1 : i64
  cf.br ^head(%j : i64)
^exit:
  cf.assert %go, "never reached true"
  return %i : i64
}
