// Branch folding: constant conditions, trivially forwarding blocks, merged successors.
// RUN: %opt %s --canonicalize
// RUN: %opt %s --canonicalize --mlir-print-op-generic

func.func @branches(%c: i1, %a: i32, %b: i32) -> i32 {
  %true = arith.constant true
  cf.cond_br %true, ^bb1, ^bb2
^bb1:
  cf.br ^bb3(%a : i32)
^bb2:
  cf.br ^bb3(%b : i32)
^bb3(%r: i32):
  cf.cond_br %c, ^bb4(%r : i32), ^bb4(%r : i32)
^bb4(%s: i32):
  return %s : i32
}
