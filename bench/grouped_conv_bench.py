"""Grouped and depthwise conv2d: strata.jit against torch eager (oneDNN), as ratios.

    python bench/grouped_conv_bench.py [--threads 1 2] [--repeats 3] [--rows dw-32 ...]
                                       [--layouts NCHW NHWC]

Rows: MobileNet's depthwise 3x3 layers (groups = channels) and a ResNeXt-50 grouped
3x3 layer (32 groups of 4 channels), batch 1, + relu. Each (row, layout, system,
threads) runs in its own fresh process, rows and systems interleaved, the round
repeated ``--repeats`` times; a process reports its best warm call over a fixed
budget and the table gives the best over the rounds (torch time / strata time:
above 1 means strata is faster). torch is optional.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from common import best_in_fresh_processes  # noqa: E402  (bench/ is this script's folder)
from conv_bench import best_warm  # noqa: E402

# name: (C, H, F, k, stride, pad, groups)
ROWS = {
    "dw-32": (32, 112, 32, 3, 1, 1, 32),          # MobileNet v1 conv_dw_1
    "dw-s2-64": (64, 112, 64, 3, 2, 1, 64),       # MobileNet v1 conv_dw_2 (stride 2)
    "dw-512": (512, 14, 512, 3, 1, 1, 512),       # MobileNet v1 conv_dw_7..11
    "g32-128": (128, 56, 128, 3, 1, 1, 32),       # ResNeXt-50 32x4d layer1
}


def _inputs(row, layout):
    import numpy as np

    c, h, f, k, s, p, g = ROWS[row]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, c, h, h)).astype(np.float32)
    w = (rng.standard_normal((f, c // g, k, k)) / (c // g * k * k) ** 0.5).astype(np.float32)
    if layout == "NHWC":
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
        w = np.ascontiguousarray(w.transpose(2, 3, 1, 0))
    return x, w, s, p, g


def worker(system, row, layout, threads):
    x, w, s, p, g = _inputs(row, layout)
    if system == "torch":
        import torch

        torch.set_num_threads(threads)
        if layout == "NHWC":
            fmt = torch.channels_last
            xt = torch.from_numpy(x).permute(0, 3, 1, 2).contiguous(memory_format=fmt)
            wt = torch.from_numpy(w).permute(3, 2, 0, 1).contiguous(memory_format=fmt)
        else:
            xt, wt = torch.from_numpy(x), torch.from_numpy(w)
        with torch.no_grad():
            t = best_warm(lambda: torch.relu(torch.nn.functional.conv2d(
                xt, wt, stride=s, padding=p, groups=g)))
        return {"ms": t * 1e3}
    import strata

    def f(x, w):
        return strata.relu(strata.conv2d(x, w, stride=s, padding=p, layout=layout, groups=g))

    fn = strata.jit(f, threads=threads)
    start = time.perf_counter()
    fn(x, w)
    cold = time.perf_counter() - start
    t = best_warm(lambda: fn(x, w))
    how = [r for r in fn.stats.fusion_report if "conv" in r]
    return {"ms": t * 1e3, "cold_s": cold, "how": how}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", nargs="+", default=list(ROWS))
    ap.add_argument("--threads", nargs="+", type=int, default=[2])
    ap.add_argument("--layouts", nargs="+", default=["NCHW", "NHWC"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        system, row, layout, threads = a.worker
        print(json.dumps(worker(system, row, layout, int(threads))))
        return
    systems = ["strata"] + ([] if a.no_torch else ["torch"])
    cases = [(system, row, layout, threads)
             for row in a.rows for layout in a.layouts for threads in a.threads
             for system in systems]
    runs = best_in_fresh_processes(__file__, cases, a.repeats, dict(os.environ, STRATA_CACHE="0"))
    best = {(c[1], c[2], c[3], c[0]): r for c, r in runs.items()}
    print(f"{'row':10} {'layout':6} {'thr':>3} " + " ".join(f"{s:>12}" for s in systems) +
          ("   torch/strata" if not a.no_torch else "") + "   strata cold")
    for row in a.rows:
        for layout in a.layouts:
            for threads in a.threads:
                rs = [best.get((row, layout, threads, s), {}) for s in systems]
                ms = [r.get("ms") for r in rs]
                line = f"{row:10} {layout:6} {threads:>3} " + " ".join(
                    f"{m:>9.3f} ms" if m else f"{'-':>12}" for m in ms)
                if not a.no_torch and ms[-1] and ms[0]:
                    line += f"   {ms[-1] / ms[0]:13.2f}"
                if rs[0].get("cold_s") is not None:
                    line += f"   {rs[0]['cold_s']:.2f} s"
                print(line)
                if a.verbose:
                    for h in rs[0].get("how", []):
                        print("      ", h)


if __name__ == "__main__":
    main()
