"""Warm per-call latency of the PyTorch front end, robust to a loaded machine: the fastest
of many single calls (and the median), torch.compile(backend="strata") vs inductor vs eager,
each (model, system) in a fresh process, at bench/torch_bench.py's sizes.

    python bench/torch_warm_min.py                       # every model, markdown table
    python bench/torch_warm_min.py --models mlp --systems strata,inductor --calls 300

bench/torch_bench.py times best-of-5 means (the lead's table); on a shared machine the
means swing with other processes' load, the fastest call much less.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch_bench  # noqa: E402


def worker(name: str, system: str, calls: int) -> dict:
    import torch

    model, inputs = torch_bench.build(name)
    with torch.no_grad():
        fn = model if system == "eager" else torch.compile(model, backend=system)
        for _ in range(5):
            fn(*inputs)
        times = []
        for _ in range(calls):
            start = time.perf_counter()
            fn(*inputs)
            times.append(time.perf_counter() - start)
    times.sort()
    return {"min": times[0], "median": times[len(times) // 2]}


def _run(name, system, calls):
    with tempfile.TemporaryDirectory(prefix="torch-warm-") as tmp:
        env = dict(os.environ, STRATA_CACHE_DIR=os.path.join(tmp, "strata"),
                   TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "inductor"))
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", name, system,
                            "--calls", str(calls)], env=env, capture_output=True, text=True,
                           timeout=1800)
    if p.returncode != 0:
        return {"error": ((p.stderr or p.stdout).strip().splitlines() or ["?"])[-1][:100]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def main(argv=None) -> str:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default=".")
    p.add_argument("--systems", default="eager,inductor,strata")
    p.add_argument("--calls", type=int, default=200)
    p.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(*args.worker, args.calls)))
        return ""
    systems = args.systems.split(",")
    lines = ["| model | " + " | ".join(f"{s} min (median)" for s in systems) +
             " | strata / inductor (min) |", "|" + " --- |" * (len(systems) + 2)]
    for name in torch_bench.SIZES:
        if not re.search(args.models, name):
            continue
        r = {s: _run(name, s, args.calls) for s in systems}
        cells = [v["error"] if "error" in v else
                 f"{v['min'] * 1e3:.3g} ms ({v['median'] * 1e3:.3g} ms)" for v in r.values()]
        ratio = (f"{r['strata']['min'] / r['inductor']['min']:.2f}"
                 if "min" in r.get("strata", {}) and "min" in r.get("inductor", {}) else "-")
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {ratio} |")
        print(lines[-1], file=sys.stderr, flush=True)
    text = "\n".join(lines)
    print(text)
    return text


if __name__ == "__main__":
    main()
