"""Stock Hugging Face ``transformers`` models at realistic sizes: torch.compile(backend=
"strata") vs inductor vs eager, forward passes and GPT-2's greedy ``generate()`` (issue 37).

    python bench/zoo_bench.py                   # 2 layers, batch 1 x 128 tokens
    python bench/zoo_bench.py --large           # batch 8 x 512 tokens (ViT: 8 images)
    python bench/zoo_bench.py --quick --models gpt2 --systems eager,strata   # smoke test

The models are transformers' own classes (GPT2LMHeadModel, LlamaForCausalLM with grouped
key/value heads, BertModel, ViTModel) with random weights (no downloads), in eval mode under
no_grad, at realistic per-layer widths (hidden 768, 12 heads, intermediate 3072; Llama:
4 key/value heads, intermediate 2048; vocab 32000) but ``--layers`` layers (default 2), so
that a cold compile stays in tens of seconds on a small machine. ``gpt2-generate`` is
``model.generate(prompt, max_new_tokens=32, do_sample=False)`` from a 1 x 32 prompt with
Hugging Face's default dynamic KV cache, ``model.forward`` compiled the way
test/unit/test_generate.py does it (Dynamo's automatic dynamic shapes); its speed is the
new tokens per second of the whole call (prefill included), and its "error" says whether
strata's tokens equal eager's.

Each (model, system) runs in a fresh process with empty strata and inductor caches
(torch_bench.run_fresh): *cold* is the first call (trace + compile + run), *warm* the
best-of-5 mean per call after it (strata.runtime.measure.per_call). A system that fails
shows its error in its cell. ``main()`` returns the markdown table it prints.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch_bench  # noqa: E402  (bench/torch_bench.py: the fresh-process machinery)

ZOO_FILE = os.path.join(HERE, "..", "test", "unit", "zoo_models.py")
SYSTEMS = ("eager", "inductor", "strata")
ROWS = ("gpt2", "llama", "bert", "vit", "gpt2-generate")


def sizes(large: bool, quick: bool) -> dict:
    """The configs' widths and the inputs' shapes (pure Python: the table names them too)."""
    if quick:  # tiny: a smoke test of the whole pipeline
        return {"hidden": 64, "heads": 4, "kv_heads": 2, "ff": 128, "llama_ff": 128,
                "vocab": 1000, "text": (2, 32) if large else (1, 16), "image": 32,
                "patch": 8, "images": 2 if large else 1, "prompt": 8, "new_tokens": 16}
    return {"hidden": 768, "heads": 12, "kv_heads": 4, "ff": 3072, "llama_ff": 2048,
            "vocab": 32000, "text": (8, 512) if large else (1, 128), "image": 224,
            "patch": 16, "images": 8 if large else 1, "prompt": 32, "new_tokens": 32}


def describe(row: str, z: dict) -> str:
    """The row's input, as the table shows it."""
    if row == "vit":
        return f"{z['images']} x 3 x {z['image']} x {z['image']}"
    if row == "gpt2-generate":
        return f"1 x {z['prompt']} prompt, {z['new_tokens']} new tokens"
    return "{} x {} tokens".format(*z["text"])


def build(row: str, layers: int, z: dict):
    """``(model in eval mode, inputs)``: transformers' own classes at the sizes ``z``."""
    import torch
    import transformers as hf

    torch.manual_seed(0)
    h, heads, vocab = z["hidden"], z["heads"], z["vocab"]
    batch, seq = z["text"]
    ids = torch.randint(0, vocab, (batch, seq))
    if row in ("gpt2", "gpt2-generate"):
        config = hf.GPT2Config(vocab_size=vocab, n_positions=max(1024, seq), n_embd=h,
                               n_layer=layers, n_head=heads, n_inner=z["ff"],
                               bos_token_id=0, eos_token_id=1, pad_token_id=1)
        model = hf.GPT2LMHeadModel(config)
        if row == "gpt2-generate":
            ids = torch.randint(2, vocab, (1, z["prompt"]))
        inputs = (ids,)
    elif row == "llama":
        config = hf.LlamaConfig(vocab_size=vocab, hidden_size=h, intermediate_size=z["llama_ff"],
                                num_hidden_layers=layers, num_attention_heads=heads,
                                num_key_value_heads=z["kv_heads"],
                                max_position_embeddings=max(2048, seq))
        model, inputs = hf.LlamaForCausalLM(config), (ids,)
    elif row == "bert":  # a tokenizer's output for unpadded text: mask all ones, one segment
        config = hf.BertConfig(vocab_size=vocab, hidden_size=h, num_hidden_layers=layers,
                               num_attention_heads=heads, intermediate_size=z["ff"],
                               max_position_embeddings=max(512, seq))
        model = hf.BertModel(config, add_pooling_layer=False)
        inputs = (ids, torch.ones_like(ids), torch.zeros_like(ids))
    elif row == "vit":
        config = hf.ViTConfig(image_size=z["image"], patch_size=z["patch"], hidden_size=h,
                              num_hidden_layers=layers, num_attention_heads=heads,
                              intermediate_size=z["ff"])
        model = hf.ViTModel(config, add_pooling_layer=False)
        inputs = (torch.randn(z["images"], 3, z["image"], z["image"]),)
    else:
        raise ValueError(f"unknown model {row!r}: one of {', '.join(ROWS)}")
    return model.eval(), inputs


def _output():
    spec = importlib.util.spec_from_file_location("zoo_models", ZOO_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.output  # the logits, else the last hidden state


def _strata_split(record: list) -> dict:
    eager, total = torch_bench.eager_ops(record)
    ops = sorted({f.op for g in record for f in g.fallbacks})
    return {"eager_ops": eager, "ops": total, "graphs": len(record), "eager_names": ops}


def worker(row: str, system: str, budget: float, layers: int, large: bool, quick: bool):
    """One (model, system) in this process: cold first call, warm per call, and against
    eager the max relative error (forward) or whether the tokens are equal (generate)."""
    import torch

    from strata.runtime.measure import per_call

    z = sizes(large, quick)
    model, inputs = build(row, layers, z)
    record: list = []
    backend = torch_bench.compiler(system, record)
    out: dict = {}
    with torch.no_grad():
        if row == "gpt2-generate":
            options = dict(max_new_tokens=z["new_tokens"], min_new_tokens=z["new_tokens"],
                           do_sample=False)
            want = model.generate(*inputs, **options)
            if system != "eager":
                model.forward = torch.compile(model.forward, backend=backend, dynamic=None)

            def fn(*a):
                return model.generate(*a, **options)

            start = time.perf_counter()
            got = fn(*inputs)
            out["cold"] = time.perf_counter() - start
            out["same"] = bool(torch.equal(got, want))
            if not out["same"]:
                n = min(got.shape[1], want.shape[1])
                differ = (got[0, :n] != want[0, :n]).nonzero()
                first = differ[0].item() if len(differ) else n
                out["differ_at"] = first - z["prompt"]  # the first new token that differs
            out["new_tokens"] = got.shape[1] - z["prompt"]
        else:
            output = _output()
            want = output(model(*inputs))
            fn = model if system == "eager" else torch.compile(model, backend=backend)
            start = time.perf_counter()
            got = output(fn(*inputs))
            out["cold"] = time.perf_counter() - start
            out["err"] = torch_bench.rel_err(got, want)
        out["warm"] = per_call(fn, inputs, budget=budget)
    if system == "strata":
        out.update(_strata_split(record))
    return out


def run(row: str, system: str, args) -> dict:
    """``worker(row, system)`` in a fresh process; never raises (a failure is its error)."""
    argv = [row, system, "--budget", args.budget, "--layers", args.layers]
    argv += ["--large"] * args.large + ["--quick"] * args.quick
    try:
        return torch_bench.run_fresh(__file__, argv, timeout=args.timeout,
                                     prefix="zoo-bench-")
    except Exception as e:  # noqa: BLE001 - a timeout or unreadable output: the cell says so
        return {"error": f"{type(e).__name__}: {e}"[:160]}


def _text(s) -> str:
    """A table cell's text: one line, no column bars."""
    return " ".join(str(s).split()).replace("|", "\\|")


def _speed(row: str, r: dict) -> str:
    if row == "gpt2-generate" and r.get("new_tokens"):
        return f"{r['new_tokens'] / r['warm']:.0f} tok/s ({torch_bench._ms(r['warm'])})"
    return torch_bench._ms(r["warm"])


def table(results: dict, z: dict) -> str:
    """``results``: row -> system -> a worker's figures (or ``{"error": ...}``)."""
    lines = ["| model | input | eager warm | inductor warm | strata warm | "
             "strata speed-up (inductor warm / strata warm, > 1: strata faster) | "
             "inductor cold | strata cold | strata max rel. error vs eager | "
             "ATen ops run eagerly in strata |",
             "|" + " --- |" * 10]
    for row, r in results.items():
        def warm(system, r=r, row=row):
            v = r.get(system)
            if v is None:  # left out with --systems
                return "-"
            return f"failed: {_text(v['error'])}" if "error" in v else _speed(row, v)

        def cold(system, r=r):
            v = r.get(system)
            if v is None:
                return "-"
            return "failed" if "error" in v else torch_bench._ms(v["cold"])

        s, i = r.get("strata", {}), r.get("inductor", {})
        ratio = f"{i['warm'] / s['warm']:.2f}" if s.get("warm") and i.get("warm") else "-"
        if "same" in s:
            err = ("tokens = eager" if s["same"]
                   else f"tokens differ from eager's at new token {s.get('differ_at')}")
        else:
            err = f"{s['err']:.1e}" if s.get("err") is not None else "-"
        if "ops" in s:
            ran = f"{s['eager_ops']} of {s['ops']} ({s['graphs']} graphs)"
            if s["eager_names"]:
                ran += ": " + ", ".join(s["eager_names"])
        else:
            ran = "-"
        lines.append(f"| {row} | {describe(row, z)} | {warm('eager')} | {warm('inductor')} | "
                     f"{warm('strata')} | {ratio} | {cold('inductor')} | {cold('strata')} | "
                     f"{err} | {_text(ran)} |")
    return "\n".join(lines)


def main(argv=None) -> str:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default=".", help=f"regex over {', '.join(ROWS)}")
    p.add_argument("--systems", default=",".join(SYSTEMS), help="of " + ", ".join(SYSTEMS))
    p.add_argument("--budget", type=float, default=None,
                   help="seconds of warm timing per (model, system) (default 0.5)")
    p.add_argument("--layers", type=int, default=2, help="transformer layers (default 2)")
    p.add_argument("--large", action="store_true", help="batch 8 x 512 tokens, 8 images")
    p.add_argument("--quick", action="store_true", help="tiny configs, short timing")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per process")
    p.add_argument("--worker", nargs=2, metavar=("MODEL", "SYSTEM"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.budget = args.budget or (0.05 if args.quick else 0.5)
    if args.worker:
        try:
            out = worker(*args.worker, args.budget, args.layers, args.large, args.quick)
        except Exception as e:  # noqa: BLE001 - reported in the table, not a traceback
            out = {"error": f"{type(e).__name__}: {e}"[:200]}
        print(json.dumps(out))
        return ""
    systems = [s for s in args.systems.split(",") if s]
    unknown = set(systems) - set(SYSTEMS)
    if unknown:
        p.error(f"unknown systems {sorted(unknown)}: of {', '.join(SYSTEMS)}")
    rows = [r for r in ROWS if re.search(args.models, r)]
    results = {}
    for row in rows:
        results[row] = {s: run(row, s, args) for s in systems}
        print(f"{row} done", file=sys.stderr, flush=True)
    z = sizes(args.large, args.quick)
    text = table(results, z)
    text += (f"\n\n{args.layers} layers, hidden {z['hidden']}, {z['heads']} heads "
             f"(Llama {z['kv_heads']} key/value heads), vocab {z['vocab']}, random weights, "
             "f32; a fresh process with empty caches per cell. Cold: the first call; warm: "
             "best-of-5 mean per call; generate: new tokens per second of the whole "
             "generate() call (prefill included).")
    print(text)
    return text


if __name__ == "__main__":
    main()
