// Small allocations with a known size move to the stack.
// RUN: %opt %s --promote-buffers-to-stack
// RUN: %opt %s --promote-buffers-to-stack='max-alloc-size-in-bytes=16'

func.func @small(%v: f32) -> f32 {
  %m = memref.alloc() : memref<8xf32>
  %c3 = arith.constant 3 : index
  memref.store %v, %m[%c3] : memref<8xf32>
  %r = memref.load %m[%c3] : memref<8xf32>
  memref.dealloc %m : memref<8xf32>
  return %r : f32
}
