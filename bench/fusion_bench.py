"""Fusion benchmark: the same programs compiled with strata-fuse off vs on, in one run.

For each program: loop nests (kernels) at the fused level, bytes of intermediate
buffers allocated, warm per-call time, and numpy's per-call time, as ratios.
Prints a Markdown table (``--markdown`` to append it to docs/benchmarks.md by hand).

    python bench/fusion_bench.py
"""

from __future__ import annotations

import argparse
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from common import kernels_and_bytes, machine, per_call, rng  # noqa: E402

import strata  # noqa: E402


def elementwise_chain(x, w, b, r):
    return strata.gelu(x * w + b, approximate="tanh") * 0.5 + r


def mlp_layer(x, w, b):
    return strata.relu(x @ w + b)


def softmax_rows(x):
    return strata.softmax(x, axis=-1)


def layer_norm_rows(x, g, b):
    return strata.layer_norm(x, g, b)


def conv_bias_relu(x, w, b):
    return strata.relu(strata.conv2d(x, w, padding=1, layout="NHWC") + b)


def np_gelu_tanh(u):
    return 0.5 * u * (1 + np.tanh(math.sqrt(2 / math.pi) * (u + 0.044715 * u ** 3)))


def programs():
    g = rng(0)

    def r(*s):
        return g.standard_normal(s).astype(np.float32)

    return [
        ("elementwise chain 512x1024", elementwise_chain,
         lambda x, w, b, rr: np_gelu_tanh(x * w + b) * 0.5 + rr,
         [r(512, 1024), r(512, 1024), r(1024), r(512, 1024)]),
        ("matmul+bias+relu 256x512x512", mlp_layer,
         lambda x, w, b: np.maximum(x @ w + b, 0), [r(256, 512), r(512, 512), r(512)]),
        ("softmax 512x1024", softmax_rows,
         lambda x: (lambda e: e / e.sum(-1, keepdims=True))(np.exp(x - x.max(-1, keepdims=True))),
         [r(512, 1024)]),
        ("layer_norm 512x1024", layer_norm_rows,
         lambda x, gg, bb: (x - x.mean(-1, keepdims=True)) /
         np.sqrt(x.var(-1, keepdims=True) + 1e-5) * gg + bb,
         [r(512, 1024), r(1024), r(1024)]),
        ("conv3x3 NHWC 1x28x28x32 + bias + relu", conv_bias_relu, None,
         [r(1, 28, 28, 32), r(3, 3, 32, 32), r(32)]),
    ]


def stats(fn, args, fusion):
    module = strata.trace(fn, *args)
    fused = strata.compile(module, compile_to="fused", fusion=fusion)
    buf = strata.compile(module, compile_to="bufferized", fusion=fusion)
    return kernels_and_bytes(str(fused), buf.mlir)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.parse_args(argv)
    print(f"machine: {machine()}\n")
    print("| program | kernels off → on | intermediate bytes off → on | time off | time on | "
          "on/off | numpy | on/numpy |")
    print("|---|---|---|---|---|---|---|---|")
    for name, fn, np_fn, args in programs():
        k_off, b_off = stats(fn, args, False)
        k_on, b_on = stats(fn, args, True)
        off = strata.jit(fn, fusion=False)
        on = strata.jit(fn, fusion=True)
        t_off, t_on = per_call(off, args), per_call(on, args)
        t_np = per_call(np_fn, args) if np_fn else float("nan")
        print(f"| {name} | {k_off} → {k_on} | {b_off:,} → {b_on:,} | {t_off * 1e6:.0f} us | "
              f"{t_on * 1e6:.0f} us | {t_on / t_off:.2f} | {t_np * 1e6:.0f} us | "
              f"{t_on / t_np:.2f} |")



if __name__ == "__main__":
    main()
