// --list-passes, --show-dialects, --version and --help print to stdout, exit 0,
// and ignore the input. --list-passes is mlir-opt's list with strata's passes
// (and their options) in it, then the --compile-to levels.

// RUN: strata-opt --list-passes | FileCheck %s --check-prefix=LIST
// RUN: strata-opt --list-passes %t.does-not-exist.mlir | FileCheck %s --check-prefix=LIST
// LIST: Passes:
// LIST: --canonicalize -   Canonicalize operations
// LIST: --cse -   Eliminate common sub-expressions
// LIST: --strata-canonicalize -   Simplify strata ops algebraically, fold small constants and drop dead ops.
// LIST-NEXT: --max-fold-elements=<int> - {{.+}} (default: 64; at least 0)
// LIST-NEXT: --max-iterations=<int> - {{.+}} (default: 10; at least 1)
// LIST: --strata-verify -   Check strata ops against their shape and dtype rules (changes nothing).
// LIST: Levels for --compile-to (in order):
// LIST-NEXT: strata
// LIST-NOT: Traceback

// RUN: strata-opt --show-dialects | FileCheck %s --check-prefix=DIALECTS
// DIALECTS: Available Dialects: {{.*}}arith,{{.*}}linalg,{{.*}}strata,

// RUN: strata-opt --version | FileCheck %s --check-prefix=VERSION
// RUN: strata-opt --version 2>&1 | count 1
// VERSION: strata-opt {{[0-9]+\.[0-9]+\.[0-9]+}} (MLIR {{[0-9.]+}})

// RUN: strata-opt --help | FileCheck %s --check-prefix=HELP
// RUN: strata-opt -h | FileCheck %s --check-prefix=HELP
// HELP: OVERVIEW: strata modular optimizer driver
// HELP: USAGE: strata-opt [options] <input file>
// HELP: --allow-unregistered-dialect
// HELP: --list-passes
// HELP: --mlir-print-ir-after-all
// HELP: --mlir-timing
// HELP: --pass-pipeline=<string>
// HELP: --split-input-file
// HELP: --verify-diagnostics
// HELP: --version
// HELP: Passes:
// HELP: --canonicalize
// HELP: --strata-canonicalize
