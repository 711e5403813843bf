"""conv2d: strata.jit (im2col + matmul, strata-conv-to-matmul) against torch eager, as ratios.

    python bench/conv_bench.py [--threads 1 2] [--repeats 5] [--rows 3x3-64 1x1-64 ...]
                               [--blas auto never] [--layouts NCHW NHWC]

Each (row, system, threads) runs in its own fresh process (so no system's
allocator state depends on another's), the rows and systems interleaved, the
whole round repeated ``--repeats`` times; each process reports its best warm
call over a fixed time budget, and the table gives the best over the rounds.
torch (``torch.nn.functional.conv2d``, oneDNN) is optional: without it only
strata's times are printed. Rows are ResNet-18/50 layer shapes, batch 1, with
bias + relu as the epilogue (as a ResNet layer would run them unfused in eager).
"""

from __future__ import annotations

import argparse
import json
import os
import time

from common import best_in_fresh_processes  # noqa: E402  (bench/ is this script's folder)

# name: (C, H, F, k, stride, pad)
ROWS = {
    "3x3-64": (64, 56, 64, 3, 1, 1),       # the row (ResNet-18 layer1)
    "1x1-64": (64, 56, 64, 1, 1, 0),       # the 1x1 row
    "3x3-128": (128, 28, 128, 3, 1, 1),
    "3x3-256": (256, 14, 256, 3, 1, 1),
    "3x3-512": (512, 7, 512, 3, 1, 1),
    "3x3-s2-64": (64, 56, 128, 3, 2, 1),   # downsampling
    "3x3-s2-256": (256, 14, 512, 3, 2, 1),
    "1x1-s2-64": (64, 56, 128, 1, 2, 0),   # projection shortcut
    "1x1-256-64": (256, 56, 64, 1, 1, 0),  # ResNet-50 bottleneck
    "1x1-64-256": (64, 56, 256, 1, 1, 0),
    "1x1-1024-256": (1024, 14, 256, 1, 1, 0),
}


def _inputs(row, layout):
    import numpy as np

    c, h, f, k, s, p = ROWS[row]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, c, h, h)).astype(np.float32)
    w = (rng.standard_normal((f, c, k, k)) / (c * k * k) ** 0.5).astype(np.float32)
    b = rng.standard_normal(f).astype(np.float32)
    if layout == "NHWC":
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
        w = np.ascontiguousarray(w.transpose(2, 3, 1, 0))
    return x, w, b, s, p


def best_warm(fn, budget=0.6):
    """The fastest of the calls of ``fn`` over ``budget`` seconds, after two warm-ups."""
    fn()
    fn()
    best, start = float("inf"), time.perf_counter()
    while time.perf_counter() - start < budget:
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def worker(system, row, layout, threads, blas):
    x, w, b, s, p = _inputs(row, layout)
    if system == "torch":
        import torch

        torch.set_num_threads(threads)
        fmt = torch.channels_last if layout == "NHWC" else torch.contiguous_format
        if layout == "NHWC":
            xt = torch.from_numpy(x).permute(0, 3, 1, 2).contiguous(memory_format=fmt)
            wt = torch.from_numpy(w).permute(3, 2, 0, 1).contiguous(memory_format=fmt)
        else:
            xt, wt = torch.from_numpy(x), torch.from_numpy(w)
        bt = torch.from_numpy(b)
        with torch.no_grad():
            t = best_warm(lambda: torch.relu(torch.nn.functional.conv2d(xt, wt, bt, stride=s,
                                                                    padding=p)))
        return {"ms": t * 1e3}
    import strata

    bshape = (1, 1, 1, -1) if layout == "NHWC" else (1, -1, 1, 1)

    def f(x, w, b):
        return strata.relu(strata.conv2d(x, w, stride=s, padding=p, layout=layout) +
                           b.reshape(*[w.shape[-1] if d == -1 and layout == "NHWC" else
                                       (w.shape[0] if d == -1 else d) for d in bshape]))

    g = strata.jit(f, threads=threads, blas=blas)
    start = time.perf_counter()
    g(x, w, b)
    cold = time.perf_counter() - start
    t = best_warm(lambda: g(x, w, b))
    how = [r for r in g.stats.fusion_report if "conv-to-matmul" in r or "sgemm" in r or
           "generated code" in r]
    return {"ms": t * 1e3, "cold_s": cold, "how": how}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", nargs="+", default=list(ROWS))
    ap.add_argument("--threads", nargs="+", type=int, default=[2])
    ap.add_argument("--layouts", nargs="+", default=["NCHW"])
    ap.add_argument("--blas", nargs="+", default=["auto"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        system, row, layout, threads, blas = a.worker
        print(json.dumps(worker(system, row, layout, int(threads), blas)))
        return
    systems = [f"strata-{b}" for b in a.blas] + ([] if a.no_torch else ["torch"])
    cases = [(s.partition("-")[0], row, layout, threads, s.partition("-")[2] or "auto")
             for row in a.rows for layout in a.layouts for threads in a.threads for s in systems]
    runs = best_in_fresh_processes(__file__, cases, a.repeats, dict(os.environ, STRATA_CACHE="0"))
    best = {(c[1], c[2], c[3], f"{c[0]}-{c[4]}" if c[0] != "torch" else "torch"): r
            for c, r in runs.items()}
    print(f"{'row':14} {'layout':6} {'thr':>3} " + " ".join(f"{s:>12}" for s in systems) +
          ("   strata/torch speed" if not a.no_torch else ""))
    for row in a.rows:
        for layout in a.layouts:
            for threads in a.threads:
                ms = [best.get((row, layout, threads, s), {}).get("ms") for s in systems]
                line = f"{row:14} {layout:6} {threads:>3} " + " ".join(
                    f"{m:>9.3f} ms" if m else f"{'-':>12}" for m in ms)
                if not a.no_torch and ms[-1] and all(ms[:-1]):
                    line += "   " + " ".join(f"{ms[-1] / m:.2f}" for m in ms[:-1])
                print(line)
                if a.verbose:
                    for s in systems[:-1] if not a.no_torch else systems:
                        for h in best.get((row, layout, threads, s), {}).get("how", []):
                            print("      ", s, h)


if __name__ == "__main__":
    main()
