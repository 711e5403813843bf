// The inliner inlines private callees and symbol-dce removes them.
// RUN: %opt %s --inline
// RUN: %opt %s --inline --symbol-dce
// RUN: %opt %s --pass-pipeline='builtin.module(inline, symbol-dce, func.func(canonicalize))'

func.func private @square(%x: i32) -> i32 {
  %r = arith.muli %x, %x : i32
  return %r : i32
}

func.func private @unused(%x: i32) -> i32 {
  return %x : i32
}

func.func @caller(%a: i32) -> i32 {
  %s = call @square(%a) : (i32) -> i32
  %t = call @square(%s) : (i32) -> i32
  return %t : i32
}
