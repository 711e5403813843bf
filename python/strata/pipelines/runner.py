"""The one runner every pipeline goes through, from strata-opt and from Python alike.

A pipeline (textual, mixing strata passes, strata pipelines and upstream MLIR
passes) is expanded into a flat list of stages, one per leaf pass. Each stage
runs on its own, so IR printing, timing and failures are attributed to one
pass. When a stage fails, the runner saves the IR it was given and the error
carries the ``strata-opt`` command that reproduces the failure.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field

from mlir import ir, passmanager

from ..errors import Diagnostic, StrataError, format_location
from ..passes import registry
from ..passes.base import OptionError, PassFailure
from .text import Element, PipelineSyntaxError, format_pipeline, parse_pipeline

__all__ = ["Stage", "PipelineError", "Instrumentation", "expand", "run_pipeline", "stages_for"]


class PipelineError(StrataError):
    """A pipeline could not be built (bad syntax, unknown pass, bad option) or a pass failed."""

    def __init__(self, diagnostics, *, stage: str | None = None, reproducer: str | None = None,
                 hint: str | None = None):
        self.stage = stage
        self.reproducer = reproducer
        super().__init__(diagnostics=diagnostics, hint=hint)


def _config_error(message: str) -> PipelineError:
    return PipelineError([Diagnostic("<pass-pipeline>", message)])


@dataclass
class Stage:
    """One leaf pass of an expanded pipeline, with the op anchors it is nested under."""

    name: str
    anchors: tuple[str, ...] = ()
    python: object | None = None  # a strata Pass instance
    element: Element | None = None  # an upstream pass element

    @property
    def text(self) -> str:
        """This stage alone, as a full textual pipeline."""
        inner = str(self.python) if self.python is not None else str(self.element)
        for anchor in reversed(self.anchors):
            inner = f"{anchor}({inner})"
        return f"builtin.module({inner})"

    @property
    def label(self) -> str:
        inner = str(self.python) if self.python is not None else str(self.element)
        for anchor in reversed(self.anchors):
            inner = f"{anchor}({inner})"
        return inner

    def run(self, module: ir.Operation) -> list[Diagnostic]:
        """Runs the stage; returns the diagnostics of a successful run.

        Those may hold errors: an upstream pass can emit one and still succeed
        (mlir-opt prints it and carries on, and so does strata-opt). A failure
        raises PassFailure with the pass's diagnostics.
        """
        if self.python is None:
            pm = passmanager.PassManager.parse(self.text, context=module.context)
            with capture_diagnostics(module.context) as diags:
                try:
                    pm.run(module)
                except ir.MLIRError:
                    failed = True
                else:
                    failed = False
            if failed:
                errors = [d for d in diags if d.severity == "error"]
                raise PassFailure(errors or [Diagnostic(
                    format_location(module.location), f"pass '{self.name}' failed")])
            return diags
        remarks = []
        with module.context:
            for target in _anchored(module, self.anchors):
                remarks += self.python.apply(target)
        module.verify()
        return remarks


@contextlib.contextmanager
def capture_diagnostics(context: ir.Context):
    """Collects, in order, every diagnostic emitted in ``context`` while inside.

    Errors go to the list too, never to the bindings' own capture: that one
    asserts (and aborts the process) when a call succeeds after an error was
    emitted, as ``PassManager.run`` does when a pass emits an error without
    failing.
    """
    diags: list[Diagnostic] = []

    def handler(d):
        diags.append(Diagnostic.from_mlir(d))
        return True

    previous = context.emit_error_diagnostics
    context.emit_error_diagnostics = True
    handle = context.attach_diagnostic_handler(handler)
    try:
        yield diags
    finally:
        handle.detach()
        context.emit_error_diagnostics = previous


def _anchored(module: ir.Operation, anchors: tuple[str, ...]):
    targets = [module]
    for anchor in anchors:
        nxt = []
        for t in targets:
            for region in t.regions:
                for block in region.blocks:
                    nxt += [op.operation for op in block.operations if op.operation.name == anchor]
        targets = nxt
    return targets


def expand(elements: list[Element], anchors: tuple[str, ...] = (), context=None,
           source: str | None = None) -> list[Stage]:
    """Flattens parsed pipeline elements into stages; checks names and options.

    ``source`` is the pipeline text the elements were parsed from (for the
    position of a malformed option block). Every strata pass's options are
    checked here, when the pipeline is built, not when the pass runs.
    """
    stages: list[Stage] = []
    for e in elements:
        if e.is_anchor:
            if e.name == "builtin.module" and not anchors:
                stages += expand(e.children, anchors, context, source)
            else:
                stages += expand(e.children, anchors + (e.name,), context, source)
            continue
        if registry.is_strata_pass(e.name):
            cls = registry.lookup(e.name)
            try:
                instance = cls.from_options(e.options)
            except OptionError as err:
                raise _config_error(str(err)) from None
            except PipelineSyntaxError as err:
                # mlir-opt's form: failed to add `pass` with options `...`
                reason = (f"failed to add `{e.name}` with options `{e.options}`: "
                          f"{err.reason}")
                if source is None:
                    raise _config_error(f"invalid pass pipeline: {reason}") from None
                located = PipelineSyntaxError(reason, source, e.options_pos + err.pos)
                raise _config_error(f"invalid pass pipeline: {located}") from None
            if hasattr(instance, "elements"):  # a named pipeline
                text = instance.elements()
                stages += expand(parse_pipeline(text), anchors, context, text)
            else:
                stages.append(Stage(e.name, anchors, python=instance))
            continue
        stage = Stage(e.name, anchors, element=e)
        try:
            passmanager.PassManager.parse(stage.text, context=context)
        except ValueError as err:
            text = str(err).strip()
            if "does not refer to a registered pass" in text:
                text = f"'{e.name}' does not refer to a registered pass or pass pipeline " \
                       f"(see strata-opt --list-passes)"
            raise _config_error(text.replace("\n\n", "\n")) from None
        stages.append(stage)
    return stages


def stages_for(pipeline: str, context=None) -> list[Stage]:
    """Parses and expands a textual pipeline (``builtin.module(...)`` or a bare list)."""
    text = pipeline.strip()
    try:
        elements = parse_pipeline(text)
    except PipelineSyntaxError as err:
        raise _config_error(f"invalid pass pipeline: {err}") from None
    return expand(elements, context=context, source=text)


@dataclass
class Instrumentation:
    """What to print around stages: IR before/after (all or named passes) and timing."""

    print_before_all: bool = False
    print_after_all: bool = False
    print_before: set[str] = field(default_factory=set)
    print_after: set[str] = field(default_factory=set)
    print_after_failure: bool = False
    debug_info: bool = False
    timing: bool = False
    stream: object = None
    times: list[tuple[str, float]] = field(default_factory=list)

    def _dump(self, when: str, stage: Stage, module: ir.Operation):
        out = self.stream or sys.stderr
        out.write(f"// -----// IR Dump {when} {stage.label} //----- //\n")
        out.write(module.get_asm(enable_debug_info=self.debug_info))
        out.write("\n")

    def before(self, stage, module):
        if self.print_before_all or stage.name in self.print_before:
            self._dump("Before", stage, module)

    def after(self, stage, module, seconds):
        self.times.append((stage.label, seconds))
        if self.print_after_all or stage.name in self.print_after:
            self._dump("After", stage, module)

    def failed(self, stage, module):
        if self.print_after_failure:
            self._dump("After Failure", stage, module)

    def report(self):
        if not self.timing:
            return
        out = self.stream or sys.stderr
        total = sum(t for _, t in self.times) or 1e-12
        bar = "===" + "-" * 73 + "==="
        out.write(f"{bar}\n{'... Execution time report ...':^79}\n{bar}\n")
        out.write(f"  Total Execution Time: {total:.4f} seconds\n\n")
        out.write("  ----Wall Time----  ----Name----\n")
        for name, t in self.times:
            out.write(f"  {t:8.4f} ({100 * t / total:5.1f}%)  {name}\n")
        out.write(f"  {total:8.4f} (100.0%)  Total\n")


def _save_reproducer(text: str) -> str:
    directory = os.environ.get("STRATA_REPRO_DIR") or tempfile.gettempdir()
    os.makedirs(directory, exist_ok=True)
    fd, path = tempfile.mkstemp(prefix="strata-repro-", suffix=".mlir", dir=directory)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return path


def run_pipeline(module: ir.Operation, pipeline, *, instrumentation: Instrumentation | None = None,
                 reproducer: bool = True) -> list[Diagnostic]:
    """Runs ``pipeline`` (text or stages) on ``module``; returns the passes' diagnostics.

    Those are remarks, and whatever an upstream pass emitted without failing
    (warnings, even errors: see Stage.run).

    On failure raises PipelineError naming the pass, with the op's location, and
    (when ``reproducer``) the saved input IR and the command that reproduces it.
    """
    stages = stages_for(pipeline, module.context) if isinstance(pipeline, str) else pipeline
    inst = instrumentation or Instrumentation()
    remarks: list[Diagnostic] = []
    for stage in stages:
        before_text = module.get_asm(enable_debug_info=True) if reproducer else None
        inst.before(stage, module)
        start = time.perf_counter()
        try:
            remarks += stage.run(module)
        except (PassFailure, ir.MLIRError) as err:
            inst.failed(stage, module)
            diags = err.diagnostics if isinstance(err, PassFailure) else [
                Diagnostic.from_mlir(d) for d in err.error_diagnostics]
            if not diags:
                diags = [Diagnostic(format_location(module.location),
                                    f"pass '{stage.name}' failed")]
            hint = None
            path = None
            if reproducer:
                path = _save_reproducer(before_text)
                hint = (f"note: pass '{stage.name}' failed; its input IR is saved in {path}\n"
                        f"note: reproduce with: strata-opt --pass-pipeline='{stage.text}' {path}"
                        "\nnote: add --mlir-print-ir-after-all to see the IR after each pass")
            raise PipelineError(diags, stage=stage.name, reproducer=path, hint=hint) from None
        inst.after(stage, module, time.perf_counter() - start)
    return remarks


def describe(stages: list[Stage]) -> str:
    """The expanded pipeline as one textual pipeline string."""
    return "builtin.module(" + format_pipeline([]) + ", ".join(s.label for s in stages) + ")"
