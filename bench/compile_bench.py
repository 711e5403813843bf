"""Cold compile, restart and warm call of the demo models, each in a fresh process.

    python bench/compile_bench.py [--repeat 3] [--profile]

For each demo model (the MLP and the encoder block at demo size) a fresh Python
process with an empty cache folder imports strata, makes the first call (trace,
lower, compile: the cold compile) and a few warm calls; then a second fresh
process with the cache the first one filled makes the first call again (the
restart: a disk hit). Times are medians over ``--repeat`` runs. The cold
compile runs with strata's compile profile on (``timing=True``: MLIR's pass timing
and the phases of runtime/program.py) and a second table gives its phases and how much
of the first call's wall time they account for. ``--profile`` prints where the cold
compile's time goes in Python (cProfile, top functions by cumulative time).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import strata
from strata import demo
t_import = time.perf_counter() - t0
name = sys.argv[1]
fn = {"mlp": demo.mlp, "encoder": demo.encoder_block}[name]
args = demo._inputs(np.random.default_rng(0), name)
f = strata.jit(fn, timing=True)
profile = len(sys.argv) > 2
if profile:
    import cProfile, pstats
    prof = cProfile.Profile(); prof.enable()
t1 = time.perf_counter()
f(*args)
t_first = time.perf_counter() - t1
if profile:
    prof.disable()
    pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(25)
t2 = time.perf_counter()
for _ in range(20):
    f(*args)
t_warm = (time.perf_counter() - t2) / 20
phases = f.stats.profiles[0].phases if f.stats.profiles else []
print(json.dumps({"import": t_import, "first": t_first, "warm": t_warm,
                  "hits": f.stats.cache_hits, "phases": phases}))
"""


def _child(name: str, cache: str, profile: bool = False) -> dict:
    env = {**os.environ, "STRATA_CACHE_DIR": cache}
    argv = [sys.executable, "-c", CHILD, name] + (["profile"] if profile else [])
    p = subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
    if profile:
        print(p.stderr)
    return json.loads(p.stdout.strip().splitlines()[-1])


def measure(name: str, repeat: int) -> dict:
    cold, restart = [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as cache:
            first = _child(name, cache)
            again = _child(name, cache)
            assert first["hits"] == 0 and again["hits"] == 1, (first, again)
            cold.append(first)
            restart.append(again)

    def med(runs, key):
        return statistics.median(r[key] for r in runs)

    phases = {}
    for run in cold:
        for phase, seconds in run["phases"]:
            phases.setdefault(phase, []).append(seconds)
    accounted = statistics.median(sum(s for _, s in r["phases"]) / r["first"] for r in cold)
    return {"model": name, "import_s": med(cold, "import"), "cold_compile_s": med(cold, "first"),
            "restart_first_call_s": med(restart, "first"), "warm_call_s": med(cold, "warm"),
            "phases": {k: statistics.median(v) for k, v in phases.items()},
            "accounted": accounted}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args(argv)
    if args.profile:
        with tempfile.TemporaryDirectory() as cache:
            _child("mlp", cache, profile=True)
        return
    print("| model | import | cold compile (first call) | restart (disk hit, first call) "
          "| warm call |")
    print("| --- | --- | --- | --- | --- |")
    results = [measure(name, args.repeat) for name in ("mlp", "encoder")]
    for r in results:
        print(f"| {r['model']} | {r['import_s'] * 1e3:.0f} ms | {r['cold_compile_s'] * 1e3:.0f} ms "
              f"| {r['restart_first_call_s'] * 1e3:.1f} ms | {r['warm_call_s'] * 1e6:.0f} us |")
    print()
    print("Where the cold compile's time goes (strata's compile profile, medians; the last row: "
          "the profile's total over the first call's wall time):")
    print()
    print("| phase | " + " | ".join(r["model"] for r in results) + " |")
    print("| --- | " + " | ".join("---" for _ in results) + " |")
    names = list(dict.fromkeys(p for r in results for p in r["phases"]))
    for phase in names:
        cells = [f"{r['phases'][phase] * 1e3:.1f} ms" if phase in r["phases"] else "—"
                 for r in results]
        print(f"| {phase} | " + " | ".join(cells) + " |")
    print("| accounted | " + " | ".join(f"{r['accounted']:.0%}" for r in results) + " |")


if __name__ == "__main__":
    main()
