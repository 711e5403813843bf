#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU (sm_90 by default) and a driver.
#
#   bash bench/gpu_check.sh            # from the repository root
#
# Installs strata with its test extras into a venv (.venv-gpu, or $STRATA_VENV),
# prints nvidia-smi, runs the GPU numerics tests (test/unit/test_gpu.py) and the
# GPU lit tests, then a short benchmark (bench/gpu_bench.py) vs numpy (and torch
# CUDA if importable), printing a summary table. Everything is bounded to about
# 5 minutes by per-step timeouts.
set -u -o pipefail
cd "$(dirname "$0")/.."
VENV="${STRATA_VENV:-.venv-gpu}"
PY="${PYTHON:-python3}"
status=0
step() { echo; echo "=== $* ==="; }

step "machine"
nvidia-smi || echo "nvidia-smi not found (no driver?)"
command -v ptxas >/dev/null && ptxas --version | tail -1 || echo "ptxas not on PATH (format=bin needs it)"

step "install (venv: $VENV)"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV" || exit 1
fi
timeout 180 "$VENV/bin/python" -m pip install -q -e '.[test]' || { echo "install failed"; exit 1; }
"$VENV/bin/python" -c "from strata.runtime.cuda import cuda_available; print('cuda_available:', cuda_available())"

step "GPU unit tests (compile-only + numerics)"
timeout 150 "$VENV/bin/python" -m pytest test/unit/test_gpu.py -q -rs || status=1

step "GPU lit tests"
timeout 60 "$VENV/bin/lit" -s test/Conversion/GPU test/Pipelines/gpu.mlir test/Pipelines/gpu-binary.mlir || status=1

step "benchmark"
timeout 120 "$VENV/bin/python" bench/gpu_bench.py --budget 0.5 || status=1

step "summary"
if [ "$status" = 0 ]; then echo "GPU CHECK PASSED"; else echo "GPU CHECK FAILED (see above)"; fi
exit "$status"
