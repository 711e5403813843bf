// Identical private functions are merged; dead symbols removed.
// RUN: %opt %s --duplicate-function-elimination
// RUN: %opt %s --duplicate-function-elimination --symbol-dce --mlir-print-op-generic

func.func private @a(%x: f32) -> f32 {
  %r = arith.addf %x, %x : f32
  return %r : f32
}

func.func private @b(%x: f32) -> f32 {
  %r = arith.addf %x, %x : f32
  return %r : f32
}

func.func @use(%x: f32) -> f32 {
  %p = call @a(%x) : (f32) -> f32
  %q = call @b(%p) : (f32) -> f32
  return %q : f32
}
