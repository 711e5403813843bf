// Usage errors: each is one `strata-opt: ...` line on stderr, exit status 1,
// nothing on stdout and never a Python traceback.

// RUN: not strata-opt --bogus %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not strata-opt --bogus %s 2>/dev/null | count 0
// RUN: not strata-opt -bogus %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: strata-opt: Unknown command line argument '--bogus'.  Try: 'strata-opt --help'
// UNKNOWN-NOT: Traceback

// RUN: not strata-opt ---strata-canonicalize %s 2>&1 | FileCheck %s --check-prefix=DASHES
// DASHES: strata-opt: Unknown command line argument '---strata-canonicalize'.  Try: 'strata-opt --help'

// RUN: not strata-opt --strata-canonicalize=bogus=1 %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: strata-opt: error: strata-canonicalize: unknown option 'bogus' (options: max-fold-elements, max-iterations)
// BADOPT-NOT: Traceback

// RUN: not strata-opt --strata-canonicalize=max-fold-elements=many %s 2>&1 | FileCheck %s --check-prefix=BADVALUE
// BADVALUE: strata-opt: error: strata-canonicalize: option 'max-fold-elements' expects an integer, got 'many'

// RUN: not strata-opt --strata-vectorize=threads=0 %s 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not strata-opt '--pass-pipeline=builtin.module(strata-cpu{threads=-1})' %s 2>&1 | FileCheck %s --check-prefix=THREADS-CPU
// THREADS: strata-opt: error: strata-vectorize: option 'threads' must be at least 1, got 0
// THREADS-NOT: Traceback
// THREADS-CPU: strata-opt: error: strata-cpu: option 'threads' must be at least 1, got -1

// An upstream pass flag with a bad option is a bad option, not an unknown flag.
// RUN: not strata-opt --cse=bogus %s 2>&1 | FileCheck %s --check-prefix=UPSTREAMOPT
// UPSTREAMOPT: strata-opt: error: {{.*}}no such option bogus
// UPSTREAMOPT-NOT: Unknown command line argument
// UPSTREAMOPT-NOT: Traceback

// RUN: not strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize)' --cse 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not strata-opt %s --strata-canonicalize --pass-pipeline=builtin.module(cse) 2>&1 | FileCheck %s --check-prefix=BOTH2
// BOTH: strata-opt: '--pass-pipeline' can't be used with individual pass flags (got --cse)
// BOTH2: strata-opt: '--pass-pipeline' can't be used with individual pass flags (got --strata-canonicalize)

// RUN: not strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize' 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: strata-opt: error: invalid pass pipeline: expected ')' to close the nested pipeline
// SYNTAX-NEXT: builtin.module(strata-canonicalize
// SYNTAX-NEXT: ^
// SYNTAX-NOT: Traceback

// RUN: not strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize, no-such-pass)' 2>&1 | FileCheck %s --check-prefix=NOPASS
// NOPASS: strata-opt: error: 'no-such-pass' does not refer to a registered pass or pass pipeline (see strata-opt --list-passes)

// RUN: not strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize{bogus=1})' 2>&1 | FileCheck %s --check-prefix=BADOPT

// RUN: not strata-opt %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: {{.*}}.does-not-exist.mlir: error: could not open input file: No such file or directory
// MISSING-NOT: Traceback

// RUN: not strata-opt %s %s 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: strata-opt: Too many positional arguments specified! (extra: '{{.*}}strata-opt-errors.mlir')

// RUN: not strata-opt %s -o 2>&1 | FileCheck %s --check-prefix=NOVALUE
// NOVALUE: strata-opt: Not enough positional command line arguments specified! '-o' needs a value

// An output path that cannot be written is an error, not an internal error.
// RUN: echo "module {}" | not strata-opt - -o %t.no-such-dir/out.mlir 2>&1 | FileCheck %s --check-prefix=NODIR
// NODIR: strata-opt: error: could not open output file '{{.*}}.no-such-dir/out.mlir': No such file or directory
// NODIR-NOT: internal error
// NODIR-NOT: Traceback

// Errors in the input: located, exit status 1, no traceback.
// RUN: not strata-opt %s --strata-canonicalize --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=INPUT
// INPUT-NOT: IR Dump
// INPUT: strata-opt-errors.mlir:[[# @LINE + 5]]:8: error: matmul: inner dimensions differ (8 vs 4)
// INPUT-NOT: IR Dump
// INPUT-NOT: Traceback

func.func @f(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = "strata.matmul"(%a, %a) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
