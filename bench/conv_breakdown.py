"""Where a ResNet-block conv's time goes in strata, next to PyTorch's conv (single thread).

    python bench/conv_breakdown.py [--n 4 --c 64 --hw 32]

Times, in process CPU time (robust to other load on a shared machine; one thread each:
``threads=1``, ``torch.set_num_threads(1)``, ``OPENBLAS_NUM_THREADS=1``), the best of 5
rounds of: strata's 3x3 conv alone and with the eval batch norm (scale, shift) and relu
fused after it, NCHW and NHWC; the im2col matmul it runs, alone (strata's generated
kernel and numpy's OpenBLAS); torch's conv (NCHW, channels-last). The differences say
what the im2col copy, the epilogue and the layout cost, and how far the matmul kernel is
from the peer's. A breakdown, not a peer comparison: bench/torch_bench.py compares the
whole models, each system in a fresh process.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402


def cpu_ms(fn, args, budget=1.0, repeats=5):
    fn(*args)
    best = float("inf")
    for _ in range(repeats):
        start, n = time.process_time(), 0
        while time.process_time() - start < budget / repeats:
            fn(*args)
            n += 1
        best = min(best, (time.process_time() - start) / n)
    return best * 1e3


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=4)
    p.add_argument("--c", type=int, default=64)
    p.add_argument("--hw", type=int, default=32)
    a = p.parse_args(argv)
    import strata

    rng = np.random.default_rng(0)
    n, c, hw = a.n, a.c, a.hw
    x = rng.standard_normal((n, c, hw, hw)).astype(np.float32)
    w = rng.standard_normal((c, c, 3, 3)).astype(np.float32)
    s = rng.standard_normal((1, c, 1, 1)).astype(np.float32)
    xn, wn = np.ascontiguousarray(x.transpose(0, 2, 3, 1)), np.ascontiguousarray(
        w.transpose(2, 3, 1, 0))
    sn = s.reshape(1, 1, 1, c)
    rows = []

    def jit(fn):
        return strata.jit(fn, threads=1)

    rows.append(("strata conv NCHW", cpu_ms(jit(lambda p, q: strata.conv2d(p, q, padding=1)),
                                            (x, w))))
    rows.append(("strata conv+bn+relu NCHW", cpu_ms(jit(
        lambda p, q, r, t: strata.relu(strata.conv2d(p, q, padding=1) * r + t)), (x, w, s, s))))
    rows.append(("strata conv+bn+relu NHWC", cpu_ms(jit(
        lambda p, q, r, t: strata.relu(strata.conv2d(p, q, padding=1, layout="NHWC") * r + t)),
        (xn, wn, sn, sn))))
    k = 9 * c
    am = rng.standard_normal((n, c, k)).astype(np.float32)
    bm = rng.standard_normal((n, k, hw * hw)).astype(np.float32)
    rows.append((f"strata batch matmul {n}x{c}x{k}x{hw * hw}",
                 cpu_ms(jit(lambda p, q: strata.matmul(p, q)), (am, bm))))
    rows.append(("numpy (OpenBLAS) same matmul", cpu_ms(lambda p, q: p @ q, (am, bm))))
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        torch = None
    if torch is not None:
        torch.set_num_threads(1)
        tx, tw = torch.from_numpy(x), torch.from_numpy(w)
        with torch.no_grad():
            rows.append(("torch conv NCHW", cpu_ms(lambda p, q: F.conv2d(p, q, padding=1),
                                                   (tx, tw))))
            rows.append(("torch conv channels-last", cpu_ms(
                lambda p, q: F.conv2d(p, q, padding=1),
                (tx.contiguous(memory_format=torch.channels_last), tw))))
    flops = 2 * n * c * c * 9 * hw * hw
    print(f"| {n}x{c}x{hw}x{hw}, 3x3, single thread | CPU ms | GFLOP/s |\n| --- | --- | --- |")
    for name, ms in rows:
        print(f"| {name} | {ms:.2f} | {flops / ms / 1e6:.1f} |")


if __name__ == "__main__":
    main()
