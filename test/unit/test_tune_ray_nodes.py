"""strata.tune(..., executor="ray") on a fake 2-node Ray cluster (Ray's cluster utility:
two raylets on this machine, one CPU each): the candidates spread over both nodes and come
back into one record. Skips without Ray."""

import os

import numpy as np
import pytest

import strata
from strata.runtime import aot, tuning_record

ray = pytest.importorskip("ray", reason="no Ray (pip install 'strata[cluster]')")
pytestmark = pytest.mark.skipif(not aot.available(), reason="no C compiler driver (cc)")


def _relu_mm(x, w):
    return strata.relu(x @ w)


def test_tuning_spreads_over_two_nodes(tmp_path, monkeypatch):
    from ray.cluster_utils import Cluster

    monkeypatch.setenv("STRATA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("STRATA_TUNING_RECORD", str(tmp_path / "tuning.json"))
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, log_to_driver=False)
        env = {"env_vars": {"PYTHONPATH": os.path.dirname(os.path.abspath(__file__)),
                            "STRATA_CACHE_DIR": str(tmp_path / "cache")}}
        rng = np.random.default_rng(0)
        x = rng.standard_normal((96, 64)).astype(np.float32)
        w = rng.standard_normal((64, 80)).astype(np.float32)
        result = strata.tune(_relu_mm, x, w, executor="ray", budget=30, threads=1,
                             blas="never", max_spread=100.0, rounds=3, round_s=0.002,
                             ray_options={"runtime_env": env})
    finally:
        ray.shutdown()
        cluster.shutdown()
    assert len(result.entries) == 1, result.rejected
    (entry,) = result.entries
    assert entry["nodes"] == 2 and entry["candidates"] >= 2
    assert [e["op"] for e in tuning_record.entries()] == [entry["op"]]
