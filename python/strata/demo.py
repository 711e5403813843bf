"""The strata demo: two models built in Python, compiled for the CPU, checked against numpy.

    strata demo [--print-ir] [--seed N]

(1) a 2-layer MLP and (2) a transformer-encoder block (layer_norm, Q/K/V
matmuls, softmax attention, residual, GELU MLP). For each: the IR size at each
level (or the IR itself with --print-ir), cold compile time, warm per-call
time, numpy's per-call time, and the max error against a float64 numpy
reference.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

import strata

__all__ = ["main", "mlp", "encoder_block"]

D, HEADS, SEQ, FF = 64, 4, 32, 128


def mlp(x, w1, b1, w2, b2):
    return strata.relu(x @ w1 + b1) @ w2 + b2


def encoder_block(x, g1, be1, wq, wk, wv, wo, g2, be2, w1, b1, w2, b2):
    h = strata.layer_norm(x, g1, be1)
    q, k, v = h @ wq, h @ wk, h @ wv
    dh = D // HEADS
    q = q.reshape(SEQ, HEADS, dh).transpose(1, 0, 2)
    k = k.reshape(SEQ, HEADS, dh).transpose(1, 2, 0)
    v = v.reshape(SEQ, HEADS, dh).transpose(1, 0, 2)
    att = strata.softmax((q @ k) * (1.0 / math.sqrt(dh)), axis=-1)
    ctx = (att @ v).transpose(1, 0, 2).reshape(SEQ, D)
    x = x + ctx @ wo
    h = strata.layer_norm(x, g2, be2)
    return x + strata.gelu(h @ w1 + b1, approximate="tanh") @ w2 + b2


def _np_layer_norm(x, g, b, eps=1e-5):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b


def _np_softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def np_mlp(x, w1, b1, w2, b2):
    return np.maximum(x @ w1 + b1, 0) @ w2 + b2


def np_encoder_block(x, g1, be1, wq, wk, wv, wo, g2, be2, w1, b1, w2, b2):
    h = _np_layer_norm(x, g1, be1)
    dh = D // HEADS
    q = (h @ wq).reshape(SEQ, HEADS, dh).transpose(1, 0, 2)
    k = (h @ wk).reshape(SEQ, HEADS, dh).transpose(1, 2, 0)
    v = (h @ wv).reshape(SEQ, HEADS, dh).transpose(1, 0, 2)
    att = _np_softmax((q @ k) / math.sqrt(dh))
    ctx = (att @ v).transpose(1, 0, 2).reshape(SEQ, D)
    x = x + ctx @ wo
    h = _np_layer_norm(x, g2, be2)
    u = h @ w1 + b1
    gelu = 0.5 * u * (1 + np.tanh(math.sqrt(2 / math.pi) * (u + 0.044715 * u ** 3)))
    return x + gelu @ w2 + b2


def _inputs(rng, kind):
    def r(*shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    if kind == "mlp":
        return [r(64, 256), r(256, 512, scale=0.06), r(512), r(512, 10, scale=0.04), r(10)]
    s = 1 / math.sqrt(D)
    return [r(SEQ, D), 1 + r(D, scale=0.1), r(D, scale=0.1), r(D, D, scale=s), r(D, D, scale=s),
            r(D, D, scale=s), r(D, D, scale=s), 1 + r(D, scale=0.1), r(D, scale=0.1),
            r(D, FF, scale=s), r(FF, scale=0.1), r(FF, D, scale=1 / math.sqrt(FF)),
            r(D, scale=0.1)]


def _time_per_call(fn, args, budget=0.5):
    fn(*args)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < budget:
        fn(*args)
        n += 1
    return (time.perf_counter() - start) / n


def run_model(name, fn, np_fn, args, print_ir, out):
    if print_ir:
        module = strata.trace(fn, *args)
        for level in ("strata", "linalg", "fused", "bufferized", "llvm"):
            text = str(strata.compile(module, compile_to=level))
            out.write(f"// ===== {name}: level {level} =====\n{text}\n")
    jitted = strata.jit(fn)
    start = time.perf_counter()
    result = jitted(*args)
    cold = time.perf_counter() - start
    warm = _time_per_call(jitted, args)
    ref = np_fn(*[a.astype(np.float64) for a in args])
    ref_time = _time_per_call(np_fn, args)
    err = float(np.max(np.abs(result.astype(np.float64) - ref)))
    scale = float(np.max(np.abs(ref))) or 1.0
    sizes = jitted.stats.ir_sizes
    out.write(f"\n{name}\n")
    out.write("  IR ops per level: " +
              ", ".join(f"{k} {v}" for k, v in sizes.items() if k != "layout") + "\n")
    source = " (from the on-disk cache)" if jitted.stats.cache_hits else ""
    out.write(f"  cold compile  {cold * 1e3:9.1f} ms{source}\n")
    out.write(f"  warm call     {warm * 1e6:9.1f} us   (numpy {ref_time * 1e6:.1f} us, "
              f"ratio {warm / ref_time:.2f}x)\n")
    out.write(f"  max |error|   {err:9.2e}     (max |ref| {scale:.2f}; relative "
              f"{err / scale:.1e})\n")
    return err / scale


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="strata demo", description=__doc__.split("\n")[0])
    parser.add_argument("--print-ir", action="store_true", help="print the IR at every level")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    out = sys.stdout
    out.write("strata demo: CPU, float32, checked against a float64 numpy reference\n")
    worst = 0.0
    worst = max(worst, run_model("MLP 64x256 -> 512 -> 10 (relu)", mlp, np_mlp,
                                 _inputs(rng, "mlp"), args.print_ir, out))
    worst = max(worst, run_model(f"transformer encoder block (seq {SEQ}, d {D}, {HEADS} heads, "
                                 f"ff {FF})", encoder_block, np_encoder_block,
                                 _inputs(rng, "encoder"), args.print_ir, out))
    ok = worst < 1e-4
    out.write(f"\n{'OK' if ok else 'MISMATCH'}: worst relative error {worst:.1e}\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
