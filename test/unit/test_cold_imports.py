"""What a compile imports: a CPU compile of the demo MLP loads only the passes its
pipeline runs (no GPU passes, no torch, ray or tuning tools), and a disk-cache hit in
a new process loads no MLIR bindings at all (issue 13: cold compile and restart time).

Each case runs in a fresh interpreter (the modules a test process already holds
would hide what a compile imports), with its own empty cache folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from strata.pipelines import registry

CHILD = r"""
import json, sys
import numpy as np
import strata
from strata import demo
f = strata.jit(demo.mlp)
f(*demo._inputs(np.random.default_rng(0), "mlp"))
print(json.dumps({"hits": f.stats.cache_hits, "modules": sorted(sys.modules)}))
"""

# Modules a CPU compile of the demo MLP has no use for.
NOT_IN_A_CPU_COMPILE = ("strata.passes.gpu", "strata.pipelines.gpu", "strata.runtime.cuda",
                        "strata.autotune", "strata.torch", "strata.serve", "strata.explain",
                        "strata.tools", "mlir.dialects.gpu", "torch", "ray")


def _run(cache: str) -> dict:
    env = {**os.environ, "STRATA_CACHE_DIR": cache}
    p = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def _under(modules, prefixes):
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    cache = str(tmp_path_factory.mktemp("cache"))
    cold = _run(cache)
    restart = _run(cache)
    return cold, restart


def test_cold_compile_imports_only_what_its_pipeline_uses(runs):
    cold, _ = runs
    assert cold["hits"] == 0
    assert _under(cold["modules"], NOT_IN_A_CPU_COMPILE) == []
    # the pipeline's own passes are there; the registry did not import every pass
    assert "strata.passes.fuse" in cold["modules"]
    unused = [registry._WHERE[name].split(":")[0] for name in
              ("strata-gpu-map", "strata-gpu-launch", "strata-gpu-host", "strata-gpu")]
    assert _under(cold["modules"], [f"strata.{m}" for m in unused]) == []


def test_disk_cache_hit_imports_no_mlir_bindings(runs):
    _, restart = runs
    assert restart["hits"] == 1
    assert _under(restart["modules"], ("mlir", "strata.passes", "strata.pipelines")) == []


def test_registry_entries_name_their_flags():
    # each lazily imported class is the one filed under its flag (imports every pass)
    for name, cls in registry.all_passes():
        assert cls.name == name
    assert registry.is_strata_pass("strata-gpu") and not registry.is_strata_pass("cse")
    assert registry.is_pipeline("strata-cpu") and not registry.is_pipeline("strata-fuse")
