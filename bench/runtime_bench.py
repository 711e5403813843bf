"""What a service feels of strata's runtime: warm dispatch, restart, cold compile, new shapes.

    python bench/runtime_bench.py [--json] [--repeat 3] [--no-torch]

Rows (issue 13's table), each system timed in a fresh process:

- warm call of a tiny jitted function (adds of 1, 4, 16 four-element f32 arrays;
  one array: ``a0 + 1``), best of several rounds, beside numpy doing the same adds
  and torch.compile (when torch is installed);
- restart: a new process with the demo MLP's entry in the disk cache: import time,
  then the first call (and whether it imported MLIR: it should not);
- cold compile of the demo MLP with an empty cache (the first call), and where its time
  goes: another fresh process imports MLIR's bindings and strata's passes first (each
  timed), then times its first call and, inside it, the MLIR passes (``lower``) and the
  native code (``aot.build_shared_library``: opt, llc, link);
- new shape: the demo MLP called with a new batch size, compiled again for it
  (static) vs served by one variant with the batch dim dynamic; per-call times of both;
- dynamic vs static at the same shape (batch 7, 97, 1000; the dynamic variant runs
  static blocks of rows, strata-row-blocks), interleaved best of 5;
- pow2 shape buckets: batch 97 padded to 128 (per call, pad + slice cost, a new
  bucket's compile, a size in a known bucket) vs the static variant at 97.

``main(argv)`` prints a markdown table (or, with ``--json``, the measurements).
Times are medians over ``--repeat`` fresh processes. Timings on a loaded machine are
noisy: compare ratios measured side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

WORKER = r"""
import json, os, sys, time
kind, arg = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
import numpy as np
out = {}

def best(fn, args, reps=5000, rounds=7):
    fn(*args)
    b = 1e9
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(reps):
            fn(*args)
        b = min(b, (time.perf_counter() - t) / reps)
    return b

def adder(n):
    names = [f"a{i}" for i in range(n)]
    body = " + ".join(names) if n > 1 else "a0 + 1.0"
    ns = {}
    exec(f"def add({', '.join(names)}):\n    return {body}\n", ns)
    return ns["add"]

if kind in ("warm-strata", "warm-numpy", "warm-torch"):
    n = int(arg)
    args = [np.full(4, i + 1, np.float32) for i in range(n)]
    if kind == "warm-strata":
        import strata
        f = strata.jit(adder(n))
    elif kind == "warm-numpy":
        f = adder(n)
    else:
        import torch
        f = torch.compile(adder(n))
        args = [torch.from_numpy(a) for a in args]
    out["seconds"] = best(f, args)
elif kind in ("cold", "restart"):
    import strata
    from strata import demo
    out["import"] = time.perf_counter() - t0
    args = demo._inputs(np.random.default_rng(0), "mlp")
    f = strata.jit(demo.mlp)
    t = time.perf_counter()
    f(*args)
    out["first"] = time.perf_counter() - t
    out["hits"] = f.stats.cache_hits
    out["mlir"] = "mlir" in sys.modules
elif kind == "cold-parts":
    # where a cold compile's time goes: the same first call, its imports taken apart
    import strata
    from strata import demo
    t = time.perf_counter()
    import mlir.ir
    out["import_mlir"] = time.perf_counter() - t
    t = time.perf_counter()
    import strata.frontend.module, strata.pipelines.levels
    out["import_passes"] = time.perf_counter() - t
    from strata.runtime import aot, program
    spent = {"mlir_passes": 0.0, "native": 0.0}
    def timed(name, fn):  # wall time inside the two steps (timing=True would slow the passes)
        def step(*a, **k):
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                spent[name] += time.perf_counter() - t
        return step
    program.lower = timed("mlir_passes", program.lower)
    aot.build_shared_library = timed("native", aot.build_shared_library)
    args = demo._inputs(np.random.default_rng(0), "mlp")
    f = strata.jit(demo.mlp)
    t = time.perf_counter()
    f(*args)
    out["call"] = time.perf_counter() - t
    out.update(spent)
elif kind == "new-shape":
    import strata
    from strata import demo
    rng = np.random.default_rng(0)
    base = demo._inputs(rng, "mlp")
    def batch(b):
        return [np.ascontiguousarray(np.resize(base[0], (b, base[0].shape[1])))] + base[1:]
    static = strata.jit(demo.mlp)
    dynamic = strata.jit(demo.mlp, dynamic={"x": [0]})
    for name, f in (("static", static), ("dynamic", dynamic)):
        f(*batch(64))
        t = time.perf_counter()
        f(*batch(97))                       # a batch size not seen before
        out[name + "_new_shape"] = time.perf_counter() - t
        out[name + "_call"] = best(f, batch(97), reps=200, rounds=5)
elif kind == "dynamic-vs-static":
    import strata
    from strata import demo
    base = demo._inputs(np.random.default_rng(0), "mlp")
    def batch(b):
        return [np.ascontiguousarray(np.resize(base[0], (b, base[0].shape[1])))] + base[1:]
    dynamic = strata.jit(demo.mlp, dynamic={"x": [0]})
    for b in (7, 97, 1000):
        static = strata.jit(demo.mlp)
        args = batch(b)
        static(*args), dynamic(*args)
        reps = max(5, int(2e7 / (b * 256 * 512 * 2)))
        s = d = 1e9
        for _ in range(5):  # interleaved, best of 5
            s = min(s, best(static, args, reps=reps, rounds=1))
            d = min(d, best(dynamic, args, reps=reps, rounds=1))
        out[str(b)] = {"static": s, "dynamic": d}
elif kind == "buckets":
    import strata
    from strata import demo
    base = demo._inputs(np.random.default_rng(0), "mlp")
    def batch(b):
        return [np.ascontiguousarray(np.resize(base[0], (b, base[0].shape[1])))] + base[1:]
    f = strata.jit(demo.mlp, buckets={"x": {0: "pow2"}})
    static = strata.jit(demo.mlp)
    f(*batch(64))
    t = time.perf_counter()
    f(*batch(97))                           # a new bucket (128): one static compile
    out["new_bucket"] = time.perf_counter() - t
    t = time.perf_counter()
    f(*batch(100))                          # the same bucket: no compile
    out["same_bucket_first"] = time.perf_counter() - t
    static(*batch(97))
    s = d = 1e9
    for _ in range(5):
        s = min(s, best(static, batch(97), reps=200, rounds=1))
        d = min(d, best(f, batch(97), reps=200, rounds=1))
    out["static_97"], out["bucket_97"] = s, d
    c = f.bucket_costs()
    out["pad_slice_per_call"] = c["pad_slice_seconds"] / max(1, c["padded_calls"])
print(json.dumps(out))
"""


def _worker(kind: str, arg: str = "", cache: str | None = None) -> dict:
    env = {**os.environ, "STRATA_CACHE_DIR": cache or tempfile.mkdtemp(prefix="strata-rb-")}
    env.pop("STRATA_CACHE", None)
    p = subprocess.run([sys.executable, "-c", WORKER, kind, arg], capture_output=True,
                       text=True, env=env, timeout=900)
    if p.returncode != 0:
        raise RuntimeError(f"{kind} {arg} failed:\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def _median(runs, key):
    return statistics.median(r[key] for r in runs)


def measure(repeat: int = 3, torch: bool = True) -> dict:
    if torch:
        try:
            import torch as _  # noqa: F401
        except ImportError:
            torch = False
    out = {"warm": {}}
    for n in (1, 4, 16):
        row = {}
        systems = ["strata", "numpy"] + (["torch"] if torch else [])
        for system in systems:
            row[system] = statistics.median(
                _worker(f"warm-{system}", str(n))["seconds"] for _ in range(repeat))
        out["warm"][n] = row
    cold, restart = [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="strata-rb-") as cache:
            cold.append(_worker("cold", cache=cache))
            restart.append(_worker("restart", cache=cache))
    assert all(r["hits"] == 1 for r in restart), restart
    out["cold_compile_s"] = _median(cold, "first")
    parts = [_worker("cold-parts") for _ in range(repeat)]
    out["cold_parts"] = {k: _median(parts, k) for k in parts[0]}
    out["restart_import_s"] = _median(restart, "import")
    out["restart_first_call_s"] = _median(restart, "first")
    out["restart_imports_mlir"] = any(r["mlir"] for r in restart)
    shape = [_worker("new-shape") for _ in range(repeat)]
    out["new_shape"] = {k: _median(shape, k) for k in shape[0]}
    same = [_worker("dynamic-vs-static") for _ in range(repeat)]
    out["dynamic_vs_static"] = {b: {k: statistics.median(r[b][k] for r in same)
                                    for k in same[0][b]} for b in same[0]}
    buckets = [_worker("buckets") for _ in range(repeat)]
    out["buckets"] = {k: _median(buckets, k) for k in buckets[0]}
    return out


def table(r: dict) -> str:
    def us(s):
        return f"{s * 1e6:.2f} µs"

    lines = ["| cost | strata | peer | ratio |", "| --- | --- | --- | --- |"]
    for n, row in r["warm"].items():
        peers = [f"numpy {us(row['numpy'])}"] + (
            [f"torch.compile {us(row['torch'])}"] if "torch" in row else [])
        ratio = f"{row['strata'] / row['numpy']:.1f}x numpy" + (
            f", {row['strata'] / row['torch']:.2f}x torch.compile" if "torch" in row else "")
        lines.append(f"| warm call, {n} arg{'s' if n > 1 else ''} (4 x f32) | "
                     f"{us(row['strata'])} | {'; '.join(peers)} | {ratio} |")
    mlir = "imported" if r["restart_imports_mlir"] else "not imported"
    lines.append(f"| restart: first call, entry on disk (demo MLP) | "
                 f"{r['restart_first_call_s'] * 1e3:.1f} ms "
                 f"(+ {r['restart_import_s'] * 1e3:.0f} ms import; MLIR {mlir}) | — | — |")
    lines.append(f"| cold compile (demo MLP, empty cache) | {r['cold_compile_s']:.2f} s | — | — |")
    if "cold_parts" in r:
        c = r["cold_parts"]
        rest = c["call"] - c["mlir_passes"] - c["native"]
        lines.append(f"| where it goes (imports timed apart, then the first call) | import of "
                     f"MLIR's bindings {c['import_mlir'] * 1e3:.0f} ms + of strata's passes "
                     f"and MLIR's dialect modules {c['import_passes'] * 1e3:.0f} ms; MLIR "
                     f"passes {c['mlir_passes'] * 1e3:.0f} ms; LLVM opt, llc "
                     f"and link {c['native'] * 1e3:.0f} ms; trace, key, contexts, starting "
                     f"the tools {rest * 1e3:.0f} ms | — | — |")
    s = r["new_shape"]
    lines.append(f"| new input shape (demo MLP, batch 64 -> 97) | dynamic: "
                 f"{s['dynamic_new_shape'] * 1e3:.1f} ms, then {s['dynamic_call'] * 1e3:.2f} ms "
                 f"per call | recompiled static: {s['static_new_shape'] * 1e3:.0f} ms, then "
                 f"{s['static_call'] * 1e3:.2f} ms per call | dynamic call "
                 f"{s['dynamic_call'] / s['static_call']:.1f}x static |")
    for b, row in r.get("dynamic_vs_static", {}).items():
        lines.append(f"| dynamic batch vs static, same shape (demo MLP, batch {b}) | dynamic: "
                     f"{row['dynamic'] * 1e3:.3f} ms per call | static: "
                     f"{row['static'] * 1e3:.3f} ms | {row['dynamic'] / row['static']:.2f}x |")
    if "buckets" in r:
        k = r["buckets"]
        lines.append(f"| pow2 buckets (demo MLP, batch 97 in bucket 128) | "
                     f"{k['bucket_97'] * 1e3:.3f} ms per call (pad + slice "
                     f"{k['pad_slice_per_call'] * 1e6:.1f} µs); new bucket "
                     f"{k['new_bucket'] * 1e3:.0f} ms, same bucket first call "
                     f"{k['same_bucket_first'] * 1e3:.2f} ms | static at 97: "
                     f"{k['static_97'] * 1e3:.3f} ms | {k['bucket_97'] / k['static_97']:.2f}x |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the measurements as JSON")
    ap.add_argument("--repeat", type=int, default=3, help="fresh processes per measurement")
    ap.add_argument("--no-torch", action="store_true", help="skip torch.compile")
    args = ap.parse_args(argv)
    r = measure(args.repeat, torch=not args.no_torch)
    print(json.dumps(r, indent=1) if args.json else table(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
