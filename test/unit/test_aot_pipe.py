"""aot's opt | llc pipe (runtime/aot.py ``_run_piped``, ``StartedTools``): the second command
reads what the first writes, a failure names the step that failed, with its stderr, and a
cold compile feeds the tools it started before its passes (or ends them, unused)."""

import os
import sys

import numpy as np
import pytest

import strata
from strata import StrataError
from strata.runtime import aot
from strata.runtime.openmp import openmp_library

pytestmark = pytest.mark.skipif(not aot.available(), reason="no C compiler driver (cc)")


def _py(code):
    return [sys.executable, "-c", code]


def test_the_second_command_reads_the_first_ones_output(tmp_path):
    out = tmp_path / "out"
    aot._run_piped((_py("import sys; sys.stdout.write('bits')"), "writing"),
                   (_py(f"import sys; open({str(out)!r}, 'w').write(sys.stdin.read())"),
                    "reading"), str(tmp_path))
    assert out.read_text() == "bits"


@pytest.mark.parametrize("fails", ["first", "second", "both"])
def test_a_failure_names_its_step_and_stderr(tmp_path, fails):
    first = _py("import sys; sys.stderr.write('opt says no'); sys.exit(3)" if fails != "second"
                else "print('ok')")
    second = _py("import sys; sys.stdin.read(); sys.stderr.write('llc says no'); sys.exit(4)"
                 if fails != "first" else "import sys; sys.stdin.read()")
    with pytest.raises(StrataError) as e:
        aot._run_piped((first, "optimizing LLVM IR"), (second, "generating machine code"),
                       str(tmp_path))
    if fails == "second":
        assert "generating machine code failed" in str(e.value)
        assert "exit 4" in str(e.value) and "llc says no" in str(e.value)
    else:  # the first step's failure is reported, also where the second one fails after it
        assert "optimizing LLVM IR failed" in str(e.value)
        assert "exit 3" in str(e.value) and "opt says no" in str(e.value)


def test_a_missing_second_tool_leaves_no_first_process_behind(tmp_path):
    with pytest.raises(OSError):
        aot._run_piped((_py("import time; time.sleep(30)"), "waiting"),
                       ([str(tmp_path / "no-such-tool")], "missing"), str(tmp_path))


def _mlp(x, w):
    return strata.relu(x @ w)


def test_a_cold_compile_feeds_the_tools_it_started(tmp_path, monkeypatch):
    # at a disk-cache miss opt | llc start before the passes; the IR goes to their stdin
    monkeypatch.setenv("STRATA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("STRATA_CACHE", raising=False)
    monkeypatch.delenv("STRATA_AOT", raising=False)
    fed, real = [], aot.StartedTools.compile

    def compile(self, llvm_ir):
        fed.append(llvm_ir)
        return real(self, llvm_ir)

    monkeypatch.setattr(aot.StartedTools, "compile", compile)
    x, w = np.ones((3, 4), np.float32), np.full((4, 5), -0.5, np.float32)
    w[:, 0] = 1.0
    f = strata.jit(_mlp, blas="never")
    np.testing.assert_allclose(f(x, w), np.maximum(x @ w, 0))
    assert len(fed) == 1 and "define" in fed[0]
    assert f.stats.cache_hits == 0 and len(os.listdir(tmp_path / "cache")) >= 1


def test_started_tools_report_bad_ir_and_clean_up(tmp_path):
    tools = aot.StartedTools(3)
    procs = tools._started[1]
    with pytest.raises(StrataError, match="optimizing LLVM IR failed"):
        tools.compile("this is not LLVM IR")
    tools.close()
    assert not os.path.exists(tools.tmp)
    assert all(p.poll() is not None for p in procs)


def test_unused_started_tools_are_ended(tmp_path):
    tools = aot.StartedTools(3)
    procs = tools._started[1]
    tools.close()  # e.g. the passes failed: nothing was fed to opt
    assert all(p.poll() is not None for p in procs)
    assert not os.path.exists(tools.tmp)


def _two_layers(x, w1, w2):
    return strata.relu(x @ w1) @ w2


@pytest.mark.skipif(openmp_library() is None, reason="no libomp found (threads run on "
                    "the async runtime, which outlines no parallel regions)")
def test_threaded_code_is_compiled_in_two_parts(tmp_path, monkeypatch):
    # outlined parallel regions go through their own opt | llc (runtime/llvm_split.py);
    # two such libraries in one process keep their hidden symbols apart
    monkeypatch.setenv("STRATA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("STRATA_CACHE", raising=False)
    monkeypatch.delenv("STRATA_AOT", raising=False)
    monkeypatch.setattr(aot, "_cpus", lambda: 2)
    objects, real = [], aot.StartedTools.compile

    def compile(self, llvm_ir):
        objects.append(real(self, llvm_ir))
        return objects[-1]

    monkeypatch.setattr(aot.StartedTools, "compile", compile)
    rng = np.random.default_rng(0)
    x, w1, w2 = (rng.standard_normal(s).astype(np.float32) for s in
                 ((67, 256), (256, 384), (384, 9)))
    f = strata.jit(_two_layers, threads=2, blas="never")
    g = strata.jit(_mlp, threads=2, blas="never")
    want = np.maximum(x.astype(np.float64) @ w1, 0) @ w2
    np.testing.assert_allclose(f(x, w1, w2), want, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(g(x, w1), np.maximum(x.astype(np.float64) @ w1, 0),
                               rtol=1e-4, atol=1e-3)
    assert [len(o) for o in objects] == [2, 2]
    np.testing.assert_allclose(f(x, w1, w2), want, rtol=1e-4, atol=1e-3)


def test_one_thread_code_is_compiled_whole(tmp_path, monkeypatch):
    monkeypatch.setenv("STRATA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("STRATA_CACHE", raising=False)
    monkeypatch.delenv("STRATA_AOT", raising=False)
    started = []
    real = aot.StartedTools.__init__

    def init(self, opt_level, parts=1):
        started.append(parts)
        real(self, opt_level, parts)

    monkeypatch.setattr(aot.StartedTools, "__init__", init)
    x, w = np.ones((3, 4), np.float32), np.ones((4, 5), np.float32)
    np.testing.assert_allclose(strata.jit(_mlp, threads=1, blas="never")(x, w), x @ w)
    assert started == [1]


def test_a_failed_split_compiles_the_module_whole(tmp_path, monkeypatch):
    # llvm-split failing (here: a tool that exits 1) costs time, not the compile
    monkeypatch.setenv("STRATA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("STRATA_CACHE", raising=False)
    monkeypatch.delenv("STRATA_AOT", raising=False)
    monkeypatch.setattr(aot, "_cpus", lambda: 2)
    real_bin = aot._bin
    monkeypatch.setattr(aot, "_bin", lambda package, tool: "/bin/false" if tool == "llvm-split"
                        else real_bin(package, tool))
    objects, real = [], aot.StartedTools.compile

    def compile(self, llvm_ir):
        objects.append(real(self, llvm_ir))
        return objects[-1]

    monkeypatch.setattr(aot.StartedTools, "compile", compile)
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((64, 512)).astype(np.float32), \
        rng.standard_normal((512, 512)).astype(np.float32)
    out = strata.jit(_mlp, threads=2, blas="never")(x, w)
    np.testing.assert_allclose(out, np.maximum(x.astype(np.float64) @ w, 0), rtol=1e-4,
                               atol=1e-3)
    assert [len(o) for o in objects] == [1]


def test_started_tools_in_parts_end_what_they_did_not_use():
    tools = aot.StartedTools(3, parts=2)
    procs = [p for _, started in tools._pipes for p in started[1]] + [tools._split]
    tools.close()
    assert all(p.poll() is not None for p in procs)
    assert not os.path.exists(tools.tmp)
