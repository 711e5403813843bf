// A strata pass's options in --pass-pipeline text with braces that do not balance: MLIR's
// parser judges them, as mlir-opt does for its own passes ('canonicalize{' is "missing
// closing '}'" there), at the user's column; exit status 1, nothing on stdout, no
// traceback, and never a pass run with the text cut short (`{bogus)` was read as the
// option 'bogu', `{)` as no options at all and exit status 0).

// RUN: not strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize{)' 2>&1 | FileCheck %s --check-prefix=OPEN
// RUN: not strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize{)' 2>/dev/null | count 0
// OPEN: <unknown>:0: error: MLIR Textual PassPipeline Parser:1:20: error: missing closing '}' while processing pass options
// OPEN-NEXT: {{^}}strata-canonicalize{{[{]$}}
// OPEN-NEXT: {{^}}                   ^
// OPEN-NOT: Traceback

// RUN: not strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize{bogus)' 2>&1 | FileCheck %s --check-prefix=OPEN-NAME
// OPEN-NAME: <unknown>:0: error: MLIR Textual PassPipeline Parser:1:20: error: missing closing '}' while processing pass options
// OPEN-NAME-NEXT: {{^}}strata-canonicalize{bogus{{$}}
// OPEN-NAME-NOT: unknown option

// RUN: not strata-opt %s --pass-pipeline='builtin.module(cse, strata-canonicalize{max-iterations=1)' 2>&1 | FileCheck %s --check-prefix=OPEN-VALUE
// OPEN-VALUE: <unknown>:0: error: MLIR Textual PassPipeline Parser:1:25: error: missing closing '}' while processing pass options
// OPEN-VALUE-NEXT: {{^}}cse, strata-canonicalize{max-iterations=1{{$}}
// OPEN-VALUE-NOT: expects an integer

// An unclosed brace after a strata pass: the strata pass is checked, the upstream one is MLIR's.
// RUN: not strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize{max-iterations=1}, canonicalize{)' 2>&1 | FileCheck %s --check-prefix=OPEN-LATER
// OPEN-LATER: <unknown>:0: error: MLIR Textual PassPipeline Parser:1:52: error: missing closing '}' while processing pass options

// Text after a strata pass's options: MLIR's "expected ','" where it is (it was an
// internal error for `{...}{}`, and a message naming the whole element for `{...}}`).
// RUN: not strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize{max-iterations=1}{})' 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: not strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize{max-iterations=1}})' 2>&1 | FileCheck %s --check-prefix=AFTER
// AFTER: <unknown>:0: error: MLIR Textual PassPipeline Parser:1:38: error: expected ',' after parsing pipeline
// AFTER-NEXT: {{^}}strata-canonicalize{max-iterations=1}
// AFTER-NEXT: {{^}}                                     ^
// AFTER-NOT: internal error

// The same texts with an upstream pass, for comparison: mlir-opt's own messages.
// RUN: not %mlir-opt %s --pass-pipeline='builtin.module(canonicalize{)' 2>&1 | FileCheck %s --check-prefix=UPSTREAM-OPEN
// UPSTREAM-OPEN: <unknown>:0: error: MLIR Textual PassPipeline Parser:1:13: error: missing closing '}' while processing pass options
// RUN: not %mlir-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=1}{})' 2>&1 | FileCheck %s --check-prefix=UPSTREAM-AFTER
// UPSTREAM-AFTER: <unknown>:0: error: MLIR Textual PassPipeline Parser:1:31: error: expected ',' after parsing pipeline

// Balanced braces still reach the pass's own checks.
// RUN: not strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize{bogus=1})' 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: <unknown>:0: error: strata-canonicalize: unknown option 'bogus' (options: max-fold-elements, max-iterations)
// RUN: strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize{max-iterations=1})' | FileCheck %s --check-prefix=OK
// OK: func.func @f

func.func @f() {
  return
}
