"""Runtime benchmark: cold compile, warm steady state and new-shape cost vs numpy (and torch).

Every row is measured in one run on the same machine: strata's warm per-call
time next to numpy's (and PyTorch's, when it is installed) as ratios, with
compile time kept apart. "warm" uses the default thread count, "warm, 1
thread" the same program compiled with threads=1. "new shape" is the cost of
the first call with a shape the program has not seen (a re-specialization and
compile).

    python bench/ops_bench.py
"""

from __future__ import annotations

import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import machine, per_call, rng, torch_or_none  # noqa: E402

import strata  # noqa: E402
from strata import demo  # noqa: E402


def cases():
    g = rng(1)

    def r(*s):
        return g.standard_normal(s).astype(np.float32)

    def softmax_np(x):
        e = np.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    return [
        ("matmul 256x512x512", lambda a, b: a @ b, lambda a, b: a @ b,
         [r(256, 512), r(512, 512)], lambda a, b: a @ b, [r(128, 512), r(512, 512)]),
        ("softmax 512x1024", lambda x: strata.softmax(x), softmax_np, [r(512, 1024)],
         lambda x: x.softmax(-1), [r(256, 1024)]),
        ("gelu(tanh) 512x1024", lambda x: strata.gelu(x, approximate="tanh"),
         lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
         [r(512, 1024)], None, [r(256, 1024)]),
        ("MLP (demo)", demo.mlp, demo.np_mlp, demo._inputs(rng(2), "mlp"), None, None),
        ("encoder block (demo)", demo.encoder_block, demo.np_encoder_block,
         demo._inputs(rng(3), "encoder"), None, None),
    ]


def main():
    torch = torch_or_none()
    print(f"machine: {machine()}; torch: {torch.__version__ if torch else 'not installed'}\n")
    print("| program | cold compile | warm | warm, 1 thread | numpy | warm/numpy | torch | "
          "warm/torch | new shape |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, fn, np_fn, args, torch_fn, other in cases():
        jitted = strata.jit(fn)
        start = time.perf_counter()
        jitted(*args)
        cold = time.perf_counter() - start
        warm = per_call(jitted, args)
        single = strata.jit(fn, threads=1)
        single(*args)
        warm_1 = per_call(single, args)
        t_np = per_call(np_fn, args)
        t_torch = float("nan")
        if torch is not None and torch_fn is not None:
            targs = [torch.from_numpy(a) for a in args]
            with torch.no_grad():
                t_torch = per_call(torch_fn, targs)
        new_shape = float("nan")
        if other is not None:
            start = time.perf_counter()
            jitted(*other)
            new_shape = time.perf_counter() - start
        print(f"| {name} | {cold * 1e3:.0f} ms | {warm * 1e6:.0f} us | {warm_1 * 1e6:.0f} us | "
              f"{t_np * 1e6:.0f} us | "
              f"{warm / t_np:.2f} | {t_torch * 1e6:.0f} us | {warm / t_torch:.2f} | "
              f"{new_shape * 1e3:.0f} ms |")


if __name__ == "__main__":
    main()
