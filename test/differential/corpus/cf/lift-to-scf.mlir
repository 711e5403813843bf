// Structured control flow recovered from a diamond of blocks.
// RUN: %opt %s --lift-cf-to-scf
// RUN: %opt %s --lift-cf-to-scf --canonicalize

func.func @diamond(%c: i1, %a: f32) -> f32 {
  cf.cond_br %c, ^left, ^right
^left:
  %l = arith.addf %a, %a : f32
  cf.br ^join(%l : f32)
^right:
  %r = arith.mulf %a, %a : f32
  cf.br ^join(%r : f32)
^join(%v: f32):
  return %v : f32
}
