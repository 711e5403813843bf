"""strata-opt: mlir-opt with strata's dialect, passes and levels.

For upstream input and flags it behaves as the pinned ``mlir-opt`` does (same
stdout, same exit status, MLIR's own IR dumps, timing and statistics), and adds
strata's: the strata dialect and verifier, strata's passes (``--strata-*``,
also in ``--pass-pipeline``), ``--compile-to=<level>`` and
``--strata-fuse-report``. Passes run in MLIR's PassManager (strata's as Python
passes, see strata.pipelines.runner).

Where it departs from mlir-opt, on purpose: ``-o`` is written atomically and
only on success (an existing file is left as it was on failure); input that is
not UTF-8 or is nested deeper than ``strata.parsing.MAX_NESTING`` (1000) levels
of brackets is rejected with a located error (MLIR's recursive parser would run
out of stack: 5000 nested ``module {`` crash mlir-opt), and the driver runs on a
thread with a ``STACK_SIZE`` stack so MLIR's recursive parts have room to spare
below that limit; a pass pipeline that fails without a diagnostic gets one; a pass
that crashes the process (an upstream bug) is a located error naming the pass, exit
status 1, as the driver runs in a watched child (strata.tools.opt_guard).
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sys
import tempfile
import threading
import time

from mlir.passmanager import PassDisplayMode

from .. import __version__, settings
from ..context import new_context
from ..diagnostics import captured_stderr
from ..errors import Diagnostic, StrataError, format_location
from ..parsing import parse_module
from ..passes.base import option_help
from ..passes.check_level import LEVEL_NAMES
from ..pipelines import registry
from ..pipelines.pipeline import Pipeline
from ..pipelines.runner import PassManager, parse_pipeline
from . import mlir_adapter, opt_guard
from .expected import Verifier

# Start-up: an upstream-only command imports MLIR's bindings and strata's driver, not
# strata's passes: the levels (every pass of --compile-to) are imported for --compile-to and
# --help, the shape verifier for input that holds strata ops, and each strata pass when its
# flag is looked up (strata.pipelines.registry).

STACK_SIZE = 256 << 20  # the driver thread's stack; MLIR recurses about 3 KiB per nesting level
PROGRAM = "strata-opt"
OVERVIEW = "OVERVIEW: strata modular optimizer driver (mlir-opt with strata's dialect and passes)"
DEFAULT_MARKER = "// -----"

# flag -> (kind, value name, help); kinds: flag, value (=v or next argument), optional (=v
# only), list (=a,b only). The help texts of mlir-opt's flags are mlir-opt's.
FLAGS = {
    "allow-unregistered-dialect": ("flag", "", "Allow operation with no registered dialects"),
    "compile-to": ("value", "<level>", "Lower strata IR up to a named level (strata, linalg, "
                   "fused, layout, bufferized, llvm)"),
    "dump-pass-pipeline": ("flag", "", "Print the pipeline that will be run"),
    "help": ("flag", "", "Display available options"),
    "list-passes": ("flag", "", "Print the list of registered passes and exit"),
    "mlir-disable-threading": ("flag", "", "Disable multi-threading within MLIR, overrides any "
                               "further call to MLIRContext::enableMultiThreading()"),
    "mlir-elide-elementsattrs-if-larger": ("value", "<uint>", 'Elide ElementsAttrs with "..." '
                                           "that have more elements than the given upper "
                                           "limit"),
    "mlir-pass-statistics": ("flag", "", "Display the statistics of each pass"),
    "mlir-pass-statistics-display": ("value", "<value>", "Display method for pass statistics"),
    "mlir-print-debuginfo": ("flag", "", "Print debug info in MLIR output"),
    "mlir-print-ir-after": ("list", "<pass-arg>", "Print IR after specified passes"),
    "mlir-print-ir-after-all": ("flag", "", "Print IR after each pass"),
    "mlir-print-ir-after-change": ("flag", "", "When printing the IR after a pass, only print "
                                   "if the IR changed"),
    "mlir-print-ir-after-failure": ("flag", "", "When printing the IR after a pass, only print "
                                    "if the pass failed"),
    "mlir-print-ir-before": ("list", "<pass-arg>", "Print IR before specified passes"),
    "mlir-print-ir-before-all": ("flag", "", "Print IR before each pass"),
    "mlir-print-ir-module-scope": ("flag", "", "When printing IR for print-ir-[before|after]"
                                   "{-all} always print the top-level operation"),
    "mlir-print-op-generic": ("flag", "", "Print the generic op form"),
    "mlir-timing": ("flag", "", "Display execution times"),
    "o": ("value", "<filename>", "Output filename"),
    "output-split-marker": ("value", "<string>", "Split marker to use for merging the ouput"),
    "pass-pipeline": ("value", "<string>", "Textual description of the pass pipeline to run"),
    "show-dialects": ("flag", "", "Print the list of registered dialects and exit"),
    "split-input-file": ("optional", "[=<string>]", "Split the input file into chunks using "
                         "the given or default marker and process each chunk independently"),
    "strata-fuse-report": ("flag", "", "Report every strata-fuse decision as a remark"),
    "verify-diagnostics": ("flag", "", "Check that emitted diagnostics match expected-* lines "
                           "on the corresponding line"),
    "version": ("flag", "", "Display the version of this program"),
}
_ALIASES = {"h": "help"}
_STATISTICS_DISPLAY = ("list", "pipeline")


class UsageError(Exception):
    """Bad command-line arguments; ``lines`` are printed after ``<program>: ``, then ``tail``."""

    def __init__(self, *lines: str, tail: str = ""):
        self.lines = lines
        self.tail = tail
        super().__init__("\n".join(lines + ((tail,) if tail else ())))

    def write(self, err) -> None:
        for line in self.lines:
            err.write(f"{PROGRAM}: {line}\n")
        if self.tail:
            err.write(self.tail + "\n")


class Options:
    def __init__(self):
        self.input: str | None = None
        self.values: dict[str, str | bool] = {}
        self.pass_flags: list[str] = []  # "name" or "name=options", in command-line order

    def __getitem__(self, name):
        return self.values.get(name, "" if FLAGS[name][0] == "list" else None)

    def flag(self, name: str) -> bool:
        return bool(self.values.get(name, False))


_BOOL = {"true": True, "1": True, "": True, "false": False, "0": False}


def _edit_distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _nearest(name: str, value: str, eq: str) -> str:
    """LLVM's "Did you mean": the known flag (or pass) nearest to ``name``."""
    candidates = sorted(set(FLAGS) | set(registry.PASSES) | set(mlir_adapter.pass_names()))
    best = min(candidates, key=lambda c: (_edit_distance(c, name), c))
    takes_value = best in registry.PASSES or best not in FLAGS or FLAGS[best][0] != "flag"
    dashes = "-" if len(best) == 1 else "--"  # as LLVM prints an option
    return f"{dashes}{best}" + (f"={value}" if eq and takes_value else "")


def _unknown(arg: str, argv0: str) -> UsageError:
    name, eq, value = arg.lstrip("-").partition("=")
    return UsageError(f"Unknown command line argument '{arg}'.  Try: '{argv0} --help'",
                      f"Did you mean '{_nearest(name, value, eq)}'?")


def _is_pass(name: str) -> bool:
    return registry.is_strata_pass(name) or mlir_adapter.is_pass(name)


def parse_args(argv: list[str], argv0: str = PROGRAM) -> Options:
    """Options from the command line, as LLVM's option parser reads them."""
    o = Options()
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "-" or not arg.startswith("-") or arg == "--":
            if arg == "--":
                continue
            if o.input is not None:
                raise UsageError("Too many positional arguments specified!",
                                 tail="Can specify at most 1 positional arguments: See: "
                                 f"{argv0} --help")
            o.input = arg
            continue
        body = arg[2:] if arg.startswith("--") else arg[1:]
        name, eq, value = body.partition("=")
        name = _ALIASES.get(name, name)
        if name.startswith("-") or not name:
            raise _unknown(arg, argv0)
        if name in FLAGS:
            kind = FLAGS[name][0]
            if kind == "flag":
                if value.lower() not in _BOOL:
                    raise UsageError(f"for the --{name} option: '{value}' is invalid value for "
                                     "boolean argument! Try 0 or 1")
                o.values[name] = _BOOL[value.lower()]
            elif kind == "value":
                if not eq:
                    if i >= len(argv):
                        raise UsageError(f"for the -{name} option: requires a value!"
                                         if len(name) == 1 else
                                         f"for the --{name} option: requires a value!")
                    value = argv[i]
                    i += 1
                o.values[name] = value
            elif kind == "optional":
                o.values[name] = value if eq else True
            else:  # list
                items = [v for v in value.split(",")] if eq else [""]
                for item in items:
                    if not item or not _is_pass(item):
                        raise UsageError(f"for the --{name} option: Cannot find option named "
                                         f"'{item}'!")
                previous = o.values.get(name, "")
                o.values[name] = ",".join(p for p in (previous, value) if p)
            continue
        if not re.fullmatch(r"[A-Za-z0-9_.\-]+", name) or not _is_pass(name):
            raise _unknown(arg, argv0)
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        o.pass_flags.append(name + (f"={value}" if eq else ""))
    mark = o["mlir-pass-statistics-display"]
    if mark is not None and mark not in _STATISTICS_DISPLAY:
        raise UsageError(f"for the --mlir-pass-statistics-display option: Cannot find option "
                         f"named '{mark}'!")
    level = o["compile-to"]
    if level is not None:
        if level not in LEVEL_NAMES:
            raise UsageError(f"error: unknown level '{level}' (levels: "
                             f"{', '.join(LEVEL_NAMES)})")
    limit = o["mlir-elide-elementsattrs-if-larger"]
    if limit is not None and not re.fullmatch(r"[0-9]+", limit):
        raise UsageError(f"for the --mlir-elide-elementsattrs-if-larger option: '{limit}' value "
                         "invalid for uint argument!")
    return o


# --------------------------------------------------------------------------- --help, lists


def _option_lines(cls, width: int) -> list[str]:
    lines = []
    for flag, typ, default, constraint, text in option_help(cls):
        typ = {"str": "string", "float": "number"}.get(typ, typ)
        left = f"    --{flag}" + ("" if typ == "bool" else f"=<{typ}>")
        detail = f"default: {default}" + (f"; {constraint}" if constraint else "")
        lines.append(f"{left.ljust(width)}- {text or flag} ({detail})")
    return lines


def pass_list() -> list[str]:
    """Every pass, upstream and strata's, as ``--list-passes`` prints them (sorted by flag)."""
    _, entries = mlir_adapter.list_passes()
    width = 52
    if entries:
        width = entries[0].lines[0].index(" -   ")
    rows = [(e.name, e.lines) for e in entries]
    for name, cls in registry.all_passes():
        lines = [f"  --{name}".ljust(width) + f" -   {cls.summary()}"]
        rows.append((name, lines + _option_lines(cls, width + 1)))
    out = []
    for _, lines in sorted(rows, key=lambda r: r[0]):
        out += lines
    return out


def _levels_lines() -> list[str]:
    from ..pipelines.levels import LEVELS

    return ["", "Levels for --compile-to (in order):"] + [
        f"  {lvl.name:<12} {lvl.summary}" for lvl in LEVELS]


def _write_list_passes(out) -> None:
    out.write("Passes:\n" + "\n".join(pass_list()) + "\n")
    out.write("\n".join(_levels_lines()) + "\n")


def _write_help(out) -> None:
    out.write(f"{OVERVIEW}\n\nUSAGE: {PROGRAM} [options] <input file>\n\nOPTIONS:\n\n")
    out.write("General options:\n\n")
    for name, (kind, meta, text) in sorted(FLAGS.items()):
        if kind == "flag":
            left = f"  --{name}"
        elif name == "o":
            left = f"  -o {meta}"
        elif kind == "optional":
            left = f"  --{name}{meta}"
        else:
            left = f"  --{name}={meta}"
        out.write(f"{left.ljust(61)}- {text}\n")
    out.write("  Compiler passes to run\n    Passes:\n")
    for line in pass_list():
        out.write("    " + line + "\n")
    out.write("\n".join(_levels_lines()) + "\n\n")
    out.write("Input nested deeper than 1000 levels of brackets ((, [, {, <) is an error.\n")


def _write_dialects(out) -> None:
    context = new_context()
    names = set()
    for name in mlir_adapter.dialects():
        try:
            context.get_dialect_descriptor(name)
            names.add(name)
        except Exception:  # not registered in the bindings' contexts
            pass
    out.write("Available Dialects: " + ",".join(sorted(names | {"strata"})) + "\n")


# --------------------------------------------------------------------------- input, output


def _split(text: str, marker: str | None):
    """``(chunk, line, col)``: where each chunk starts (as mlir-opt splits: on the marker
    anywhere in a line, the rest of the marker's line beginning the next chunk)."""
    if marker is None:
        return [(text, 1, 1)]
    chunks, start, line, col = [], 0, 1, 1
    while True:
        at = text.find(marker, start)
        if at < 0:
            chunks.append((text[start:], line, col))
            return chunks
        chunks.append((text[start:at], line, col))
        end = at + len(marker)
        line += text.count("\n", start, end)
        col = end - (text.rfind("\n", 0, end) + 1) + 1
        start = end


class _Output:
    """``-o``: checked (as mlir-opt opens it) before any input is processed, written at the end,
    atomically and only on success; stdout gets everything, as mlir-opt streams it."""

    def __init__(self, path: str | None, out):
        self.path, self.out = path, out
        if path is None or path == "-":
            return
        if os.path.isdir(path):
            raise OSError(21, "Is a directory")
        if os.path.exists(path) and not os.path.isfile(path):
            return  # /dev/null, a FIFO: written in place
        directory = os.path.dirname(os.path.realpath(path)) or "."
        if not os.path.exists(directory):
            raise OSError(2, "No such file or directory")
        if not os.path.isdir(directory):
            raise OSError(20, "Not a directory")
        if not os.access(directory, os.W_OK):
            raise OSError(13, "Permission denied")

    def write(self, text: str, ok: bool) -> None:
        if self.path is None or self.path == "-":
            self.out.write(text)
            self.out.flush()
            return
        if not ok:
            return
        if os.path.exists(self.path) and not os.path.isfile(self.path):
            with open(self.path, "w") as f:
                f.write(text)
            return
        path = os.path.realpath(self.path)  # through a symlink, not over it
        fd, tmp = tempfile.mkstemp(prefix=".strata-opt-", dir=os.path.dirname(path))
        try:
            with os.fdopen(fd, "w") as f:
                f.write(text)
            # mkstemp makes the file 0600; give it the mode open() would have.
            if os.path.exists(path):
                mode = os.stat(path).st_mode & 0o7777
            else:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


# --------------------------------------------------------------------------- MLIR's reports

_MARK = "\x00strata-diagnostic\x00"  # strata's diagnostics among MLIR's dumps on stderr


def _pretty_pipeline(text: str) -> str:
    """``a(b{x}, c)`` as MLIR's ``--dump-pass-pipeline`` indents it."""
    out, indent, i, depth_brace = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c == "{":
            depth_brace += 1
        elif c == "}":
            depth_brace -= 1
        if depth_brace:
            out.append(c)
        elif c == "(":
            indent += 1
            out.append("(\n" + "  " * indent)
        elif c == ")":
            indent -= 1
            out.append("\n" + "  " * indent + ")")
        elif c == ",":
            out.append(",\n" + "  " * indent)
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _top_level_count(text: str) -> int:
    inner = text[text.find("(") + 1:-1]
    depth, count = 0, 1 if inner.strip() else 0
    for c in inner:
        depth += c in "({"
        depth -= c in ")}"
        count += c == "," and depth == 0
    return count


# --------------------------------------------------------------------------- processing

_LOCATION = re.compile(r"^(.*):(\d+):(\d+)$")


class _Source:
    """The input's lines, to show under a diagnostic located in it, as MLIR's handler does."""

    def __init__(self, name: str, text: str):
        self.name = name
        self.lines = text.splitlines()

    def excerpt(self, location: str) -> str:
        m = _LOCATION.match(location)
        if not m or m.group(1) != self.name:
            return ""
        line, col = int(m.group(2)), int(m.group(3))
        if not 1 <= line <= len(self.lines):
            return ""
        text = self.lines[line - 1]
        caret = len(text[:max(col - 1, 0)].expandtabs(8))
        return f"{text.expandtabs(8)}\n{' ' * caret}^\n"

    def render(self, d) -> str:
        out = f"{d.location}: {d.severity}: {d.message}\n" + self.excerpt(d.location)
        previous = d.location
        for note in d.notes:
            out += f"{note.location}: {note.severity}: {note.message}\n"
            if note.location != previous:
                out += self.excerpt(note.location)
            previous = note.location
        return out

    def render_problem(self, p) -> str:
        """A --verify-diagnostics problem (an expected.Problem), with its excerpt underlined
        over ``p.width`` characters, as MLIR's SourceMgr prints a range."""
        excerpt = self.excerpt(p.location)
        if excerpt and p.width > 1:
            excerpt = excerpt[:-1] + "~" * (p.width - 1) + "\n"
        return f"{p.location}: error: {p.message}\n" + excerpt


def _emitter(err, capturing: bool):
    def emit(text: str) -> None:
        if capturing:
            data = "".join(_MARK + line for line in text.splitlines(keepends=True))
            os.write(2, data.encode())
        else:
            err.write(text)
    return emit


def _process_chunk(o: Options, pipeline, chunk: str, line: int, col: int, source: _Source, err,
                   timing: mlir_adapter.Timing | None,
                   verifier: Verifier | None) -> tuple[str | None, bool]:
    """Returns ``(output text or None, ok)``; writes diagnostics and MLIR's reports to ``err``.
    With a ``verifier`` (--verify-diagnostics) diagnostics go to it instead, and its problems
    are written."""
    produced = []
    before = {p for p in o["mlir-print-ir-before"].split(",") if p}
    after = {p for p in o["mlir-print-ir-after"].split(",") if p}
    printing = bool(before or after) or any(o.flag(f"mlir-print-ir-{w}") for w in (
        "before-all", "after-all", "after-change", "after-failure"))
    capture = printing or o.flag("mlir-pass-statistics") or timing is not None or \
        o.flag("dump-pass-pipeline")
    emit = _emitter(err, False)

    shown = source.name

    def report(diags):
        produced.extend(diags)
        for d in diags:
            if verifier is None:
                emit(source.render(d))
            else:
                if not op_notes_off:
                    mlir_adapter.without_op_notes(d)
                for problem in verifier.process(d):
                    emit(source.render_problem(problem))

    context = new_context()
    context.allow_unregistered_dialects = o.flag("allow-unregistered-dialect")
    # as mlir-opt: no "see current operation" notes when checking diagnostics
    op_notes_off = verifier is not None and mlir_adapter.print_op_on_diagnostic(context, False)
    if o.flag("mlir-disable-threading"):
        context.enable_multithreading(False)
    limit = o["mlir-elide-elementsattrs-if-larger"]
    limit = int(limit) if limit is not None else None
    printed = dict(large_elements_limit=limit, enable_debug_info=o.flag("mlir-print-debuginfo"),
                   print_generic_op_form=o.flag("mlir-print-op-generic"))
    module, failed, text = None, True, None
    with context:
        manager = PassManager(pipeline, context)
        start = time.perf_counter()
        try:
            module = parse_module(chunk, shown, context, line, col)
        except StrataError as e:
            report(e.diagnostics)
        if timing is not None:
            timing.parser += time.perf_counter() - start
        if module is not None:
            strata = _strata_diagnostics(module) if "strata" in chunk else []
            report(strata)
            failed = bool(strata)
        if module is not None and not failed:
            pm = manager.pm
            if o.flag("mlir-pass-statistics"):
                mode = o["mlir-pass-statistics-display"] or "pipeline"
                pm.enable_statistics(PassDisplayMode.LIST if mode == "list"
                                     else PassDisplayMode.PIPELINE)
            if printing:
                pm.enable_ir_printing(
                    print_before_all=o.flag("mlir-print-ir-before-all") or bool(before),
                    print_after_all=o.flag("mlir-print-ir-after-all") or bool(after) or
                    o.flag("mlir-print-ir-after-change"),
                    print_module_scope=o.flag("mlir-print-ir-module-scope"),
                    print_after_change=o.flag("mlir-print-ir-after-change"),
                    print_after_failure=o.flag("mlir-print-ir-after-failure"),
                    **printed)
            if timing is not None:
                pm.enable_timing()
            dumps_at = functools.partial(opt_guard.report, "dumps")
            with captured_stderr(dumps_at) if capture else contextlib.nullcontext() as cap:
                emit = _emitter(err, capture)
                if o.flag("dump-pass-pipeline"):
                    text_pm = str(pm)
                    sys.stderr.flush()
                    os.write(2, (f"Pass Manager with {_top_level_count(text_pm)} passes:\n"
                                 f"{_pretty_pipeline(text_pm)}\n\n").encode())
                ok, diags = manager.run(module, on_diagnostic=lambda d: report([d]))
                failed = not ok
                del pm
                manager = None
            emit = _emitter(err, False)
            if cap is not None:
                rest, timing_text = mlir_adapter.split_timing(cap.text)
                if timing is not None:
                    timing.add_report(timing_text)
                err.write(mlir_adapter.select_dumps(
                    rest, before, after, before_all=o.flag("mlir-print-ir-before-all"),
                    after_all=o.flag("mlir-print-ir-after-all"),
                    after_failure=o.flag("mlir-print-ir-after-failure"), passthrough=_MARK))
            if failed and not any(d.severity == "error" for d in produced):
                report([Diagnostic(format_location(module.location),
                                   "failure while executing pass pipeline (a pass failed "
                                   "without a diagnostic; --mlir-print-ir-after-failure shows "
                                   "which)")])
        if module is not None and not failed:
            start = time.perf_counter()
            text = module.get_asm(**printed) + "\n"
            if timing is not None:
                timing.output += time.perf_counter() - start
    if verifier is not None:
        return text, True  # the verifier's verdict, once every chunk has run
    return text, not failed


def _strata_diagnostics(module) -> list[Diagnostic]:
    """The shape and dtype rules of the strata ops in ``module`` (only input that names
    strata holds one)."""
    from ..passes.verify import strata_diagnostics

    return strata_diagnostics(module)


def _build_pipeline(o: Options):
    """The Pipeline to run (parsed and checked once); raises UsageError or PipelineError."""
    if o["pass-pipeline"] is not None and o.pass_flags:
        raise _PipelineMessage("'-pass-pipeline' option can't be used with individual pass "
                               "options")
    if o["compile-to"] is not None:
        if o["pass-pipeline"] is not None or o.pass_flags:
            raise UsageError("'--compile-to' can't be used with '--pass-pipeline' or pass flags")
        from ..pipelines.levels import level_pipeline

        pipeline = level_pipeline(o["compile-to"])
    elif o["pass-pipeline"] is not None:
        pipeline = parse_pipeline(o["pass-pipeline"])
    elif o.pass_flags:
        elements = []
        for flag in o.pass_flags:
            name, eq, options = flag.partition("=")
            element = f"{name}{{{options}}}" if eq else name
            anchor = _restricted_to(name)
            elements.append(f"{anchor}({element})" if anchor else element)
        pipeline = parse_pipeline("builtin.module(" + ", ".join(elements) + ")")
    else:
        pipeline = Pipeline()
    if o.flag("strata-fuse-report"):
        pipeline = pipeline.replace("strata-fuse", report=True)
    return pipeline


def _restricted_to(name: str) -> str | None:
    """The op a pass is restricted to, when it is not the module: mlir-opt nests such a pass
    flag implicitly (``--promote-buffers-to-stack`` runs as ``func.func(...)``), each on its own."""
    if registry.is_strata_pass(name):
        return None
    return mlir_adapter.restricted_to(name)


class _PipelineMessage(Exception):
    pass


def _read_input(path: str | None) -> tuple[bytes, str]:
    if path is None or path == "-":
        data = sys.stdin.buffer.read()
        opt_guard.keep_stdin(data)
        return data, "<stdin>"
    with open(path, "rb") as f:
        return f.read(), path


def run(argv: list[str], err=None, out=None, argv0: str = PROGRAM) -> int:
    err = err or sys.stderr
    out = out or sys.stdout
    try:
        o = parse_args(argv, argv0)
    except UsageError as e:
        e.write(err)
        return 1
    if o.flag("help"):
        _write_help(out)
        return 0
    if o.flag("version"):
        out.write(f"{PROGRAM} {__version__} (MLIR 22.1.8)\n")
        return 0
    if o.flag("list-passes"):
        _write_list_passes(out)
        return 0
    if o.flag("show-dialects"):
        _write_dialects(out)
        return 0
    timing = mlir_adapter.Timing() if o.flag("mlir-timing") else None

    try:
        data, shown = _read_input(o.input)
    except OSError as e:
        err.write(f"cannot open input file '{o.input}': {e.strerror or e}\n")
        return 1
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        err.write(f"{o.input or '-'}: error: could not open input file: 'utf-8' codec can't "
                  f"decode byte 0x{data[e.start]:02x} at line {line}, column {col}: "
                  f"{e.reason}\n")
        return 1
    try:
        output = _Output(o["o"], out)
    except OSError as e:
        err.write(f"cannot open output file '{o['o']}': {e.strerror}\n")
        return 1
    try:
        pipeline = _build_pipeline(o)
    except UsageError as e:
        e.write(err)
        return 1
    except _PipelineMessage as e:
        err.write(f"<unknown>:0: error: {e}\n")
        return 1
    except StrataError as e:
        if e.hint:
            err.write(f"{PROGRAM}: {e.hint}\n")
        for d in e.diagnostics:
            message = d.message
            if o.pass_flags:  # mlir-opt's pass flags fail without naming the flag again
                message = re.sub(r"\n?\nfailed to add `[^`]*` with options `[^`]*`\n$", "\n",
                                 message)
            err.write(f"<unknown>:0: error: {message}\n")
        return 1

    if o.flag("mlir-print-ir-module-scope") and not o.flag("mlir-disable-threading"):
        # MLIR aborts the process in this case; mlir-opt checks it first, and so do we.
        err.write("<unknown>:0: error: IR print for module scope can't be setup on a pass-manager "
                  "without disabling multi-threading first.\n\n")
        return 1
    split = o["split-input-file"]
    marker = None if split is None else (DEFAULT_MARKER if split is True else split)
    outputs, ok = [], True
    source = _Source(shown, text)
    verifier = Verifier(text, shown) if o.flag("verify-diagnostics") else None
    if verifier is not None:
        for problem in verifier.initial:
            err.write(source.render_problem(problem))
    for chunk, line, col in _split(text, marker):
        opt_guard.report("chunk", f"{shown}:{line}:{col}")
        chunk_out, chunk_ok = _process_chunk(o, pipeline, chunk, line, col, source, err, timing,
                                             verifier)
        ok = ok and chunk_ok
        outputs.append(chunk_out or "")
    if verifier is not None:
        for problem in verifier.finish():
            err.write(source.render_problem(problem))
        ok = not verifier.failed
    joiner = (o["output-split-marker"] if o["output-split-marker"] is not None
              else DEFAULT_MARKER) + "\n"
    if opt_guard.probing:
        return 0 if ok else 1
    start = time.perf_counter()
    try:
        output.write(joiner.join(outputs), ok)
    except OSError as e:
        err.write(f"cannot open output file '{o['o']}': {e.strerror or e}\n")
        return 1
    if timing is not None:
        timing.output += time.perf_counter() - start
        err.write(timing.report())
    return 0 if ok else 1


def run_on_large_stack(argv: list[str], err=None, out=None, argv0: str = PROGRAM) -> int:
    """:func:`run` on a thread with a ``STACK_SIZE`` stack (or here, if that is refused)."""
    outcome = {}

    def target():
        try:
            outcome["code"] = run(argv, err, out, argv0)
        except BaseException as e:  # handed to the calling thread
            outcome["error"] = e

    previous = threading.stack_size()
    try:
        threading.stack_size(STACK_SIZE)
        worker = threading.Thread(target=target, name="strata-opt", daemon=True)
        worker.start()
    except (ValueError, RuntimeError):
        return run(argv, err, out, argv0)
    finally:
        threading.stack_size(previous)
    worker.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["code"]


def main(argv: list[str] | None = None, argv0: str | None = None) -> None:
    """The ``strata-opt`` command (and ``strata opt``): the driver, watched by opt_guard."""
    argv0 = argv0 or sys.argv[0]
    work = functools.partial(_exit_status, argv0=argv0)
    sys.exit(opt_guard.supervise(work, sys.argv[1:] if argv is None else argv))


def _debug() -> bool:
    """``STRATA_DEBUG`` (strata.settings); a value that is not a bool counts as off."""
    try:
        return bool(settings.get("STRATA_DEBUG"))
    except StrataError:
        return False


def _exit_status(argv: list[str], argv0: str) -> int:
    """:func:`run_on_large_stack` with its exceptions turned into exit statuses."""
    try:
        code = run_on_large_stack(argv, argv0=argv0)
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        code = 1
    except Exception as e:  # an internal error: keep the report short, but honest
        if _debug():
            raise
        sys.stderr.write(f"{PROGRAM}: internal error: {type(e).__name__}: {e}\n"
                         f"{PROGRAM}: set STRATA_DEBUG=1 to see the Python traceback\n")
        code = 2
    return code


if __name__ == "__main__":
    main()
