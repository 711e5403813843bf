// scf.for / scf.if / scf.while lowered to blocks and branches.
// RUN: %opt %s --convert-scf-to-cf
// RUN: %opt %s --convert-scf-to-cf --canonicalize

func.func @sum(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %next = arith.addi %acc, %i : index
    scf.yield %next : index
  }
  return %r : index
}

func.func @choose(%c: i1, %a: f32, %b: f32) -> f32 {
  %r = scf.if %c -> (f32) {
    scf.yield %a : f32
  } else {
    %n = arith.negf %b : f32
    scf.yield %n : f32
  }
  return %r : f32
}

func.func @count(%limit: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.while (%i = %c0) : (i32) -> i32 {
    %go = arith.cmpi slt, %i, %limit : i32
    scf.condition(%go) %i : i32
  } do {
  ^bb0(%j: i32):
    %k = arith.addi %j, %c1 : i32
    scf.yield %k : i32
  }
  return %r : i32
}
