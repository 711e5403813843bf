// Canonicalization of scf: constant conditions, zero-trip and single-trip loops.
// RUN: %opt %s --canonicalize
// RUN: %opt %s --sccp --canonicalize

func.func @const_if(%a: f32, %b: f32) -> f32 {
  %true = arith.constant true
  %r = scf.if %true -> (f32) {
    scf.yield %a : f32
  } else {
    scf.yield %b : f32
  }
  return %r : f32
}

func.func @loops(%x: f32) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = scf.for %i = %c0 to %c0 step %c1 iter_args(%a = %x) -> (f32) {
    %n = arith.negf %a : f32
    scf.yield %n : f32
  }
  %once = scf.for %i = %c0 to %c1 step %c1 iter_args(%a = %x) -> (f32) {
    %n = arith.negf %a : f32
    scf.yield %n : f32
  }
  return %zero, %once : f32, f32
}
