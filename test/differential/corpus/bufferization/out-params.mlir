// Returned buffers become out-params of the function and its callers.
// RUN: %opt %s --buffer-results-to-out-params
// RUN: %opt %s --buffer-results-to-out-params='hoist-static-allocs' --canonicalize

func.func private @make() -> memref<4xf32> {
  %m = memref.alloc() : memref<4xf32>
  return %m : memref<4xf32>
}

func.func @use() -> f32 {
  %m = call @make() : () -> memref<4xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %m[%c0] : memref<4xf32>
  return %v : f32
}
