"""strata-opt: an opt-style driver for strata and upstream MLIR passes.

Follows mlir-opt's conventions: input file or stdin, ``-o``, ``--pass-pipeline``,
one flag per pass (strata's and upstream's, in command-line order),
``--split-input-file``, ``--verify-diagnostics``, ``--mlir-print-ir-*``,
``--mlir-timing``, ``--list-passes``, ``--version``. Errors print as
``file:line:col: error: message`` and exit 1; no partial ``-o`` file is written.
As in mlir-opt, an error that an upstream pass emits without failing is printed
but does not fail the run (``--verify-diagnostics`` checks it like any other).

Input nested deeper than ``strata.parsing.MAX_NESTING`` (1000) levels of
brackets is rejected with a located error before MLIR parses it; the driver
runs on a thread with a ``STACK_SIZE`` stack so the recursive parts of MLIR
(parser, verifier, printer, passes) have room to spare below that limit.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import threading

USAGE = """OVERVIEW: strata modular optimizer driver

USAGE: strata-opt [options] <input file>

OPTIONS:
  -o <filename>                       Output filename (default: stdout)
  --pass-pipeline=<pipeline>          A textual pass pipeline, e.g.
                                      'builtin.module(strata-canonicalize, func.func(cse))'
  --<pass>[=<options>]                Add a strata or upstream MLIR pass (in order)
  --compile-to=<level>                Lower up to a named level (see --list-passes)
  --split-input-file[=<marker>]       Split the input on '// -----' and process each chunk
  --verify-diagnostics                Check diagnostics against expected-* comments
  --mlir-print-ir-before-all          Print the IR before every pass
  --mlir-print-ir-after-all           Print the IR after every pass
  --mlir-print-ir-before=<p1,p2>      Print the IR before the named passes
  --mlir-print-ir-after=<p1,p2>       Print the IR after the named passes
  --mlir-print-ir-after-failure       Print the IR after a pass fails
  --mlir-print-debuginfo              Print locations in the output
  --mlir-timing                       Print a wall-time report per pass
  --strata-fuse-report                Report every strata-fuse decision as a remark
  --allow-unregistered-dialect        Accept ops of dialects that are not registered
  --list-passes                       List strata passes, pipelines and levels, then exit
  --version                           Print the version, then exit

Input nested deeper than 1000 levels of brackets ((, [, {, <) is an error.
"""

STACK_SIZE = 256 << 20  # the driver thread's stack; MLIR recurses about 3 KiB per nesting level


class UsageError(Exception):
    pass


class Options:
    def __init__(self):
        self.input = None
        self.output = None
        self.pipeline = None
        self.pass_flags: list[str] = []
        self.compile_to = None
        self.split = None
        self.verify_diagnostics = False
        self.print_before_all = False
        self.print_after_all = False
        self.print_before: set[str] = set()
        self.print_after: set[str] = set()
        self.print_after_failure = False
        self.debug_info = False
        self.timing = False
        self.fuse_report = False
        self.allow_unregistered = False
        self.list_passes = False
        self.version = False
        self.help = False


_VALUE_FLAGS = {"--pass-pipeline", "--mlir-print-ir-before", "--mlir-print-ir-after",
                "--compile-to", "-o"}


def parse_args(argv: list[str]) -> Options:
    o = Options()
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "-" or not arg.startswith("-"):
            if o.input is not None:
                raise UsageError(f"Too many positional arguments specified! (extra: '{arg}')")
            o.input = arg
            continue
        if arg.startswith("--") and len(arg) > 2 and arg[2] == "-":
            raise UsageError(f"Unknown command line argument '{arg}'.  Try: 'strata-opt --help'")
        flag, eq, value = arg.partition("=")
        if flag.startswith("-") and not flag.startswith("--") and flag != "-o":
            flag = "-" + flag  # accept -flag as --flag, as LLVM's parser does
        if flag in _VALUE_FLAGS and not eq:
            if i >= len(argv):
                raise UsageError(f"Not enough positional command line arguments specified! "
                                 f"'{flag}' needs a value")
            value = argv[i]
            i += 1
        if flag == "-o" or flag == "--o":
            o.output = value
        elif flag == "--pass-pipeline":
            o.pipeline = value
        elif flag == "--compile-to":
            o.compile_to = value
        elif flag == "--split-input-file":
            o.split = value or "// -----"
        elif flag == "--verify-diagnostics":
            o.verify_diagnostics = True
        elif flag == "--mlir-print-ir-before-all":
            o.print_before_all = True
        elif flag == "--mlir-print-ir-after-all":
            o.print_after_all = True
        elif flag == "--mlir-print-ir-before":
            o.print_before |= {p.strip() for p in value.split(",") if p.strip()}
        elif flag == "--mlir-print-ir-after":
            o.print_after |= {p.strip() for p in value.split(",") if p.strip()}
        elif flag == "--mlir-print-ir-after-failure":
            o.print_after_failure = True
        elif flag == "--mlir-print-debuginfo":
            o.debug_info = True
        elif flag == "--mlir-timing":
            o.timing = True
        elif flag == "--strata-fuse-report":
            o.fuse_report = True
        elif flag == "--allow-unregistered-dialect":
            o.allow_unregistered = True
        elif flag == "--list-passes":
            o.list_passes = True
        elif flag == "--version":
            o.version = True
        elif flag in ("--help", "-h", "--h"):
            o.help = True
        else:
            o.pass_flags.append((flag + eq + value)[2:])  # flag: -x normalized to --x
    for p in o.pass_flags:
        if not re.fullmatch(r"[A-Za-z0-9_.\-]+(=.*)?", p, re.S):
            raise UsageError(f"Unknown command line argument '--{p}'.  Try: 'strata-opt --help'")
    if o.pipeline is not None and o.pass_flags:
        raise UsageError("'--pass-pipeline' can't be used with individual pass flags "
                         f"(got --{o.pass_flags[0].split('=')[0]})")
    if o.compile_to is not None and (o.pipeline is not None or o.pass_flags):
        raise UsageError("'--compile-to' can't be used with '--pass-pipeline' or pass flags")
    return o


def _flags_to_pipeline(flags: list[str]) -> str:
    from ..context import new_context
    from ..errors import StrataError
    from ..passes import registry
    from ..pipelines.runner import stages_for

    parts = []
    context = None
    for f in flags:
        name, _, opts = f.partition("=")
        if len(opts) >= 2 and opts[0] == opts[-1] and opts[0] in "'\"":
            opts = opts[1:-1]
        element = f"{name}{{{opts}}}" if opts else name
        if not registry.is_strata_pass(name):
            context = context or new_context()
            try:
                stages_for(name, context)
            except StrataError:
                raise UsageError(f"Unknown command line argument '--{name}'.  Try: "
                                 "'strata-opt --help'") from None
            # A bad option of a known pass is reported when the whole pipeline is checked.
        parts.append(element)
    return "builtin.module(" + ", ".join(parts) + ")"


def _list_passes(out) -> None:
    from ..passes import registry
    from ..passes.base import option_help

    out.write("strata passes and pipelines:\n")
    for name in sorted(registry.PASSES):
        try:
            cls = registry.lookup(name)
        except (ImportError, AttributeError) as e:  # one broken entry must not hide the rest
            out.write(f"  --{name}\n      (unavailable: {type(e).__name__}: {e})\n")
            continue
        out.write(f"  --{name}\n      {cls.summary()}\n")
        for flag, typ, default, constraint in option_help(cls):
            out.write(f"      {flag}=<{typ}> (default: {default})"
                      f"{' ' + constraint if constraint else ''}\n")
    levels = registry.levels()
    if levels:
        out.write("\nlevels for --compile-to (in order):\n")
        for name, summary in levels:
            out.write(f"  {name:<12} {summary}\n")
    out.write("\nAny upstream MLIR pass is accepted too (mlir-opt --help lists them).\n")


def _split(text: str, marker: str | None):
    """``(chunk, first_line)`` pairs; the marker lines themselves are dropped."""
    if marker is None:
        return [(text, 1)]
    chunks, current, start = [], [], 1
    for lineno, line in enumerate(text.splitlines(keepends=True), 1):
        if line.strip().startswith(marker) and line.strip()[len(marker):].strip("- ") == "":
            chunks.append(("".join(current), start))
            current, start = [], lineno + 1
        else:
            current.append(line)
    chunks.append(("".join(current), start))
    return chunks


def _process_chunk(o: Options, chunk: str, first_line: int, filename: str, pipeline, err):
    """Returns ``(output_text or None, ok)``; writes diagnostics to ``err``."""
    from ..context import new_context
    from ..errors import StrataError
    from ..passes.verify import strata_diagnostics
    from ..pipelines.runner import Instrumentation, run_pipeline
    from .expected import check_diagnostics, parse_expectations

    context = new_context()
    context.allow_unregistered_dialects = o.allow_unregistered
    produced = []
    module = None
    failed = False
    inst = Instrumentation(o.print_before_all, o.print_after_all, o.print_before, o.print_after,
                           o.print_after_failure, o.debug_info, o.timing, err)
    with context:
        from ..parsing import parse_module

        try:
            module = parse_module(chunk, filename, context, first_line)
            produced += strata_diagnostics(module)
            failed = any(d.severity == "error" for d in produced)
            if not produced:
                # Diagnostics of a pipeline that succeeded are reported, as mlir-opt does,
                # but do not fail the run (an upstream pass may emit an error and go on).
                produced += run_pipeline(module, pipeline(context), instrumentation=inst,
                                         reproducer=False)
        except StrataError as e:
            produced += e.diagnostics
            failed = True
        inst.report()
        if o.verify_diagnostics:
            problems = check_diagnostics(produced, parse_expectations(chunk, first_line),
                                         filename)
            for p in problems:
                err.write(p + "\n")
            ok = not problems
            text = module.get_asm(enable_debug_info=o.debug_info) if (ok and not failed) else None
            return text, ok
        for d in produced:
            err.write(str(d) + "\n")
        if failed:
            return None, False
        return module.get_asm(enable_debug_info=o.debug_info), True


def _write_output(path: str | None, text: str) -> None:
    if path is None or path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    if os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path):
        # /dev/null, /dev/stdout, a FIFO: write in place; renaming over them would
        # replace the device node with a regular file.
        with open(path, "w") as f:
            f.write(text)
        return
    path = os.path.realpath(path)  # through a symlink, not over it
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(prefix=".strata-opt-", dir=directory)
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


def run(argv: list[str], err=None) -> int:
    err = err or sys.stderr
    try:
        o = parse_args(argv)
    except UsageError as e:
        err.write(f"strata-opt: {e}\n")
        return 1
    if o.help:
        sys.stdout.write(USAGE)
        return 0
    if o.version:
        import mlir  # noqa: F401

        from .. import __version__

        sys.stdout.write(f"strata-opt {__version__} (MLIR 22.1.8)\n")
        return 0
    if o.list_passes:
        _list_passes(sys.stdout)
        return 0
    from ..errors import StrataError

    try:
        if o.compile_to is not None:
            from ..pipelines.levels import pipeline_to_level

            text_pipeline = pipeline_to_level(o.compile_to)
        elif o.pipeline is not None:
            text_pipeline = o.pipeline
            _check_anchor(text_pipeline)
        else:
            text_pipeline = _flags_to_pipeline(o.pass_flags)
    except UsageError as e:
        err.write(f"strata-opt: {e}\n")
        return 1
    except StrataError as e:
        for d in e.diagnostics:
            err.write(f"strata-opt: error: {d.message}\n")
        return 1

    from ..pipelines.runner import stages_for

    def pipeline(context):
        stages = stages_for(text_pipeline, context)
        if o.fuse_report:
            import dataclasses

            for stage in stages:
                if stage.name == "strata-fuse":
                    stage.python = dataclasses.replace(stage.python, report=True)
        return stages

    filename = o.input or "-"
    try:
        if filename == "-":
            data = sys.stdin.buffer.read()
            shown = "<stdin>"
        else:
            with open(filename, "rb") as f:
                data = f.read()
            shown = filename
        text = data.decode("utf-8")
    except OSError as e:
        err.write(f"{filename}: error: could not open input file: {e.strerror or e}\n")
        return 1
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        err.write(f"{filename}: error: could not open input file: 'utf-8' codec can't decode "
                  f"byte 0x{data[e.start]:02x} at line {line}, column {col}: {e.reason}\n")
        return 1

    # Check the pipeline itself once, before touching any input.
    try:
        from ..context import new_context

        stages_for(text_pipeline, new_context())
    except StrataError as e:
        for d in e.diagnostics:
            err.write(f"strata-opt: error: {d.message}\n")
        return 1

    outputs, ok = [], True
    for chunk, first in _split(text, o.split):
        out, chunk_ok = _process_chunk(o, chunk, first, shown, pipeline, err)
        ok = ok and chunk_ok
        if out is not None:
            outputs.append(out)
    if not ok:
        return 1
    separator = "\n// -----\n"
    try:
        _write_output(o.output, separator.join(outputs) + ("\n" if outputs else ""))
    except OSError as e:
        err.write(f"strata-opt: error: could not open output file '{o.output}': "
                  f"{e.strerror or e}\n")
        return 1
    return 0


def _check_anchor(pipeline: str) -> None:
    """``--pass-pipeline`` must be ``builtin.module(...)``, as mlir-opt requires.

    A malformed pipeline is left to the full check, which locates the problem.
    """
    from ..errors import StrataError
    from ..pipelines.text import PipelineSyntaxError, parse_pipeline

    try:
        elements = parse_pipeline(pipeline.strip())
    except PipelineSyntaxError:
        return
    if len(elements) != 1 or not elements[0].is_anchor:
        raise StrataError("expected pass pipeline to be wrapped with the anchor operation "
                          "type, e.g. 'builtin.module(...)'")
    if elements[0].name != "builtin.module":
        raise StrataError(f"can't run '{elements[0].name}' pass manager on 'builtin.module' op")


def run_on_large_stack(argv: list[str], err=None) -> int:
    """:func:`run` on a thread with a ``STACK_SIZE`` stack (or here, if that is refused)."""
    outcome = {}

    def target():
        try:
            outcome["code"] = run(argv, err)
        except BaseException as e:  # handed to the calling thread
            outcome["error"] = e

    previous = threading.stack_size()
    try:
        threading.stack_size(STACK_SIZE)
        worker = threading.Thread(target=target, name="strata-opt", daemon=True)
        worker.start()
    except (ValueError, RuntimeError):
        return run(argv, err)
    finally:
        threading.stack_size(previous)
    worker.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["code"]


def main() -> None:
    try:
        code = run_on_large_stack(sys.argv[1:])
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        code = 1
    except Exception as e:  # an internal error: keep the report short, but honest
        if os.environ.get("STRATA_DEBUG"):
            raise
        sys.stderr.write(f"strata-opt: internal error: {type(e).__name__}: {e}\n"
                         "strata-opt: set STRATA_DEBUG=1 to see the Python traceback\n")
        code = 2
    sys.exit(code)


if __name__ == "__main__":
    main()
