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
