"""The benchmark scripts stay importable (they are run by hand and by bench/gpu_check.sh)."""

from __future__ import annotations

import importlib
import os
import sys

import pytest

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "bench")


@pytest.mark.parametrize("name", ["common", "ops_bench", "fusion_bench", "gpu_bench",
                                  "blas_bench", "runtime_bench", "rows_bench"])
def test_bench_script_imports(name, monkeypatch):
    monkeypatch.syspath_prepend(os.path.abspath(BENCH))
    module = importlib.import_module(name)
    assert module.__doc__
    if name == "common":
        assert "strata threads" in module.machine()
    sys.modules.pop(name, None)


def test_suite_quick_run_writes_report(tmp_path):
    """One small row through the whole suite: limits, a fresh process per system, the
    cross-check of results and the report (numbers are printed, never asserted)."""
    import subprocess

    out = tmp_path / "docs"
    p = subprocess.run([sys.executable, os.path.join(BENCH, "suite.py"), "--quick", "--rows",
                        "^demo mlp$", "--no-torch", "--budget", "0.05", "--out", str(out)],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    text = (out / "benchmarks.md").read_text()
    assert "**Limits measured in this run:** f32 FMA" in text
    row = next(line for line in text.splitlines() if line.startswith("| demo mlp | strata |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[6] == "numpy" and cells[3].endswith(("ms", "µs"))
    assert "wrong result" not in text and "failed" not in text
    assert not (out / ".benchmarks.md.tmp").exists()


def test_suite_rows_compute_the_same_function_in_every_system():
    """Each row's strata and numpy programs agree on small inputs (the suite would flag it
    at benchmark time, this catches a wrong row definition in CI)."""
    sys.path.insert(0, os.path.abspath(BENCH))
    try:
        import suite_rows
    finally:
        sys.path.pop(0)
    import numpy as np

    import strata

    names = set()
    for row in suite_rows.rows():
        assert row.name not in names
        names.add(row.name)
        assert row.peer in ("numpy", "torch", "torch.compile")
        if row.numpy is None or row.group in ("matmul", "models"):
            continue
        small = [tuple(min(d, 33) for d in s) for s in row.shapes]
        row.shapes = small
        args = row.inputs()
        got = strata.jit(row.strata)(*args)
        want = row.numpy(*[a.astype(np.float64) if a.dtype.kind == "f" else a for a in args])
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-4, err_msg=row.name)


def test_torch_bench_keeps_the_best_round_and_judges_the_cold_goal(monkeypatch):
    """bench/torch_bench.py's table from made-up rounds (no torch needed): the fastest warm
    and cold of each system's rounds, the spread of the per-round warm ratio, the trace's
    share, and a cold goal called unreachable only where the trace alone exceeds it."""
    monkeypatch.syspath_prepend(os.path.abspath(BENCH))
    torch_bench = importlib.import_module("torch_bench")
    try:
        runs = {"m": {
            "trace": [{"cold": 0.5, "warm": None}, {"cold": 0.4, "warm": None}],
            "inductor": [{"cold": 1.5, "warm": 0.004}, {"cold": 1.0, "warm": 0.002}],
            "strata": [{"cold": 2.0, "warm": 0.003, "err": 1e-7, "eager_ops": 0, "ops": 9},
                       {"error": "boom"}, ],
        }}
        best = {n: {s: torch_bench.best(v) for s, v in per.items()} for n, per in runs.items()}
        assert best["m"]["inductor"] == {"cold": 1.0, "warm": 0.002, "rounds": 2}
        assert best["m"]["strata"]["cold"] == 2.0 and best["m"]["strata"]["rounds"] == 1
        assert torch_bench.best([{"error": "x"}]) == {"error": "x"}
        # the third round of strata failed: only the first pairs with inductor's
        assert torch_bench.warm_spread(runs["m"]) == ""
        runs["m"]["strata"][1] = {"cold": 3.0, "warm": 0.004}
        assert torch_bench.warm_spread(runs["m"]) == " (0.75-2.00)"
        assert torch_bench.cold_goal(best["m"]).startswith("**no**: the trace alone is 0.40")
        row = torch_bench.table(best, runs).splitlines()[2]
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[4] == "1.50 (0.75-2.00)" and cells[8] == "1.60 s" and cells[9] == "2.00"
        fast = {"strata": {"cold": 0.15}, "inductor": {"cold": 1.0}, "trace": {"cold": 0.1}}
        assert torch_bench.cold_goal(fast) == "met"
        slow = {"strata": {"cold": 0.5}, "inductor": {"cold": 1.0}, "trace": {"cold": 0.1}}
        assert torch_bench.cold_goal(slow) == "**no**"
    finally:
        sys.modules.pop("torch_bench", None)


# ---- the deployment peers (issue 38) -------------------------------------------------------

def _suite():
    sys.path.insert(0, os.path.abspath(BENCH))
    try:
        import suite
        import suite_rows
    finally:
        sys.path.pop(0)
    return suite, suite_rows


def _require(*packages):
    """Skip unless each package is installed. Looked up, not imported: IREE's compiler
    bindings cannot load into a process that holds strata's MLIR bindings (the peers run in
    their own processes, as in the suite)."""
    import importlib.util

    for name in packages:
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            pytest.skip(f"{name} is not installed (pip install -e '.[bench]')")


# (system, the packages it needs, a row, the cap on every input dimension): one small row
# each, chosen to cover different paths (a conv in NHWC through the ONNX graph's layout
# views, a conv with bias, attention, an MLP)
PEER_CASES = [
    ("jax", ("jax",), "conv2d 3x3/1 1x64x56x56->64 NHWC +relu", 8),
    ("iree", ("jax", "iree.compiler", "iree.runtime"), "attention 8x512x64", 16),
    ("onnxruntime", ("torch", "onnxscript", "onnxruntime"),
     "conv2d 3x3/1 1x64x56x56->64 NHWC +relu", 8),
    ("openvino", ("torch", "onnxscript", "openvino"),
     "conv2d 3x3/1 1x64x56x56->64 NCHW +bias +relu", 8),
    ("openvino bf16", ("torch", "onnxscript", "openvino"), "MLP relu(x@w1+b1)@w2 256x1024x4096x1024",
     16),
]


@pytest.mark.parametrize("system,packages,row_name,cap", PEER_CASES,
                         ids=[c[0] for c in PEER_CASES])
def test_peer_runs_a_tiny_row_and_matches_the_reference(system, packages, row_name, cap,
                                                        tmp_path):
    """Each deployment peer in its own process (bench/suite_worker.py) on one row capped to
    a few elements per dimension: the result equals the float64 reference (numpy, else
    torch eager) at the suite's own tolerance. The time it prints is never looked at."""
    import json
    import subprocess

    import numpy as np

    _require(*packages, "torch")  # torch: the reference of the conv rows
    suite, suite_rows = _suite()
    p = subprocess.run([sys.executable, os.path.join(BENCH, "suite_worker.py"), row_name,
                        system, "1", str(tmp_path), "--budget", "0.01", "--max-dim", str(cap)],
                       capture_output=True, text=True, timeout=300,
                       env={**os.environ, **suite._env(1, str(tmp_path))})
    assert p.returncode == 0, p.stderr[-3000:]
    res = json.loads(p.stdout.strip().splitlines()[-1])
    row = suite_rows.by_name(row_name)
    row.shapes = [tuple(min(d, cap) for d in s) for s in row.shapes]
    ref = suite.reference(row, torch_ok=True)
    out = np.load(res["out"])
    assert out.shape == ref.shape and out.dtype == np.float32
    assert suite.check(ref, out, suite._tolerance(row, system)), np.abs(out - ref).max()
    if system.startswith("openvino"):
        assert res["precision"] in ("f32", "bf16")


JAX_CHECK = """
import sys
import jax
import numpy as np
import suite, suite_rows

def small(row):
    # the row's shapes capped to a few elements (a conv's channels kept: groups divide them)
    if row.group == "conv2d":
        x = list(row.shapes[0])
        for i in ((2, 3) if "NCHW" in row.name else (1, 2)):
            x[i] = min(x[i], 10)
        return [tuple(x), *row.shapes[1:]]
    return [tuple(min(d, 33) for d in s) for s in row.shapes]

bad, n = [], 0
for row in suite_rows.rows():
    if row.jax is None:
        continue
    row.shapes = small(row)
    ref = suite.reference(row, torch_ok=True)
    out = np.asarray(jax.jit(row.jax)(*row.inputs()))
    n += 1
    if not suite.check(ref, out, suite._tolerance(row)):
        bad.append(row.name)
print(n, bad)
sys.exit(1 if bad else 0)
"""


def test_suite_rows_jax_functions_compute_the_row():
    """Every row's jax function (run by the jax and iree peers) against the row's float64
    reference on small inputs. In its own process, as jax's own MLIR and threads stay out
    of the test process."""
    import subprocess

    _require("jax", "torch")
    suite, suite_rows = _suite()
    with_jax = {r.name for r in suite_rows.rows() if r.jax is not None}
    assert with_jax >= {r.name for r in suite_rows.rows() if r.deploy}
    p = subprocess.run([sys.executable, "-c", JAX_CHECK], capture_output=True, text=True,
                       timeout=300, env={**os.environ, **suite._env(2, "")})
    assert p.returncode == 0, p.stdout + p.stderr[-3000:]
    assert p.stdout.split()[0] == str(len(with_jax))


def test_suite_deploy_rows_are_the_issues_rows():
    _, suite_rows = _suite()
    deploy = [r.name for r in suite_rows.rows() if r.deploy]
    # the issue's seven, and its decode shapes (one token's x @ w, attention over a KV
    # cache), held against the copy bandwidth
    assert deploy == ["matmul 1024x1024x1024", "decode x@w 1x4096x4096",
                      "decode attention 32x1x4096x128",
                      "conv2d 3x3/1 1x64x56x56->64 NCHW +bias +relu",
                      "attention 8x512x64", "softmax 4096x4096", "layer_norm 4096x4096",
                      "chain tanh(relu(x*w+b)*.5+.1)*2 4096x4096",
                      "MLP relu(x@w1+b1)@w2 256x1024x4096x1024"]
    fused = {r.name for r in suite_rows.rows() if r.deploy and r.best_goal == 1.2}
    assert fused == {deploy[4], deploy[5], deploy[7], deploy[8]}
    decode = [r for r in suite_rows.rows() if r.group == "decode"]
    assert [r.name for r in decode] == deploy[1:3]
    assert all(r.limit == "copy" and r.bytes > 0 for r in decode)


def test_suite_report_names_the_best_f32_peer(monkeypatch):
    """The report from made-up results: strata is held against the fastest peer whose result
    matched at the same thread count (a wrong result and OpenVINO's bf16 never count), the
    goal is 1.2 on a fused row, and a peer that failed or was skipped is listed with why."""
    suite, suite_rows = _suite()
    row = suite_rows.by_name("softmax 4096x4096")
    row.threads = (1, 2)
    r = lambda w, ok=True, **kw: {"warm_s": w, "first_s": 1.0, "faults": 0, "ok": ok, **kw}  # noqa: E731
    results = {
        (row.name, "strata", 1): r(0.010), (row.name, "strata", 2): r(0.006),
        (row.name, "numpy", 1): r(0.050), (row.name, "numpy", 2): r(0.004, ok=False),
        (row.name, "onnxruntime", 1): r(0.020), (row.name, "onnxruntime", 2): r(0.012),
        (row.name, "openvino bf16", 1): r(0.001, precision="bf16"),
        (row.name, "openvino bf16", 2): r(0.001, precision="bf16"),
        (row.name, "jax", 1): r(0.015), (row.name, "jax", 2): {"error": "boom: unsupported"},
    }
    assert suite.best_peer(results, row, 1) == ("jax", 0.015)
    assert suite.best_peer(results, row, 2) == ("onnxruntime", 0.012)
    recs = suite.ratio_rows([row], results)
    assert [(x["threads"], x["peer_name"], round(x["speed"], 3), x["goal"]) for x in recs] == \
        [(1, "jax", 1.5, 1.2), (2, "onnxruntime", 2.0, 1.2)]
    meta = {"cores": 2, "machine": "m", "versions": "v", "commit": "c", "date": "d",
            "peers": ["numpy", "jax", "onnxruntime", "openvino bf16"],
            "skipped": {"iree": "not installed (iree.compiler)"}}
    text = suite.markdown([row], results, {"fma1": 1.0, "fma2": 2.0, "copy1": 10.0,
                                           "copy2": 10.0}, meta)
    line = next(x for x in text.splitlines() if x.startswith(f"| {row.name} | strata | 2 |"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells[6:10] == ["onnxruntime", "12 ms", "2.00", "≥ 1.2"]
    assert "**Skipped:** iree: not installed" in text
    assert "jax 2t failed: boom: unsupported" in text
    assert "openvino bf16 1t 1 ms, first call 1.00 s, ran in bf16, not an f32 peer" in text
    assert "numpy 2t 4 ms (**wrong result**)" in text


def test_suite_chooses_peers(monkeypatch):
    suite, _ = _suite()
    run, skipped = suite.choose_peers("numpy,ort")
    assert run == ["numpy", "onnxruntime"] or "onnxruntime" in skipped
    monkeypatch.setitem(suite.PEERS, "jax", (("no_such_package_for_strata",), "jax"))
    run, skipped = suite.choose_peers(None, no_torch=True)
    assert "jax" not in run and "no_such_package_for_strata" in skipped["jax"]
    assert not set(run) & set(suite.TORCH_BASED) and "numpy" in run
    with pytest.raises(SystemExit):
        suite.choose_peers("numpy,tensorflow")
