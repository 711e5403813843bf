"""Fuzzing strata-opt with mutated valid inputs: user errors only, never an internal error.

Every case is derived from a fixed seed, so a failure reproduces; the failing
input is printed in the assertion message. Set ``STRATA_FUZZ_CASES`` to run
more cases per seed (the default keeps the whole file well under a minute).
"""

from __future__ import annotations

import contextlib
import functools
import glob
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile

import pytest

from strata.tools import opt

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STRATA_OPT = os.path.join(os.path.dirname(sys.executable), "strata-opt")
DIAG = re.compile(r"^.+:\d+:\d+: error: ")
CASES = int(os.environ.get("STRATA_FUZZ_CASES", "100"))

SEEDS = [
    """\
func.func @elementwise(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = "strata.add"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = "strata.mul"(%0, %a) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = "strata.relu"(%1) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = "strata.gelu"(%2) {approximate = "tanh"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = "strata.compare"(%3, %b) {predicate = "lt"} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  %5 = "strata.select"(%4, %3, %a) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %5 : tensor<4x8xf32>
}
""",
    """\
func.func @contract(%x: tensor<2x3x4xf32>, %w: tensor<4x5xf32>, %v: tensor<5xf32>) -> tensor<2x3xf32> {
  %0 = "strata.matmul"(%x, %w) : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %1 = "strata.matmul"(%0, %v) : (tensor<2x3x5xf32>, tensor<5xf32>) -> tensor<2x3xf32>
  %2 = "strata.softmax"(%1) {axis = 0 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}
""",
    """\
func.func @reduce(%x: tensor<2x3x4xf16>) -> (tensor<2x1x4xf16>, tensor<4xf16>, tensor<3x2xf16>) {
  %0 = "strata.sum"(%x) {axes = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf16>) -> tensor<2x1x4xf16>
  %1 = "strata.max"(%x) {axes = array<i64: 0, -2>} : (tensor<2x3x4xf16>) -> tensor<4xf16>
  %2 = "strata.mean"(%x) {axes = array<i64: 2>} : (tensor<2x3x4xf16>) -> tensor<2x3xf16>
  %3 = "strata.transpose"(%2) {permutation = array<i64: 1, 0>} : (tensor<2x3xf16>) -> tensor<3x2xf16>
  return %0, %1, %3 : tensor<2x1x4xf16>, tensor<4xf16>, tensor<3x2xf16>
}
""",
    """\
func.func @shape(%x: tensor<6x4xi32>, %y: tensor<2x4xi32>) -> tensor<2x3x8xi32> {
  %c = "strata.constant"() {value = dense<[1, 2, 3, 4]> : tensor<4xi32>} : () -> tensor<4xi32>
  %0 = "strata.concat"(%x, %y) {axis = 0 : i64} : (tensor<6x4xi32>, tensor<2x4xi32>) -> tensor<8x4xi32>
  %1 = "strata.sub"(%0, %c) : (tensor<8x4xi32>, tensor<4xi32>) -> tensor<8x4xi32>
  %2 = "strata.slice"(%1) {starts = array<i64: 1, 0>, limits = array<i64: 7, 4>, steps = array<i64: 2, 1>} : (tensor<8x4xi32>) -> tensor<3x4xi32>
  %3 = "strata.reshape"(%2) : (tensor<3x4xi32>) -> tensor<1x3x4xi32>
  %4 = "strata.broadcast_to"(%3) : (tensor<1x3x4xi32>) -> tensor<2x3x4xi32>
  %5 = "strata.concat"(%4, %4) {axis = -1 : i64} : (tensor<2x3x4xi32>, tensor<2x3x4xi32>) -> tensor<2x3x8xi32>
  return %5 : tensor<2x3x8xi32>
}
""",
    """\
func.func @conv(%x: tensor<1x3x8x8xf32>, %f: tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %0 = "strata.conv2d"(%x, %f) {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, layout = "NCHW"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = "strata.max_pool2d"(%0) {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, layout = "NCHW"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %2 = "strata.avg_pool2d"(%1) {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, padding = array<i64: 0, 0, 0, 0>, layout = "NCHW"} : (tensor<1x4x4x4xf32>) -> tensor<1x4x3x3xf32>
  return %2 : tensor<1x4x3x3xf32>
}
""",
    """\
func.func @norm(%x: tensor<?x16xbf16>, %s: tensor<16xbf16>, %b: tensor<16xbf16>) -> tensor<?x16xf32> {
  %0 = "strata.layer_norm"(%x, %s, %b) {epsilon = 1.0e-3 : f64} : (tensor<?x16xbf16>, tensor<16xbf16>, tensor<16xbf16>) -> tensor<?x16xbf16>
  %1 = "strata.cast"(%0) : (tensor<?x16xbf16>) -> tensor<?x16xf32>
  %2 = "strata.exp"(%1) : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %3 = "strata.log"(%2) : (tensor<?x16xf32>) -> tensor<?x16xf32>
  %4 = "strata.div"(%3, %2) : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
  return %4 : tensor<?x16xf32>
}
""",
    """\
func.func @fold() -> tensor<4xf32> {
  %a = "strata.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %one = "strata.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %0 = "strata.mul"(%a, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = "strata.maximum"(%0, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = "strata.neg"(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "strata.abs"(%2) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = "strata.pow"(%3, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %5 = "strata.transpose"(%4) {permutation = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  %6 = "strata.reshape"(%5) : (tensor<4xf32>) -> tensor<2x2xf32>
  %7 = "strata.reshape"(%6) : (tensor<2x2xf32>) -> tensor<4xf32>
  return %7 : tensor<4xf32>
}
""",
]

STRATA_OPS = ["add", "sub", "mul", "div", "maximum", "minimum", "pow", "neg", "abs", "exp",
              "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu", "compare", "select",
              "matmul", "sum", "max", "mean", "softmax", "layer_norm", "reshape", "transpose",
              "broadcast_to", "concat", "slice", "conv2d", "max_pool2d", "avg_pool2d",
              "constant", "cast", "nonexistent"]
DTYPES = ["f32", "f16", "bf16", "i32", "i1", "i64", "f64", "i8", "index", "complex<f32>"]
NUMBERS = ["0", "1", "2", "3", "4", "5", "7", "8", "16", "-1", "-2", "-5", "1000000",
           "9223372036854775807", "99999999999999999999", "1.5", "0x10"]
TOKEN = re.compile(r'%[\w.]+|@\w+|"[^"\n]*"|-?\d+(?:\.\d+)?(?:e[-+]?\d+)?|[A-Za-z_][\w.]*|\S')


@functools.lru_cache(maxsize=1)
def _seed_inputs():
    """The inline seeds, plus the chunks of test/Dialect/strata/*.mlir that are valid input."""
    inputs = list(SEEDS)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "chunk.mlir")
        for name in sorted(glob.glob(os.path.join(ROOT, "test", "Dialect", "strata", "*.mlir"))):
            with open(name, encoding="utf-8") as f:
                text = f.read()
            if "expected-" in text:
                continue
            for chunk in text.split("// -----"):
                if "strata." not in chunk:
                    continue
                with open(path, "w", encoding="utf-8") as f:
                    f.write(chunk)
                try:
                    if run_in_process(path, [])[0] == 0:
                        inputs.append(chunk)
                except Exception:  # noqa: BLE001 - a broken file is someone else's test
                    pass
    return tuple(inputs)


def mutate(text: str, rng: random.Random) -> str:
    """One to three random mutations of ``text``."""
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        kind = rng.randrange(11)
        if not text:
            return text
        if kind == 0:  # character edits
            i = rng.randrange(len(text))
            j = rng.randrange(len(text))
            op = rng.randrange(3)
            if op == 0:
                text = text[:i] + text[i + 1:]
            elif op == 1:
                text = text[:i] + text[i] + text[i:]
            else:
                chars = list(text)
                chars[i], chars[j] = chars[j], chars[i]
                text = "".join(chars)
        elif kind in (1, 2):  # token edits
            toks = [(m.start(), m.end()) for m in TOKEN.finditer(text)]
            a, b = rng.choice(toks), rng.choice(toks)
            ta, tb = text[a[0]:a[1]], text[b[0]:b[1]]
            op = rng.randrange(3)
            if op == 0:
                text = text[:a[0]] + text[a[1]:]
            elif op == 1:
                text = text[:a[0]] + ta + " " + text[a[0]:]
            elif a != b:
                (x, tx), (y, ty) = sorted([(a, ta), (b, tb)])
                if x[1] <= y[0]:
                    text = text[:x[0]] + ty + text[x[1]:y[0]] + tx + text[y[1]:]
        elif kind in (3, 4):  # numbers in shapes and attributes
            nums = list(re.finditer(r"(?<![%\w])\d+|(?<=x)\d+", text))
            if nums:
                m = rng.choice(nums)
                text = text[:m.start()] + rng.choice(NUMBERS) + text[m.end():]
        elif kind == 5:  # truncate
            text = text[:rng.randrange(len(text))]
        elif kind == 6:  # swap op names among the strata ops
            names = list(re.finditer(r'"strata\.(\w+)"', text))
            if names:
                m = rng.choice(names)
                text = text[:m.start(1)] + rng.choice(STRATA_OPS) + text[m.end(1):]
        elif kind == 7:  # change a dtype: one occurrence, or all of them consistently
            types = list(re.finditer(r"\b(f32|f16|bf16|i32|i1|i64|f64)\b", text))
            if types:
                m = rng.choice(types)
                new = rng.choice(DTYPES)
                pattern = rf"\b{m.group(0)}\b"
                if new in ("index", "complex<f32>"):  # not in array<...>: MLIR aborts there
                    pattern = r"(?<!array<)" + pattern
                if rng.random() < 0.5:
                    text = re.sub(pattern, new, text)
                elif new not in ("index", "complex<f32>") or \
                        text[max(0, m.start() - 6):m.start()] != "array<":
                    text = text[:m.start()] + new + text[m.end():]
        elif kind == 8:  # change a string attribute or a dynamic/static dim
            strs = list(re.finditer(r'"(tanh|lt|NCHW|none)"|\?|(?<=x)\d+(?=x)', text))
            if strs:
                m = rng.choice(strs)
                text = text[:m.start()] + rng.choice(
                    ['"NHWC"', '"eq"', '"bogus"', '""', "?", "0", "1", '"none"']) + text[m.end():]
        elif kind == 9 and rng.random() < 0.6:  # change the form of an attribute
            attrs = list(re.finditer(r"array<i64(: [-\d, ]+)?>|-?\d+ : i64|\btrue\b|"
                                     r"\w+ = [^,}]+(, )?|dense<[^>]*>", text))
            if attrs:
                m = rng.choice(attrs)
                repl = rng.choice(["array<i32: 1, 2>", "array<i8: 0>", "array<i64>", "[1, 2]",
                                   "1 : i32", '"1"', "array<i64: 1>", "1", "unit", "2.5",
                                   "array<f32: 1.0>", "dense<1> : tensor<2xi64>", "", "false",
                                   "-3 : i64", "array<i64: 0, 0, 0, 0, 0>", "dense<> : tensor<0xf32>",
                                   "dense<[1.0, 2.0]> : tensor<2xf32>", "1.0e-300 : f64",
                                   "-1.0 : f64", "0x7FC00000 : f32"])
                text = text[:m.start()] + repl + text[m.end():]
        elif kind == 10:  # change a dim everywhere it occurs as that size
            dims = list(re.finditer(r"(?<=[<x])(\d+|\?)(?=x)", text))
            if dims:
                old = rng.choice(dims).group(0)
                new = rng.choice(["0", "1", "2", "3", "5", "?", "8"])
                text = re.sub(rf"(?<=[<x]){re.escape(old)}(?=x)", new, text)
        else:  # duplicate or drop a whole line
            lines = text.splitlines(keepends=True)
            i = rng.randrange(len(lines))
            if rng.random() < 0.5:
                lines.insert(i, lines[rng.randrange(len(lines))])
            else:
                del lines[i]
            text = "".join(lines)
    return text


def run_in_process(path: str, args: list[str]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = opt.run([*args, path], err)
    return rc, out.getvalue(), err.getvalue()


def check_result(rc, stdout, stderr, text, args):
    context = f"\nargs: {args}\n--- input ---\n{text}\n--- stderr ---\n{stderr}"
    assert rc in (0, 1), f"exit code {rc}" + context
    assert "internal error" not in stderr and "Traceback" not in stderr + stdout, context
    if rc == 1:
        assert any(DIAG.match(l) or l.startswith("strata-opt:") for l in stderr.splitlines()), \
            "exit code 1 without a located diagnostic" + context
        # As mlir-opt: with --split-input-file the chunks that did succeed are printed, between
        # separators; otherwise nothing is.
        parts = stdout.split("// -----\n") if "--split-input-file" in args else [stdout]
        assert all(p == "" or p.startswith("module") for p in parts), \
            "output written on failure" + context
    else:
        assert "module" in stdout, "no output" + context
        assert not any(l.startswith(("error", "strata-opt:")) or DIAG.match(l)
                       for l in stderr.splitlines()), "an error with exit code 0" + context


ARGS = [[], ["--strata-canonicalize"], ["--strata-verify", "--strata-canonicalize"]]


def fuzz_in_process(seed: int, cases: int, workdir: str, split: bool = False) -> dict:
    """Runs ``cases`` mutated inputs through ``opt.run``; raises AssertionError on a bad one.

    Before each case the input and arguments are written to ``workdir/current.*``, so that a
    crash of the whole process (an MLIR assertion) still names the input that caused it.
    """
    rng = random.Random((100 + seed) if split else seed)
    inputs = _seed_inputs()
    path = os.path.join(workdir, "fuzz.mlir")
    outcomes = {0: 0, 1: 0}
    for case in range(cases):
        if split:
            chunks = [mutate(rng.choice(inputs), rng) if rng.random() < 0.6
                      else rng.choice(inputs) for _ in range(rng.randint(2, 4))]
            text = "\n// -----\n".join(c.replace("// -----", "") for c in chunks)
            args = ["--split-input-file"] + ARGS[case % len(ARGS)]
        else:
            text = mutate(rng.choice(inputs), rng)
            args = ARGS[case % len(ARGS)]
        for name, data in (("current.mlir", text), ("current.args", " ".join(args)),
                           ("fuzz.mlir", text)):
            with open(os.path.join(workdir, name), "w", encoding="utf-8") as f:
                f.write(data)
        where = f"seed {seed} case {case}"
        try:
            rc, stdout, stderr = run_in_process(path, args)
        except Exception as e:  # an internal error escaping run()
            raise AssertionError(f"{where}: {type(e).__name__}: {e}\nargs: {args}\n"
                                 f"--- input ---\n{text}") from None
        check_result(rc, stdout, stderr, f"[{where}]\n{text}", args)
        outcomes[rc] += 1
        if split:
            n_lines = text.count("\n") + 1
            for line in stderr.splitlines():
                m = re.match(rf"^{re.escape(path)}:(\d+):\d+: ", line)
                assert m is None or 1 <= int(m.group(1)) <= n_lines, f"{line}\n{text}"
            if rc == 0:
                assert stdout.count("\n// -----\n") == len(chunks) - 1, stdout
        elif rc == 0:
            # What strata-opt prints is valid strata-opt input, and a fixed point of parsing.
            with open(path, "w", encoding="utf-8") as f:
                f.write(stdout)
            rc2, stdout2, stderr2 = run_in_process(path, [])
            assert rc2 == 0, (f"[{where}] output does not re-parse:\n{stdout}\n{stderr2}\n"
                              f"--- input ---\n{text}")
            assert stdout2 == stdout, f"[{where}] printing is not a fixed point\n{text}"
    return outcomes


def run_worker(seed: int, cases: int, tmp_path, split: bool = False) -> dict:
    """``fuzz_in_process`` in a child interpreter, so that a crash fails only this test."""
    workdir = str(tmp_path)
    code = ("import json, sys; sys.path.insert(0, %r); import test_fuzz as t; "
            "print(json.dumps(t.fuzz_in_process(%d, %d, %r, %r)))"
            % (os.path.dirname(os.path.abspath(__file__)), seed, cases, workdir, split))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=600)
    if p.returncode != 0:
        current = os.path.join(workdir, "current.mlir")
        text = open(current, encoding="utf-8").read() if os.path.exists(current) else "?"
        args = open(os.path.join(workdir, "current.args")).read() \
            if os.path.exists(os.path.join(workdir, "current.args")) else "?"
        pytest.fail(f"fuzz worker (seed {seed}) exited with {p.returncode}\n"
                    f"--- stderr (tail) ---\n{p.stderr[-3000:]}\n"
                    f"--- last input (args: {args}) ---\n{text}", pytrace=False)
    return {int(k): v for k, v in json.loads(p.stdout.strip().splitlines()[-1]).items()}


@pytest.mark.parametrize("seed", range(6))
def test_fuzz_in_process(seed, tmp_path):
    outcomes = run_worker(seed, CASES, tmp_path)
    # The mutations must produce both outcomes, or the fuzzer tests little.
    assert outcomes[0] > 0 and outcomes[1] > 0, outcomes


@pytest.mark.parametrize("seed", range(2))
def test_fuzz_split_input_file(seed, tmp_path):
    """Several mutated chunks in one file: each chunk's errors keep their own line numbers."""
    outcomes = run_worker(seed, CASES // 3, tmp_path, split=True)
    assert outcomes[1] > 0, outcomes


def test_unmutated_seeds_are_valid(tmp_path):
    path = str(tmp_path / "seed.mlir")
    for text in SEEDS:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        for args in ARGS:
            rc, stdout, stderr = run_in_process(path, args)
            assert rc == 0, f"{args}\n{text}\n{stderr}"


@pytest.mark.skipif(not os.path.exists(STRATA_OPT), reason="strata-opt is not installed")
def test_fuzz_subprocess(tmp_path):
    """A small subset through the real console script (crashes, exit codes, stderr)."""
    rng = random.Random(1234)
    inputs = _seed_inputs()
    for case in range(12):
        text = mutate(rng.choice(inputs), rng)
        args = ARGS[case % len(ARGS)]
        p = subprocess.run([STRATA_OPT, *args], input=text, capture_output=True, text=True,
                           timeout=60)
        check_result(p.returncode, p.stdout, p.stderr, text, args)


def test_index_dense_array_is_a_user_error(tmp_path):
    """MLIR's parser aborts on array<index: ...>; strata-opt rejects it before parsing."""
    path = tmp_path / "index.mlir"
    path.write_text('''\
func.func @r(%x: tensor<2x3xf16>) -> tensor<3xf16> {
  %0 = "strata.sum"(%x) {axes = array<index: 0>} : (tensor<2x3xf16>) -> tensor<3xf16>
  return %0 : tensor<3xf16>
}
''')
    p = subprocess.run([STRATA_OPT, str(path)], capture_output=True, text=True, timeout=60)
    check_result(p.returncode, p.stdout, p.stderr, path.read_text(), [])
