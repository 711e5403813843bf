"""A short GPU benchmark: strata's CUDA path vs numpy on the host (and torch CUDA if present).

    python bench/gpu_bench.py [--budget SECONDS]

Cases: matmul, an elementwise chain, softmax, and the demo models (MLP,
encoder block). For each: strata's compile time (copying variant), warm per-call
time on numpy arrays (including the host<->device copies) and on DeviceArrays
(device-resident, nothing copied), numpy's per-call time, torch's
(device-resident tensors, synchronized), the ratios numpy/strata and
torch/strata (resident; >1 means strata is faster), and the max error vs a
float64 numpy reference. Without a CUDA device it says so and exits 0 after checking that
everything compiles.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import strata
from strata import demo
from strata.runtime.cuda import compile_cuda, cuda_available


def _time(fn, args, budget):
    fn(*args)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < budget or n < 3:
        fn(*args)
        n += 1
    return (time.perf_counter() - start) / n


def _np_softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def cases(rng):
    def r(*s, scale=1.0):
        return (rng.standard_normal(s) * scale).astype(np.float32)

    a, b = r(1024, 1024), r(1024, 1024)
    x, y = r(2048, 2048), r(2048, 2048)
    s = r(4096, 1024)
    yield ("matmul 1024^3", lambda p, q: p @ q, lambda p, q: p @ q, [a, b],
           lambda t, p, q: t.matmul(p, q))
    yield ("elementwise 2048^2", lambda p, q: strata.relu(p * q + p) * 0.5,
           lambda p, q: np.maximum(p * q + p, 0) * 0.5, [x, y],
           lambda t, p, q: t.relu(p * q + p) * 0.5)
    yield ("softmax 4096x1024", lambda p: strata.softmax(p, axis=-1), _np_softmax, [s],
           lambda t, p: t.softmax(p, dim=-1))
    yield ("demo mlp", demo.mlp, demo.np_mlp, demo._inputs(rng, "mlp"), None)
    yield ("demo encoder", demo.encoder_block, demo.np_encoder_block,
           demo._inputs(rng, "encoder"), None)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=1.0, help="seconds of timing per measurement")
    ap.add_argument("--compile-only", action="store_true")
    o = ap.parse_args(argv)
    ok, reason = cuda_available()
    print(f"CUDA: {'available, ' if ok else 'not available: '}{reason}")
    try:
        import torch

        has_torch = ok and torch.cuda.is_available()
    except ImportError:
        torch, has_torch = None, False
    rows = []
    rng = np.random.default_rng(0)
    for name, fn, np_fn, args, torch_fn in cases(rng):
        start = time.perf_counter()
        prog = compile_cuda(fn, *args)
        compile_s = time.perf_counter() - start
        row = {"case": name, "compile_ms": compile_s * 1e3, "kernels": prog.gpu_binary_ir.count(
            "gpu.binary @")}
        if ok and not o.compile_only:
            out = prog(*args)
            ref = np_fn(*[a.astype(np.float64) for a in args])
            row["err"] = float(np.max(np.abs(out - ref))) / (float(np.max(np.abs(ref))) or 1.0)
            row["strata_us"] = _time(prog, args, o.budget) * 1e6
            from strata.runtime.device import to_device

            dargs = [to_device(a) for a in args]
            dout = prog(*dargs)
            dout = dout[0] if isinstance(dout, tuple) else dout
            row["err_dev"] = float(np.max(np.abs(dout.numpy() - ref))) / (
                float(np.max(np.abs(ref))) or 1.0)
            row["resident_us"] = _time(prog, dargs, o.budget) * 1e6
            row["numpy_us"] = _time(np_fn, args, o.budget) * 1e6
            if has_torch and torch_fn is not None:
                targs = [torch.from_numpy(a).cuda() for a in args]

                def run_torch(*ts, torch_fn=torch_fn):
                    r = torch_fn(torch, *ts)
                    torch.cuda.synchronize()
                    return r

                row["torch_us"] = _time(run_torch, targs, o.budget) * 1e6
                row["torch/strata"] = row["torch_us"] / row["resident_us"]
            row["numpy/strata"] = row["numpy_us"] / row["resident_us"]
        rows.append(row)
        print(f"  done: {name}", flush=True)
    cols = ["case", "kernels", "compile_ms", "strata_us", "resident_us", "numpy_us", "torch_us",
            "numpy/strata", "torch/strata", "err"]
    print("\n" + " | ".join(f"{c:>18}" for c in cols))
    print("-" * (21 * len(cols)))
    for row in rows:
        cells = []
        for c in cols:
            v = row.get(c)
            if v is None:
                cells.append(f"{'-':>18}")
            elif isinstance(v, float):
                cells.append(f"{v:18.3g}" if c == "err" or "/" in c else f"{v:18.1f}")
            else:
                cells.append(f"{v!s:>18}")
        print(" | ".join(cells))
    print("\nstrata_us includes the host->device and device->host copies of every call; "
          "resident_us and torch_us run on device-resident arrays; ratios use resident_us.")
    bad = [r["case"] for r in rows if max(r.get("err", 0.0), r.get("err_dev", 0.0)) > 1e-3]
    if bad:
        print(f"FAILED accuracy: {', '.join(bad)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
