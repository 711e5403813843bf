// Syntax errors: nothing printed for a chunk that does not parse; the others are.
// RUN: %opt %s --split-input-file
// RUN: %opt %s --split-input-file --canonicalize
// RUN: %opt %s

func.func @ok(%a: i64) -> i64 {
  return %a : i64
}

// -----

func.func @missing_type(%a: i64) -> i64 {
  %0 = arith.addi %a, %a
  return %0 : i64
}

// -----

func.func @undefined() -> i64 {
  return %nope : i64
}
