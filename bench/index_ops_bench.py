"""Warm time per call of cumsum, flip, pad and scatter_add: strata vs numpy vs torch (eager).

    python bench/index_ops_bench.py [--repeat 30] [--rounds 3] [--threads 1]

Each (system, case) pair runs in its own fresh process, interleaved round by round
(strata, numpy, torch, strata, ...) so that load on a shared machine hits them alike;
each process reports the best of ``--repeat`` calls, and the table the best over the
rounds, with strata's time as a ratio of each peer's (< 1: strata is faster).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np

CASES = {  # name: (shape, what)
    "cumsum_last_512x1024": ((512, 1024), "cumsum1"),
    "cumsum_first_512x1024": ((512, 1024), "cumsum0"),
    "cumsum_last_64x100000": ((64, 100000), "cumsum1"),
    "flip_last_1024x1024": ((1024, 1024), "flip1"),
    "pad_1024x1024": ((1024, 1024), "pad"),
    "scatter_add_rows_4096x256": ((4096, 256), "scatter_add"),
}
SYSTEMS = ["strata", "numpy", "torch"]


def _inputs(shape, what):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    if what != "scatter_add":
        return (x,)
    ids = rng.integers(0, shape[0], shape).astype(np.int32)
    return x, ids, rng.standard_normal(shape).astype(np.float32)


def _fn(system, what, threads):
    if system == "strata":
        import strata

        body = {
            "cumsum1": lambda x: strata.cumsum(x, axis=1),
            "cumsum0": lambda x: strata.cumsum(x, axis=0),
            "flip1": lambda x: strata.flip(x, 1),
            "pad": lambda x: strata.pad(x, ((1, 2), (3, 4)), value=1.0),
            "scatter_add": lambda x, i, u: strata.scatter_add(x, i, u, axis=0),
        }[what]
        return strata.jit(body, threads=threads)
    if system == "numpy":
        def scatter_add(x, i, u):
            y = x.copy()
            np.add.at(y, (i, np.arange(x.shape[1])[None, :]), u)
            return y

        return {
            "cumsum1": lambda x: np.cumsum(x, axis=1),
            "cumsum0": lambda x: np.cumsum(x, axis=0),
            "flip1": lambda x: np.ascontiguousarray(np.flip(x, 1)),
            "pad": lambda x: np.pad(x, ((1, 2), (3, 4)), constant_values=1.0),
            "scatter_add": scatter_add,
        }[what]
    import torch

    torch.set_num_threads(threads)
    return {
        "cumsum1": lambda x: torch.cumsum(x, 1),
        "cumsum0": lambda x: torch.cumsum(x, 0),
        "flip1": lambda x: torch.flip(x, (1,)),
        "pad": lambda x: torch.nn.functional.pad(x, (3, 4, 1, 2), value=1.0),
        "scatter_add": lambda x, i, u: torch.scatter_add(x, 0, i, u),
    }[what]


def run_one(system, case, repeat, threads):
    shape, what = CASES[case]
    args = _inputs(shape, what)
    fn = _fn(system, what, threads)
    if system == "torch":  # torch tensors (int64 indices), converted before the timing
        import torch

        args = [torch.from_numpy(a.astype(np.int64) if a.dtype == np.int32 else a)
                for a in args]
    fn(*args)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=30)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--one", nargs=2, help=argparse.SUPPRESS)  # system case: a worker
    a = p.parse_args()
    if a.one:
        print(json.dumps(run_one(a.one[0], a.one[1], a.repeat, a.threads)))
        return
    best = {}
    for _ in range(a.rounds):
        for case in CASES:
            for system in SYSTEMS:
                out = subprocess.run([sys.executable, __file__, "--one", system, case,
                                      "--repeat", str(a.repeat), "--threads", str(a.threads)],
                                     capture_output=True, text=True, check=True)
                t = json.loads(out.stdout.strip().splitlines()[-1])
                best[system, case] = min(best.get((system, case), t), t)
    print(f"{'case':28s} {'strata ms':>10s} {'numpy ms':>10s} {'torch ms':>10s} "
          f"{'s/numpy':>8s} {'s/torch':>8s}")
    for case in CASES:
        s, n, t = (best[k, case] * 1e3 for k in SYSTEMS)
        print(f"{case:28s} {s:10.3f} {n:10.3f} {t:10.3f} {s / n:8.2f} {s / t:8.2f}")


if __name__ == "__main__":
    main()
