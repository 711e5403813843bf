// math-expand-ops rewrites tanh, ctlz and friends into arith and simpler math ops.
// RUN: %opt %s --math-expand-ops
// RUN: %opt %s --math-expand-ops --canonicalize --cse

func.func @f(%x: f32, %i: i32) -> (f32, i32, f32) {
  %t = math.tanh %x : f32
  %z = math.ctlz %i : i32
  %c = math.ceil %x : f32
  return %t, %z, %c : f32, i32, f32
}
