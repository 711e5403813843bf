// Several chunks, each its own module; the outputs are joined by the marker.
// RUN: %opt %s --split-input-file --canonicalize
// RUN: %opt %s --split-input-file --canonicalize --output-split-marker='// ====='
// RUN: %opt %s --split-input-file --mlir-print-debuginfo
// RUN: %opt %s --canonicalize

func.func @one(%a: i8) -> i8 {
  %c0 = arith.constant 0 : i8
  %r = arith.ori %a, %c0 : i8
  return %r : i8
}

// -----

module attributes {test.attr = "x"} {
  func.func @two(%a: i8) -> i8 {
    %r = arith.andi %a, %a : i8
    return %r : i8
  }
}

// -----

func.func @three() -> index {
  %c = arith.constant 3 : index
  return %c : index
}
