"""Tuned vs default, per row: strata.tune's record against strata's default tiles.

    python bench/tune_bench.py [--budget 60] [--repeats 3] [--rows mlp,mm,bmm] [--threads 1]

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
    # name: (description, argument shapes)
    "mlp": ("relu(x @ w) 256x512 @ 512x384", [(256, 512), (512, 384)]),
    "mm": ("x @ w 384x384 @ 384x384", [(384, 384), (384, 384)]),
    "bmm": ("batch x @ w 8x128x64 @ 8x64x128", [(8, 128, 64), (8, 64, 128)]),
}


def _fn(name):
    import strata

    if name == "mlp":
        return lambda x, w: strata.relu(x @ w)
    return lambda x, w: x @ w


def _inputs(name):
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s).astype(np.float32) for s in ROWS[name][1]]


def child(mode: str, name: str, budget: float, threads: int) -> None:
    import strata

    fn, args = _fn(name), _inputs(name)
    if mode == "tune":
        result = strata.tune(fn, *args, budget=budget, threads=threads, blas="never")
        print(json.dumps({"entries": result.entries, "rejected": result.rejected}))
        return
    from strata.runtime.measure import per_call

    f = strata.jit(fn, threads=threads, blas="never")
    f(*args)
    print(json.dumps({"seconds": per_call(f, args, budget=1.0, repeats=7)}))


def _run(mode, name, env, budget, threads) -> dict:
    p = subprocess.run([sys.executable, __file__, "--child", mode, name, "--budget", str(budget),
                        "--threads", str(threads)], env=env, capture_output=True, text=True,
                       check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--budget", type=float, default=60.0, help="tuning seconds per row")
    p.add_argument("--repeats", type=int, default=3, help="fresh processes per build")
    p.add_argument("--rows", default=",".join(ROWS))
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--child", nargs=2, metavar=("MODE", "ROW"), help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        child(a.child[0], a.child[1], a.budget, a.threads)
        return 0
    root = tempfile.mkdtemp(prefix="strata-tune-bench-")
    env = dict(os.environ, STRATA_CACHE_DIR=root)
    print(f"| row | default | tuned | default/tuned | tuned tiles (threads={a.threads}) |")
    print("|---|---|---|---|---|")
    for name in a.rows.split(","):
        tuned = _run("tune", name, env, a.budget, a.threads)
        best = {"default": float("inf"), "tuned": float("inf")}
        for _ in range(a.repeats):
            for label, extra in (("default", {"STRATA_TUNING": "0"}), ("tuned", {})):
                t = _run("time", name, {**env, **extra}, a.budget, a.threads)["seconds"]
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
