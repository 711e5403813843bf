"""Diagnostics of upstream passes run through strata's runner (Python API).

An upstream pass may emit an error and still succeed. The MLIR Python bindings
capture errors during ``PassManager.run`` and *assert* that a successful run
left none (``~ErrorCapture``: "unhandled captured errors"), which aborts the
process. The runner collects every diagnostic itself; these checks run in a
subprocess so that an abort fails the test instead of killing pytest.
"""

from __future__ import annotations

import json
import subprocess
import sys

ALLOC_DIM = """\
func.func @f(%n: index) -> index {
  %t = bufferization.alloc_tensor(%n) : tensor<?xf32>
  %c1 = arith.constant 1 : index
  %d = tensor.dim %t, %c1 : tensor<?xf32>
  return %d : index
}
"""

SCRIPT = """
import json, sys
from strata.context import new_context
from strata.errors import StrataError
from strata.parsing import parse_module
from strata.pipelines.runner import run_pipeline

context = new_context()
with context:
    module = parse_module(sys.argv[1], "in.mlir", context)
    try:
        diags = run_pipeline(module, sys.argv[2], reproducer=False)
        failed = False
    except StrataError as e:
        diags, failed = e.diagnostics, True
    print(json.dumps({"failed": failed, "diags": [str(d) for d in diags],
                      "valid": module.verify()}))
"""


def _run(text, pipeline):
    p = subprocess.run([sys.executable, "-c", SCRIPT, text, pipeline], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    return json.loads(p.stdout)


def test_error_without_failure_is_returned_not_an_abort():
    out = _run(ALLOC_DIM, "builtin.module(resolve-ranked-shaped-type-result-dims)")
    assert not out["failed"] and out["valid"]
    assert out["diags"][0].splitlines()[0] == (
        "in.mlir:2:8: error: 'bufferization.alloc_tensor' op invalid dimension")
    assert "in.mlir:2:8: note: see current operation" in out["diags"][0]


def test_a_pass_failing_without_a_diagnostic_is_located_at_the_module():
    text = ("func.func @f(%a: i32) -> i32 {\n  %c0 = arith.constant 0 : i32\n"
            "  %0 = arith.addi %a, %c0 : i32\n  %1 = arith.addi %0, %c0 : i32\n"
            "  return %1 : i32\n}\n")
    out = _run(text, "builtin.module(canonicalize{test-convergence max-iterations=1 "
                     "region-simplify=disabled})")
    assert out["failed"]
    # MLIR does not say which pass failed; the module is the implicit one (file:0:0, as in
    # mlir-opt).
    assert out["diags"] == ["in.mlir:0:0: error: failure while executing pass pipeline (a pass "
                            "failed without a diagnostic)"]


def test_a_failing_upstream_pass_keeps_its_diagnostics():
    out = _run("module attributes {gpu.container_module} {\n  gpu.module @k {\n  }\n}\n",
               "builtin.module(gpu-module-to-binary)")
    assert out["failed"]
    assert out["diags"][0].splitlines()[0] == (
        "in.mlir:2:3: error: the module has no target attributes")
