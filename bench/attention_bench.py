"""Fused attention: strata (strata-attention) against torch eager and torch.compile.

    python bench/attention_bench.py [--shapes 8x512x64,8x2048x64] [--threads 2] [--repeat 3]
                                    [--causal] [--systems strata,unfused,sdpa,eager,compile]
                                    [--clock wall|cpu]

Each (system, shape) runs in its own fresh process (``--worker``), ``--repeat``
times interleaved; the best warm time of each process (median of its calls'
best-of) is kept and the best over processes is printed, with the ratio of
torch.compile's time to each system's (> 1: faster than torch.compile).
``unfused`` is strata with the attention fusion off (``fusion=False``: the
path before strata-attention). Timings on a shared machine are noisy: compare
ratios from one run, not across runs. ``--clock cpu`` times the process's CPU
time instead of the wall clock (with ``--threads 1``: the work each system does,
less disturbed by other processes on a loaded machine than wall time).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np


def _inputs(h, s, d, seed=0):
    g = np.random.default_rng(seed)
    return [g.standard_normal((h, s, d), dtype=np.float32) for _ in range(3)]


def _strata_fn(h, s, d, threads, causal, fusion):
    import strata

    scale = 1.0 / math.sqrt(d)
    tril = np.tril(np.ones((s, s), bool))

    def attn(q, k, v):
        x = (q @ strata.transpose(k, [0, 2, 1])) * scale
        if causal:
            x = strata.where(tril, x, -np.inf)
        return strata.softmax(x) @ v

    return strata.jit(attn, threads=threads, fusion=fusion)


def _torch_fn(system, s, d, threads, causal):
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(threads)
    scale = 1.0 / math.sqrt(d)
    mask = torch.ones(s, s, dtype=torch.bool).tril()

    def explicit(q, k, v):
        x = (q @ k.transpose(1, 2)) * scale
        if causal:
            x = x.masked_fill(~mask, float("-inf"))
        return torch.softmax(x, -1) @ v

    if system == "sdpa":
        return lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    if system == "compile":
        return torch.compile(explicit)
    return explicit


def worker(system, shape, threads, causal, calls, clock=time.perf_counter):
    h, s, d = shape
    q, k, v = _inputs(h, s, d)
    if system in ("strata", "unfused"):
        fn = _strata_fn(h, s, d, threads, causal, fusion=(system == "strata"))
        args = (q, k, v)
    else:
        import torch

        fn = _torch_fn(system, s, d, threads, causal)
        args = tuple(torch.from_numpy(a) for a in (q, k, v))
    t0 = time.perf_counter()
    fn(*args)
    cold = time.perf_counter() - t0
    times = []
    for _ in range(calls):
        t0 = clock()
        fn(*args)
        times.append(clock() - t0)
    return {"cold_s": cold, "best_ms": min(times) * 1e3, "median_ms": float(np.median(times)) * 1e3}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default="8x512x64,8x2048x64")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--systems", default="strata,unfused,sdpa,eager,compile")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        system, shape = a.worker.split(":")
        clock = time.process_time if a.clock == "cpu" else time.perf_counter
        out = worker(system, tuple(int(x) for x in shape.split("x")), a.threads, a.causal,
                     a.calls, clock)
        print(json.dumps(out))
        return
    systems = a.systems.split(",")
    for shape in a.shapes.split(","):
        best: dict[str, float] = {}
        for _ in range(a.repeat):
            for system in systems:
                cmd = [sys.executable, __file__, "--worker", f"{system}:{shape}",
                       "--threads", str(a.threads), "--calls", str(a.calls), "--clock", a.clock]
                if a.causal:
                    cmd.append("--causal")
                r = subprocess.run(cmd, capture_output=True, text=True,
                                   env={**os.environ, "STRATA_CACHE": "0"})
                if r.returncode:
                    print(f"{system} {shape}: failed\n{r.stderr[-2000:]}", file=sys.stderr)
                    continue
                ms = json.loads(r.stdout.strip().splitlines()[-1])["best_ms"]
                best[system] = min(best.get(system, math.inf), ms)
        ref = best.get("compile")
        print(f"attention {shape}{' causal' if a.causal else ''}, {a.threads} threads, "
              f"{a.clock} time (best of {a.repeat} fresh processes):")
        for system, ms in best.items():
            ratio = f"  {ref / ms:5.2f}x torch.compile's speed" if ref else ""
            print(f"  {system:8s} {ms:9.2f} ms{ratio}")


if __name__ == "__main__":
    main()
