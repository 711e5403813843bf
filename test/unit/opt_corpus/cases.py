"""The cases of the strata-opt bad-input corpus, by category (see harness.Case)."""

from __future__ import annotations

import random

from .harness import Case

STRATA = """\
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = "strata.relu"(%0) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}
"""

UPSTREAM = """\
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  return %0 : i32
}
"""

# resolve-ranked-shaped-type-result-dims asks alloc_tensor for dim 1 of a rank-1 tensor:
# the op emits "invalid dimension" and the pass goes on (it does not fail).
ALLOC_DIM = """\
func.func @f(%n: index) -> index {
  %t = bufferization.alloc_tensor(%n) : tensor<?xf32>
  %c1 = arith.constant 1 : index
  %d = tensor.dim %t, %c1 : tensor<?xf32>
  return %d : index
}
"""

# buffer-results-to-out-params{hoist-static-allocs} dereferences a null pointer when a
# function returns one allocation twice (upstream MLIR 22.1.8): strata-opt's guard answers.
RETURNS_TWICE = """\
func.func @h() -> (memref<4xf32>, memref<4xf32>) {
  %b = memref.alloc() : memref<4xf32>
  return %b, %b : memref<4xf32>, memref<4xf32>
}
"""
HOIST = ("--pass-pipeline=builtin.module(canonicalize, "
         "buffer-results-to-out-params{hoist-static-allocs modify-public-functions})")
CRASH = r"error: pass 'buffer-results-to-out-params' crashed \(SIGSEGV\) on this input; nothing " \
    r"was written$"

BAD_MATMUL = """\
func.func @g(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = "strata.matmul"(%a, %a) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
"""

RETURN_MISMATCH = """\
func.func @f(%a: i32) -> f32 {
  return %a : i32
}
"""


def nested_modules(n=5000):
    return "module {" * n + "}" * n + "\n"


def nested_regions(n=3000):
    return ("func.func @f() {\n" + '"test.r"() ({\n' * n + "}) : () -> ()\n" * n +
            "  return\n}\n")


def nested_arrays(n=10000):
    return "module attributes {x = " + "[" * n + "1" + "]" * n + "} {}\n"


def random_bytes():
    return bytes(random.Random(7).randrange(256) for _ in range(400))


def _pipeline(p):
    return ("{in}", f"--pass-pipeline=builtin.module({p})")


def _option(name, p, message):
    return Case(name, "option", _pipeline(p), STRATA, rf"^<unknown>:0: error: {message}$")


CASES = [
    # ------------------------------------------------------------------ malformed IR
    Case("missing-angle", "syntax", ("{in}",),
         "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %a : tensor<4xf32\n}\n",
         r"^input\.mlir:2:27: error: expected '>' in tensor type$", mlir="loc"),
    Case("unterminated-region", "syntax", ("{in}",), "func.func @f() {\n  return\n",
         r"^input\.mlir:2:9: error: expected operation name in quotes$", mlir="loc"),
    Case("bad-element-type", "syntax", ("{in}",),
         "func.func @f(%a: tensor<4xfoo>) {\n  return\n}\n",
         r"^input\.mlir:1:\d+: error: ", mlir="loc"),
    Case("undefined-value", "syntax", ("{in}",),
         "func.func @f() -> i32 {\n  return %nope : i32\n}\n",
         r"^input\.mlir:2:10: error: use of undeclared SSA value name", mlir="loc"),
    Case("unknown-op", "syntax", ("{in}",), 'func.func @f() {\n  "foo.bar"() : () -> ()\n'
         "  return\n}\n", r"^input\.mlir:2:12: error: operation being parsed with an "
         "unregistered dialect", mlir="loc"),
    Case("unknown-op-allowed", "syntax", ("{in}", "--allow-unregistered-dialect",
                                          "--compile-to=linalg"),
         'func.func @f() {\n  "foo.bar"() : () -> ()\n  return\n}\n',
         r"^input\.mlir:2:3: error: level 'strata' allows only strata ops; found 'foo\.bar'$"),
    Case("unknown-op-allowed-bad-return", "syntax", ("{in}", "--allow-unregistered-dialect"),
         'func.func @f() -> f32 {\n  %0 = "foo.bar"() : () -> i32\n  return %0 : i32\n}\n',
         r"^input\.mlir:3:3: error: type of return operand 0 \('i32'\) doesn't match",
         mlir="loc"),
    Case("unterminated-string", "syntax", ("{in}",),
         'func.func @f(%a: tensor<4xf32>) {\n  %0 = "strata.relu(%a) : (tensor<4xf32>) -> '
         "tensor<4xf32>\n  return\n}\n", r"^input\.mlir:2:59: error: expected '\"' in string "
         "literal"),
    Case("custom-form-strata-op", "syntax", ("{in}",),
         "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = strata.relu %a : "
         "tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n",
         r"^input\.mlir:2:8: error: 'strata\.relu' has no custom assembly form"),
    Case("ssa-redefinition", "syntax", ("{in}",),
         "func.func @f(%a: i32) {\n  %0 = arith.addi %a, %a : i32\n  %0 = arith.addi %a, %a : "
         "i32\n  return\n}\n", r"^input\.mlir:3:3: error: redefinition of SSA value '%0'",
         mlir="loc"),
    Case("index-dense-array", "syntax", ("{in}",),
         'func.func @f() {\n  "test.op"() {a = array<index: 1>} : () -> ()\n  return\n}\n',
         r"^input\.mlir:2:20: error: dense arrays of 'index' elements are not supported"),
    Case("garbage-text", "syntax", ("{in}",), "§§§ not mlir\n",
         r"^input\.mlir:1:1: error: unexpected character", mlir="loc"),
    Case("dense-shape-mismatch", "syntax", ("{in}",),
         "func.func @f() -> tensor<3xf32> {\n  %c = arith.constant dense<[1.0, 2.0]> : "
         "tensor<3xf32>\n  return %c : tensor<3xf32>\n}\n",
         r"^input\.mlir:2:\d+: error: inferred shape of elements literal", mlir="loc"),
    # ------------------------------------------------------------------ verifier
    Case("matmul-inner-dims", "verifier", ("{in}",), BAD_MATMUL,
         r"^input\.mlir:2:8: error: matmul: inner dimensions differ \(8 vs 4\)$"),
    Case("add-dtypes", "verifier", ("{in}", "--strata-canonicalize"),
         "func.func @f(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xf32> {\n"
         '  %0 = "strata.add"(%a, %b) : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>\n'
         "  return %0 : tensor<4xf32>\n}\n", r"^input\.mlir:2:8: error: add: "),
    Case("softmax-axis", "verifier", ("{in}",),
         "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
         '  %0 = "strata.softmax"(%a) {axis = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>\n'
         "  return %0 : tensor<4xf32>\n}\n",
         r"^input\.mlir:2:8: error: softmax: axis 1 is out of range for a rank-1 tensor"),
    Case("result-shape", "verifier", ("{in}", "--compile-to=llvm"),
         "func.func @f(%a: tensor<4xf32>) -> tensor<8xf32> {\n"
         '  %0 = "strata.relu"(%a) : (tensor<4xf32>) -> tensor<8xf32>\n'
         "  return %0 : tensor<8xf32>\n}\n", r"^input\.mlir:2:8: error: relu: "),
    Case("non-tensor-operand", "verifier", ("{in}",),
         'func.func @f(%a: i32) -> i32 {\n  %0 = "strata.relu"(%a) : (i32) -> i32\n'
         "  return %0 : i32\n}\n", r"^input\.mlir:2:8: error: "),
    Case("missing-attribute", "verifier", ("{in}",),
         "func.func @f(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {\n"
         '  %0 = "strata.transpose"(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>\n'
         "  return %0 : tensor<4x4xf32>\n}\n", r"^input\.mlir:2:8: error: 'strata\.transpose' "
         r'op attribute "permutation" is expected but not provided$'),
    Case("attribute-of-wrong-kind", "verifier", ("{in}",),
         "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
         '  %0 = "strata.softmax"(%a) {axis = "x"} : (tensor<4xf32>) -> tensor<4xf32>\n'
         "  return %0 : tensor<4xf32>\n}\n",
         r"^input\.mlir:2:8: error: softmax: attribute 'axis' must be an integer, got \"x\"$"),
    Case("module-with-attributes", "verifier", ("{in}",),
         "module attributes {gpu.container_module} {\n" + BAD_MATMUL + "}\n",
         r"^input\.mlir:3:8: error: matmul: inner dimensions differ \(8 vs 4\)$"),
    Case("return-type", "verifier", ("{in}",), RETURN_MISMATCH,
         r"^input\.mlir:2:3: error: type of return operand 0", mlir="loc"),
    Case("addi-on-floats", "verifier", ("{in}",),
         "func.func @f(%a: f32) -> f32 {\n  %0 = arith.addi %a, %a : f32\n"
         "  return %0 : f32\n}\n", r"^input\.mlir:2:\d+: error: ", mlir="loc"),
    Case("symbol-redefinition", "verifier", ("{in}",), UPSTREAM + UPSTREAM,
         r"^input\.mlir:5:\d+: error: redefinition of symbol named 'f'", mlir="loc"),
    # ------------------------------------------------------------------ pass names
    Case("unknown-pass-flag", "pass-name", ("{in}", "--no-such-pass"), STRATA,
         r"^strata-opt: Unknown command line argument '--no-such-pass'\.", mlir=True),
    Case("misspelled-strata-pass", "pass-name", ("{in}", "--strata-canonicalise"), STRATA,
         r"^strata-opt: Unknown command line argument '--strata-canonicalise'\."),
    Case("unknown-pass-in-pipeline", "pass-name", _pipeline("cse, no-such-pass"), UPSTREAM,
         r"^<unknown>:0: error: MLIR Textual PassPipeline Parser:1:6: error: 'no-such-pass' does "
         r"not refer to a registered pass", mlir=True),
    # ------------------------------------------------------------------ pass options
    Case("unknown-strata-option", "option", ("{in}", "--strata-canonicalize=bogus=1"), STRATA,
         r"^<unknown>:0: error: strata-canonicalize: unknown option 'bogus' \(options: "
         r"max-fold-elements, max-iterations\)$"),
    Case("unknown-upstream-option", "option", ("{in}", "--cse=bogus"), UPSTREAM,
         r"^<unknown>:0: error: <Pass-Options-Parser>: no such option bogus$", mlir=True),
    _option("int-not-a-number", "strata-canonicalize{max-iterations=abc}",
            "strata-canonicalize: option 'max-iterations' expects an integer, got 'abc'"),
    _option("bool-not-a-bool", "strata-fuse{elementwise=maybe}",
            "strata-fuse: option 'elementwise' expects true or false, got 'maybe'"),
    _option("int-out-of-range", "strata-canonicalize{max-iterations=-5}",
            "strata-canonicalize: option 'max-iterations' must be at least 1, got -5"),
    Case("int-out-of-range-flag", "option", ("{in}", "--strata-canonicalize=max-iterations=-5"),
         STRATA, r"^<unknown>:0: error: strata-canonicalize: option 'max-iterations' must be "
         r"at least 1, got -5$"),
    _option("cache-tile-zero", "strata-to-linalg, strata-vectorize{cache-m=0}",
            "strata-vectorize: option 'cache-m' must be at least 1, got 0"),
    _option("pack-block-zero", "strata-to-linalg, strata-layout{pack-matmul=true block-m=0}",
            "strata-layout: option 'block-m' must be at least 1, got 0"),
    _option("fuse-tile-negative", "strata-to-linalg, strata-fuse{tile-n=-4}",
            "strata-fuse: option 'tile-n' must be at least 1, got -4"),
    _option("parallel-work-zero", "strata-to-linalg, strata-parallelize{threads=2 parallel-work=0}",
            "strata-parallelize: option 'parallel-work' must be at least 1, got 0"),
    _option("threads-zero-in-cpu", "strata-cpu{threads=0}",
            "strata-cpu: option 'threads' must be at least 1, got 0"),
    _option("opt-level-too-high", "strata-cpu{opt-level=7}",
            "strata-cpu: option 'opt-level' must be at most 3, got 7"),
    _option("enum-conv-layout", "strata-layout{conv-layout=diagonal}",
            "strata-layout: unknown conv-layout 'diagonal' \\(conv-layouts: auto, nchw, nhwc, "
            "keep\\)"),
    _option("enum-gpu-format", "strata-gpu{format=exe}",
            "strata-gpu: unknown format 'exe' \\(formats: bin, isa, fatbin\\)"),
    _option("float-nan", "strata-fuse{max-recompute=nan}",
            "strata-fuse: option 'max-recompute' expects a finite number, got 'nan'"),
    _option("int-overflow", "strata-canonicalize{max-iterations=99999999999999999999}",
            "strata-canonicalize: option 'max-iterations' must be at most 9223372036854775807, "
            "got 99999999999999999999"),
    _option("pattern-decisions", "strata-fuse{decisions=garbage}",
            "strata-fuse: option 'decisions' must look like <key>=on\\|off,\\.\\.\\., got "
            "'garbage'"),
    Case("braces-in-braces", "option", _pipeline("strata-canonicalize{{}}"), STRATA,
         r"^<unknown>:0: error: invalid pass pipeline: failed to add `strata-canonicalize` with "
         r"options `\{\}`: expected an option name$"),
    Case("option-without-name", "option", _pipeline("strata-canonicalize{=3}"), STRATA,
         r"^<unknown>:0: error: invalid pass pipeline: failed to add `strata-canonicalize` with "
         r"options `=3`: expected an option name$"),
    Case("unbalanced-option-brace-flag", "option",
         ("{in}", "--strata-canonicalize=max-iterations=3}"), STRATA,
         r"^<unknown>:0: error: MLIR Textual PassPipeline Parser:1:38: error: "
         r"expected ',' after parsing pipeline$"),
    Case("unclosed-option-brace", "option", _pipeline("strata-canonicalize{bogus"), STRATA,
         r"^<unknown>:0: error: MLIR Textual PassPipeline Parser:1:20: error: missing closing "
         r"'\}' while processing pass options$"),
    Case("empty-unclosed-option-brace", "option", _pipeline("strata-canonicalize{"), STRATA,
         r"^<unknown>:0: error: MLIR Textual PassPipeline Parser:1:20: error: missing closing "
         r"'\}' while processing pass options$"),
    Case("text-after-options", "option", _pipeline("strata-canonicalize{max-iterations=1}{}"),
         STRATA, r"^<unknown>:0: error: MLIR Textual PassPipeline Parser:1:38: error: "
         r"expected ',' after parsing pipeline$"),
    # ------------------------------------------------------------------ pipelines
    Case("unclosed-paren", "pipeline", ("{in}", "--pass-pipeline=builtin.module(cse"),
         UPSTREAM, r"^<unknown>:0: error: expected pass pipeline to be wrapped with the anchor "
         r"operation type", mlir=True),
    Case("extra-paren", "pipeline", ("{in}", "--pass-pipeline=builtin.module(cse))"),
         UPSTREAM, r"^<unknown>:0: error: MLIR Textual PassPipeline Parser:1:4: error: "
         r"encountered extra closing '\)'", mlir=True),
    Case("empty-element", "pipeline", _pipeline("cse,,canonicalize"), UPSTREAM,
         r"^<unknown>:0: error: MLIR Textual PassPipeline Parser:1:5: error: '' does not refer "
         r"to a registered pass or pass pipeline$", mlir=True),
    Case("wrong-anchor", "pipeline", ("{in}", "--pass-pipeline=func.func(cse)"), UPSTREAM,
         r"^input\.mlir:0:0: error: can't run 'func\.func' pass manager on 'builtin\.module' "
         r"op$", mlir=True),
    Case("not-anchored", "pipeline", ("{in}", "--pass-pipeline=cse"), UPSTREAM,
         r"^<unknown>:0: error: expected pass pipeline to be wrapped with the anchor operation "
         r"type, e\.g\. 'builtin\.module\(\.\.\.\)'$", mlir=True),
    Case("pipeline-and-flags", "pipeline",
         ("{in}", "--pass-pipeline=builtin.module(cse)", "--canonicalize"), UPSTREAM,
         r"^<unknown>:0: error: '-pass-pipeline' option can't be used with individual pass "
         r"options$", mlir=True),
    Case("deep-pipeline", "pipeline",
         ("{in}", "--pass-pipeline=" + "builtin.module(" * 5000 + "cse" + ")" * 5000),
         UPSTREAM, r"^<unknown>:0: error: invalid pass pipeline: pass pipeline nested deeper "
         r"than 100 levels$"),
    Case("unknown-level", "pipeline", ("{in}", "--compile-to=nowhere"), STRATA,
         r"^strata-opt: error: unknown level 'nowhere' \(levels: strata, linalg, fused, layout, "
         r"bufferized, llvm\)$"),
    # ------------------------------------------------------------------ -o
    Case("output-is-a-directory", "output", ("{in}", "-o", "{tmp}"), UPSTREAM,
         r"^cannot open output file '.*': Is a directory$", mlir=True),
    Case("output-in-read-only-dir", "output", ("{in}", "-o", "{ro}/out.mlir"), UPSTREAM,
         r"^cannot open output file '.*': Permission denied$",
         mlir=True),
    Case("output-dir-missing", "output", ("{in}", "-o", "{tmp}/nodir/out.mlir"), UPSTREAM,
         r"^cannot open output file '.*': No such file or directory$",
         mlir=True),
    Case("output-under-a-file", "output", ("{in}", "-o", "{file}/out.mlir"), UPSTREAM,
         r"^cannot open output file '.*': Not a directory$", mlir=True),
    Case("output-kept-on-failure", "output", ("{in}", "-o", "{out}", "--strata-canonicalize"),
         BAD_MATMUL, r"^input\.mlir:2:8: error: matmul: inner dimensions differ"),
    Case("output-without-value", "output", ("{in}", "--strata-canonicalize", "-o"), STRATA,
         r"^strata-opt: for the -o option: requires a value!$", mlir=True),
    # ------------------------------------------------------------------ --split-input-file
    Case("split-error-in-one-chunk", "split", ("{in}", "--split-input-file"),
         UPSTREAM + "// -----\n" + BAD_MATMUL + "// -----\n" + UPSTREAM,
         r"^input\.mlir:7:8: error: matmul: inner dimensions differ"),
    Case("split-syntax-error-and-later-chunk", "split", ("{in}", "--split-input-file"),
         "func.func @f() {\n// -----\n" + RETURN_MISMATCH,
         r"^input\.mlir:4:3: error: type of return operand 0", mlir="loc"),
    Case("split-chunk-of-index-array", "split", ("{in}", "--split-input-file"),
         UPSTREAM + '// -----\n"test.op"() {a = array<index: 1>} : () -> ()\n',
         r"^input\.mlir:6:18: error: dense arrays of 'index' elements are not supported"),
    # ------------------------------------------------------------------ --verify-diagnostics
    Case("expected-not-produced", "verify-diagnostics", ("{in}", "--verify-diagnostics"),
         UPSTREAM.replace("  %0", "  // expected-error@+1 {{never}}\n  %0"),
         r'^input\.mlir:2:6: error: expected error "never" was not produced$', mlir="loc"),
    Case("unexpected-error", "verify-diagnostics", ("{in}", "--verify-diagnostics"),
         RETURN_MISMATCH, r"^input\.mlir:2:3: error: unexpected error: type of return operand",
         mlir="loc"),
    Case("offset-past-the-op", "verify-diagnostics", ("{in}", "--verify-diagnostics"),
         RETURN_MISMATCH.replace("  return", "  // expected-error@+5 {{type of return}}\n"
                                 "  return"),
         r"^input\.mlir:2:6: error: expected error \"type of return\" was not produced$",
         mlir="loc"),
    Case("offset-before-the-file", "verify-diagnostics", ("{in}", "--verify-diagnostics"),
         RETURN_MISMATCH.replace("  return", "  // expected-error@-7 {{type of return}}\n"
                                 "  return"),
         r"^input\.mlir:2:6: error: expected error \"type of return\" was not produced$",
         mlir="loc"),
    Case("bad-regex", "verify-diagnostics", ("{in}", "--verify-diagnostics"),
         RETURN_MISMATCH.replace("  return", "  // expected-error-re@+1 {{type of {{[}} return}}\n"
                                 "  return"),
         r"^input\.mlir:2:6: error: invalid regex: brackets \(\[ \]\) not balanced$", mlir="loc"),
    Case("regex-without-end", "verify-diagnostics", ("{in}", "--verify-diagnostics"),
         RETURN_MISMATCH.replace("  return", "  // expected-error-re@+1 {{type of {{re}}\n"
                                 "  return"),
         r"^input\.mlir:2:6: error: found start of regex with no end '}}'$", mlir="loc"),
    # ------------------------------------------------------------------ input files
    Case("missing-input", "input", ("{in}",), None,
         r"^cannot open input file 'input\.mlir': No such file or directory$",
         mlir=True),
    Case("input-is-a-directory", "input", ("{tmp}",), UPSTREAM,
         r"^cannot open input file '.*': Is a directory$", mlir=True),
    Case("empty-input", "input", ("{in}", "--strata-canonicalize"), "", exit=0, writes=True,
         mlir=False),
    Case("empty-input-upstream", "input", ("{in}", "--cse"), "", exit=0, writes=True, mlir=True),
    Case("binary-garbage", "input", ("{in}",), random_bytes,
         r"^input\.mlir: error: could not open input file: 'utf-8' codec can't decode byte "
         r"0x[0-9a-f]{2} at line 1, column \d+: ", mlir=True),
    Case("nul-byte", "input", ("{in}",), "module {}\0garbage\n",
         r"^input\.mlir:1:11: error: custom op 'garbage' is unknown", mlir="loc"),
    Case("binary-on-stdin", "input", ("-",), random_bytes,
         r"^-: error: could not open input file: 'utf-8' codec can't decode byte 0x[0-9a-f]{2} "
         r"at line 1, column \d+: ", stdin=True),
    # ------------------------------------------------------------------ nesting
    Case("5000-nested-modules", "nesting", ("{in}",), nested_modules,
         r"^input\.mlir:1:\d+: error: nesting deeper than \d+ levels"),
    Case("3000-nested-regions", "nesting", ("{in}", "--allow-unregistered-dialect"),
         nested_regions, r"^input\.mlir:\d+:\d+: error: nesting deeper than \d+ levels"),
    Case("10000-nested-arrays", "nesting", ("{in}",), nested_arrays,
         r"^input\.mlir:1:\d+: error: nesting deeper than \d+ levels"),
    Case("deep-nesting-on-stdin", "nesting", ("-",), nested_modules,
         r"^<stdin>:1:\d+: error: nesting deeper than \d+ levels", stdin=True),
    # ------------------------------------------------------------------ upstream passes
    Case("error-without-failure", "upstream-pass",
         ("{in}", "--resolve-ranked-shaped-type-result-dims"), ALLOC_DIM,
         r"^input\.mlir:2:8: error: 'bufferization\.alloc_tensor' op invalid dimension$",
         exit=0, writes=True, mlir="loc"),
    Case("error-without-failure-unexpected", "upstream-pass",
         ("{in}", "--resolve-ranked-shaped-type-result-dims", "--verify-diagnostics"), ALLOC_DIM,
         r"^input\.mlir:2:8: error: unexpected error: 'bufferization\.alloc_tensor' op invalid "
         "dimension$", mlir="loc"),
    Case("error-without-failure-expected", "upstream-pass",
         ("{in}", "--resolve-ranked-shaped-type-result-dims", "--verify-diagnostics"),
         ALLOC_DIM.replace("  %t", "  // expected-error@+1 {{invalid dimension}}\n  %t"),
         exit=0, writes=True, mlir=True),
    Case("pass-fails", "upstream-pass", ("{in}", "--gpu-module-to-binary"),
         "module attributes {gpu.container_module} {\n  gpu.module @k {\n  }\n}\n",
         r"^input\.mlir:2:3: error: the module has no target attributes$", mlir="loc"),
    Case("pass-crashes", "upstream-pass", ("{in}", HOIST, "-o", "{out}"), RETURNS_TWICE,
         r"^input\.mlir:1:1: " + CRASH),
    Case("pass-crashes-stdin-second-chunk", "upstream-pass", (HOIST, "--split-input-file"),
         UPSTREAM + "// -----\n" + RETURNS_TWICE, r"^<stdin>:5:9: " + CRASH, stdin=True),
    Case("pass-crashes-printing", "upstream-pass",
         ("{in}", HOIST, "--mlir-print-ir-after-all", "--mlir-timing", "-o", "{out}"),
         RETURNS_TWICE, r"^input\.mlir:1:1: " + CRASH),
    Case("pass-fails-silently", "upstream-pass",
         ("{in}", "--canonicalize=test-convergence max-iterations=1 region-simplify=disabled"),
         "func.func @f(%a: i32) -> i32 {\n  %c0 = arith.constant 0 : i32\n"
         "  %0 = arith.addi %a, %c0 : i32\n  %1 = arith.addi %0, %c0 : i32\n"
         "  return %1 : i32\n}\n", r"^input\.mlir:0:0: error: failure while executing pass "
         r"pipeline \(a pass failed without a diagnostic",
         mlir=True),
]
