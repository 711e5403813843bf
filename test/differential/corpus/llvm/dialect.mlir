// LLVM dialect IR itself: canonicalize, CSE, and printing it back.
// RUN: %opt %s --canonicalize --cse
// RUN: %opt %s --mlir-print-op-generic
// RUN: %opt %s --mlir-print-debuginfo --symbol-dce

llvm.func @helper(%a: i64) -> i64 attributes {sym_visibility = "private"} {
  llvm.return %a : i64
}

llvm.func @main(%a: i64, %b: i64) -> i64 {
  %0 = llvm.add %a, %b : i64
  %1 = llvm.add %a, %b : i64
  %2 = llvm.mul %0, %1 : i64
  %c = llvm.mlir.constant(0 : i64) : i64
  %3 = llvm.add %2, %c : i64
  llvm.return %3 : i64
}
