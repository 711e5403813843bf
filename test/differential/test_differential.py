"""strata-opt against the pinned mlir-opt: the same input and options, the same stdout and exit code.

Corpus: ``corpus/<area>/*.mlir``, upstream dialects and passes only, each with
``// RUN: %opt %s <options>`` lines. Every RUN line runs through the pinned
``mlir-opt`` (beside the ``mlir`` package) and through strata-opt; stdout must
be byte-identical and the exit code the same. ``FLAG_CASES`` below add the
command-line behaviours (bad flags, missing files, IR dumps, timing, pipeline
dumps, statistics...), some of them comparing stderr too.

strata-opt runs in one worker process (``worker.py``: ``strata.tools.opt.run``
per request, so a crash fails the tests instead of pytest, and the suite does
not pay Python's start-up per run); mlir-opt runs as a subprocess per case, two
at a time. ``python test/differential/test_differential.py`` prints the counts.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import threading

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
TIMEOUT = 120


def mlir_opt() -> str | None:
    import importlib.util

    spec = importlib.util.find_spec("mlir")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], "bin", "mlir-opt")
    return path if os.path.exists(path) else None


MLIR_OPT = mlir_opt()


# --------------------------------------------------------------------------- cases

class Case:
    """One run of both tools: ``args`` (``%s`` is the input file), in ``cwd``."""

    def __init__(self, name, args, cwd=CORPUS, compare="stdout", files=None, stdin=None):
        self.name = name
        self.args = args
        self.cwd = cwd
        self.compare = compare  # stdout | stderr | stderr-lines | timing
        self.files = files or {}
        self.stdin = stdin


def corpus_cases() -> list[Case]:
    cases = []
    for folder, _, names in sorted(os.walk(CORPUS)):
        for name in sorted(names):
            if not name.endswith(".mlir"):
                continue
            rel = os.path.relpath(os.path.join(folder, name), CORPUS)
            with open(os.path.join(folder, name)) as f:
                runs = [line.split("RUN:", 1)[1].strip() for line in f
                        if line.startswith("// RUN:")]
            for i, run in enumerate(runs):
                argv = shlex.split(run)
                assert argv[0] == "%opt", f"{rel}: a RUN line starts with %opt: {run}"
                cases.append(Case(f"{rel}:{i + 1}", [rel if a == "%s" else a for a in argv[1:]]))
    return cases


SIMPLE = """\
func.func @f(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %a, %c0 : i32
  %1 = arith.muli %0, %0 : i32
  return %1 : i32
}
func.func @g(%a: i32) -> i32 {
  return %a : i32
}
"""
FAILS_SILENTLY = SIMPLE.replace("%1 = arith.muli %0, %0", "%1 = arith.addi %0, %c0")
ERROR_WITHOUT_FAILURE = """\
func.func @f(%n: index) -> index {
  %t = bufferization.alloc_tensor(%n) : tensor<?xf32>
  %c1 = arith.constant 1 : index
  %d = tensor.dim %t, %c1 : tensor<?xf32>
  return %d : index
}
"""


def _flag(name, args, compare="stderr", text=SIMPLE, stdin=None):
    return Case(f"flags/{name}", args, cwd=None, compare=compare, files={"in.mlir": text},
                stdin=stdin)


FLAG_CASES = [
    # Instrumentation: MLIR's own dumps and reports, byte for byte on stderr.
    _flag("print-ir-after-all", ["in.mlir", "--canonicalize", "--cse",
                                 "--mlir-print-ir-after-all"]),
    _flag("print-ir-before-all-nested", [
        "in.mlir", "--pass-pipeline=builtin.module(func.func(canonicalize), cse)",
        "--mlir-print-ir-before-all", "--mlir-disable-threading"]),
    _flag("print-ir-after-selected", [
        "in.mlir", "--pass-pipeline=builtin.module(func.func(canonicalize), cse)",
        "--mlir-print-ir-after=cse", "--mlir-print-ir-before=canonicalize",
        "--mlir-disable-threading"]),
    _flag("print-ir-after-change", ["in.mlir", "--cse", "--canonicalize",
                                    "--mlir-print-ir-after-all", "--mlir-print-ir-after-change"]),
    _flag("print-ir-module-scope", ["in.mlir", "--pass-pipeline=builtin.module(func.func(cse))",
                                    "--mlir-print-ir-after-all", "--mlir-print-ir-module-scope",
                                    "--mlir-disable-threading"]),
    _flag("print-ir-module-scope-threaded", ["in.mlir", "--cse", "--mlir-print-ir-after-all",
                                             "--mlir-print-ir-module-scope"]),
    _flag("print-ir-debuginfo-generic", ["in.mlir", "--cse", "--mlir-print-ir-after-all",
                                         "--mlir-print-debuginfo", "--mlir-print-op-generic"]),
    _flag("print-ir-after-failure", ["in.mlir", "--canonicalize=test-convergence "
                                     "max-iterations=1 region-simplify=disabled",
                                     "--mlir-print-ir-after-failure"], compare="stdout",
          text=FAILS_SILENTLY),
    _flag("dump-pass-pipeline", ["in.mlir", "--canonicalize", "--cse", "--dump-pass-pipeline"]),
    _flag("dump-pass-pipeline-nested", [
        "in.mlir", "--pass-pipeline=builtin.module(func.func(canonicalize, cse), "
        "symbol-dce, func.func(cse))", "--dump-pass-pipeline"]),
    _flag("pass-statistics", ["in.mlir", "--cse", "--canonicalize", "--mlir-pass-statistics"]),
    _flag("pass-statistics-list", ["in.mlir", "--pass-pipeline=builtin.module(func.func(cse))",
                                   "--mlir-pass-statistics",
                                   "--mlir-pass-statistics-display=list"]),
    _flag("timing", ["in.mlir", "--pass-pipeline=builtin.module(func.func(canonicalize, cse))",
                     "--mlir-timing", "--mlir-disable-threading"], compare="timing"),
    _flag("timing-flags", ["in.mlir", "--canonicalize", "--mlir-timing"], compare="timing"),
    # Output forms.
    _flag("generic", ["in.mlir", "--mlir-print-op-generic"], compare="stdout"),
    _flag("debuginfo", ["in.mlir", "--mlir-print-debuginfo"], compare="stdout"),
    _flag("elide", ["in.mlir", "--mlir-elide-elementsattrs-if-larger=1"], compare="stdout",
          text="func.func @k() -> tensor<3xi8> {\n  %c = arith.constant dense<[1, 2, 3]> : "
               "tensor<3xi8>\n  return %c : tensor<3xi8>\n}\n"),
    _flag("split-marker", ["in.mlir", "--split-input-file", "--output-split-marker=// ~~~"],
          compare="stdout", text=SIMPLE + "// -----\n" + SIMPLE.replace("@", "@x")),
    _flag("split-custom-marker", ["in.mlir", "--split-input-file=// ~~", "--cse"],
          compare="stdout", text=SIMPLE + "// ~~\n" + SIMPLE.replace("@", "@y")),
    _flag("stdin", ["-", "--canonicalize"], compare="stdout", stdin=SIMPLE),
    _flag("stdin-debuginfo", ["--mlir-print-debuginfo"], compare="stdout", stdin=SIMPLE),
    _flag("empty-input", ["in.mlir"], compare="stdout", text=""),
    _flag("show-dialects", ["--show-dialects"], compare="exit"),
    _flag("error-without-failure", ["in.mlir", "--resolve-ranked-shaped-type-result-dims"],
          text=ERROR_WITHOUT_FAILURE),
    _flag("verify-diagnostics-re", ["in.mlir", "--verify-diagnostics",
                                    "--resolve-ranked-shaped-type-result-dims"],
          text=ERROR_WITHOUT_FAILURE.replace(
              "  %t", "  // expected-error-re@+1 {{'bufferization.{{[a-z_]+}}' op invalid "
              "{{dim[a-z]+}}}}\n  %t")),
    _flag("verify-diagnostics-missing", ["in.mlir", "--verify-diagnostics"],
          text=SIMPLE.replace("  return %1", "  // expected-error@+1 {{never}}\n  return %1")),
    # --verify-diagnostics: MLIR's designator grammar and its reports, byte for byte.
    _flag("verify-diagnostics-spaced-unmet", ["in.mlir", "--verify-diagnostics"],
          text=SIMPLE.replace("  return %1", "  // expected-error @below {{never}}\n"
                              "  // expected-warning @+1 {{nor this}}\n  return %1")),
    _flag("verify-diagnostics-stacked-below", ["in.mlir", "--verify-diagnostics",
                                               "--resolve-ranked-shaped-type-result-dims"],
          text=ERROR_WITHOUT_FAILURE.replace(
              "  %t", "  // expected-error @below {{invalid dimension}}\n"
              "  // expected-remark @below {{not produced}}\n  %t")),
    _flag("verify-diagnostics-not-designators", ["in.mlir", "--verify-diagnostics",
                                                 "--resolve-ranked-shaped-type-result-dims"],
          text=ERROR_WITHOUT_FAILURE.replace(
              "  %t", "  // expected-error@3 {{an absolute line is not MLIR's}}\n  %t").replace(
              "tensor<?xf32>\n  %c1", "tensor<?xf32> // expected-error {{invalid}} and more\n"
              "  %c1")),
    _flag("verify-diagnostics-near-miss", ["in.mlir", "--verify-diagnostics",
                                           "--resolve-ranked-shaped-type-result-dims"],
          text=ERROR_WITHOUT_FAILURE.replace(
              "  %t", "  // expected-warning@+1 {{invalid dimension}}\n  %t")),
    _flag("verify-diagnostics-one-designator-twice", ["in.mlir", "--verify-diagnostics",
                                                      "--resolve-ranked-shaped-type-result-dims"],
          text=ERROR_WITHOUT_FAILURE.replace(
              "  %t", "  // expected-error@+2 {{invalid dimension}}\n"
              "  // expected-error@+1 {{invalid dimension}}\n  %t")),
    _flag("verify-diagnostics-bad-regex", ["in.mlir", "--verify-diagnostics"],
          text=SIMPLE.replace("  return %1", "  // expected-error-re@+1 {{a{{[b-z}}c}}\n"
                              "  return %1")),
    _flag("verify-diagnostics-unexpected-note", ["in.mlir", "--verify-diagnostics"],
          text="func.func @f() {\n  %x = arith.constant 1 : i32\n  %x = arith.constant 2 : i32"
               " // expected-error {{redefinition}}\n  return\n}\n"),
    _flag("verify-diagnostics-split-unmet", ["in.mlir", "--verify-diagnostics",
                                             "--split-input-file"],
          text=SIMPLE + "// -----\n// expected-remark @below {{never}}\n"
          "func.func @h() {\n  return\n}\n// -----\n"
          "func.func @k(%a: i32) -> f32 {\n  // expected-error @+1 {{wrong text}}\n"
          "  return %a : i32\n}\n"),
    # Usage errors: mlir-opt's texts (the program's name and path aside) and exit codes.
    _flag("unknown-flag", ["in.mlir", "--canonicalise"], compare="stderr-lines"),
    _flag("unknown-flag-single-dash", ["in.mlir", "-cannonicalize"], compare="stderr-lines"),
    _flag("missing-input", ["missing.mlir"]),
    _flag("input-is-a-directory", ["."]),
    _flag("output-is-a-directory", ["in.mlir", "-o", "."]),
    _flag("output-dir-missing", ["in.mlir", "-o", "nodir/out.mlir"]),
    _flag("two-inputs", ["in.mlir", "in.mlir"], compare="stderr-lines"),
    _flag("value-missing", ["in.mlir", "--pass-pipeline"], compare="stderr-lines"),
    _flag("bool-value", ["in.mlir", "--mlir-timing=maybe"], compare="stderr-lines"),
    _flag("print-ir-unknown-pass", ["in.mlir", "--mlir-print-ir-after=nope"],
          compare="stderr-lines"),
    _flag("pipeline-and-flags", ["in.mlir", "--pass-pipeline=builtin.module(cse)", "--cse"]),
    _flag("pipeline-not-anchored", ["in.mlir", "--pass-pipeline=cse"]),
    _flag("pipeline-wrong-anchor", ["in.mlir", "--pass-pipeline=func.func(cse)"]),
    _flag("pipeline-unbalanced", ["in.mlir", "--pass-pipeline=builtin.module(cse))"]),
    _flag("pipeline-unknown-pass", ["in.mlir", "--pass-pipeline=builtin.module(cse, nope)"]),
    _flag("pipeline-bad-option", ["in.mlir", "--pass-pipeline=builtin.module(cse{bogus=1})"]),
    _flag("pipeline-unclosed-options", [
        "in.mlir", "--pass-pipeline=builtin.module(canonicalize{max-iterations=1)"]),
    _flag("pipeline-unclosed-options-later", [
        "in.mlir", "--pass-pipeline=builtin.module(cse, func.func(canonicalize{)"]),
    _flag("pipeline-text-after-options", [
        "in.mlir", "--pass-pipeline=builtin.module(canonicalize{max-iterations=1}{})"]),
    _flag("pipeline-brace-after-options", [
        "in.mlir", "--pass-pipeline=builtin.module(canonicalize{max-iterations=1}})"]),
    _flag("pipeline-bad-option-value", [
        "in.mlir", "--pass-pipeline=builtin.module(canonicalize{max-iterations=x})"],
        compare="stderr-lines"),
    _flag("flag-bad-option", ["in.mlir", "--cse=bogus"]),
    _flag("pass-fails-silently", ["in.mlir", "--canonicalize=test-convergence max-iterations=1 "
                                  "region-simplify=disabled"], compare="stdout",
          text=FAILS_SILENTLY),
]


# --------------------------------------------------------------------------- running

class Worker:
    """strata-opt in one Python process (worker.py), one request at a time."""

    def __init__(self):
        self.lock = threading.Lock()
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "worker.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, args, cwd, stdin):
        with self.lock:
            if self.proc.poll() is not None:
                return {"code": -1, "stdout": "", "stderr": "the strata-opt worker died"}
            self.proc.stdin.write(json.dumps({"args": args, "cwd": cwd, "stdin": stdin}) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
            if not line:
                return {"code": -1, "stdout": "", "stderr": "the strata-opt worker died"}
            return json.loads(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def run_mlir_opt(args, cwd, stdin):
    p = subprocess.run([MLIR_OPT, *args], cwd=cwd, input=stdin, capture_output=True, text=True,
                       timeout=TIMEOUT)
    return {"code": p.returncode, "stdout": p.stdout, "stderr": p.stderr}


def prepare(case: Case, tmp: str) -> str:
    if case.cwd is not None:
        return case.cwd
    folder = os.path.join(tmp, case.name.replace("/", "_"))
    os.makedirs(folder, exist_ok=True)
    for name, text in case.files.items():
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)
    return folder


_TIME = re.compile(r"[0-9]+\.[0-9]+")


def _normalize(text: str, kind: str) -> str:
    # The program's name and path (mlir-opt prints its argv[0]).
    text = re.sub(r"^(mlir-opt|strata-opt): ", "<tool>: ", text, flags=re.M)
    text = re.sub(r"'\S*(mlir-opt|strata-opt) --help'", "'<tool> --help'", text)
    text = re.sub(r"See: \S*(mlir-opt|strata-opt) --help", "See: <tool> --help", text)
    if kind == "stderr-lines":  # LLVM suggests its own options too: the nearest is not compared
        text = re.sub(r"^<tool>: Did you mean '.*'\?\n", "", text, flags=re.M)
    return text


def _timing_shape(text: str) -> list[str]:
    """The report's structure (rows and their nesting) without the times."""
    out = []
    for line in text.splitlines():
        if "Total Execution Time" in line:
            out.append("Total Execution Time")
        elif re.match(r"^\s+[0-9]+\.[0-9]+ \(", line):
            out.append(_TIME.sub("T", re.sub(r"\(\s*[0-9.]+%\)", "(P)", line)).strip()
                       .replace("T (P)  ", ""))
        else:
            out.append(line)
    return out


def compare(case: Case, mine: dict, theirs: dict) -> list[str]:
    """What differs, as sentences (empty: the same)."""
    diffs = []
    if mine["code"] != theirs["code"]:
        diffs.append(f"exit code {mine['code']} (mlir-opt: {theirs['code']})")
    if case.compare != "exit" and mine["stdout"] != theirs["stdout"]:
        diffs.append("stdout differs")
    if case.compare in ("stderr", "stderr-lines"):
        if _normalize(mine["stderr"], case.compare) != _normalize(theirs["stderr"], case.compare):
            diffs.append("stderr differs")
    if case.compare == "timing":
        if _timing_shape(mine["stderr"]) != _timing_shape(theirs["stderr"]):
            diffs.append("timing report differs")
    return diffs


CASES = corpus_cases() + FLAG_CASES


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    if MLIR_OPT is None:
        pytest.skip("the pinned mlir-opt is not installed")
    tmp = str(tmp_path_factory.mktemp("differential"))
    worker = Worker()
    out = {}
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            theirs = {}
            for case in CASES:
                cwd = prepare(case, tmp)
                theirs[case.name] = pool.submit(run_mlir_opt, case.args, cwd, case.stdin)
                out[case.name] = [worker.run(case.args, cwd, case.stdin), None]
            for case in CASES:
                out[case.name][1] = theirs[case.name].result()
    finally:
        worker.close()
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_same_as_mlir_opt(case, results):
    mine, theirs = results[case.name]
    diffs = compare(case, mine, theirs)
    assert not diffs, (f"{case.name}: strata-opt {' '.join(case.args)}: {'; '.join(diffs)}\n"
                       f"--- strata-opt stdout ---\n{mine['stdout'][:3000]}\n"
                       f"--- mlir-opt stdout ---\n{theirs['stdout'][:3000]}\n"
                       f"--- strata-opt stderr ---\n{mine['stderr'][:3000]}\n"
                       f"--- mlir-opt stderr ---\n{theirs['stderr'][:3000]}")


def test_the_corpus_covers_the_dialects():
    areas = {c.name.split("/")[0] for c in corpus_cases()}
    files = {c.name.rsplit(":", 1)[0] for c in corpus_cases()}
    assert {"arith", "math", "func", "scf", "cf", "tensor", "linalg", "bufferization", "vector",
            "memref", "llvm"} <= areas
    assert len(files) >= 40


def main() -> int:
    """Runs every case and prints the counts (files, RUN lines, identical, different)."""
    import tempfile

    files = {c.name.rsplit(":", 1)[0] for c in corpus_cases()}
    with tempfile.TemporaryDirectory() as tmp:
        worker = Worker()
        same = differ = 0
        try:
            for case in CASES:
                cwd = prepare(case, tmp)
                diffs = compare(case, worker.run(case.args, cwd, case.stdin),
                                run_mlir_opt(case.args, cwd, case.stdin))
                if diffs:
                    differ += 1
                    print(f"DIFFERENT {case.name}: {'; '.join(diffs)}")
                else:
                    same += 1
        finally:
            worker.close()
    runs = len(corpus_cases())
    print(f"{len(files)} corpus files, {runs} RUN lines, {len(FLAG_CASES)} flag cases: "
          f"{same} identical, {differ} different")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
