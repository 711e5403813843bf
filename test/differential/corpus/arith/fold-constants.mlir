// Integer and float constants folded by the canonicalizer; identities removed.
// RUN: %opt %s --canonicalize
// RUN: %opt %s --canonicalize --cse --mlir-print-op-generic
// RUN: %opt %s --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=1}))'

func.func @ints(%a: i32) -> (i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c6 = arith.constant 6 : i32
  %c7 = arith.constant 7 : i32
  %sum = arith.addi %a, %c0 : i32
  %prod = arith.muli %sum, %c1 : i32
  %k = arith.muli %c6, %c7 : i32
  %sub = arith.subi %prod, %prod : i32
  return %prod, %k, %sub : i32, i32, i32
}

func.func @floats(%x: f32) -> (f32, f32) {
  %half = arith.constant 0.5 : f32
  %two = arith.constant 2.0 : f32
  %one = arith.mulf %half, %two : f32
  %y = arith.mulf %x, %one : f32
  %neg = arith.negf %y : f32
  %back = arith.negf %neg : f32
  return %y, %back : f32, f32
}
