// An upstream pass that crashes (a null dereference in MLIR 22.1.8's
// buffer-results-to-out-params{hoist-static-allocs} on a function returning one
// allocation twice) is a located error and exit status 1, not a signal; the
// --split-input-file location is where the chunk starts (after the marker), and
// -o is not written.
// RUN: not strata-opt --split-input-file %s -o %t.out \
// RUN:   --pass-pipeline='builtin.module(buffer-results-to-out-params{hoist-static-allocs modify-public-functions})' \
// RUN:   2>&1 | FileCheck %s
// RUN: not test -e %t.out
// RUN: not strata-opt --split-input-file - < %s \
// RUN:   --pass-pipeline='builtin.module(buffer-results-to-out-params{hoist-static-allocs modify-public-functions})' \
// RUN:   2>&1 | FileCheck %s --check-prefix=STDIN

// CHECK-NOT: Stack dump
// CHECK: strata-opt-crash.mlir:[[@LINE+6]]:9: error: pass 'buffer-results-to-out-params' crashed (SIGSEGV) on this input; nothing was written
// CHECK-NOT: error
// STDIN: <stdin>:[[@LINE+4]]:9: error: pass 'buffer-results-to-out-params' crashed (SIGSEGV)
func.func @fine(%a: memref<4xf32>) -> memref<4xf32> {
  return %a : memref<4xf32>
}
// -----
func.func @twice() -> (memref<4xf32>, memref<4xf32>) {
  %b = memref.alloc() : memref<4xf32>
  return %b, %b : memref<4xf32>, memref<4xf32>
}
