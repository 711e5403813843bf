"""The PyTorch front end: torch.compile(backend="strata") vs inductor (torch.compile's default)
vs eager, on the models of test/unit/torch_models.py at bench sizes.

    python bench/torch_bench.py                 # every model, f32; prints a markdown table
    python bench/torch_bench.py --models mlp --quick

Each (model, system) runs in its own fresh process, with empty strata and inductor caches:
*cold* is the first call (trace + compile + run), *warm* the best-of-5 mean per call after
it. ``main()`` returns the table (bench/suite.py can call it).

Every run gets its own STRATA_CACHE_DIR and TORCHINDUCTOR_CACHE_DIR (inductor's FX graph,
AOTAutograd and C++ caches all live there), so each cold figure is a true cold compile.
encoder_layer's inductor cold is short for another reason: in eval mode under no_grad,
``nn.TransformerEncoderLayer`` takes PyTorch's fast path, and the graph Dynamo hands to
inductor is the single fused kernel ``aten._transformer_encoder_layer_fwd``, which inductor
calls as an extern kernel (no code generated); strata decomposes it
(strata/torch/decompositions.py) and compiles the whole layer.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS_FILE = os.path.join(HERE, "..", "test", "unit", "torch_models.py")
SYSTEMS = ("eager", "inductor", "strata")

# name -> (constructor kwargs, input shapes); the token ids of gpt_block are int64
SIZES = {
    "mlp": ({"d_in": 512, "hidden": 1024, "d_out": 512}, [(64, 512)]),
    "encoder_layer": ({"d": 256, "heads": 8, "ff": 1024}, [(4, 64, 256)]),
    "resnet_block": ({"c": 64}, [(4, 64, 32, 32)]),
    "small_cnn": ({"c": 32, "classes": 10}, [(8, 3, 32, 32)]),
    "gpt_block": ({"vocab": 1000, "d": 256, "heads": 8, "t": 64}, [(4, 64)]),
}


def _models():
    spec = importlib.util.spec_from_file_location("torch_models", MODELS_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(name):
    import torch

    models = _models()
    torch.manual_seed(0)
    kwargs, shapes = SIZES[name]
    model = models.randomize_batch_norm(models.MODELS[name][0](**kwargs).eval())
    if name == "gpt_block":
        inputs = tuple(torch.randint(0, kwargs["vocab"], s) for s in shapes)
    else:
        inputs = tuple(torch.randn(s) for s in shapes)
    return model, inputs


def worker(name: str, system: str, budget: float) -> dict:
    """One (model, system) in this process: cold first call, warm per call, max error."""
    import torch

    from strata.runtime.measure import per_call

    model, inputs = build(name)
    record: list = []
    backend = "inductor"
    if system == "strata":
        from strata.torch.backend import strata_backend

        def backend(gm, example_inputs):  # the registered backend, recording its split
            return strata_backend(gm, example_inputs, record=record)

    with torch.no_grad():
        want = model(*inputs)
        fn = model if system == "eager" else torch.compile(model, backend=backend)
        start = time.perf_counter()
        got = fn(*inputs)
        cold = time.perf_counter() - start
        warm = per_call(fn, inputs, budget=budget)
    err = ((got - want).abs().max() / max(1.0, want.abs().max().item())).item()
    subgraphs = [sub for g in record for sub in g.subgraphs]
    eager = sum(len(sub.ops) for sub in subgraphs if sub.kind == "eager")
    total = sum(len(sub.ops) for sub in subgraphs)
    return {"cold": cold, "warm": warm, "err": err, "eager_ops": eager, "ops": total}


def _run(name, system, budget):
    with tempfile.TemporaryDirectory(prefix="torch-bench-") as tmp:
        env = dict(os.environ, STRATA_CACHE_DIR=os.path.join(tmp, "strata"),
                   TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "inductor"))
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", name, system,
               "--budget", str(budget)]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    if p.returncode != 0:
        tail = (p.stderr or p.stdout).strip().splitlines()[-1:] or [f"exit {p.returncode}"]
        return {"error": tail[0][:120]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def _ms(s):
    return f"{s * 1e3:.3g} ms" if s < 1 else f"{s:.2f} s"


def table(results: dict) -> str:
    lines = ["| model | eager warm | inductor warm | strata warm | strata / inductor warm | "
             "inductor cold | strata cold | strata / inductor cold | strata max rel. error |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, r in results.items():
        def cell(system, key, r=r):
            v = r.get(system)
            if v is None:  # a system left out with --systems
                return "-"
            return v["error"] if "error" in v else _ms(v[key])

        def ratio(key, r=r):
            a, b = r.get("strata", {}), r.get("inductor", {})
            return f"{a[key] / b[key]:.2f}" if key in a and key in b else "-"

        err = r.get("strata", {}).get("err")
        eager = r.get("strata", {}).get("eager_ops")
        lines.append(f"| {name} | {cell('eager', 'warm')} | {cell('inductor', 'warm')} | "
                     f"{cell('strata', 'warm')} | {ratio('warm')} | {cell('inductor', 'cold')} | "
                     f"{cell('strata', 'cold')} | {ratio('cold')} | "
                     f"{'-' if err is None else f'{err:.1e}'}"
                     + (f" ({eager} of {r['strata']['ops']} ATen ops ran eagerly)" if eager
                        else "") + " |")
    return "\n".join(lines)


def main(argv=None) -> str:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default=".", help="regex over model names")
    p.add_argument("--systems", default=",".join(SYSTEMS))
    p.add_argument("--quick", action="store_true", help="shorter warm timing")
    p.add_argument("--budget", type=float, default=None)
    p.add_argument("--worker", nargs=2, metavar=("MODEL", "SYSTEM"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    budget = args.budget or (0.1 if args.quick else 0.5)
    if args.worker:
        print(json.dumps(worker(*args.worker, budget)))
        return ""
    results = {}
    for name in SIZES:
        if not re.search(args.models, name):
            continue
        results[name] = {s: _run(name, s, budget) for s in args.systems.split(",")}
    text = table(results)
    print(text)
    return text


if __name__ == "__main__":
    main()
