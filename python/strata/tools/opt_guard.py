"""strata-opt's guard against a pass that kills the process.

MLIR's passes are C++; one that dereferences a null pointer on some input takes the
driver down with a signal and a stack dump (upstream
``buffer-results-to-out-params{hoist-static-allocs}`` does so on a function that
returns one buffer twice). strata-opt therefore does its work in a forked child and
watches it. When the child dies of a signal, the parent writes a located error in
MLIR's form and exits with status 1, as for any error in the input::

    in.mlir:1:1: error: pass 'buffer-results-to-out-params' crashed (SIGSEGV) on this
    input; nothing was written

The child tells the parent, through a pipe, where each input chunk starts
(``--split-input-file``) and which file collects MLIR's stderr while a pipeline runs
(its IR dumps). To name the pass, the parent runs the input once more in a second,
silent child with the IR printed before every pass, and reads the last dump's header;
that child writes no output. Output is only written once every chunk has run (``-o``
atomically), so a crash leaves no half-written file.

``STRATA_OPT_IN_PROCESS=1`` turns the guard off (the work runs in this process).
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import traceback

from .. import settings
from ..errors import StrataError
from .mlir_adapter import DUMP_HEADER

IN_PROCESS = "STRATA_OPT_IN_PROCESS"
# signals that mean the process crashed (not that someone stopped it): worth a second run
CRASHES = {signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE, signal.SIGILL, signal.SIGABRT}
PROBE_FLAGS = ["--mlir-print-ir-before-all", "--mlir-disable-threading",
               "--mlir-elide-elementsattrs-if-larger=1"]

_channel: int | None = None  # the pipe to the parent, in a child
probing = False  # True in the child that only finds the crashing pass: write no output


def report(kind: str, value: str) -> None:
    """Tells the watching parent (if any) a ``kind`` of progress: ``chunk`` or ``dumps``."""
    if _channel is not None:
        os.write(_channel, f"{kind}\t{value}\n".encode("utf-8", errors="replace"))


def keep_stdin(data: bytes) -> None:
    """Keeps the input read from stdin in a file for the parent's second run (if watched)."""
    if _channel is None or probing:
        return
    fd, path = tempfile.mkstemp(prefix="strata-stdin-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    report("stdin", path)


def _in_process() -> bool:
    """``STRATA_OPT_IN_PROCESS`` (strata.settings); a value that is not a bool is said,
    and the guard stays on."""
    try:
        return bool(settings.get(IN_PROCESS))
    except StrataError as e:
        sys.stderr.write(f"{e}\n")
        return False


def supervise(work, argv: list[str]) -> int:
    """``work(argv)`` (an exit status) in a forked child; a signal becomes an error."""
    if not hasattr(os, "fork") or _in_process():
        return work(argv)
    status, records = _child(work, argv, probe=False)
    stdin = records.get("stdin")
    try:
        return _outcome(work, argv, status, records)
    finally:
        if stdin:
            os.unlink(stdin)


def _outcome(work, argv: list[str], status: int, records: dict[str, str]) -> int:
    if not os.WIFSIGNALED(status):
        return os.waitstatus_to_exitcode(status)
    number = os.WTERMSIG(status)
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    where = records.get("chunk") or "<unknown>:0"
    _last_pass(records.get("dumps"))  # deletes the file; the user's own dumps name no pass
    if number not in CRASHES:
        sys.stderr.write(f"{where}: error: strata-opt was killed ({name}) while running on "
                         f"this input; nothing was written\n")
        return 1
    status, again = _child(work, argv + PROBE_FLAGS, probe=True, stdin=records.get("stdin"))
    culprit = _last_pass(again.get("dumps")) if os.WIFSIGNALED(status) else None
    what = f"pass '{culprit}'" if culprit else "the pass pipeline"
    sys.stderr.write(f"{where}: error: {what} crashed ({name}) on this input; nothing was "
                     f"written\n")
    return 1


def _child(work, argv: list[str], probe: bool,
           stdin: str | None = None) -> tuple[int, dict[str, str]]:
    """Runs ``work`` in a child (reading ``stdin`` from that file if given); returns its
    wait status and the last record of each kind."""
    global _channel, probing
    read_end, write_end = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: do the work, never return
        code = 2
        try:
            os.close(read_end)
            _channel, probing = write_end, probe
            if stdin:
                source = os.open(stdin, os.O_RDONLY)
                os.dup2(source, 0)
                os.close(source)
            if probe:
                quiet = os.open(os.devnull, os.O_WRONLY)
                os.dup2(quiet, 1)
                os.dup2(quiet, 2)
            code = work(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        except BaseException:  # STRATA_DEBUG's traceback
            traceback.print_exc()
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    os.close(write_end)
    # Ctrl-C reaches the child from the terminal; a SIGTERM sent to this process is passed on
    forward = lambda *_: os.kill(pid, signal.SIGTERM)  # noqa: E731
    previous = {signal.SIGINT: signal.signal(signal.SIGINT, signal.SIG_IGN),
                signal.SIGTERM: signal.signal(signal.SIGTERM, forward)}
    records: dict[str, str] = {}
    try:
        with os.fdopen(read_end, "rb") as pipe:
            for line in pipe:
                kind, _, value = line.decode("utf-8", errors="replace").rstrip("\n").partition("\t")
                records[kind] = value
        _, status = os.waitpid(pid, 0)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    return status, records


def _last_pass(dumps: str | None) -> str | None:
    """The pass of the last "IR Dump Before" header in the dumps file a dead child left
    (None without one); the file is deleted."""
    if not dumps or not os.path.exists(dumps):
        return None
    name = None
    try:
        with open(dumps, "rb") as f:
            for line in f:
                m = DUMP_HEADER.match(line.decode("utf-8", errors="replace").rstrip("\n"))
                if m and m.group(1) == "Before":
                    name = m.group(3)
    finally:
        os.unlink(dumps)
    return name
