// The pass rewrites what it matches and reports nothing else; it has no options, and an
// unknown one is a clear error (no traceback).
// RUN: not strata-opt %s --strata-strided-copies=unknown=1 2>&1 | FileCheck %s
// CHECK: error: strata-strided-copies: unknown option 'unknown' (options: none)
// CHECK-NOT: Traceback
func.func @f() {
  return
}
