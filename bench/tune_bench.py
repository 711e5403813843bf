"""Tuned vs default, per row: strata.tune's record against strata's default tiles.

    python bench/tune_bench.py [--budget 60] [--repeats 3] [--rows mm512,f16] [--threads 1]
                               [--clock wall|cpu]

Per row, one fresh process tunes the function (strata.tune, into a tuning record
of this run's own temp cache folder); then the default (``STRATA_TUNING=0``) and
the tuned build are each timed in fresh processes, alternately, ``--repeats``
times, and the best of each is kept. Prints a Markdown table: the two times per
call, default/tuned (> 1: tuning helped) and the tiles chosen. Timings on a
shared machine are noisy: compare ratios, on a quiet machine for the record.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROWS = {
    # name: (description, argument shapes, dtype)
    "mm512": ("x @ w f32 512x512 @ 512x512", [(512, 512), (512, 512)], np.float32),
    "wide": ("x @ w f32 128x1024 @ 1024x1024", [(128, 1024), (1024, 1024)], np.float32),
    "f16": ("x @ w f16 256x256 @ 256x256", [(256, 256), (256, 256)], np.float16),
    "mlp": ("relu(x @ w) f32 256x512 @ 512x384", [(256, 512), (512, 384)], np.float32),
}


def _fn(name):
    import strata

    if name == "mlp":
        return lambda x, w: strata.relu(x @ w)
    return lambda x, w: x @ w


def _inputs(name):
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s).astype(ROWS[name][2]) for s in ROWS[name][1]]


def child(mode: str, name: str, budget: float, threads: int, clock: str) -> None:
    import strata

    fn, args = _fn(name), _inputs(name)
    if mode == "tune":
        result = strata.tune(fn, *args, budget=budget, threads=threads, blas="never",
                             clock=clock)
        print(json.dumps({"entries": result.entries, "rejected": result.rejected}))
        return
    from strata.autotune.measure import measure

    f = strata.jit(fn, threads=threads, blas="never")
    t = measure(lambda: f(*args), rounds=9, round_s=0.1, max_spread=1e9, clock=clock)
    print(json.dumps({"seconds": t.seconds}))


def _run(mode, name, env, budget, threads, clock) -> dict:
    p = subprocess.run([sys.executable, __file__, "--child", mode, name, "--budget", str(budget),
                        "--threads", str(threads), "--clock", clock], env=env,
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--budget", type=float, default=60.0, help="tuning seconds per row")
    p.add_argument("--repeats", type=int, default=3, help="fresh processes per build")
    p.add_argument("--rows", default=",".join(ROWS))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="time with the wall clock, or CPU time (single-threaded code on a "
                        "busy machine)")
    p.add_argument("--child", nargs=2, metavar=("MODE", "ROW"), help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        child(a.child[0], a.child[1], a.budget, a.threads, a.clock)
        return 0
    root = tempfile.mkdtemp(prefix="strata-tune-bench-")
    env = dict(os.environ, STRATA_CACHE_DIR=root)
    print(f"| row | default | tuned | default/tuned | tuned tiles (threads={a.threads}, "
          f"{a.clock} clock) |")
    print("|---|---|---|---|---|")
    for name in a.rows.split(","):
        tuned = _run("tune", name, env, a.budget, a.threads, a.clock)
        best = {"default": float("inf"), "tuned": float("inf")}
        for _ in range(a.repeats):
            for label, extra in (("default", {"STRATA_TUNING": "0"}), ("tuned", {})):
                t = _run("time", name, {**env, **extra}, a.budget, a.threads,
                         a.clock)["seconds"]
                best[label] = min(best[label], t)
        configs = "; ".join(
            f"{e['op']}: " + (" ".join(f"{k}={v}" for k, v in sorted(e["config"].items()))
                              or "default") for e in tuned["entries"]) or "(no op tuned)"
        print(f"| {ROWS[name][0]} | {best['default'] * 1e6:.0f} us | "
              f"{best['tuned'] * 1e6:.0f} us | {best['default'] / best['tuned']:.2f}x | "
              f"{configs} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
