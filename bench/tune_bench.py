"""Tuned vs default, per row: strata.tune's record against strata's default schedule.

    python bench/tune_bench.py [--budget 40] [--repeats 3] [--rows mm1000,skinny_m] [--quick]

Per row, one fresh process tunes the function (strata.tune, into a tuning record in
this run's own temp cache folder) and reports its tuning time; then the default
(``STRATA_TUNING=0``) and the tuned build are each timed in fresh processes,
alternately (default, tuned, default, tuned, ...), ``--repeats`` times, and the best
of each is kept. Rows ``*_auto`` compile with ``blas="auto"`` (the BLAS-or-generated choice is
tuned too), the others generated code only (``blas="never"``).
Single-threaded rows are timed in CPU time (other processes on a shared machine do not
count), threaded rows in wall time. Prints a Markdown table: the two times per call,
tuned/default (< 1: tuning helped), the chosen config per op and the tuning time.

``rows(quick)`` returns the same figures as a list of dicts for bench/suite.py.
Timings on a shared machine are noisy: compare ratios, on a quiet machine for the record.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

# name: (description, function, argument shapes, dtype, threads, blas)
ROWS = {
    "mm1000": ("x @ w f32 1000x1000 @ 1000x1000", "mm", [(1000, 1000), (1000, 1000)],
               np.float32, 1, "never"),
    "skinny_m": ("x @ w f32 7x4096 @ 4096x4096", "mm", [(7, 4096), (4096, 4096)], np.float32, 1,
                 "never"),
    "skinny_n": ("x @ w f32 4096x4096 @ 4096x7", "mm", [(4096, 4096), (4096, 7)], np.float32, 1,
                 "never"),
    "small_2t": ("x @ w f32 192x192 @ 192x192, 2 threads", "mm", [(192, 192), (192, 192)],
                 np.float32, 2, "never"),
    "conv14": ("conv2d f32 1x256x14x14, 256x256x3x3, pad 1", "conv",
               [(1, 256, 14, 14), (256, 256, 3, 3)], np.float32, 1, "never"),
    "attn": ("softmax(q k^T) v f32 8x512x64", "attn", [(8, 512, 64)] * 3, np.float32, 1,
             "never"),
    "bmm": ("batch matmul f32 8x128x96 @ 8x96x160", "mm", [(8, 128, 96), (8, 96, 160)],
            np.float32, 1, "never"),
    "mm512": ("x @ w f32 512x512 @ 512x512", "mm", [(512, 512), (512, 512)], np.float32, 1,
              "never"),
    # blas=auto: the BLAS-or-generated choice is tuned too
    "mm1000_auto": ("x @ w f32 1000x1000 @ 1000x1000, blas=auto", "mm",
                    [(1000, 1000), (1000, 1000)], np.float32, 1, "auto"),
    "skinny_m_auto": ("x @ w f32 7x4096 @ 4096x4096, blas=auto", "mm",
                      [(7, 4096), (4096, 4096)], np.float32, 1, "auto"),
    "skinny_n_auto": ("x @ w f32 4096x4096 @ 4096x7, blas=auto", "mm",
                      [(4096, 4096), (4096, 7)], np.float32, 1, "auto"),
    "wide_auto": ("x @ w f32 64x4096 @ 4096x4096, blas=auto", "mm", [(64, 4096), (4096, 4096)],
                  np.float32, 1, "auto"),
    "small_auto": ("x @ w f32 192x192 @ 192x192, blas=auto", "mm", [(192, 192), (192, 192)],
                   np.float32, 1, "auto"),
    "mlp_auto": ("relu(x @ w) f32 256x512 @ 512x384, blas=auto", "relu_mm",
                 [(256, 512), (512, 384)], np.float32, 1, "auto"),
}
QUICK = ("wide_auto", "bmm", "conv14")


def _fn(kind):
    import strata

    if kind == "conv":
        return lambda x, f: strata.conv2d(x, f, padding=1)
    if kind == "relu_mm":
        return lambda x, w: strata.relu(x @ w)
    if kind == "attn":
        return lambda q, k, v: strata.softmax(q @ strata.transpose(k, (0, 2, 1)), axis=-1) @ v
    return lambda x, w: x @ w


def _inputs(name):
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s).astype(ROWS[name][3]) for s in ROWS[name][2]]


def _clock(name):
    return "cpu" if ROWS[name][4] == 1 else "wall"


def child(mode: str, name: str, budget: float) -> None:
    import strata

    fn, args, threads = _fn(ROWS[name][1]), _inputs(name), ROWS[name][4]
    if mode == "tune":
        start = time.perf_counter()
        result = strata.tune(fn, *args, budget=budget, threads=threads, blas=ROWS[name][5],
                             clock=_clock(name))
        print(json.dumps({"entries": result.entries, "rejected": result.rejected,
                          "seconds": time.perf_counter() - start}))
        return
    from strata.autotune.measure import measure

    f = strata.jit(fn, threads=threads, blas=ROWS[name][5])
    t = measure(lambda: f(*args), rounds=7, round_s=0.1, max_spread=1e9, clock=_clock(name))
    print(json.dumps({"seconds": t.seconds}))


def _run(mode, name, env, budget) -> dict:
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", mode, name,
                        "--budget", str(budget)], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{mode} {name} failed:\n{p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def _config_text(entries) -> str:
    return "; ".join(
        f"{e['op']}: " + (" ".join(f"{k}={v}" for k, v in sorted(e["config"].items()))
                          or "default") for e in entries) or "(no op tuned)"


def measure_row(name: str, budget: float = 40.0, repeats: int = 3) -> dict:
    """One row: tune in a fresh process, then default and tuned timed alternately in
    fresh processes, best of ``repeats`` each."""
    root = tempfile.mkdtemp(prefix="strata-tune-bench-")
    env = dict(os.environ, STRATA_CACHE_DIR=root)
    env.pop("STRATA_TUNING_RECORD", None)
    tuned = _run("tune", name, env, budget)
    best = {"default": float("inf"), "tuned": float("inf")}
    for _ in range(repeats):
        for label, extra in (("default", {"STRATA_TUNING": "0"}), ("tuned", {})):
            best[label] = min(best[label], _run("time", name, {**env, **extra}, budget)["seconds"])
    return {"row": ROWS[name][0], "name": name, "threads": ROWS[name][4],
            "clock": _clock(name), "default_s": best["default"], "tuned_s": best["tuned"],
            "ratio": best["tuned"] / best["default"], "config": _config_text(tuned["entries"]),
            "tuning_s": tuned["seconds"], "entries": tuned["entries"],
            "rejected": tuned["rejected"]}


def rows(quick: bool = False, budget: float | None = None, repeats: int | None = None,
         names=None) -> list[dict]:
    """The tuned-vs-default rows as dicts (``row``, ``default_s``, ``tuned_s``, ``ratio``
    = tuned/default, ``config``, ``tuning_s``, ...): for bench/suite.py. ``quick``: three
    rows, a 20 s budget, best of 2."""
    names = names or (QUICK if quick else list(ROWS))
    budget = budget if budget is not None else (20.0 if quick else 40.0)
    repeats = repeats if repeats is not None else (2 if quick else 3)
    return [measure_row(n, budget, repeats) for n in names]


def table(results: list[dict]) -> str:
    lines = ["| row | default | tuned | tuned/default | chosen config | tuning time |",
             "|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['row']} ({r['threads']}t, {r['clock']}) | "
                     f"{r['default_s'] * 1e6:.0f} us | {r['tuned_s'] * 1e6:.0f} us | "
                     f"{r['ratio']:.2f} | {r['config']} | {r['tuning_s']:.0f} s |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--budget", type=float, default=None, help="tuning seconds per row")
    p.add_argument("--repeats", type=int, default=None, help="fresh processes per build")
    p.add_argument("--rows", default=None, help=f"comma-separated, of: {', '.join(ROWS)}")
    p.add_argument("--quick", action="store_true", help=f"rows {', '.join(QUICK)}")
    p.add_argument("--json", help="also write the rows to this file")
    p.add_argument("--child", nargs=2, metavar=("MODE", "ROW"), help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        child(a.child[0], a.child[1], a.budget if a.budget is not None else 40.0)
        return 0
    names = a.rows.split(",") if a.rows else None
    results = []
    print(table([]), flush=True)
    for name in names or (QUICK if a.quick else list(ROWS)):
        r = rows(a.quick, a.budget, a.repeats, [name])[0]
        results.append(r)
        print(table([r]).splitlines()[-1], flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
