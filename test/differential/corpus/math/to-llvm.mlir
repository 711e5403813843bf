// math ops with LLVM intrinsics become llvm.intr.*, the rest libm calls.
// RUN: %opt %s --convert-math-to-llvm
// RUN: %opt %s --convert-math-to-libm
// RUN: %opt %s --convert-math-to-llvm --convert-math-to-libm --convert-func-to-llvm --reconcile-unrealized-casts

func.func @f(%x: f32, %y: f64) -> (f32, f32, f64, f32) {
  %a = math.sqrt %x : f32
  %b = math.exp %a : f32
  %c = math.atan2 %y, %y : f64
  %d = math.fma %a, %b, %x : f32
  return %b, %d, %c, %a : f32, f32, f64, f32
}
