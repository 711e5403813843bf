"""strata.tools.mlir_adapter: the workarounds for what the MLIR bindings do not expose."""

import pytest
from mlir import ir, passmanager

from strata.diagnostics import capture_diagnostics
from strata.tools import mlir_adapter

BAD_DIM = """\
func.func @f(%n: index) -> index {
  %t = bufferization.alloc_tensor(%n) : tensor<?xf32>
  %c1 = arith.constant 1 : index
  %d = tensor.dim %t, %c1 : tensor<?xf32>
  return %d : index
}
"""


def _notes(op_notes: bool):
    context = ir.Context()
    if not op_notes:
        assert mlir_adapter.print_op_on_diagnostic(context, False)
    with context:
        module = ir.Module.parse(BAD_DIM)
        pm = passmanager.PassManager.parse(
            "builtin.module(resolve-ranked-shaped-type-result-dims)")
        with capture_diagnostics(context) as diags:
            pm.run(module.operation)
    return [n.message for d in diags for n in d.notes]


def test_print_op_on_diagnostic_turns_the_op_notes_off():
    assert any(n.startswith("see current operation: ") for n in _notes(True))
    assert _notes(False) == []


def test_pass_lookup():
    assert mlir_adapter.is_pass("cse") and mlir_adapter.is_pass("canonicalize")
    assert not mlir_adapter.is_pass("no-such-pass")
    assert mlir_adapter.restricted_to("cse") is None
    assert mlir_adapter.restricted_to("promote-buffers-to-stack") == "func.func"


@pytest.mark.skipif(mlir_adapter.mlir_opt() is None, reason="the pinned mlir-opt is missing")
def test_lists_from_mlir_opt():
    names = mlir_adapter.pass_names()
    assert "canonicalize" in names and "cse" in names and names == sorted(names)
    assert {"arith", "func", "linalg"} <= set(mlir_adapter.dialects())


def test_select_dumps():
    text = ("// -----// IR Dump Before CSE (cse) //----- //\nA\n"
            "// -----// IR Dump After CSE (cse) //----- //\nB\n"
            "// -----// IR Dump After Canonicalizer (canonicalize) //----- //\nC\n"
            "\x00mark\x00a diagnostic\n")
    kept = mlir_adapter.select_dumps(text, set(), {"canonicalize"}, before_all=False,
                                     after_all=False, after_failure=False,
                                     passthrough="\x00mark\x00")
    assert kept == ("// -----// IR Dump After Canonicalizer (canonicalize) //----- //\nC\n"
                    "a diagnostic\n")


def test_timing_report_gets_parser_and_output_rows():
    context = ir.Context()
    with context:
        module = ir.Module.parse(BAD_DIM.replace("%c1 = arith.constant 1", "%c1 = arith.constant 0"))
        pm = passmanager.PassManager.parse("builtin.module(func.func(cse))")
        pm.enable_timing()
        import os
        import sys
        import tempfile
        sys.stderr.flush()
        saved = os.dup(2)
        with tempfile.TemporaryFile() as tmp:
            os.dup2(tmp.fileno(), 2)
            try:
                pm.run(module.operation)
                del pm
            finally:
                os.dup2(saved, 2)
                os.close(saved)
            tmp.seek(0)
            text = tmp.read().decode()
    rest, report = mlir_adapter.split_timing(text)
    assert rest == "" and "Execution time report" in report
    timing = mlir_adapter.Timing()
    timing.add_report(report)
    names = [line.split("  ")[-1].strip() for line in timing.report().splitlines()[6:]]
    assert names[0] == "Parser" and names[-3:] == ["Output", "Rest", "Total"]
    assert "CSE" in names
