"""strata-opt's crash guard (strata.tools.opt_guard): a child killed by a signal becomes a
located error, the parent's exit status is the child's otherwise, and nothing is left behind.

The work functions here kill their own (forked) process; the pytest process only watches.
"""

from __future__ import annotations

import faulthandler
import glob
import os
import signal
import tempfile

import pytest

from strata.tools import opt_guard

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the guard needs fork()")


def _die(sig):
    """Kills this (child) process with ``sig``, quietly (pytest's faulthandler would talk)."""
    faulthandler.disable()
    if sig != signal.SIGKILL:
        signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)


def _leftovers():
    return set(glob.glob(os.path.join(tempfile.gettempdir(), "strata-std*")))


@pytest.fixture(autouse=True)
def guarded(monkeypatch):
    monkeypatch.delenv(opt_guard.IN_PROCESS, raising=False)
    before = _leftovers()
    yield
    assert _leftovers() == before, "the guard left temporary files behind"


def test_exit_status_of_a_child_that_returns(capfd):
    assert opt_guard.supervise(lambda argv: len(argv), ["a", "b", "c"]) == 3
    assert opt_guard.supervise(lambda argv: 0, []) == 0
    assert capfd.readouterr().err == ""


def test_a_killed_child_is_not_a_crash_and_is_not_run_again(capfd, tmp_path):
    runs = tmp_path / "runs"

    def work(argv):
        with open(runs, "a") as f:
            f.write("run\n")
        opt_guard.report("chunk", "in.mlir:3:1")
        _die(signal.SIGKILL)

    assert opt_guard.supervise(work, []) == 1
    err = capfd.readouterr().err
    assert err == ("in.mlir:3:1: error: strata-opt was killed (SIGKILL) while running on this "
                   "input; nothing was written\n")
    assert runs.read_text() == "run\n"


@pytest.mark.parametrize("sig", [signal.SIGSEGV, signal.SIGABRT])
def test_a_crash_is_probed_for_the_pass_that_crashed(capfd, sig):
    """The second run (with the probe's flags, no output) names the last pass that started."""
    def work(argv):
        if opt_guard.probing:
            assert argv[-len(opt_guard.PROBE_FLAGS):] == opt_guard.PROBE_FLAGS
            path = tempfile.NamedTemporaryFile(prefix="strata-stderr-", delete=False).name
            with open(path, "w") as f:
                f.write("// -----// IR Dump Before CSE (cse) //----- //\nmodule {}\n"
                        "// -----// IR Dump Before Canonicalizer (canonicalize) ('func.func' "
                        "operation: @f) //----- //\nfunc.func @f() {}\n")
            opt_guard.report("dumps", path)
        opt_guard.report("chunk", "x.mlir:1:1")
        _die(sig)

    assert opt_guard.supervise(work, ["x.mlir"]) == 1
    name = signal.Signals(sig).name
    assert capfd.readouterr().err == (f"x.mlir:1:1: error: pass 'canonicalize' crashed ({name}) "
                                      "on this input; nothing was written\n")


def test_a_crash_the_probe_does_not_repeat_names_no_pass(capfd):
    def work(argv):
        if not opt_guard.probing:
            _die(signal.SIGSEGV)
        return 0

    assert opt_guard.supervise(work, []) == 1
    assert capfd.readouterr().err == ("<unknown>:0: error: the pass pipeline crashed (SIGSEGV) "
                                      "on this input; nothing was written\n")


def test_the_probe_writes_nothing(capfd):
    def work(argv):
        if opt_guard.probing:
            os.write(1, b"probe output")  # the probe writes to nowhere
        else:
            opt_guard.keep_stdin(b"module {}\n")
        _die(signal.SIGSEGV)

    assert opt_guard.supervise(work, []) == 1
    out, err = capfd.readouterr()
    assert out == "" and "crashed (SIGSEGV)" in err


def test_the_probe_reads_the_kept_stdin(tmp_path):
    record = tmp_path / "probe-stdin"

    def work(argv):
        if opt_guard.probing:
            record.write_bytes(os.read(0, 100))
        else:
            opt_guard.keep_stdin(b"func.func @f() { return }\n")
        _die(signal.SIGSEGV)

    opt_guard.supervise(work, [])
    assert record.read_bytes() == b"func.func @f() { return }\n"


def test_in_process_when_asked(monkeypatch):
    monkeypatch.setenv(opt_guard.IN_PROCESS, "1")
    pid = os.getpid()
    assert opt_guard.supervise(lambda argv: 0 if os.getpid() == pid else 5, []) == 0
