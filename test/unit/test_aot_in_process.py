"""The on-disk cache's libraries built in process (STRATA_AOT=engine: ExecutionEngine
object + link) vs the default opt/llc road.

The in-process road must give the same results as the opt/llc one, run only the
linker as a subprocess, survive code that calls the async runtime and the BLAS
(LLVM aborts the process on a symbol it cannot resolve: those cases run in a
subprocess), and leave export_library on the position-independent opt/llc road.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import strata
from strata.runtime import aot, cache

pytestmark = pytest.mark.skipif(not aot.available(), reason="no C compiler driver (cc)")


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("STRATA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("STRATA_CACHE", raising=False)
    monkeypatch.setenv("STRATA_AOT", "engine")
    return tmp_path / "cache"


@pytest.fixture
def tools_run(monkeypatch):
    """The basenames of the tools aot runs as subprocesses."""
    ran = []
    real, real_start = aot._run, aot._start_piped

    def record(cmd, what):
        ran.append(os.path.basename(cmd[0]))
        real(cmd, what)

    def record_piped(first, second, tmp, stdin):  # opt | llc, also those started early
        ran.extend(os.path.basename(cmd[0]) for cmd, _ in (first, second))
        return real_start(first, second, tmp, stdin)

    monkeypatch.setattr(aot, "_run", record)
    monkeypatch.setattr(aot, "_start_piped", record_piped)
    return ran


def _mlp(x, w1, b1, w2):
    return strata.gelu(x @ w1 + b1, approximate="tanh") @ w2


def _args(m=13, k=29, h=37, n=11, dtype=np.float32):
    rng = np.random.default_rng(1)
    return [rng.standard_normal(s).astype(dtype) for s in ((m, k), (k, h), (h,), (h, n))]


def _ref(x, w1, b1, w2):
    x, w1, b1, w2 = (a.astype(np.float64) for a in (x, w1, b1, w2))
    h = x @ w1 + b1
    g = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h ** 3)))
    return g @ w2


@pytest.mark.parametrize("shape", [(13, 29, 37, 11), (1, 1, 1, 1), (64, 256, 512, 10)])
def test_in_process_library_runs_only_the_linker(fresh_cache, tools_run, shape):
    args = _args(*shape)
    out = strata.jit(_mlp, blas="never")(*args)
    np.testing.assert_allclose(out, _ref(*args), rtol=2e-4, atol=2e-4)
    assert tools_run == [os.path.basename(aot._linker())]


def test_default_tools_road_gives_the_same_results(fresh_cache, tools_run, monkeypatch):
    args = _args()
    inproc = strata.jit(_mlp, blas="never")(*args)
    monkeypatch.delenv("STRATA_AOT")  # a knob: part of the key, so a new entry
    tools = strata.jit(_mlp, blas="never")(*args)
    # One opt | llc per part: threaded code on 2+ CPUs is compiled as two parts at once.
    ran = [t for t in tools_run if t in ("opt", "llc")]
    assert ran in (["opt", "llc"], ["opt", "llc"] * 2)
    np.testing.assert_allclose(inproc, tools, rtol=1e-5, atol=1e-5)


def test_export_library_stays_on_the_tools_road(tmp_path, tools_run):
    args = _args()
    path = strata.export_library(_mlp, *args, path=str(tmp_path / "mlp.so"))
    assert os.path.exists(path)
    assert "opt" in tools_run and "llc" in tools_run


def test_a_new_process_hits_the_in_process_entry(fresh_cache):
    args = _args()
    first = strata.jit(_mlp, blas="never")(*args)
    code = ("import numpy as np, strata, sys; sys.path.insert(0, %r); "
            "import test_aot_in_process as t; f = strata.jit(t._mlp, blas='never'); "
            "out = f(*t._args()); print(f.stats.cache_hits, float(np.abs(out).sum()))"
            % os.path.dirname(__file__))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ), timeout=300)
    assert p.returncode == 0, p.stderr
    hits, total = p.stdout.split()
    assert int(hits) == 1
    assert float(total) == pytest.approx(float(np.abs(first).sum()), rel=1e-6)


_CRASHY = r"""
import json, sys
import numpy as np
import strata
kind = sys.argv[1]
rng = np.random.default_rng(0)
if kind == "threaded":      # calls the async runtime (threads > 1)
    x = rng.standard_normal((512, 384)).astype(np.float32)
    w = rng.standard_normal((384, 256)).astype(np.float32)
    f = strata.jit(lambda x, w: strata.relu(x @ w), threads=2, blas="never")
    ref = np.maximum(x.astype(np.float64) @ w, 0)
else:                       # calls numpy's OpenBLAS (strata-blas)
    x = rng.standard_normal((256, 512)).astype(np.float32)
    w = rng.standard_normal((512, 384)).astype(np.float32)
    f = strata.jit(lambda x, w: x @ w, blas="always")
    ref = x.astype(np.float64) @ w
out = f(x, w)
print(json.dumps({"err": float(np.abs(out - ref).max() / np.abs(ref).max()),
                  "compiles": f.stats.compiles}))
"""


@pytest.mark.parametrize("kind", ["threaded", "blas"])
def test_code_calling_runtime_libraries_builds_in_process(fresh_cache, tmp_path, kind):
    script = tmp_path / "crashy.py"
    script.write_text(_CRASHY)
    p = subprocess.run([sys.executable, str(script), kind], capture_output=True, text=True,
                       env=dict(os.environ), timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["compiles"] == 1 and out["err"] < 1e-5


_ABORTS = """
from mlir import ir
from strata.runtime import aot
with ir.Context():
    m = ir.Module.parse('''
llvm.func @g(%x: i128, %y: i128) -> i128 attributes {llvm.emit_c_interface} {
  %z = llvm.sdiv %x, %y : i128
  llvm.return %z : i128
}''')
    aot._object_in_process(m, "unused.o", 2)
"""


def test_the_engine_aborts_on_a_helper_it_cannot_resolve(tmp_path):
    """Why the engine road is opt-in: a libcall the process lacks kills it (a signal)."""
    p = subprocess.run([sys.executable, "-c", _ABORTS], capture_output=True, text=True,
                       cwd=tmp_path, timeout=300)
    assert p.returncode < 0 and "__divti3" in p.stderr


def test_memos_live_outside_the_compilation_cache(fresh_cache, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(cache, "_SOURCE", None)
    monkeypatch.setattr(aot, "_LLC_VERSION", None)
    strata.jit(_mlp, blas="never")(*_args())
    memo = tmp_path / "xdg" / "strata-memo"
    assert sorted(os.listdir(memo)) == ["llc-version.json", "source-fingerprint.json"]
    assert not [n for n in os.listdir(fresh_cache) if n.startswith(".") and
                n.endswith(".json")]
