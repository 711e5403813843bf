"""Threaded matmuls whose tile grid async-parallel-for once split wrongly.

MLIR 22's async-parallel-for aligns the blocks of a multi-dim parallel loop to its static
inner trip count but keeps the unaligned block count, so the last blocks ran past the
end: M x N tile grids such as (17, 2) or (20, 8) returned garbage and wrote out of bounds.
strata-flatten-forall makes every threaded loop one-dim first. Each case runs in a
subprocess, so a crash fails the test instead of killing the runner.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

CASE = """
import numpy as np, strata
m, n, k = {shape}
g = np.random.default_rng(0)
a = g.standard_normal((m, k), dtype=np.float32)
b = g.standard_normal((k, n), dtype=np.float32)
f = strata.jit(lambda a, b: a @ b, threads=2, blas="never")
for _ in range(3):
    y = f(a, b)
ref = a.astype(np.float64) @ b.astype(np.float64)
bound = 8 * np.sqrt(k) * 2.0 ** -23 * (np.abs(a).astype(np.float64) @ np.abs(b))
bad = np.abs(y - ref) > bound
assert not bad.any(), (int(bad.sum()), np.argwhere(bad)[:3].tolist())
print("ok")
"""


# (M, N, K) -> M x N cache tiles (17, 2), (20, 2), (20, 8), (19, 2) with peeled remainders,
# (20, 4) with a 1000-long K.
@pytest.mark.parametrize("shape", [(1088, 256, 128), (1280, 256, 64), (1000, 1000, 128),
                                   (950, 250, 128), (1000, 500, 1000)])
def test_threaded_matmul_tile_grids(shape):
    p = subprocess.run([sys.executable, "-c", CASE.format(shape=shape)], capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr[-2000:]
