// A module that carries a data layout and a target triple: its attributes are kept.
// RUN: %opt %s --canonicalize
// RUN: %opt %s --convert-to-llvm --reconcile-unrealized-casts
// RUN: %opt %s --mlir-print-debuginfo --mlir-print-op-generic

module attributes {dlti.dl_spec = #dlti.dl_spec<index = 32 : i64, "dlti.endianness" = "little">,
                   llvm.target_triple = "x86_64-unknown-linux-gnu"} {
  func.func @f(%a: index, %m: memref<4xf32>) -> f32 {
    %v = memref.load %m[%a] : memref<4xf32>
    %c0 = arith.constant 0.0 : f32
    %r = arith.addf %v, %c0 : f32
    return %r : f32
  }
}
