// Ops used in one region only sink into it; mem2reg promotes a stack slot.
// RUN: %opt %s --control-flow-sink
// RUN: %opt %s --mem2reg --canonicalize

func.func @sink(%c: i1, %a: i32) -> i32 {
  %m = arith.muli %a, %a : i32
  %r = scf.if %c -> (i32) {
    scf.yield %m : i32
  } else {
    scf.yield %a : i32
  }
  return %r : i32
}

func.func @slot(%a: f32) -> f32 {
  %s = memref.alloca() : memref<f32>
  memref.store %a, %s[] : memref<f32>
  %v = memref.load %s[] : memref<f32>
  return %v : f32
}
