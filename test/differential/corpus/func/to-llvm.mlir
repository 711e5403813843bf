// Functions, calls and returns of several results to the LLVM dialect.
// RUN: %opt %s --convert-func-to-llvm
// RUN: %opt %s --convert-func-to-llvm --reconcile-unrealized-casts --mlir-print-debuginfo

func.func private @ext(i64) -> i64

func.func @pair(%a: i64, %b: i64) -> (i64, i64) {
  %r = call @ext(%a) : (i64) -> i64
  return %r, %b : i64, i64
}

func.func @c_iface(%a: i32) -> i32 attributes {llvm.emit_c_interface} {
  return %a : i32
}
