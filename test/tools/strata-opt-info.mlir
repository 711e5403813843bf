// --list-passes, --version and --help print to stdout, exit 0, and ignore the input.

// RUN: strata-opt --list-passes | FileCheck %s --check-prefix=LIST
// RUN: strata-opt --list-passes %t.does-not-exist.mlir | FileCheck %s --check-prefix=LIST
// LIST: strata passes and pipelines:
// LIST: --strata-canonicalize
// LIST-NEXT: Simplify strata ops algebraically, fold small constants and drop dead ops.
// LIST-NEXT: max-fold-elements=<int> (default: 64)
// LIST-NEXT: max-iterations=<int> (default: 10)
// LIST: --strata-verify
// LIST-NEXT: Check strata ops against their shape and dtype rules (changes nothing).
// LIST: Any upstream MLIR pass is accepted too
// LIST-NOT: Traceback

// RUN: strata-opt --version | FileCheck %s --check-prefix=VERSION
// RUN: strata-opt --version 2>&1 | count 1
// VERSION: strata-opt {{[0-9]+\.[0-9]+\.[0-9]+}} (MLIR {{[0-9.]+}})

// RUN: strata-opt --help | FileCheck %s --check-prefix=HELP
// RUN: strata-opt -h | FileCheck %s --check-prefix=HELP
// HELP: OVERVIEW: strata modular optimizer driver
// HELP: USAGE: strata-opt [options] <input file>
// HELP: --pass-pipeline=<pipeline>
// HELP: --split-input-file
// HELP: --verify-diagnostics
// HELP: --mlir-print-ir-after-all
// HELP: --mlir-timing
// HELP: --list-passes
// HELP: --version
