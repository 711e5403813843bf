// arith-expand rewrites ceil/floor division and min/max into simpler arith ops.
// RUN: %opt %s --arith-expand
// RUN: %opt %s --arith-expand --canonicalize --cse

func.func @divs(%a: i32, %b: i32) -> (i32, i32) {
  %c = arith.ceildivsi %a, %b : i32
  %f = arith.floordivsi %a, %b : i32
  return %c, %f : i32, i32
}

func.func @minmax(%x: f32, %y: f32) -> (f32, f32) {
  %lo = arith.minimumf %x, %y : f32
  %hi = arith.maximumf %x, %y : f32
  return %lo, %hi : f32, f32
}
