"""The lit suite once more for the AVX2 code paths, on a host that has AVX-512.

CI machines are AVX2-only or AVX-512; the README's ``lit -sv test`` runs the host's path.
On an AVX-512 host this runs the pass and pipeline tests again with
``STRATA_CPU_FEATURES=avx2`` (8-lane vectors, the 6x16 packed micro-kernel, the cost
model's AVX2 panels), so CHECK lines that hold for one vector width only fail here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from strata.codegen import host

ROOT = Path(__file__).resolve().parents[2]
LIT = Path(sys.executable).parent / "lit"


@pytest.mark.skipif(not {"avx2", "avx512f"} <= set(host.host_flags().split()),
                    reason="needs a host with AVX-512 (an AVX2 host runs this path natively)")
@pytest.mark.skipif(not LIT.exists(), reason="lit is not installed next to this Python")
def test_lit_passes_for_avx2(tmp_path):
    env = dict(os.environ, STRATA_CPU_FEATURES="avx2")
    run = subprocess.run([str(LIT), "-q", str(ROOT / "test" / "Transforms"),
                          str(ROOT / "test" / "Pipelines")],
                         env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "Total Discovered Tests" in run.stdout, run.stdout
