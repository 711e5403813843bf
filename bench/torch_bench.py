"""The PyTorch front end: torch.compile(backend="strata") vs inductor (torch.compile's default)
vs eager, on the models of test/unit/torch_models.py at bench sizes.

    python bench/torch_bench.py                 # every model, f32; prints a markdown table
    python bench/torch_bench.py --models mlp --quick --rounds 1

Each (model, system) runs in its own fresh process, with empty strata and inductor caches:
*cold* is the first call (trace + compile + run), *warm* the best-of-5 mean per call after
it. ``main()`` returns the table (bench/suite.py can call it).

On a shared machine one process's figures swing with the neighbours' load, so the whole
set runs ``--rounds`` times (default 3), the systems of a model one after another in each
round (the order turned round every round); the table gives each system's best warm and
best cold over the rounds, and the spread of the per-round strata / inductor warm ratio.

Every run gets its own STRATA_CACHE_DIR and TORCHINDUCTOR_CACHE_DIR (inductor's FX graph,
AOTAutograd and C++ caches all live there), so each cold figure is a true cold compile.
The system ``trace`` is ``torch.compile(backend="aot_eager")``: Dynamo's trace and
AOTAutograd's, no code generated. Its cold time is what any backend behind torch.compile
pays before it compiles anything, so the column "strata compile" (strata cold less trace
cold) is strata's own share, and a cold goal below the trace's time cannot be met by any
backend ("below the trace" in the goal column).

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
SYSTEMS = ("eager", "trace", "inductor", "strata")
COLD_GOAL = 0.2  # strata cold / inductor cold aimed at (issue 14)

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


def compiler(system: str, record: list):
    """torch.compile's backend for ``system``: aot_eager for "trace", inductor, or strata's
    registered backend appending its split of each graph to ``record``."""
    if system != "strata":
        return "aot_eager" if system == "trace" else "inductor"
    from strata.torch.backend import strata_backend

    def backend(gm, example_inputs):  # the registered backend, recording its split
        return strata_backend(gm, example_inputs, record=record)

    return backend


def eager_ops(record: list) -> tuple:
    """``(ATen ops run eagerly, ATen ops in all)`` over strata's record of its graphs."""
    subgraphs = [sub for g in record for sub in g.subgraphs]
    eager = sum(len(sub.ops) for sub in subgraphs if sub.kind == "eager")
    return eager, sum(len(sub.ops) for sub in subgraphs)


def rel_err(got, want) -> float:
    """Max abs difference over max(1, max |want|)."""
    return ((got - want).abs().max() / max(1.0, want.abs().max().item())).item()


def worker(name: str, system: str, budget: float) -> dict:
    """One (model, system) in this process: cold first call, warm per call, max error."""
    import torch

    from strata.runtime.measure import per_call

    model, inputs = build(name)
    record: list = []
    with torch.no_grad():
        want = model(*inputs)
        fn = model if system == "eager" else torch.compile(model,
                                                           backend=compiler(system, record))
        start = time.perf_counter()
        got = fn(*inputs)
        cold = time.perf_counter() - start
        # the trace's warm time is aot_eager's (eager kernels behind guards): not reported
        warm = None if system == "trace" else per_call(fn, inputs, budget=budget)
    eager, total = eager_ops(record)
    return {"cold": cold, "warm": warm, "err": rel_err(got, want), "eager_ops": eager,
            "ops": total}


def run_fresh(script: str, args: list, timeout: float = 1800, prefix: str = "torch-bench-"):
    """``script --worker *args`` in a fresh process with its own empty STRATA_CACHE_DIR and
    TORCHINDUCTOR_CACHE_DIR: the JSON its last line prints, or ``{"error": its last line
    of stderr}`` if it failed."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        env = dict(os.environ, STRATA_CACHE_DIR=os.path.join(tmp, "strata"),
                   TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "inductor"))
        cmd = [sys.executable, os.path.abspath(script), "--worker", *map(str, args)]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        tail = (p.stderr or p.stdout).strip().splitlines()[-1:] or [f"exit {p.returncode}"]
        return {"error": tail[0][:120]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def _run(name, system, budget):
    return run_fresh(__file__, [name, system, "--budget", budget])


def _ms(s):
    return f"{s * 1e3:.3g} ms" if s < 1 else f"{s:.2f} s"


def best(runs: list) -> dict:
    """One (model, system)'s rounds as one figure set: the fastest warm and the fastest
    cold of the rounds that ran, the error of the last; ``{"error": ...}`` if none ran."""
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return runs[-1]
    out = dict(ok[-1])
    for key in ("cold", "warm"):
        values = [r[key] for r in ok if r.get(key) is not None]
        out[key] = min(values) if values else None
    out["rounds"] = len(ok)
    return out


def warm_spread(runs: dict) -> str:
    """The per-round strata / inductor warm ratios as "lo-hi" (rounds where both ran)."""
    rounds = zip(runs.get("strata", []), runs.get("inductor", []), strict=False)
    pairs = [a["warm"] / b["warm"] for a, b in rounds if a.get("warm") and b.get("warm")]
    if len(pairs) < 2:
        return ""
    return f" ({min(pairs):.2f}-{max(pairs):.2f})"


def cold_goal(r: dict) -> str:
    """Whether strata's cold time is within COLD_GOAL of inductor's, and where it is not,
    whether the trace alone (Dynamo + AOTAutograd) already takes longer than the goal."""
    s, i, t = r.get("strata", {}), r.get("inductor", {}), r.get("trace", {})
    if not s.get("cold") or not i.get("cold"):
        return "-"
    goal = COLD_GOAL * i["cold"]
    if s["cold"] <= goal:
        return "met"
    if t.get("cold") and t["cold"] > goal:
        return f"**no**: the trace alone is {t['cold'] / i['cold']:.2f} of inductor's"
    return "**no**"


def table(results: dict, runs: dict | None = None) -> str:
    """``results``: model -> system -> best(...) figures; ``runs``: model -> system -> the
    rounds' figures (for the warm ratio's spread)."""
    lines = ["| model | eager warm | inductor warm | strata warm | strata / inductor warm | "
             "trace cold | inductor cold | strata cold | strata compile | "
             "strata / inductor cold | cold goal (≤ 0.2) | strata max rel. error |",
             "|" + " --- |" * 12]
    for name, r in results.items():
        def cell(system, key, r=r):
            v = r.get(system)
            if v is None:  # a system left out with --systems
                return "-"
            return v["error"] if "error" in v else ("-" if v.get(key) is None else _ms(v[key]))

        def ratio(key, r=r):
            a, b = r.get("strata", {}), r.get("inductor", {})
            return f"{a[key] / b[key]:.2f}" if a.get(key) and b.get(key) else "-"

        s, t = r.get("strata", {}), r.get("trace", {})
        own = _ms(s["cold"] - t["cold"]) if s.get("cold") and t.get("cold") else "-"
        err = s.get("err")
        eager = s.get("eager_ops")
        spread = warm_spread((runs or {}).get(name, {}))
        lines.append(f"| {name} | {cell('eager', 'warm')} | {cell('inductor', 'warm')} | "
                     f"{cell('strata', 'warm')} | {ratio('warm')}{spread} | "
                     f"{cell('trace', 'cold')} | {cell('inductor', 'cold')} | "
                     f"{cell('strata', 'cold')} | {own} | {ratio('cold')} | {cold_goal(r)} | "
                     f"{'-' if err is None else f'{err:.1e}'}"
                     + (f" ({eager} of {s['ops']} ATen ops ran eagerly)" if eager else "")
                     + " |")
    return "\n".join(lines)


def main(argv=None) -> str:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default=".", help="regex over model names")
    p.add_argument("--systems", default=",".join(SYSTEMS))
    p.add_argument("--quick", action="store_true", help="shorter warm timing")
    p.add_argument("--budget", type=float, default=None)
    p.add_argument("--rounds", type=int, default=3, help="fresh processes per (model, system)")
    p.add_argument("--worker", nargs=2, metavar=("MODEL", "SYSTEM"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    budget = args.budget or (0.1 if args.quick else 0.5)
    if args.worker:
        print(json.dumps(worker(*args.worker, budget)))
        return ""
    systems = args.systems.split(",")
    names = [n for n in SIZES if re.search(args.models, n)]
    runs = {n: {s: [] for s in systems} for n in names}
    for k in range(max(1, args.rounds)):
        order = systems if k % 2 == 0 else systems[::-1]
        for name in names:
            for system in order:
                runs[name][system].append(_run(name, system, budget))
        print(f"round {k + 1} done", file=sys.stderr, flush=True)
    results = {n: {s: best(v) for s, v in per.items()} for n, per in runs.items()}
    text = table(results, runs)
    rounds = max(1, args.rounds)
    text += (f"\n\nBest of {rounds} rounds (fresh processes, interleaved); in brackets the "
             "range of the per-round strata / inductor warm ratio." if rounds > 1 else "")
    print(text)
    return text


if __name__ == "__main__":
    main()
