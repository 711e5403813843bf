"""A long-lived worker process that compiles and runs generated programs.

Compiling in the test process would let a crash of compiled code (a signal)
kill pytest; starting an interpreter per program costs seconds. The worker is
a ``spawn``-ed process that imports strata once and serves requests over a
pipe; when it dies, :class:`Worker` reports how (signal, exit code, timeout)
and starts a new one for the next request.

A request is ``{"source": ..., "inputs": [arrays], "inputs2": [arrays], "configs":
[(key, options)]}``: the worker execs the source (which defines ``prog``), and for
each config compiles it with ``strata.compile(prog, *inputs, **options)`` (or
``strata.jit``) and runs it. The ``"main"`` config also runs on ``inputs2`` and
repeats both calls, in turn and from two threads at once (see ``_calls``). The
config keyed ``"threads1"`` runs only when the main one's code is threaded
(it checks that threads=1 and threads=N give bit-identical results).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import traceback

__all__ = ["Worker", "serve"]


def _threaded(fn, inputs, options) -> bool:
    """Whether strata splits some op of ``fn`` across threads (an ``scf.forall``).

    (The compiled library cannot tell: with threads > 1 every one declares the async
    runtime's functions, used or not.)
    """
    import strata

    try:
        module = strata.compile(fn, *inputs, compile_to="bufferized", **options)
    except Exception:  # noqa: BLE001 - the main compile reports the error; check anyway
        return True
    return "scf.forall" in str(module)


def _error(phase, key, exc):
    from strata import StrataError

    return {"status": "strata_error" if isinstance(exc, StrataError) else "internal_error",
            "phase": phase, "config": key, "type": type(exc).__name__,
            "message": str(exc), "traceback": traceback.format_exc(limit=-10)}


def _same(a, b) -> bool:
    return len(a) == len(b) and all(x.dtype == y.dtype and x.shape == y.shape and
                                    x.tobytes() == y.tobytes() for x, y in zip(a, b, strict=True))


def _calls(program, inputs, inputs2) -> tuple:
    """The main config's calls: the inputs, other inputs, the inputs again, then both
    from two threads at once. The repeats must be bit-identical to the first calls
    (the compiled code keeps state between calls: a workspace per thread)."""
    import threading

    def call(args):
        out = program(*args)
        return list(out) if isinstance(out, tuple) else [out]

    first, second = call(inputs), call(inputs2)
    problems = []
    if not _same(call(inputs), first):
        problems.append("a second call with the same inputs gave different results")
    got = {}

    def worker(key, args):
        try:
            got[key] = [call(args) for _ in range(3)]
        except Exception as e:  # noqa: BLE001
            got[key] = e

    threads = [threading.Thread(target=worker, args=(k, a))
               for k, a in ((0, inputs), (1, inputs2))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for key, want in ((0, first), (1, second)):
        outs = got.get(key)
        if isinstance(outs, Exception) or outs is None:
            problems.append(f"a call from a thread failed: {outs!r}")
        elif not all(_same(o, want) for o in outs):
            problems.append("calls from two threads at once gave results different from "
                            "the same calls made one at a time")
    return first, second, problems


class _Records:
    """Collects the messages of one strata logger (e.g. why a dynamic compile fell back)."""

    def __init__(self, topic):
        import logging

        from strata.runtime.log import logger

        self.messages = []
        self.log = logger(topic)
        self.handler = logging.Handler(logging.INFO)
        self.handler.emit = lambda record: self.messages.append(record.getMessage())

    def __enter__(self):
        import logging

        self.level = self.log.level
        self.log.setLevel(logging.INFO)
        self.log.addHandler(self.handler)
        return self

    def __exit__(self, *exc):
        self.log.removeHandler(self.handler)
        self.log.setLevel(self.level)


def _dynamic_marks(fn, inputs, seed) -> dict:
    """Dims of size >= 2 of the arguments, as jit's ``dynamic=`` (a dynamic dim is assumed
    not to broadcast: size-1 dims stay static): every one for an odd ``seed``, else a
    random half (static and dynamic dims side by side)."""
    import inspect
    import random

    rng = random.Random(seed)
    params = list(inspect.signature(fn).parameters)
    marks = {p: [i for i, d in enumerate(a.shape) if d >= 2 and (seed % 2 or rng.random() < .5)]
             for p, a in zip(params, inputs, strict=True)}
    return {p: d for p, d in marks.items() if d}


def serve(request: dict) -> dict:
    """Compiles and runs one program under each config (in the worker process).

    A config's ``api`` is ``"compile"`` (strata.compile with examples) or ``"jit"``.
    """
    import strata

    namespace: dict = {}
    try:
        exec(compile(request["source"], "<program>", "exec"), namespace)  # noqa: S102
    except Exception as e:  # noqa: BLE001
        return _error("source", None, e)
    fn = namespace["prog"]
    inputs = request["inputs"]
    results, threaded, problems, dynamic = {}, None, [], None
    for key, config in request["configs"]:
        options = dict(config)
        api = options.pop("api", "compile")
        if key == "threads1" and not threaded:
            continue
        if options.get("dynamic") == "all":
            options["dynamic"] = _dynamic_marks(fn, inputs, request.get("seed", 1))
            if not options["dynamic"]:
                continue
        try:
            program = (strata.jit(fn, **options) if api == "jit" else
                       strata.compile(fn, *inputs, **options))
        except Exception as e:  # noqa: BLE001
            return _error("trace", key, e)
        try:
            if key == "main":
                out, out2, problems = _calls(program, inputs, request["inputs2"])
                results["main2"] = out2
            else:
                with _Records("recompiles") as log:
                    out = program(*inputs)
                out = list(out) if isinstance(out, tuple) else [out]
                if "dynamic" in options:  # whether it ran dynamic, else why it could not
                    dynamic = "dynamic" if program._dynamic else (
                        [m for m in log.messages if "cannot compile" in m] or ["?"])[0]
        except Exception as e:  # noqa: BLE001
            return _error("compile+run", key, e)
        results[key] = out
        if threaded is None:
            threaded = _threaded(fn, inputs, options)
        del program
    return {"status": "ok", "results": results, "threaded": bool(threaded),
            "problems": problems, "dynamic": dynamic}


def _main(conn) -> None:
    os.environ.setdefault("PYTHONFAULTHANDLER", "1")
    import faulthandler

    faulthandler.enable()
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        if request.get("crash"):  # for testing the harness itself
            os.kill(os.getpid(), signal.SIGSEGV)
        conn.send(serve(request))


class Worker:
    """The parent's handle on the worker: ``run(request)`` never raises for a crash."""

    def __init__(self, timeout: float = 300.0, max_requests: int = 150):
        self.timeout = timeout
        self.max_requests = max_requests  # restart now and then: threaded code stays loaded
        self._ctx = multiprocessing.get_context("spawn")
        self._proc = None
        self._conn = None
        self._served = 0
        self.restarts = 0

    def _start(self):
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=_main, args=(child,), daemon=True,
                                 name="strata-fuzz-worker")
        proc.start()
        child.close()
        self._proc, self._conn, self._served = proc, parent, 0

    def run(self, request: dict) -> dict:
        if self._proc is not None and self._served >= self.max_requests:
            self.close()
        if self._proc is None or not self._proc.is_alive():
            if self._proc is not None:
                self.restarts += 1
            self._start()
        self._served += 1
        try:
            self._conn.send(request)
            if not self._conn.poll(self.timeout):
                self._kill()
                return {"status": "timeout", "message": f"no answer in {self.timeout:.0f} s"}
            return self._conn.recv()
        except (EOFError, OSError, ConnectionError):
            proc = self._proc
            proc.join(10)
            code = proc.exitcode
            self._proc = self._conn = None
            self.restarts += 1
            if code is not None and code < 0:
                how = f"killed by signal {signal.Signals(-code).name}"
            else:
                how = f"exited with code {code}"
            return {"status": "crash", "exitcode": code, "message": f"worker {how}"}

    def _kill(self):
        if self._proc is not None:
            self._proc.kill()
            self._proc.join(10)
        self._proc = self._conn = None
        self.restarts += 1

    def close(self):
        if self._proc is not None and self._proc.is_alive():
            try:
                self._conn.send(None)
            except (OSError, ValueError):
                pass
            self._proc.join(10)
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join(10)
        self._proc = self._conn = None
