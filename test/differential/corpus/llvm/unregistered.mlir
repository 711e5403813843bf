// Ops of a dialect nobody registered: rejected, or kept as they are with the flag.
// RUN: %opt %s
// RUN: %opt %s --allow-unregistered-dialect
// RUN: %opt %s --allow-unregistered-dialect --canonicalize --mlir-print-op-generic
// RUN: %opt %s --allow-unregistered-dialect --convert-func-to-llvm

func.func @f(%a: i32) -> i32 {
  %0 = "mystery.op"(%a) {note = "kept"} : (i32) -> i32
  "mystery.effect"() : () -> ()
  return %0 : i32
}
