// cmpi/select patterns: a select of the same value, a compare of a value with itself.
// RUN: %opt %s --canonicalize
// RUN: %opt %s --canonicalize --mlir-print-debuginfo

func.func @same(%c: i1, %a: i64) -> i64 {
  %r = arith.select %c, %a, %a : i64
  return %r : i64
}

func.func @self_compare(%a: i64) -> (i1, i1, i1) {
  %eq = arith.cmpi eq, %a, %a : i64
  %lt = arith.cmpi slt, %a, %a : i64
  %ge = arith.cmpi uge, %a, %a : i64
  return %eq, %lt, %ge : i1, i1, i1
}

func.func @select_to_ext(%c: i1) -> i32 {
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %r = arith.select %c, %one, %zero : i32
  return %r : i32
}
