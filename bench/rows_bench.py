"""Row kernels and elementwise chains: strata vs torch eager / torch.compile vs a copy.

    python bench/rows_bench.py [--repeat 7] [--work softmax,layer_norm,...]

Each (system, work) pair runs in a fresh process (``--one``), so that no system's
time depends on the allocator state another left behind. A process warms up
(compiles) and reports the best and median of ``--repeat`` timed calls, and the
least process CPU time of a call (all threads: less sensitive to a shared machine's
other load than wall time). GB/s counts the minimum traffic: one read of the input
and one write of the output (the 4096-element g/b/w vectors stay in cache and are
left out; the read-for-ownership of a plain store to a line not in cache, which non-
temporal stores avoid, is not counted either); ``copy`` is ``np.copyto`` into a
preallocated buffer of the same size, the machine's bandwidth as this script sees
it. torch returns a new array per call, whose fresh pages the kernel first-touches
(page faults); strata's results come from its output pool (runtime/output_pool.py:
no fresh pages on warm calls; bench/pool_bench.py compares it with the pool off and
with ``out=``).
``--rounds N`` runs every (system, work) process N times, interleaved, and keeps the
best; ``strata-plain`` is strata with the non-temporal output path off
(strata-nontemporal-stores skipped, softmax writing and re-reading its
exponentials), for an A/B of it. (bench/suite.py's copy limit runs one copy
process per core at once; this script's ``copy`` is one process.)
``--warm-pages`` keeps freed buffers mapped in every process (glibc's mmap
threshold raised), which shows the kernels without that cost.
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

ROWS = (4096, 4096)
CHAIN = (4096, 4096)  # 16M f32
WORKS = ["softmax", "log_softmax", "layer_norm", "rms_norm", "chain"]
# also: "axpb" (x * 1.5 + 0.25 on 16M f32: the plainest memory-bound elementwise op)
SYSTEMS = ["copy", "strata", "strata1", "torch", "torch.compile"]
# also: "strata-plain" (2 threads, as before non-temporal stores: strata-nontemporal-stores
# skipped, and softmax's exponentials written and read back, RowKernelsPass stream-bytes=0)


def _inputs(work):
    rng = np.random.default_rng(0)
    shape = CHAIN if work in ("chain", "axpb") else ROWS
    x = rng.standard_normal(shape, dtype=np.float32)
    if work == "chain":
        return [x, rng.standard_normal(shape[-1:], dtype=np.float32),
                rng.standard_normal(shape[-1:], dtype=np.float32)]
    if work in ("layer_norm", "rms_norm"):
        return [x, rng.standard_normal(shape[-1:], dtype=np.float32),
                rng.standard_normal(shape[-1:], dtype=np.float32)]
    return [x]


def _strata_fn(work, threads):
    import strata

    def softmax(x):
        return strata.softmax(x, axis=-1)

    def log_softmax(x):
        return strata.log(strata.softmax(x, axis=-1))

    def layer_norm(x, g, b):
        return strata.layer_norm(x, g, b)

    def rms_norm(x, g, b):
        return x * strata.rsqrt(strata.mean(x * x, axis=-1, keepdims=True) + 1e-6) * g

    def chain(x, w, b):
        return strata.tanh(strata.relu(x * w + b) * 0.5 + 0.1) * 2.0

    def axpb(x):
        return x * 1.5 + 0.25

    fn = {"softmax": softmax, "log_softmax": log_softmax, "layer_norm": layer_norm,
          "rms_norm": rms_norm, "chain": chain, "axpb": axpb}[work]
    return strata.jit(fn, threads=threads)


def _torch_fn(work, compiled):
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(os.cpu_count() or 1)

    def softmax(x):
        return torch.softmax(x, -1)

    def log_softmax(x):
        return torch.log_softmax(x, -1)

    def layer_norm(x, g, b):
        return F.layer_norm(x, x.shape[-1:], g, b)

    def rms_norm(x, g, b):
        return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * g

    def chain(x, w, b):
        return torch.tanh(torch.relu(x * w + b) * 0.5 + 0.1) * 2.0

    def axpb(x):
        return x * 1.5 + 0.25

    fn = {"softmax": softmax, "log_softmax": log_softmax, "layer_norm": layer_norm,
          "rms_norm": rms_norm, "chain": chain, "axpb": axpb}[work]
    if compiled:
        fn = torch.compile(fn)
    return lambda *a: fn(*[torch.from_numpy(t) for t in a])


def _time(fn, args, repeat):
    start = time.perf_counter()
    fn(*args)  # warm up (compiles)
    first = time.perf_counter() - start
    times, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn(*args)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return first, min(times), float(np.median(times)), min(cpu)


def run_one(system, work, repeat):
    args = _inputs(work)
    if system == "copy":
        out = np.empty_like(args[0])

        def fn(*a):
            np.copyto(out, a[0])
    elif system.startswith("strata"):
        if system == "strata-plain":
            # its own disk cache: the key (same code, same options) would find the other variant
            os.environ["STRATA_CACHE_DIR"] = os.path.join(
                os.environ.get("STRATA_CACHE_DIR") or os.path.expanduser("~/.cache/strata"),
                "plain-stores")
            from strata.passes.nontemporal_stores import NontemporalStoresPass
            from strata.pipelines import levels
            NontemporalStoresPass.run = lambda self, module: None
            real = levels.RowKernelsPass  # and softmax writes its exponentials, reads them back
            levels.RowKernelsPass = lambda **kw: real(stream_bytes=0, **kw)
        jitted = _strata_fn(work, 1 if system == "strata1" else None)

        def fn(*a):
            return jitted(*a)
    else:
        fn = _torch_fn(work, system == "torch.compile")
    first, best, median, cpu = _time(fn, args, repeat)
    nbytes = 2 * args[0].nbytes
    return {"system": system, "work": work, "first_s": first, "best_ms": best * 1e3,
            "median_ms": median * 1e3, "cpu_ms": cpu * 1e3, "GBps": nbytes / best / 1e9}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--work", default=",".join(WORKS))
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--rounds", type=int, default=1,
                    help="fresh processes per (system, work), interleaved; the best is kept")
    ap.add_argument("--one", nargs=2, metavar=("SYSTEM", "WORK"))
    ap.add_argument("--warm-pages", action="store_true",
                    help="raise glibc's mmap threshold in every child, so freed output "
                         "buffers stay mapped (models an output pool: no fresh pages)")
    a = ap.parse_args()
    if a.one:
        print(json.dumps(run_one(a.one[0], a.one[1], a.repeat)))
        return
    results = {}
    for work, system in [(w, s) for _ in range(a.rounds) for w in a.work.split(",")
                         for s in a.systems.split(",")]:
        if True:
            env = dict(os.environ)
            if a.warm_pages:
                env.update(MALLOC_MMAP_THRESHOLD_="4000000000", MALLOC_TRIM_THRESHOLD_="4000000000")
            p = subprocess.run([sys.executable, __file__, "--one", system, work,
                                "--repeat", str(a.repeat)], capture_output=True, text=True,
                               env=env)
            if p.returncode:
                print(f"{system} {work}: failed\n{p.stderr[-800:]}", file=sys.stderr)
                continue
            r = json.loads(p.stdout.strip().splitlines()[-1])
            old = results.get((system, work))
            if old is None or r["best_ms"] < old["best_ms"]:
                results[(system, work)] = r
    print("| work | system | best | median | CPU time | GB/s | vs copy | speed vs torch.compile |")
    print("|---|---|---|---|---|---|---|---|")
    for work in a.work.split(","):
        copy = results.get(("copy", work))
        peer = results.get(("torch.compile", work))
        for system in a.systems.split(","):
            r = results.get((system, work))
            if r is None:
                continue
            frac = r["GBps"] / copy["GBps"] if copy else math.nan
            ratio = peer["best_ms"] / r["best_ms"] if peer else math.nan
            print(f"| {work} | {system} | {r['best_ms']:.2f} ms | {r['median_ms']:.2f} ms | "
                  f"{r['cpu_ms']:.2f} ms | "
                  f"{r['GBps']:.1f} | {frac:.0%} | {ratio:.2f}x |")


if __name__ == "__main__":
    main()
