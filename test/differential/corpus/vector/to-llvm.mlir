// 1-D vector ops, broadcasts and reductions to the LLVM dialect.
// RUN: %opt %s --convert-vector-to-llvm
// RUN: %opt %s --convert-vector-to-llvm --convert-arith-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts

func.func @f(%a: vector<8xf32>, %s: f32) -> (f32, vector<8xf32>) {
  %b = vector.broadcast %s : f32 to vector<8xf32>
  %m = arith.mulf %a, %b : vector<8xf32>
  %r = vector.reduction <add>, %m : vector<8xf32> into f32
  %e = vector.extract %m[3] : f32 from vector<8xf32>
  %i = vector.insert %e, %m [0] : f32 into vector<8xf32>
  return %r, %i : f32, vector<8xf32>
}
