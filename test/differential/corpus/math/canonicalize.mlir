// Constant math folds; an fma of constants too.
// RUN: %opt %s --canonicalize
// RUN: %opt %s --math-uplift-to-fma

func.func @consts() -> (f32, f32) {
  %four = arith.constant 4.0 : f32
  %r = math.sqrt %four : f32
  %a = math.absf %r : f32
  return %r, %a : f32, f32
}

func.func @mul_add(%a: f32, %b: f32, %c: f32) -> f32 {
  %m = arith.mulf %a, %b fastmath<contract> : f32
  %s = arith.addf %m, %c fastmath<contract> : f32
  return %s : f32
}
