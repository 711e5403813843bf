// `-o` writes the output file; on failure no file is written and an existing
// one is left as it was.

// RUN: rm -f %t
// RUN: strata-opt %s --split-input-file --strata-canonicalize -o %t 2>&1 | count 0
// RUN: FileCheck %s --check-prefix=FILE < %t
// RUN: strata-opt %s --split-input-file --strata-canonicalize -o - | FileCheck %s --check-prefix=FILE

// A usage error: no file.
// RUN: rm -f %t.bad
// RUN: not strata-opt %s --split-input-file --strata-canonicalize -o %t.bad --bogus 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: not ls %t.bad

// An error in the input, in the last chunk of a copy of this file: no file.
// RUN: cp %s %t.bad.mlir
// RUN: echo "// ---""--" >> %t.bad.mlir
// RUN: echo 'func.func @bad(%%a: tensor<4xf32>) -> tensor<4xf32> {' >> %t.bad.mlir
// RUN: echo '  %%0 = "strata.softmax"(%%a) {axis = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>' >> %t.bad.mlir
// RUN: echo '  return %%0 : tensor<4xf32>' >> %t.bad.mlir
// RUN: echo '}' >> %t.bad.mlir
// RUN: rm -f %t.out
// RUN: not strata-opt %t.bad.mlir --split-input-file --strata-canonicalize -o %t.out 2>&1 | FileCheck %s --check-prefix=CHUNK
// RUN: not ls %t.out
// An existing output file is left alone.
// RUN: echo "previous contents" > %t.out
// RUN: not strata-opt %t.bad.mlir --split-input-file --strata-canonicalize -o %t.out
// RUN: FileCheck %s --check-prefix=OLD < %t.out
// And nothing else is left in the output directory.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: not strata-opt %t.bad.mlir --split-input-file -o %t.dir/out.mlir
// RUN: ls -A %t.dir | count 0
// RUN: strata-opt %s --split-input-file -o %t.dir/out.mlir
// RUN: ls -A %t.dir | FileCheck %s --check-prefix=DIR

// Writing through a symlink updates its target and keeps the link.
// RUN: rm -f %t.link %t.target
// RUN: echo "old" > %t.target
// RUN: ln -s %t.target %t.link
// RUN: strata-opt %s --split-input-file --strata-canonicalize -o %t.link
// RUN: test -L %t.link
// RUN: FileCheck %s --check-prefix=FILE < %t.target

// FILE-LABEL: func.func @first
// FILE-NOT: strata.mul
// FILE: return %arg0
// FILE: // {{-----}}
// FILE-LABEL: func.func @second
// FILE-NEXT: "strata.relu"
// FILE-NOT: Traceback

// ERR: strata-opt: Unknown command line argument '--bogus'.  Try: '{{.*}}strata-opt --help'

// CHUNK: strata-opt-output.mlir.tmp.bad.mlir:{{[0-9]+}}:8: error: softmax: axis 1 is out of range for a rank-1 tensor (expected -1 <= axis < 1)
// CHUNK-NOT: Traceback

// OLD: previous contents
// DIR: out.mlir
// DIR-NOT: strata-opt

func.func @first(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = "strata.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "strata.mul"(%x, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @second(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "strata.relu"(%x) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
