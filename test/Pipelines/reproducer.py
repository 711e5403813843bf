# RUN: %PYTHON %s | FileCheck %s
#
# A failing pipeline run from Python: the PipelineError names the pass, the
# op's location, the pipeline's input IR (snapshotted once, saved only on
# failure) and the strata-opt command that reproduces the failure; running that
# command fails the same way.

import os
import shlex
import subprocess
import sys
import tempfile

from strata.context import new_context
from strata.parsing import parse_module
from strata.pipelines.runner import PipelineError, run_pipeline

TEXT = """\
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "strata.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

repro_dir = tempfile.mkdtemp(prefix="strata-repro-test-")
os.environ["STRATA_REPRO_DIR"] = repro_dir

with new_context() as ctx:
    module = parse_module(TEXT, "model.mlir", ctx)
    try:
        run_pipeline(module, "builtin.module(strata-verify, strata-check-level{level=llvm})")
        print("no error")
    except PipelineError as err:
        message = str(err)
        print(message)
        print("stage:", err.stage)
        path = err.reproducer

# The op's location, the pass, the saved file and the command.
# CHECK: model.mlir:2:8: error: level 'llvm' allows only llvm, omp ops; found 'strata.relu'
# CHECK-NEXT: note: pass 'strata-check-level' failed; the pipeline's input IR is saved in [[PATH:.+strata-repro-.+\.mlir]]
# CHECK-NEXT: note: reproduce with: strata-opt --pass-pipeline='builtin.module(strata-verify, strata-check-level{level=llvm})' [[PATH]]
# CHECK-NEXT: note: add --mlir-print-ir-after-all
# CHECK-NEXT: stage: strata-check-level
# CHECK-NOT: no error

print("saved in repro dir:", os.path.dirname(path) == repro_dir)
# CHECK: saved in repro dir: True
saved = open(path).read()
# The saved IR is the pipeline's input, with locations.
print("saved has relu:", '"strata.relu"' in saved, "loc:", "model.mlir" in saved)
# CHECK: saved has relu: True loc: True

# Run the printed command: it fails the same way, at the same location.
command = next(line for line in message.splitlines() if "reproduce with:" in line)
command = command.split("reproduce with: ", 1)[1]
argv = shlex.split(command)
print("argv0:", argv[0], "last arg is the file:", argv[-1] == path)
# CHECK: argv0: strata-opt last arg is the file: True
argv[0] = os.path.join(os.path.dirname(sys.executable), "strata-opt")
proc = subprocess.run(argv, capture_output=True, text=True)
print("exit:", proc.returncode)
print(proc.stderr.strip())
print("stdout empty:", proc.stdout == "")
# CHECK: exit: 1
# CHECK-NEXT: model.mlir:2:8: error: level 'llvm' allows only llvm, omp ops; found 'strata.relu'
# CHECK-NEXT: stdout empty: True

os.unlink(path)
os.rmdir(repro_dir)
