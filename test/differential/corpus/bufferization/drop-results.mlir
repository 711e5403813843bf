// Results equivalent to an argument are dropped from the function.
// RUN: %opt %s --drop-equivalent-buffer-results
// RUN: %opt %s --drop-equivalent-buffer-results --canonicalize

func.func private @id(%m: memref<4xf32>) -> memref<4xf32> {
  return %m : memref<4xf32>
}

func.func @use(%m: memref<4xf32>) -> memref<4xf32> {
  %r = call @id(%m) : (memref<4xf32>) -> memref<4xf32>
  return %r : memref<4xf32>
}
