// IR printing around passes, timing, textual pipelines mixing strata and
// upstream passes, and stdin input. Dumps and the timing report are MLIR's own
// (strata's passes run in MLIR's PassManager), in mlir-opt's form.

// RUN: strata-opt %s --strata-canonicalize --cse --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: strata-opt %s --strata-canonicalize --cse --mlir-print-ir-before=strata-canonicalize 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: strata-opt %s --strata-canonicalize --cse --mlir-print-ir-after=cse -o %t.out 2>&1 | FileCheck %s --check-prefix=AFTERCSE
// RUN: strata-opt %s --strata-canonicalize --cse --mlir-print-ir-before-all -o %t.out 2>&1 | FileCheck %s --check-prefix=BEFOREALL
// RUN: strata-opt %s --strata-canonicalize --mlir-print-ir-after-all --mlir-print-debuginfo 2>&1 | FileCheck %s --check-prefix=DEBUGINFO
// RUN: strata-opt %s --strata-canonicalize --cse --mlir-timing -o %t.out 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize, func.func(cse))' --mlir-print-ir-after-all --mlir-disable-threading 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: strata-opt %s --pass-pipeline='builtin.module(strata-canonicalize{max-fold-elements=1}, func.func(canonicalize{max-iterations=2}, cse))' --mlir-timing 2>&1 | FileCheck %s --check-prefix=OPTS
// RUN: cat %s | strata-opt - --strata-canonicalize 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: strata-opt --strata-canonicalize < %s 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: strata-opt %s -strata-canonicalize 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: strata-opt %s 2>&1 | FileCheck %s --check-prefix=NOPASS

// AFTER-NOT: Traceback
// AFTER-NOT: IR Dump Before
// AFTER: // -----// IR Dump After StrataCanonicalize (strata-canonicalize) //----- //
// AFTER-NEXT: module {
// AFTER-NEXT: func.func @f(%[[X:[a-z0-9]+]]: tensor<4xf32>) -> (tensor<2x4xf32>, index, index) {
// AFTER-NEXT: %[[E:.+]] = "strata.exp"(%[[X]])
// AFTER-NEXT: %[[B:.+]] = "strata.broadcast_to"(%[[E]])
// AFTER-NEXT: %[[A:.+]] = "strata.add"(%[[B]], %[[B]])
// AFTER-NEXT: %[[I:.+]] = arith.constant 4 : index
// AFTER-NEXT: %[[J:.+]] = arith.constant 4 : index
// AFTER-NEXT: return %[[A]], %[[I]], %[[J]]
// AFTER: // -----// IR Dump After CSE (cse) //----- //
// AFTER-NEXT: module {
// AFTER-NEXT: func.func @f(%[[X:[a-z0-9]+]]: tensor<4xf32>) -> (tensor<2x4xf32>, index, index) {
// AFTER-NEXT: %[[E:.+]] = "strata.exp"(%[[X]])
// AFTER-NEXT: %[[B:.+]] = "strata.broadcast_to"(%[[E]])
// AFTER-NEXT: %[[A:.+]] = "strata.add"(%[[B]], %[[B]])
// AFTER-NEXT: %[[I:.+]] = arith.constant 4 : index
// AFTER-NEXT: return %[[A]], %[[I]], %[[I]]
// The final output, on stdout, after the dumps.
// AFTER: module {
// AFTER-NEXT: func.func @f
// AFTER-NEXT: "strata.exp"
// AFTER-NEXT: "strata.broadcast_to"
// AFTER-NEXT: "strata.add"
// AFTER-NEXT: arith.constant
// AFTER-NEXT: return
// AFTER-NOT: IR Dump
// AFTER-NOT: Traceback

// BEFORE: // -----// IR Dump Before StrataCanonicalize (strata-canonicalize) //----- //
// BEFORE-NEXT: module {
// BEFORE-NEXT: func.func @f
// BEFORE-NEXT: "strata.constant"
// BEFORE-NOT: IR Dump

// AFTERCSE-NOT: IR Dump After StrataCanonicalize
// AFTERCSE: // -----// IR Dump After CSE (cse) //----- //
// AFTERCSE-NOT: IR Dump

// BEFOREALL: // -----// IR Dump Before StrataCanonicalize (strata-canonicalize) //----- //
// BEFOREALL: "strata.constant"
// BEFOREALL: // -----// IR Dump Before CSE (cse) //----- //
// BEFOREALL-NOT: "strata.mul"
// BEFOREALL-NOT: IR Dump

// DEBUGINFO: // -----// IR Dump After StrataCanonicalize (strata-canonicalize)
// DEBUGINFO: "strata.exp"(%arg0) : (tensor<4xf32>) -> tensor<4xf32> loc(#[[LOC:loc[0-9]+]])
// DEBUGINFO: #[[LOC]] = loc("{{.*}}strata-opt-cli.mlir":[[# @LINE + 73]]:8)

// TIMING-NOT: IR Dump
// TIMING: ===-------------------------------------------------------------------------===
// TIMING-NEXT: ... Execution time report ...
// TIMING-NEXT: ===-------------------------------------------------------------------------===
// TIMING-NEXT: Total Execution Time: {{[0-9]+\.[0-9]+}} seconds
// TIMING-EMPTY:
// TIMING-NEXT: ----Wall Time----  ----Name----
// TIMING-NEXT: {{^}}  {{ *[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  Parser
// TIMING-NEXT: {{^}}  {{ *[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  StrataCanonicalize
// TIMING-NEXT: {{^}}  {{ *[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  CSE
// TIMING-NEXT: {{^}}  {{ *[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    (A) DominanceInfo
// TIMING-NEXT: {{^}}  {{ *[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  Output
// TIMING-NEXT: {{^}}  {{ *[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  Rest
// TIMING-NEXT: {{^}}  {{ *[0-9]+\.[0-9]+}} (100.0%)  Total
// TIMING-NOT: {{.}}

// PIPE: // -----// IR Dump After StrataCanonicalize (strata-canonicalize) //----- //
// PIPE: arith.constant 4 : index
// PIPE-NEXT: arith.constant 4 : index
// The scope of a nested pass's dump is the op it ran on, as in mlir-opt. Nested
// passes run on functions in parallel, so dump order is fixed by disabling threading.
// PIPE: // -----// IR Dump After CSE (cse) //----- //
// PIPE-NEXT: func.func @f(%[[X:[a-z0-9]+]]: tensor<4xf32>) -> (tensor<2x4xf32>, index, index) {
// PIPE-NEXT: %[[E:.+]] = "strata.exp"(%[[X]])
// PIPE-NEXT: %[[B:.+]] = "strata.broadcast_to"(%[[E]])
// PIPE-NEXT: %[[A:.+]] = "strata.add"(%[[B]], %[[B]])
// PIPE-NEXT: %[[I:.+]] = arith.constant 4 : index
// PIPE-NEXT: return %[[A]], %[[I]], %[[I]]
// PIPE-NOT: Traceback

// Options inside a textual pipeline reach the pass: max-fold-elements=1 keeps
// the 4-element fold in @g from happening.
// The output comes first; the timing report, as mlir-opt prints it, at exit.
// OPTS: "strata.constant"() {value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>}
// OPTS: "strata.neg"
// OPTS: ----Wall Time----  ----Name----
// OPTS-NEXT: Parser
// OPTS-NEXT: StrataCanonicalize
// OPTS-NEXT: 'func.func' Pipeline
// OPTS-NEXT: Canonicalizer
// OPTS-NEXT: CSE
// OPTS: Output
// OPTS-NEXT: Rest
// OPTS-NEXT: Total

// OUT-NOT: IR Dump
// OUT: module {
// OUT-NEXT: func.func @f(%[[X:[a-z0-9]+]]: tensor<4xf32>) -> (tensor<2x4xf32>, index, index) {
// OUT-NEXT: %[[E:.+]] = "strata.exp"(%[[X]])
// OUT-NEXT: %[[B:.+]] = "strata.broadcast_to"(%[[E]])
// OUT-NEXT: %[[A:.+]] = "strata.add"(%[[B]], %[[B]])
// OUT-NEXT: %[[I:.+]] = arith.constant 4 : index
// OUT-NEXT: %[[J:.+]] = arith.constant 4 : index
// OUT-NEXT: return %[[A]], %[[I]], %[[J]]
// OUT-NEXT: }
// OUT-NEXT: func.func @g() -> tensor<4xf32> {
// OUT-NEXT: %[[C:.+]] = "strata.constant"() {value = dense<[-1.000000e+00, -2.000000e+00, -3.000000e+00, -4.000000e+00]> : tensor<4xf32>}
// OUT-NEXT: return %[[C]]
// OUT-NOT: strata.
// OUT-NOT: Traceback

// Without passes the input is printed as parsed (dead ops stay).
// NOPASS: func.func @f
// NOPASS: "strata.constant"() {value = dense<1.000000e+00> : tensor<f32>}
// NOPASS: "strata.mul"
// NOPASS: "strata.neg"
// NOPASS: func.func @g

func.func @f(%x: tensor<4xf32>) -> (tensor<2x4xf32>, index, index) {
  %one = "strata.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "strata.mul"(%x, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = "strata.exp"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "strata.broadcast_to"(%1) : (tensor<4xf32>) -> tensor<2x4xf32>
  %3 = "strata.add"(%2, %2) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %dead = "strata.neg"(%3) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %i = arith.constant 4 : index
  %j = arith.constant 4 : index
  return %3, %i, %j : tensor<2x4xf32>, index, index
}

func.func @g() -> tensor<4xf32> {
  %c = "strata.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = "strata.neg"(%c) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
