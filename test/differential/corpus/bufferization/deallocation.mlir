// Every allocation freed on every path (ownership-based deallocation).
// RUN: %opt %s --buffer-deallocation-pipeline
// RUN: %opt %s --ownership-based-buffer-deallocation --canonicalize

func.func @branchy(%c: i1, %n: index) -> f32 {
  %a = memref.alloc(%n) : memref<?xf32>
  %b = memref.alloc(%n) : memref<?xf32>
  %m = arith.select %c, %a, %b : memref<?xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %m[%c0] : memref<?xf32>
  return %v : f32
}
