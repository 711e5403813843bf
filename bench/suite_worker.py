"""One measurement of ``bench/suite.py``, in its own fresh process.

    python bench/suite_worker.py ROW SYSTEM THREADS OUT_DIR [--budget SECONDS]

Prints one JSON line: ``first_s`` (the first call: strata's trace + compile with an
empty cache, torch.compile's compile), ``warm_s`` (best-of-5 mean seconds per warm
call), ``faults`` (minor page faults per warm call, from ``getrusage``) and
``out`` (where the result was saved as .npy, for the driver's cross-check).
The driver sets the thread count of the system's own runtime through the
environment (``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS``) before this process
starts; strata's is ``strata.jit(threads=...)``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from suite_rows import by_name  # noqa: E402


def _faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def measure(fn, args, budget: float):
    """(first call seconds, best-of-5 mean warm seconds, faults per warm call, result)."""
    start = time.perf_counter()
    result = fn(*args)
    first = time.perf_counter() - start
    fn(*args)
    best, calls, faults = float("inf"), 0, 0
    for _ in range(5):
        n, f0, start = 0, _faults(), time.perf_counter()
        while True:
            fn(*args)
            n += 1
            elapsed = time.perf_counter() - start
            if elapsed >= budget / 5:
                break
        faults += _faults() - f0
        calls += n
        best = min(best, elapsed / n)
    return first, best, faults / calls, result


def _system_fn(row, system, threads):
    args = row.inputs()
    if system.startswith("strata"):
        import strata

        options = {} if system == "strata" else dict(row.variants[system])
        return strata.jit(row.strata, threads=threads, **options), args
    if system == "numpy":
        return row.numpy, args
    import torch

    torch.set_num_threads(threads)
    targs = row.torch_args(*args) if row.torch_args else [torch.from_numpy(a) for a in args]
    fn = row.torch
    if system == "torch.compile":
        fn = torch.compile(fn)

    def call(*a):
        with torch.no_grad():
            return fn(*a)
    return call, targs


def _as_numpy(result):
    if hasattr(result, "detach"):
        result = result.detach()
        result = result.contiguous()
        return result.numpy()
    return np.asarray(result)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("row")
    p.add_argument("system")
    p.add_argument("threads", type=int)
    p.add_argument("out_dir")
    p.add_argument("--budget", type=float, default=1.0)
    a = p.parse_args(argv)
    row = by_name(a.row)
    fn, args = _system_fn(row, a.system, a.threads)
    first, warm, faults, result = measure(fn, args, a.budget)
    if a.system.startswith("torch") and row.torch_out is not None:
        result = row.torch_out(result)
    out = _as_numpy(result)
    slug = re.sub(r"[^A-Za-z0-9]+", "_", f"{a.row}_{a.system}_{a.threads}")
    path = os.path.join(a.out_dir, f"{slug}.npy")
    np.save(path, out)
    print(json.dumps({"first_s": first, "warm_s": warm, "faults": faults, "out": path}))


if __name__ == "__main__":
    main()
