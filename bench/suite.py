"""Every benchmark row of the project in one run: strata against the runtimes people deploy.

    python bench/suite.py                      # all rows; writes docs/benchmarks.md + .png
    python bench/suite.py --quick              # a few rows, short budgets (a smoke run)
    python bench/suite.py --rows conv --out /tmp/b --no-torch
    python bench/suite.py --deploy --out /tmp/d   # issue 38's rows, every peer, 1 and 2 threads
    python bench/suite.py --rows softmax --peers jax,onnxruntime

Each (row, system, thread count) is timed in its own fresh processes
(bench/suite_worker.py), so no number depends on the allocator state another
system left behind: the best of ``--processes`` (2) of them, for every system
alike, as this VM now and then runs a whole process 20-50% slower whatever the
code (a row held against the copy: the best copy measured right after each).
Systems: strata (``strata.jit``, 1 and 2 threads where the row asks), its
variants (``strata gen``: generated kernels only, no BLAS call), and the peers
(``--peers``; by default every one whose packages are installed: the ``bench``
extra): numpy, torch eager, torch.compile, jax (XLA CPU), iree (JAX's StableHLO on
IREE's llvm-cpu), onnxruntime and openvino (the torch function exported to ONNX),
and ``openvino bf16`` (OpenVINO at its default precision: reported, never counted
as an f32 peer). See bench/suite_worker.py for how each is set up. The machine's
limits come from bench/limits.py: the f32 FMA peak (an MLIR kernel) and the copy
bandwidth (the faster of ``np.copyto`` and a streaming copy kernel), each of 1 and
of all cores' threads in one process timed together; a row held against the copy
is also held against a copy measured right after it.

For every row the report gives strata's warm time, its first call (trace and
compile with an empty cache), page faults per warm call, the best peer (the
fastest f32 peer with a correct result at the same thread count) and its time,
the speed ratio (best peer time / strata time: above 1 means strata is faster),
the goal (issue 38: 1.0, 1.2 on fused rows), and the fraction of the machine
limit reached. Every system's result is compared with the row's float64
reference (numpy on float64 inputs, else torch eager on float64); a mismatch or
a failed peer (export error, unsupported op) is shown in the report with its
reason, never hidden. Timings are never asserted anywhere.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import platform
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from suite_rows import rows as all_rows  # noqa: E402

# Both are set on some machines for an older OpenBLAS; they slow the one numpy ships.
# They are removed for every system alike (strata's BLAS path uses the same library).
DROP_ENV = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")

# Other benchmark scripts whose markdown (printed on stdout) the report includes, each run
# once in its own process: (section title, script, arguments).
EXTRA = [
    ("Runtime for services: dispatch, restart, compile, new shapes", "runtime_bench.py",
     ["--repeat", "3"]),  # medians of 3 fresh processes: one slow process is no record
    ("PyTorch front end: torch.compile(backend=\"strata\") vs inductor vs eager",
     "torch_bench.py", ["--quick", "--rounds", "3"]),
    ("Autotuning: tuned vs default (strata.tune, a tuning record per row)", "tune_bench.py",
     ["--rows", "skinny_n,wide_auto,bmm", "--budget", "40", "--repeats", "3"]),
]


# The peers, in the report's order: (system, the packages it needs, the row's function it runs)
PEERS = {
    "numpy": ((), "numpy"),
    "torch": (("torch",), "torch"),
    "torch.compile": (("torch",), "torch"),
    "jax": (("jax", "jaxlib"), "jax"),
    "iree": (("jax", "jaxlib", "iree.compiler", "iree.runtime"), "jax"),
    "onnxruntime": (("torch", "onnx", "onnxscript", "onnxruntime"), "torch"),
    "openvino": (("torch", "onnx", "onnxscript", "openvino"), "torch"),
    "openvino bf16": (("torch", "onnx", "onnxscript", "openvino"), "torch"),
}
# Peers whose result is not float32 arithmetic: reported, never the best peer
NOT_F32 = ("openvino bf16",)
ALIASES = {"ort": "onnxruntime", "openvino-bf16": "openvino bf16",
           "openvino_bf16": "openvino bf16", "xla": "jax"}
TORCH_BASED = tuple(p for p, (pkgs, _) in PEERS.items() if "torch" in pkgs)


def missing_packages(system: str) -> list[str]:
    out = []
    for name in PEERS[system][0]:
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:  # a parent package (iree) is missing
            found = False
        if not found:
            out.append(name)
    return out


def choose_peers(spec: str | None, no_torch: bool = False) -> tuple[list[str], dict]:
    """(the peers to run, {peer: why it is left out}) from ``--peers`` (comma-separated
    names; default: every peer whose packages are installed)."""
    if spec:
        asked = [ALIASES.get(n.strip(), n.strip()) for n in spec.split(",") if n.strip()]
        unknown = [n for n in asked if n not in PEERS]
        if unknown:
            sys.exit(f"unknown peer(s) {', '.join(unknown)}: choose from {', '.join(PEERS)}")
    else:
        asked = list(PEERS)
    run, skipped = [], {}
    for name in PEERS:
        if name not in asked:
            continue
        missing = missing_packages(name)
        if missing:
            skipped[name] = f"not installed ({', '.join(missing)}: `pip install -e '.[bench]'`)"
        elif no_torch and name in TORCH_BASED:
            skipped[name] = "left out by --no-torch"
        else:
            run.append(name)
    return run, skipped


def _env(threads: int, cache_dir: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in DROP_ENV}
    env.update(OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads), STRATA_CACHE_DIR=cache_dir,
               # XLA's CPU threads (the worker also limits jax's CPUs: suite_worker.py)
               XLA_FLAGS=f"--xla_cpu_multi_thread_eigen=true "
                         f"intra_op_parallelism_threads={threads}",
               PYTHONPATH=os.pathsep.join(p for p in (HERE, env.get("PYTHONPATH")) if p))
    return env


def _run(cmd, env, timeout):
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s"
    if p.returncode != 0:
        tail = (p.stderr or p.stdout).strip().splitlines()[-1:] or [f"exit {p.returncode}"]
        return None, tail[0][:200]
    return json.loads(p.stdout.strip().splitlines()[-1]), None


def copy_limit(threads: int) -> dict | None:
    """bench/limits.py's copy bandwidth of ``threads`` threads at once, in a fresh process:
    ``{"gbps", "numpy", "stream"}`` (None if it failed)."""
    return _run([sys.executable, os.path.join(HERE, "limits.py"), "copy", str(threads)],
                _env(threads, ""), 300)[0]


def limits(cores: int, lanes: int) -> dict:
    """The FMA peak and copy bandwidth of 1 and of ``cores`` threads at once (each figure
    from threads of one fresh process timed together: bench/limits.py)."""
    out = {}
    for n in sorted({1, cores}):
        fma = _run([sys.executable, os.path.join(HERE, "limits.py"), "fma", str(lanes), str(n)],
                   _env(n, ""), 300)[0]
        out[f"fma{n}"] = fma["gflops"] if fma else float("nan")
        copy = copy_limit(n) or {}
        out[f"copy{n}"] = copy.get("gbps", float("nan"))
        out[f"copy{n} numpy"] = copy.get("numpy", float("nan"))
        out[f"copy{n} stream"] = copy.get("stream", float("nan"))
    return out


def systems(row, peers):
    """[(system, threads)] measured for ``row``: strata, its variants and each of ``peers``
    that the row can run (its function is there; torch.compile where the row asks)."""
    out = []
    for t in row.threads:
        out.append(("strata", t))
        out += [(v, t) for v in row.variants]
        for peer in peers:
            if getattr(row, PEERS[peer][1]) is None:
                continue
            if peer == "torch.compile" and not row.torch_compile:
                continue
            out.append((peer, t))
    return out


def _tolerance(row, system="") -> float:
    if system in NOT_F32:
        return 5e-2  # bf16 arithmetic (8 significant bits)
    return 2e-3 if row.group in ("matmul", "conv2d", "models", "attention") else 1e-4


def reference(row, torch_ok: bool) -> np.ndarray | None:
    """The row's result in float64: numpy on float64 inputs, else torch eager on float64
    tensors (None if neither can run)."""
    args = [a.astype(np.float64) if a.dtype.kind == "f" else a for a in row.inputs()]
    if row.numpy is not None:
        return np.asarray(row.numpy(*args), dtype=np.float64)
    if row.torch is None or not torch_ok:
        return None
    import torch

    targs = [torch.from_numpy(a) for a in args]
    with torch.no_grad():
        y = row.torch(*(row.torch_in(*targs) if row.torch_in else targs))
    if row.torch_out:
        y = row.torch_out(y)
    return y.contiguous().numpy().astype(np.float64)


def check(reference: np.ndarray, out: np.ndarray, tol: float) -> bool:
    if reference.shape != out.shape:
        return False
    scale = max(float(np.max(np.abs(reference))), 1e-30)
    return bool(np.max(np.abs(out.astype(np.float64) - reference)) <= tol * scale)


def measure(selected, peers, budget, log, processes=1, torch_ok=True):
    results = {}
    with tempfile.TemporaryDirectory(prefix="strata-bench-") as tmp:
        for row in selected:
            outputs = {}
            for system, threads in systems(row, peers):
                # the best of ``processes`` fresh processes, each with an empty cache: now
                # and then this VM runs a whole process 20-50% slower, whatever the code
                copies = []
                res, err = None, None
                for _ in range(processes):
                    one, err = _run([sys.executable, os.path.join(HERE, "suite_worker.py"),
                                     row.name, system, str(threads), tmp, "--budget",
                                     str(budget)], _env(threads, tempfile.mkdtemp(dir=tmp)), 900)
                    if one is not None and (res is None or one["warm_s"] < res["warm_s"]):
                        res = one
                    if row.limit == "copy" and system == "strata":
                        # This VM's memory bandwidth drifts by half over minutes: the copy
                        # a row is held against is measured right after it (the best of
                        # those, against the best strata run: the stricter comparison).
                        copy = copy_limit(threads)
                        if copy:
                            copies.append(copy)
                if res is not None:
                    outputs[(system, threads)] = np.load(res.pop("out"))
                else:
                    res = {"error": err}
                results[(row.name, system, threads)] = res
                log(f"{row.name:58s} {system:14s} {threads}t " +
                    (f"{res['warm_s'] * 1e3:9.3f} ms" if "warm_s" in res else res["error"]))
                if copies:
                    copy = max(copies, key=lambda c: c["gbps"])
                    results[(row.name, "copy", threads)] = {"warm_s": None, **copy}
                    log(f"{row.name:58s} {'copy':14s} {threads}t {copy['gbps']:9.1f} GB/s")
            try:
                ref = reference(row, torch_ok)
            except Exception as e:  # noqa: BLE001 - a reference that cannot run: say so
                log(f"{row.name}: no float64 reference ({type(e).__name__}: {e})")
                ref = None
            if ref is None:  # else the first of these systems' own results
                first = next((k for s in ("numpy", "torch", "jax") for k in outputs
                              if k[0] == s), None)
                ref = None if first is None else outputs[first].astype(np.float64)
            for key, out in outputs.items():
                r = results[(row.name, *key)]
                r["ok"] = ref is None or check(ref, out, _tolerance(row, key[0]))
            outputs.clear()
    return results


# ---- the report ---------------------------------------------------------------------------

def _ms(s):
    if s is None or s != s:
        return "—"
    if s >= 1:
        return f"{s:.2f} s"
    return f"{s * 1e3:.3g} ms" if s >= 1e-3 else f"{s * 1e6:.3g} µs"


def _get(results, row, system, threads, key="warm_s"):
    r = results.get((row.name, system, threads))
    return r.get(key) if r else None


def best_peer(results, row, threads, peers=PEERS):
    """(name, warm seconds) of the fastest f32 peer of ``row`` at ``threads`` whose result
    matched the reference, or (None, None)."""
    best = (None, None)
    for system in peers:
        if system in NOT_F32:
            continue
        r = results.get((row.name, system, threads))
        if not r or not r.get("warm_s") or r.get("ok") is False:
            continue
        if best[1] is None or r["warm_s"] < best[1]:
            best = (system, r["warm_s"])
    return best


def ratio_rows(selected, results):
    """One record per (row, strata system, threads): strata vs the best f32 peer at the same
    thread count, and the limit."""
    out = []
    for row in selected:
        for system in ["strata", *row.variants]:
            for t in row.threads:
                warm = _get(results, row, system, t)
                name, peer = best_peer(results, row, t)
                rec = {"row": row, "system": system, "threads": t, "warm": warm, "peer": peer,
                       "peer_name": name, "goal": row.best_goal,
                       "first": _get(results, row, system, t, "first_s"),
                       "faults": _get(results, row, system, t, "faults"),
                       "ok": _get(results, row, system, t, "ok"),
                       "error": _get(results, row, system, t, "error"),
                       "copy": _get(results, row, "copy", t, "gbps"),
                       "speed": peer / warm if warm and peer else None}
                out.append(rec)
    return out


def _limit_text(rec, lim):
    row, warm = rec["row"], rec["warm"]
    if not warm or not row.limit:
        return "—"
    n = rec["threads"]
    if row.limit == "fma":
        peak = lim.get(f"fma{n}") or lim.get("fma1")
        rate = row.flops / warm / 1e9
        return f"{rate:.0f} GFLOP/s = {rate / peak:.0%} of peak" if peak else f"{rate:.0f} GFLOP/s"
    bw = _copy_bw(rec, lim)
    rate = row.bytes / warm / 1e9
    return f"{rate:.1f} GB/s = {rate / bw:.0%} of copy ({bw:.1f})"


def _copy_bw(rec, lim) -> float:
    """The copy bandwidth a row is held against: measured right after it, with its thread
    count (else the run's start-up figure for that thread count)."""
    return rec.get("copy") or lim.get(f"copy{rec['threads']}") or \
        max(v for k, v in lim.items() if k.startswith("copy"))


def _met(rec, lim):
    row = rec["row"]
    if rec["speed"] is None:
        return "—"
    ok = rec["speed"] >= rec["goal"]
    if row.limit == "copy" and row.limit_goal and rec["warm"]:
        ok = ok and row.bytes / rec["warm"] / 1e9 >= row.limit_goal * _copy_bw(rec, lim)
    return "yes" if ok else "**no**"


def _peer_note(meta) -> str:
    ran = ", ".join(meta.get("peers", [])) or "none"
    text = f"**Peers measured:** {ran}."
    skipped = meta.get("skipped", {})
    if skipped:
        text += " **Skipped:** " + "; ".join(f"{k}: {v}" for k, v in skipped.items()) + "."
    return text + "  "


def markdown(selected, results, lim, meta) -> str:
    n = meta["cores"]
    nan = float("nan")
    fma1, fman = lim.get("fma1", nan), lim.get(f"fma{n}", nan)
    copy1, copyn = lim.get("copy1", float("nan")), lim.get(f"copy{n}", float("nan"))
    lines = ["# Benchmarks", "",
             "Written by `python bench/suite.py` from one run on one machine; every system timed "
             f"in its own fresh processes, the best of {meta.get('processes', 1)} kept for every "
             "system alike (this VM now and then runs a whole process 20-50% slower, whatever "
             "the code). Warm times are best-of-5 means per call; *first call* is "
             "strata's trace + compile with an empty cache (a peer's: its export / compile "
             "and first call). *best peer* is the fastest f32 peer whose result matched the "
             "float64 reference, at the same thread count; *speed vs best peer* is its time "
             "divided by strata's (above 1: strata is faster); *goal* is issue 38's target for "
             "that ratio (1.0, 1.2 on fused rows: MLP, attention, softmax, chain). "
             "`openvino bf16` (OpenVINO's default precision) is listed, never a best peer. "
             "No test asserts any of these numbers.", "",
             "![strata speed relative to the best peer, per row](benchmarks.png)", "",
             f"**Machine:** {meta['machine']}  ", f"**Versions:** {meta['versions']}  ",
             _peer_note(meta),
             f"**strata commit:** `{meta['commit']}`, {meta['date']}  ",
             f"**Limits measured in this run:** f32 FMA {fma1:.0f} GFLOP/s on 1 core, "
             f"{fman:.0f} on {n}; copy (read + write, the faster of `np.copyto` and a "
             f"streaming copy kernel with non-temporal stores; threads of one process timed "
             f"together) {copy1:.1f} GB/s on 1 thread, {copyn:.1f} GB/s on {n} "
             f"(np.copyto {lim.get('copy1 numpy', nan):.1f} / "
             f"{lim.get(f'copy{n} numpy', nan):.1f}, stream "
             f"{lim.get('copy1 stream', nan):.1f} / {lim.get(f'copy{n} stream', nan):.1f}). "
             "This VM's memory bandwidth drifts by as much as half between minutes, so each "
             "row held against the copy is measured against a copy run right after each of "
             "its processes (the best of those, in brackets).",
             ""]
    recs = ratio_rows(selected, results)
    groups = []
    for row in selected:
        if row.group not in groups:
            groups.append(row.group)
    for group in groups:
        lines += [f"## {group}", "",
                  "| row | strata | threads | warm | first call | faults/call | best peer "
                  "| peer warm | speed vs best peer | goal | met | machine limit |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for rec in recs:
            row = rec["row"]
            if row.group != group:
                continue
            warm = _ms(rec["warm"]) if rec["warm"] else f"failed: {rec['error']}"
            if rec["ok"] is False:
                warm += " (**wrong result**)"
            faults = "—" if rec["faults"] is None else f"{rec['faults']:.0f}"
            speed = "—" if rec["speed"] is None else f"{rec['speed']:.2f}"
            lines.append(f"| {row.name} | {rec['system']} | {rec['threads']} | {warm} | "
                         f"{_ms(rec['first'])} | {faults} | {rec['peer_name'] or '—'} | "
                         f"{_ms(rec['peer'])} | {speed} | ≥ {rec['goal']:g} | {_met(rec, lim)} | "
                         f"{_limit_text(rec, lim)} |")
        others = []
        for row in selected:
            if row.group != group:
                continue
            for system in PEERS:
                for t in row.threads:
                    w = _get(results, row, system, t)
                    first = _get(results, row, system, t, "first_s")
                    err = _get(results, row, system, t, "error")
                    if w or err:
                        bad = " (**wrong result**)" if _get(results, row, system, t,
                                                            "ok") is False else ""
                        extra = "" if system in ("numpy", "torch") or not w else \
                            f", first call {_ms(first)}"
                        prec = _get(results, row, system, t, "precision")
                        if system in NOT_F32 and prec:
                            extra += f", ran in {prec}, not an f32 peer"
                        others.append(f"{system} {t}t {_ms(w) if w else 'failed: ' + err}"
                                      f"{extra}{bad}")
            if others:
                lines += ["", f"- {row.name}: " + "; ".join(others)]
                others = []
        lines.append("")
    return "\n".join(lines)


def extras(log) -> str:
    """The sections of EXTRA, each script's markdown as it printed it (or why it failed)."""
    out = []
    for title, script, args in EXTRA:
        path = os.path.join(HERE, script)
        if not os.path.exists(path):
            continue
        log(f"running {script}")
        env = {k: v for k, v in os.environ.items() if k not in DROP_ENV}
        env["PYTHONPATH"] = os.pathsep.join(p for p in (HERE, env.get("PYTHONPATH")) if p)
        try:
            p = subprocess.run([sys.executable, path, *args], env=env, capture_output=True,
                               text=True, timeout=1800)
            body = p.stdout.strip() if p.returncode == 0 else \
                f"(`{script}` failed: {(p.stderr.strip().splitlines() or ['?'])[-1]})"
        except subprocess.TimeoutExpired:
            body = f"(`{script}` timed out)"
        out += [f"## {title}", "", f"`python bench/{script}`, in the same run:", "", body, ""]
    return "\n".join(out)


def plot(selected, results, lim, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    recs = [r for r in ratio_rows(selected, results)
            if r["system"] == "strata" and r["threads"] == max(r["row"].threads)]
    labels = [f"{r['row'].name} vs {r['peer_name'] or 'no peer'}" for r in recs]
    speeds = [r["speed"] or float("nan") for r in recs]
    goals = [r["goal"] for r in recs]
    colors = ["tab:green" if _met(r, lim) == "yes" else "tab:red" for r in recs]
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(recs) + 1.5))
    y = np.arange(len(recs))[::-1]
    ax.barh(y, speeds, color=colors)
    ax.scatter(goals, y, marker="|", s=200, color="black", label="goal", zorder=3)
    ax.axvline(1.0, color="gray", lw=1)
    ax.set_xscale("log")
    ax.set_yticks(y, labels, fontsize=7)
    ax.set_xlabel("speed vs the best f32 peer (its time / strata's; > 1: strata faster), "
                  "strata at its largest thread count")
    ax.legend(loc="lower right")
    ax.set_title("strata vs the best peer (green: goal met, incl. the machine-limit goal)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _meta(peers):
    import numpy
    from common import git_revision

    from strata.codegen.host import cpuinfo, f32_lanes

    versions = [f"Python {platform.python_version()}", f"numpy {numpy.__version__}"]
    try:
        from importlib.metadata import version

        versions.append(f"MLIR bindings {version('xtc-mlir-python-bindings')}")
    except Exception:  # noqa: BLE001 - best effort
        pass
    from importlib.metadata import PackageNotFoundError, version

    onnx = ("onnxruntime", "openvino", "openvino bf16")
    for dist, label, users in (("torch", "torch", TORCH_BASED), ("jax", "jax", ("jax", "iree")),
                               ("jaxlib", "jaxlib", ("jax", "iree")),
                               ("iree-base-compiler", "IREE compiler", ("iree",)),
                               ("iree-base-runtime", "IREE runtime", ("iree",)),
                               ("onnxruntime", "onnxruntime", ("onnxruntime",)),
                               ("openvino", "OpenVINO", ("openvino", "openvino bf16")),
                               ("onnx", "onnx", onnx), ("onnxscript", "onnxscript", onnx)):
        if any(p in peers for p in users):
            try:
                versions.append(f"{label} {version(dist)}")
            except PackageNotFoundError:
                pass
    lanes = f32_lanes()
    isa = {16: "AVX-512", 8: "AVX2", 4: "128-bit vectors"}[lanes]
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30
    return {"machine": f"{cpuinfo('model name', platform.processor())} ({isa}), "
                       f"{os.cpu_count()} cores, {mem:.0f} GiB, {platform.system()} "
                       f"{platform.machine()}",
            "versions": ", ".join(versions), "commit": git_revision(),
            "date": datetime.date.today().isoformat(), "cores": os.cpu_count() or 1,
            "lanes": lanes}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a few rows, short budgets")
    p.add_argument("--rows", default="", help="a regex: only rows whose name matches")
    p.add_argument("--out", default=os.path.join(HERE, "..", "docs"),
                   help="folder for benchmarks.md and benchmarks.png")
    p.add_argument("--no-torch", action="store_true",
                   help="leave out every torch-based peer (torch, torch.compile, onnxruntime, "
                   "openvino: they export the torch function) even if installed")
    p.add_argument("--peers", default=None,
                   help="comma-separated peers to run (default: every installed one): "
                   + ", ".join(PEERS) + " (also ort, openvino-bf16)")
    p.add_argument("--deploy", action="store_true",
                   help="issue 38's rows (matmul 1024, MLP, softmax, attention 8x512x64, conv "
                   "+bias +relu, layer_norm, chain, and the decode shapes: one token's x @ w "
                   "and attention over a KV cache) at 1 and 2 threads, against every peer")
    p.add_argument("--budget", type=float, default=None, help="seconds of warm calls per system")
    p.add_argument("--processes", type=int, default=None,
                   help="fresh processes per (row, system, threads), the best kept (default 2; "
                   "1 with --quick)")
    p.add_argument("--no-extras", action="store_true",
                   help="leave out the runtime and PyTorch-backend scripts' tables")
    a = p.parse_args(argv)
    peers, skipped = choose_peers(a.peers, a.no_torch)
    torch_ok = not a.no_torch and not missing_packages("torch")
    selected = [r for r in all_rows() if (not a.quick or r.quick) and (not a.deploy or r.deploy)
                and re.search(a.rows, r.name)]
    if not selected:
        sys.exit(f"no row matches '{a.rows}'")
    if a.deploy:
        for r in selected:
            r.threads = (1, 2)
    budget = a.budget or (0.2 if a.quick else 1.0)
    meta = _meta(peers)
    meta.update(peers=peers, skipped=skipped)
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    lim = limits(meta["cores"], meta["lanes"])
    log(f"limits: {lim}")
    processes = a.processes or (1 if a.quick else 2)
    meta["processes"] = processes
    for name, why in skipped.items():
        log(f"skipping {name}: {why}")
    results = measure(selected, peers, budget, log, processes, torch_ok)
    os.makedirs(a.out, exist_ok=True)
    text = markdown(selected, results, lim, meta)
    if not a.quick and not a.rows and not a.deploy and not a.no_extras:
        text += extras(log)
    try:
        plot(selected, results, lim, os.path.join(a.out, "benchmarks.png"))
    except ImportError:
        text = text.replace("![strata speed relative to the best peer, per row](benchmarks.png)",
                            "(no plot: matplotlib is not installed; `pip install -e '.[bench]'`)")
    tmp = os.path.join(a.out, ".benchmarks.md.tmp")
    with open(tmp, "w") as f:
        f.write(text + "\n")
    os.replace(tmp, os.path.join(a.out, "benchmarks.md"))
    print(text)


if __name__ == "__main__":
    main()
