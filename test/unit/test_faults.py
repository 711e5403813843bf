"""The runtime under faults: threads, damaged cache entries, racing processes, huge buffers.

Everything that could crash runs in a subprocess, so a signal fails a test
instead of killing the test runner; each subprocess checks its own results
against numpy and prints one line the test reads back.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from strata.runtime import aot

HERE = os.path.dirname(os.path.abspath(__file__))
needs_cc = pytest.mark.skipif(not aot.available(), reason="no C compiler driver (cc)")

# A program with a matmul, a reduction, an elementwise chain and a bool result:
# each case below compiles it (or the cache entry it leaves) and checks it.
PROGRAM = """
import os
import numpy as np, strata
def f(x, w):
    y = strata.relu(x @ w) * 2.0 + 1.0
    return y, y.sum(axis=1), y > 3.0
def ref(x, w):
    y = np.maximum(x.astype(np.float64) @ w, 0) * 2 + 1
    return y, y.sum(axis=1), y > 3.0
def args(m=5, k=7, n=3, seed=0):
    r = np.random.default_rng(seed)
    return (r.standard_normal((m, k)).astype(np.float32),
            r.standard_normal((k, n)).astype(np.float32))
def check(got, x, w):
    y, s, b = got
    ey, es, eb = ref(x, w)
    np.testing.assert_allclose(y, ey, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(s, es, rtol=1e-5, atol=1e-4)
    assert b.dtype == np.bool_
    # where y is not within rounding of the threshold, the comparison must agree
    clear = np.abs(ey - 3.0) > 1e-4
    assert (b == eb)[clear].all()
"""


def _run(code: str, env=None, timeout=300, preexec_fn=None):
    """Runs ``PROGRAM`` + ``code`` in a fresh interpreter; returns the CompletedProcess."""
    full = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-c", PROGRAM + textwrap.dedent(code)],
                          capture_output=True, text=True, env=full, timeout=timeout,
                          preexec_fn=preexec_fn)


def _ok(p) -> str:
    """The subprocess's stdout, after checking it ended normally (no signal, no error)."""
    if p.returncode < 0:
        pytest.fail(f"killed by {signal.Signals(-p.returncode).name}\n{p.stderr[-3000:]}")
    assert p.returncode == 0, p.stderr[-3000:]
    assert "Fatal Python error" not in p.stderr, p.stderr[-3000:]
    return p.stdout


# -- threads ------------------------------------------------------------------------------

THREADS = """
import threading
def hammer(fns, shapes, threads=8, calls=60):
    barrier = threading.Barrier(threads)
    wrong, errors = [], []
    def worker(t):
        try:
            barrier.wait()          # the first call comes from every thread at once
            for i in range(calls):
                fn = fns[(t + i) % len(fns)]
                x, w = args(*shapes[(t * 7 + i) % len(shapes)], seed=t * 1000 + i)
                got = fn(x, w)
                try:
                    check(got, x, w)
                except AssertionError:
                    wrong.append((t, i))
        except Exception as e:
            errors.append(repr(e))
    ts = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    return wrong, errors
"""


@pytest.mark.parametrize("cache", ["1", "0"], ids=["aot-library", "jit-engine"])
def test_one_function_from_eight_threads_same_shape(cache, tmp_path):
    out = _ok(_run(THREADS + """
f1 = strata.jit(f)
wrong, errors = hammer([f1], [(5, 7, 3)])
print(len(wrong), len(errors), f1.stats.compiles, errors[:1])
""", env={"STRATA_CACHE": cache, "STRATA_CACHE_DIR": str(tmp_path)}))
    wrong, errors, compiles = out.split()[:3]
    assert (wrong, errors) == ("0", "0"), out
    assert compiles == "1", f"the first call from 8 threads compiled {compiles} times"


def test_two_functions_interleaved_mixed_shapes_from_eight_threads(tmp_path):
    out = _ok(_run(THREADS + """
f1 = strata.jit(f)
f2 = strata.jit(f, fusion=False, threads=2)
shapes = [(5, 7, 3), (1, 1, 1), (64, 33, 17), (130, 70, 129), (3, 200, 2)]
wrong, errors = hammer([f1, f2], shapes, calls=50)
print(len(wrong), len(errors), errors[:1])
""", env={"STRATA_CACHE_DIR": str(tmp_path)}))
    assert out.split()[:2] == ["0", "0"], out


def test_compiled_program_shared_by_threads_with_eviction(tmp_path):
    # Variants evicted while other threads call them must stay valid for those calls.
    out = _ok(_run(THREADS + """
f1 = strata.jit(f, max_variants=2, automatic_dynamic=False, max_recompiles=1000)
shapes = [(5, 7, 3), (6, 7, 3), (7, 7, 3), (8, 7, 3)]
wrong, errors = hammer([f1], shapes, calls=40)
print(len(wrong), len(errors), len(f1.variants()), errors[:1])
""", env={"STRATA_CACHE_DIR": str(tmp_path)}))
    assert out.split()[:3] == ["0", "0", "2"], out


# -- damaged cache entries ----------------------------------------------------------------

def _damage(folder, how):
    lib, meta, manifest = (os.path.join(folder, n) for n in ("lib.so", "meta.json",
                                                             "manifest.json"))
    if how == "truncated-lib":
        with open(lib, "r+b") as f:
            f.truncate(os.path.getsize(lib) // 3)
    elif how == "overwritten-code":
        data = bytearray(open(lib, "rb").read())
        text = data.find(b"\x55\x48\x89\xe5")  # somewhere in the code; else the middle
        at = text if text > 0 else len(data) // 2
        data[at:at + 64] = b"\xcc" * 64       # int3: SIGTRAP if it ever ran
        open(lib, "wb").write(bytes(data))
    elif how == "edited-result-shape":
        m = json.load(open(meta))
        m["results"][0][0] = [5000, 5000]
        json.dump(m, open(meta, "w"))
    elif how == "edited-result-shape-and-manifest":  # a consistent lie: meta vs the IR
        import hashlib

        m = json.load(open(meta))
        m["results"][0][0] = [5000, 5000]
        json.dump(m, open(meta, "w"))
        sums = json.load(open(manifest))
        sums["meta.json"] = hashlib.sha256(open(meta, "rb").read()).hexdigest()
        json.dump(sums, open(manifest, "w"))
    elif how == "garbage-meta":
        open(meta, "w").write("{not json")
    elif how == "missing-manifest":
        os.unlink(manifest)
    elif how == "garbage-manifest":
        open(manifest, "w").write("[1, 2")
    elif how == "missing-lib":
        os.unlink(lib)
    elif how == "empty-lib":
        open(lib, "wb").close()
    else:  # pragma: no cover
        raise ValueError(how)


DAMAGES = ["truncated-lib", "overwritten-code", "edited-result-shape",
           "edited-result-shape-and-manifest", "garbage-meta", "missing-manifest",
           "garbage-manifest", "missing-lib", "empty-lib"]
USE = """
import warnings
warnings.simplefilter("always")
x, w = args()
fn = strata.jit(f)
check(fn(x, w), x, w)
check(strata.jit(f)(x, w), x, w)
print("hits", fn.stats.cache_hits)
"""


@needs_cc
@pytest.mark.parametrize("how", DAMAGES)
def test_a_damaged_cache_entry_is_reported_once_removed_and_rebuilt(how, tmp_path):
    env = {"STRATA_CACHE_DIR": str(tmp_path / "cache")}
    assert "hits 0" in _ok(_run(USE, env=env))
    (entry,) = [e for e in os.listdir(tmp_path / "cache") if not e.startswith(".")]
    _damage(tmp_path / "cache" / entry, how)
    p = _run(USE + "\nx2, w2 = args(6, 7, 3)\ncheck(strata.jit(f)(x2, w2), x2, w2)\n", env=env)
    out = _ok(p)
    assert "hits 0" in out  # the damaged entry was not used
    assert p.stderr.count("StrataCacheWarning") == 1, p.stderr
    assert "damaged cache entry" in p.stderr and entry in p.stderr
    # rebuilt: a third process hits it without a warning
    p = _run(USE, env=env)
    assert "hits 1" in _ok(p) and "StrataCacheWarning" not in p.stderr, p.stderr


@needs_cc
def test_the_cache_root_is_created_private(tmp_path):
    root = tmp_path / "deep" / "cache"
    _ok(_run(USE, env={"STRATA_CACHE_DIR": str(root)}))
    assert (os.stat(root).st_mode & 0o777) == 0o700


@needs_cc
def test_processes_filling_one_cache_at_once(tmp_path):
    env = {**os.environ, "STRATA_CACHE_DIR": str(tmp_path / "cache")}
    code = PROGRAM + textwrap.dedent("""
        import sys
        for seed in range(3):
            x, w = args(4 + seed, 9, 5, seed=int(sys.argv[1]))
            check(strata.jit(f)(x, w), x, w)
        print("ok")
    """)
    procs = [subprocess.Popen([sys.executable, "-c", code, str(i)], env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for i in range(4)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0 and out.strip() == "ok", err[-3000:]
        assert "StrataCacheWarning" not in err, err
    entries = os.listdir(tmp_path / "cache")
    assert len(entries) == 3, entries  # one per shape; no leftover temporary folders


# -- buffers larger than the process can allocate -----------------------------------------

def test_a_huge_intermediate_raises_memory_error_at_the_users_line():
    code = """
n = 10**6
x = np.ones((n, 1), np.float32); y = np.ones((1, n), np.float32)
w = np.ones((n, 2), np.float32)
g = strata.jit(lambda x, y, w: (x + y) @ w)
try:
    g(x, y, w)
    print("no error")
except MemoryError as e:
    print(type(e).__name__, isinstance(e, strata.StrataError))
    print(e)
"""
    out = _ok(_run(code))
    line = (PROGRAM + code).splitlines().index("g = strata.jit(lambda x, y, w: (x + y) @ w)") + 1
    col = len("g = strata.jit(lambda x, y, w: (") + 1  # the add, x + y
    assert out.startswith("StrataMemoryError True"), out
    assert f"<string>:{line}:{col}: error: main: an intermediate buffer " \
           "memref<1000000x1000000xf32> needs 3.64 TiB" in out, out


def test_an_intermediate_over_the_address_space_limit_raises_memory_error(tmp_path):
    # A 2 GiB temporary with 1 GiB of address space left under RLIMIT_AS: malloc
    # would fail inside the compiled code.
    out = _ok(_run("""
import resource
with open("/proc/self/statm") as fh:
    mapped = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
resource.setrlimit(resource.RLIMIT_AS, (mapped + (1 << 30), resource.RLIM_INFINITY))
m = 2**15
x = np.ones((m, 1), np.float32); y = np.ones((1, 2**14), np.float32)
w = np.ones((2**14, 2), np.float32)
g = strata.jit(lambda x, y, w: (x + y) @ w)
try:
    g(x, y, w)
    print("no error")
except MemoryError as e:
    print(type(e).__name__)
    print(e)
small = strata.jit(lambda x, y: x + y)
a = np.ones((3, 4), np.float32)
print("small ok", bool((small(a, a) == 2).all()))
""", env={"STRATA_CACHE_DIR": str(tmp_path)}))
    assert out.startswith("StrataMemoryError"), out
    assert "2 GiB" in out and "small ok True" in out, out


# -- compiled variants are bounded and freed ----------------------------------------------

def test_evicted_variants_are_freed_and_memory_comes_back(tmp_path):
    out = _ok(_run("""
import gc
def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
import os, weakref
g = strata.jit(lambda x: strata.exp(x) * 2.0 + 1.0, max_variants=3, automatic_dynamic=False,
               max_recompiles=1000)
for n in range(1, 11):
    g(np.ones(n, np.float32))
first = weakref.ref(g._programs.get((((10,), np.dtype(np.float32)),)))
gc.collect(); before = rss()
for n in range(11, 51):
    out = g(np.ones(n, np.float32))
    assert np.allclose(out, np.exp(np.ones(n)) * 2 + 1)
gc.collect(); after = rss()
print(len(g.variants()), first() is None, (after - before) / 2**20)
""", env={"STRATA_CACHE_DIR": str(tmp_path)}))
    kept, freed, growth_mb = out.split()
    assert kept == "3" and freed == "True", out
    # 40 more variants kept would cost about 2 MB each
    assert float(growth_mb) < 12, f"RSS grew by {growth_mb} MB over 40 evicted variants"


def test_max_variants_is_validated():
    out = _ok(_run("""
for bad in (0, -1, 2.5, True):
    try:
        strata.jit(f, max_variants=bad)
        print("accepted", bad)
    except strata.StrataError as e:
        print("rejected", e.message)
"""))
    assert out.count("rejected max_variants must be a positive integer") == 4, out
    p = _run("strata.jit(f)", env={"STRATA_MAX_VARIANTS": "lots"})
    assert p.returncode == 1 and "STRATA_MAX_VARIANTS must be a positive integer" in p.stderr
