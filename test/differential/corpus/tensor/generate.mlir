// tensor.generate and from_elements with constant operands fold to constants.
// RUN: %opt %s --canonicalize
// RUN: %opt %s --canonicalize --mlir-elide-elementsattrs-if-larger=1

func.func @f() -> (tensor<3xi32>, tensor<2xf32>) {
  %a = arith.constant 1 : i32
  %b = arith.constant 2 : i32
  %t = tensor.from_elements %a, %b, %a : tensor<3xi32>
  %g = tensor.generate {
  ^bb0(%i: index):
    %x = arith.constant 1.5 : f32
    tensor.yield %x : f32
  } : tensor<2xf32>
  return %t, %g : tensor<3xi32>, tensor<2xf32>
}
