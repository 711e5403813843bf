"""The nesting limit: deep input is a located error, and input at the limit runs safely.

MLIR's parser, verifier, printer and passes recurse per nesting level; 5000
nested ``module {`` overflow the stack (SIGSEGV, in mlir-opt too). strata's
parser rejects more than ``MAX_NESTING`` levels of brackets first; the checks
at the limit run in subprocesses, so a crash fails a test instead of pytest.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from strata.errors import StrataError
from strata.parsing import MAX_NESTING, check_nesting
from strata.tools import opt

STRATA_OPT = os.path.join(os.path.dirname(sys.executable), "strata-opt")


def _error(text, limit):
    with pytest.raises(StrataError) as info:
        check_nesting(text, "f.mlir", limit)
    return str(info.value)


def test_the_first_bracket_past_the_limit_is_located():
    assert _error("module {\n  module { module {} }\n}", 2).startswith(
        "f.mlir:2:19: error: nesting deeper than 2 levels of brackets")
    check_nesting("module {\n  module { module {} }\n}", "f.mlir", 3)


@pytest.mark.parametrize("text", [
    'x = "((((((((" // [[[[[[[[[[\n',  # strings and comments do not count
    "f(%a: i32) -> (i32) -> (i32) -> i32",  # an arrow is not a closing '>'
    "affine_set<(d0) : (d0 - 1 >= 0)> x <= y",
    '"s\\"(((("',  # an escaped quote stays in the string
])
def test_what_is_not_nesting(text):
    check_nesting(text, "f.mlir", 2)


def test_a_closer_pops_back_to_its_opener():
    check_nesting("{<(}" * 50, "f.mlir", 3)  # unclosed '<' and '(' close with their '}'
    assert "f.mlir:1:4: error" in _error("[[[[", 3)


def _nested_regions(n):
    """``n`` levels: the function's body and n - 1 regions in it."""
    return ("func.func @f() {\n" + "scf.execute_region {\n" * (n - 1) +
            "scf.yield\n}\n" * (n - 1) + "  return\n}\n")


@pytest.mark.skipif(not os.path.exists(STRATA_OPT), reason="strata-opt is not installed")
@pytest.mark.parametrize("text", [
    "module {" * MAX_NESTING + "}" * MAX_NESTING,
    _nested_regions(MAX_NESTING),
])
def test_input_at_the_limit_runs(text, tmp_path):
    path = tmp_path / "deep.mlir"
    path.write_text(text)
    for args in ([], ["--canonicalize", "--cse", "--strata-canonicalize"]):
        p = subprocess.run([STRATA_OPT, str(path), "-o", str(tmp_path / "out.mlir"), *args],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, (args, p.returncode, p.stderr[-2000:])
    path.write_text("[" + text)  # one level more
    p = subprocess.run([STRATA_OPT, str(path)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "nesting deeper than 1000 levels" in p.stderr, p.stderr[-2000:]


@pytest.mark.skipif(not os.path.exists(STRATA_OPT), reason="strata-opt is not installed")
def test_the_limit_is_safe_on_a_default_stack(tmp_path):
    """Library callers parse on their own thread: the limit holds with 8 MiB of stack."""
    path = tmp_path / "deep.mlir"
    path.write_text(_nested_regions(MAX_NESTING))
    code = ("import sys; from strata.tools import opt; "
            "sys.exit(opt.run([sys.argv[1], '-o', sys.argv[2], '--canonicalize', '--cse']))")
    p = subprocess.run([sys.executable, "-c", code, str(path), str(tmp_path / "out.mlir")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])


def test_the_driver_thread_hands_back_code_and_errors(capsys):
    assert opt.run_on_large_stack(["--version"]) == 0
    assert capsys.readouterr().out.startswith("strata-opt ")
    with pytest.raises(TypeError):
        opt.run_on_large_stack(None)


@pytest.mark.parametrize("element", ["func.func(", "func.func{x=1}("])
def test_a_deep_pass_pipeline_is_a_syntax_error(element):
    from strata.pipelines.runner import MAX_DEPTH, _elements

    _elements(element * MAX_DEPTH + "cse" + ")" * MAX_DEPTH)
    with pytest.raises(StrataError, match=f"pass pipeline nested deeper than {MAX_DEPTH} levels"):
        _elements(element * 5000 + "cse" + ")" * 5000)
