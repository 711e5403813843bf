// Usage errors: mlir-opt's messages (`strata-opt: ...` lines from the option
// parser, `<unknown>:0: error: ...` for a pipeline that does not build), exit
// status 1, nothing on stdout and never a Python traceback.

// RUN: not strata-opt --bogus %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not strata-opt --bogus %s 2>/dev/null | count 0
// UNKNOWN: strata-opt: Unknown command line argument '--bogus'.  Try: '{{.*}}strata-opt --help'
// UNKNOWN-NEXT: strata-opt: Did you mean '-{{.+}}'?
// UNKNOWN-NOT: Traceback
// RUN: not strata-opt -bogus %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN1
// UNKNOWN1: strata-opt: Unknown command line argument '-bogus'.  Try: '{{.*}}strata-opt --help'

// A misspelled pass flag gets the nearest one, as in mlir-opt.
// RUN: not strata-opt --strata-canonicalise %s 2>&1 | FileCheck %s --check-prefix=NEAR
// RUN: not strata-opt --canonicalise %s 2>&1 | FileCheck %s --check-prefix=NEAR-UP
// NEAR: strata-opt: Did you mean '--strata-canonicalize'?
// NEAR-UP: strata-opt: Did you mean '--canonicalize'?

// RUN: not strata-opt ---strata-canonicalize %s 2>&1 | FileCheck %s --check-prefix=DASHES
// DASHES: strata-opt: Unknown command line argument '---strata-canonicalize'.  Try: '{{.*}}strata-opt --help'

// RUN: not strata-opt --strata-canonicalize=bogus=1 %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: <unknown>:0: error: strata-canonicalize: unknown option 'bogus' (options: max-fold-elements, max-iterations)
// BADOPT-NOT: Traceback

// RUN: not strata-opt --strata-canonicalize=max-fold-elements=many %s 2>&1 | FileCheck %s --check-prefix=BADVALUE
// BADVALUE: <unknown>:0: error: strata-canonicalize: option 'max-fold-elements' expects an integer, got 'many'

// RUN: not strata-opt --strata-vectorize=threads=0 %s 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not strata-opt '--pass-pipeline=builtin.module(strata-cpu{threads=-1})' %s 2>&1 | FileCheck %s --check-prefix=THREADS-CPU
// THREADS: <unknown>:0: error: strata-vectorize: option 'threads' must be at least 1, got 0
// THREADS-NOT: Traceback
// THREADS-CPU: <unknown>:0: error: strata-cpu: option 'threads' must be at least 1, got -1

// An upstream pass flag with a bad option is a bad option (MLIR's message), not an unknown flag.
// RUN: not strata-opt --cse=bogus %s 2>&1 | FileCheck %s --check-prefix=UPSTREAMOPT
// UPSTREAMOPT: <unknown>:0: error: <Pass-Options-Parser>: no such option bogus
// UPSTREAMOPT-NOT: Unknown command line argument
// UPSTREAMOPT-NOT: Traceback

// RUN: not strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize)' --cse 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not strata-opt %s --strata-canonicalize --pass-pipeline=builtin.module(cse) 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: <unknown>:0: error: '-pass-pipeline' option can't be used with individual pass options

// RUN: not strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize' 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: <unknown>:0: error: expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'
// SYNTAX-NOT: Traceback
// RUN: not strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize))' 2>&1 | FileCheck %s --check-prefix=SYNTAX2
// SYNTAX2: <unknown>:0: error: MLIR Textual PassPipeline Parser:1:20: error: encountered extra closing ')' creating unbalanced parentheses while parsing pipeline
// SYNTAX2-NEXT: strata-canonicalize)
// SYNTAX2-NEXT: {{^}}                   ^

// RUN: not strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize, no-such-pass)' 2>&1 | FileCheck %s --check-prefix=NOPASS
// NOPASS: <unknown>:0: error: MLIR Textual PassPipeline Parser:1:22: error: 'no-such-pass' does not refer to a registered pass or pass pipeline
// NOPASS-NEXT: strata-canonicalize, no-such-pass
// NOPASS-NEXT: {{^}}                     ^

// RUN: not strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize{bogus=1})' 2>&1 | FileCheck %s --check-prefix=BADOPT

// RUN: not strata-opt %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: cannot open input file '{{.*}}.does-not-exist.mlir': No such file or directory
// MISSING-NOT: Traceback

// RUN: not strata-opt %s %s 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: strata-opt: Too many positional arguments specified!
// TWO-NEXT: Can specify at most 1 positional arguments: See: {{.*}}strata-opt --help

// RUN: not strata-opt %s -o 2>&1 | FileCheck %s --check-prefix=NOVALUE
// NOVALUE: strata-opt: for the -o option: requires a value!

// An output path that cannot be written is an error, not an internal error.
// RUN: echo "module {}" | not strata-opt - -o %t.no-such-dir/out.mlir 2>&1 | FileCheck %s --check-prefix=NODIR
// NODIR: cannot open output file '{{.*}}.no-such-dir/out.mlir': No such file or directory
// NODIR-NOT: internal error
// NODIR-NOT: Traceback

// Errors in the input: located (with the line, as MLIR shows it), exit status 1, no traceback.
// RUN: not strata-opt %s --strata-canonicalize --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=INPUT
// INPUT-NOT: IR Dump
// INPUT: strata-opt-errors.mlir:[[# @LINE + 7]]:8: error: matmul: inner dimensions differ (8 vs 4)
// INPUT-NEXT: {{^}}  %0 = "strata.matmul"
// INPUT-NEXT: {{^}}       ^
// INPUT-NOT: IR Dump
// INPUT-NOT: Traceback

func.func @f(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = "strata.matmul"(%a, %a) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
