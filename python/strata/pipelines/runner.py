"""Textual pipelines into MLIR's PassManager, and the one way every pipeline runs.

``parse_pipeline`` reads MLIR's pipeline syntax, in which strata's flags may
appear next to upstream passes:

    builtin.module(strata-canonicalize{max-iterations=4}, func.func(cse), strata-cpu)

MLIR's own parser checks the text (each top-level strata element is masked by a
registered pass of the same width, so MLIR's messages point at the right column);
strata's elements are built from their options, once, and named pipelines are
expanded. ``PassManager`` then puts the result in MLIR's PassManager: consecutive
upstream elements as one ``pm.add(text)``, each strata pass as a Python pass
(``pm.add(callable, name=, argument=, description=)``) that emits its errors as
MLIR diagnostics and calls ``signal_pass_failure()``. IR printing, timing,
statistics and verification are MLIR's.

``run_pipeline`` is what the runtime and the tests call: it snapshots the input
once (a clone, cheap) and, only if the pipeline fails, saves it and raises a
PipelineError carrying the ``strata-opt`` command that reproduces the failure.
"""

from __future__ import annotations

import functools
import os
import re
import tempfile

from mlir import ir, passmanager

from .. import settings
from ..diagnostics import capture_diagnostics, captured_stderr
from ..errors import Diagnostic, format_location
from ..passes.base import OptionError, OptionSyntaxError, Pass, PassFailure
from . import registry
from .pipeline import Pipeline, PipelineError

__all__ = ["PassManager", "Pipeline", "PipelineError", "parse_pipeline", "run_pipeline",
           "scratch_context", "MAX_DEPTH"]

MAX_DEPTH = 100  # nested anchors in a pipeline's text
_NAME = re.compile(r"[A-Za-z0-9_.\-]+")
_PLACEHOLDER = "cse"  # an op-agnostic upstream pass standing in for a strata one while MLIR checks
_ANCHOR_ERROR = ("expected pass pipeline to be wrapped with the anchor operation type, "
                 "e.g. 'builtin.module(...)'")


@functools.cache
def scratch_context() -> ir.Context:
    """One context to check pipeline text in (MLIR's pass registry is the same in every one)."""
    return ir.Context()


def _elements(inner: str):
    """``(depth, start, end, name, options_start)`` of each element of ``inner``, any depth.

    A scan, not a parser: it finds where elements are so that strata's can be
    told apart; MLIR's parser judges the syntax. ``options_start`` is the
    offset of the text inside ``{...}`` (None without options).
    """
    out = []
    depth, pos, n = 0, 0, len(inner)
    expect_element = True
    while pos < n:
        c = inner[pos]
        if c.isspace():
            pos += 1
        elif c == ",":
            expect_element = True
            pos += 1
        elif c == "(":
            depth += 1
            if depth > MAX_DEPTH:
                raise PipelineError.config(
                    f"invalid pass pipeline: pass pipeline nested deeper than {MAX_DEPTH} levels")
            expect_element = True
            pos += 1
        elif c == ")":
            depth -= 1
            expect_element = False
            pos += 1
        elif c == "{":  # options: skip to the matching brace (quotes hold anything)
            start, level = pos, 0
            while pos < n:
                if inner[pos] == '"':
                    end = inner.find('"', pos + 1)
                    pos = n if end < 0 else end + 1
                    continue
                level += {"{": 1, "}": -1}.get(inner[pos], 0)
                pos += 1
                if level == 0:
                    break
            if level:  # no closing brace: left unmasked, MLIR's parser reports it where it is
                break
            if out and out[-1][4] is None and not inner[out[-1][2]:start].strip():
                d, s, _, name, _ = out[-1]
                out[-1] = (d, s, pos, name, start + 1)
        else:
            m = _NAME.match(inner, pos)
            if not m:
                pos += 1
                continue
            if expect_element:
                out.append((depth, pos, m.end(), m.group(0), None))
            expect_element = False
            pos = m.end()
    return out


def _mlir_check(anchor: str, inner: str, masked: str, spans, context: ir.Context | None):
    """MLIR's verdict on the pipeline text with strata's elements masked; raises PipelineError.

    ``spans`` are the masked ``(start, end)`` offsets: MLIR's message shows the
    user's text, not the mask.
    """
    context = context or scratch_context()
    with captured_stderr() as cl:
        try:
            passmanager.PassManager.parse(f"{anchor}({masked})", context=context)
            return
        except ValueError as e:
            message = str(e)
    # MLIR echoes the text it parsed under its message: show the user's, not the masked one.
    if masked != inner:
        message = message.replace(f"\n{masked}\n", f"\n{inner}\n", 1)
        for start, end in spans:  # an element quoted in the message
            message = message.replace(masked[start:end], inner[start:end], 1)
    # LLVM's option parser writes its own line first (": for the --x option: ..."): keep it.
    preamble = cl.text.strip("\n")
    raise PipelineError.config(message, hint=preamble.lstrip(": ") or None)


def parse_pipeline(text: str, context: ir.Context | None = None, *,
                   bare_list: bool = False) -> Pipeline:
    """A Pipeline from MLIR's textual syntax (with strata's flags); raises PipelineError.

    ``text`` is ``<anchor>(<elements>)``, as mlir-opt's ``--pass-pipeline``
    requires; ``bare_list`` also takes the elements alone (for builtin.module).
    Every strata pass's options are checked here, when the pipeline is built.
    """
    text = text.strip()
    start = text.find("(")
    if start <= 0 or not text.endswith(")"):
        if not bare_list:
            raise PipelineError.config(_ANCHOR_ERROR)
        text = f"builtin.module({text})"
        start = len("builtin.module")
    anchor, inner = text[:start].rstrip(), text[start + 1:-1]
    elements = _elements(inner)
    strata = [e for e in elements if registry.is_strata_pass(e[3])]
    for depth, _, _, name, _ in strata:
        if depth > 0:
            raise PipelineError.config(
                f"'{name}' is a strata pass: it runs on the module and cannot be nested in an "
                "anchor (it visits the functions itself)")
    masked = inner
    for _, s, e, _, opts in strata:  # as long as the element: MLIR's columns are the user's
        mask = _PLACEHOLDER.ljust(e - s) if opts is None else \
            f"{_PLACEHOLDER}{{{' ' * (e - s - len(_PLACEHOLDER) - 2)}}}"  # options: cse{   }
        masked = masked[:s] + mask + masked[e:]
    _mlir_check(anchor, inner, masked, [(s, e) for _, s, e, _, _ in strata], context)

    p = Pipeline(anchor)
    pos = 0
    for _, s, e, name, opts_start in strata:
        p.add(inner[pos:s].strip().strip(",").strip())
        options = inner[opts_start:e - 1] if opts_start is not None else ""
        try:
            p.add(registry.lookup(name).from_options(options))
        except OptionSyntaxError as err:
            where = (opts_start or 0) + len(anchor) + 1 + err.pos + \
                (len(options) - len(options.lstrip()))
            raise PipelineError.config(
                f"invalid pass pipeline: failed to add `{name}` with options `{options.strip()}`: "
                f"{err.reason}\n  {text}\n  {' ' * where}^") from None
        except OptionError as err:
            raise PipelineError.config(str(err)) from None
        pos = e
    p.add(inner[pos:].strip().strip(",").strip())
    return p


class _RunState:
    """What strata's Python passes share with their PassManager's run (no cycle through it)."""

    def __init__(self):
        self.sink: list[Diagnostic] = []
        self.on_diagnostic = None
        self.failed_pass: str | None = None

    def remark(self, d: Diagnostic) -> None:
        """A strata pass's remark (MLIR's Python API emits errors only): kept in order."""
        self.sink.append(d)
        if self.on_diagnostic is not None:
            self.on_diagnostic(d)


def _python_pass(instance: Pass, state: _RunState):
    """``instance`` as the callable of an MLIR Python pass."""

    def run(op, pass_):
        try:
            with op.context:  # passes build IR in the current context
                diags = instance.apply(op)
        except PassFailure as failure:
            state.failed_pass = instance.name
            for d, loc in zip(failure.diagnostics, failure.locations, strict=True):
                if d.severity == "error":
                    (loc or op.location).emit_error(d.message)
                else:
                    state.remark(d)
            pass_.signal_pass_failure()
            return
        for d in diags:
            state.remark(d)

    run.__name__ = instance.display_name()
    return run


class PassManager:
    """MLIR's PassManager (``.pm``) holding a Pipeline, in ``context``.

    Configure printing, timing, statistics, verification on ``.pm`` (they are
    MLIR's); ``run`` runs it and returns ``(succeeded, diagnostics)``: the
    diagnostics of every pass in order, strata's remarks included. MLIR prints
    its timing report when ``.pm`` is destroyed (drop the PassManager).
    """

    def __init__(self, pipeline: Pipeline, context: ir.Context):
        self.pipeline = pipeline
        self.pm = passmanager.PassManager(pipeline.anchor, context=context)
        self._state = _RunState()
        segment: list[str] = []
        for item in pipeline.items:
            if isinstance(item, str):
                segment.append(item)
                continue
            if segment:
                self.pm.add(", ".join(segment))
                segment = []
            self.pm.add(_python_pass(item, self._state), name=item.display_name(),
                        argument=item.name, description=item.summary())
        if segment:
            self.pm.add(", ".join(segment))

    @property
    def failed_pass(self) -> str | None:
        """The strata pass that failed in the last run (None: none did, or an upstream one)."""
        return self._state.failed_pass

    def run(self, op: ir.Operation, on_diagnostic=None) -> tuple[bool, list[Diagnostic]]:
        """``(succeeded, diagnostics)``; ``on_diagnostic`` sees each diagnostic as it comes."""
        state = self._state
        state.failed_pass = None
        state.on_diagnostic = on_diagnostic
        with capture_diagnostics(op.context, on_diagnostic) as diags:
            state.sink = diags
            try:
                self.pm.run(op)
                ok = True
            except ir.MLIRError:
                ok = False
            finally:
                state.sink, state.on_diagnostic = [], None
        return ok, diags


def _save_reproducer(text: str) -> str:
    directory = settings.get("STRATA_REPRO_DIR")
    os.makedirs(directory, exist_ok=True)
    fd, path = tempfile.mkstemp(prefix="strata-repro-", suffix=".mlir", dir=directory)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return path


# A row: the wall time, or (where passes ran on several threads) the user time and then
# the wall time, each with its percentage; then the name, indented by its depth.
_PERCENT = r" \(\s*[\d.]+%\)"
_TIMING_ROW = re.compile(rf"^\s+(?:\d+\.\d+{_PERCENT}\s+)?(\d+\.\d+){_PERCENT}  ( *)(.+?)\s*$")


def timing_rows(report: str) -> list[tuple[float, str, int]]:
    """``(wall seconds, name, depth)`` of each row of MLIR's execution time report (depth 0
    for a pass, 1 for one nested in a pipeline or an analysis, ...), Total excluded."""
    rows = []
    for line in report.splitlines():
        m = _TIMING_ROW.match(line)
        if m and m.group(3) != "Total":
            rows.append((float(m.group(1)), m.group(3), len(m.group(2)) // 2))
    return rows


def _report_of(manager: PassManager) -> str:
    """MLIR prints a PassManager's timing report to stderr when it is destroyed: destroy it
    with stderr (file descriptor 2) captured, and return the report."""
    import gc
    import sys

    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            manager.pm = None  # its last reference, unless a cycle holds it (then collect)
            if tmp.tell() == 0 and os.fstat(tmp.fileno()).st_size == 0:
                gc.collect()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        return tmp.read().decode(errors="replace")


def run_pipeline(module: ir.Operation, pipeline: str | Pipeline, *,
                 reproducer: bool = True, dump_dir: str | None = None,
                 timing: list | None = None) -> list[Diagnostic]:
    """Runs ``pipeline`` on ``module`` in place; returns the passes' diagnostics.

    Those are remarks, and whatever an upstream pass emitted without failing
    (warnings, even errors: mlir-opt prints them and carries on). On failure
    raises PipelineError with the diagnostics (located at the op), the failing
    strata pass (``stage``) and, with ``reproducer``, the pipeline's input IR
    saved to a file and the ``strata-opt`` command that reproduces the failure.
    ``dump_dir``: MLIR writes the IR after every pass into a tree of files there (one
    folder per pass, numbered in order, the scope of a nested pass as its own folder).
    ``timing``: MLIR's per-pass timing of this run is appended to it as
    ``(seconds, name, depth)`` rows (see ``timing_rows``).
    """
    if isinstance(pipeline, str):
        pipeline = parse_pipeline(pipeline, module.context, bare_list=True)
    manager = PassManager(pipeline, module.context)
    if dump_dir is not None:
        os.makedirs(dump_dir, exist_ok=True)
        manager.pm.enable_ir_printing(print_after_all=True, enable_debug_info=True,
                                      tree_printing_dir_path=dump_dir)
    if timing is not None:
        manager.pm.enable_timing()
    snapshot = module.clone() if reproducer else None
    ok, diags = manager.run(module)
    if timing is not None:
        timing += timing_rows(_report_of(manager))
        manager = None
    if ok:
        return diags
    errors = [d for d in diags if d.severity == "error"] or [
        Diagnostic(format_location(module.location),
                   "failure while executing pass pipeline (a pass failed without a diagnostic)")]
    stage = manager.failed_pass
    hint = path = None
    if snapshot is not None:
        path = _save_reproducer(snapshot.get_asm(enable_debug_info=True))
        which = f"pass '{stage}' failed" if stage else "the pipeline failed"
        hint = (f"note: {which}; the pipeline's input IR is saved in {path}\n"
                f"note: reproduce with: strata-opt --pass-pipeline='{pipeline}' {path}\n"
                "note: add --mlir-print-ir-after-all to see the IR after each pass")
    raise PipelineError(errors, stage=stage, reproducer=path, hint=hint)
