"""strata.compile's Program and strata.parse: a module in, its functions compiled per signature.

    prog = strata.compile(module)            # a strata.Module (or .mlir text)
    y = prog(x, w)                           # or prog.mlp(x, w) for a named function

    specs, names = prog.signature("mlp")     # the declared (shape, dtype)s, parameter names
    f = prog.compile(specs, function="mlp")  # its CompiledFunction (runtime/compiled.py)

Every call checks its arrays against the signature (the guards): a wrong dtype,
rank or static dim raises StrataError naming the argument, expected vs given.
Functions with dynamic dims are specialized to the call's shapes and compiled
once per distinct shape set (cached in memory). ``lower`` runs the CPU pipeline
up to a level; ``specialized`` is the one-function copy a compile starts from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the bindings are imported where they are used
    from mlir import ir

    from ..frontend.module import Module

import functools
import os
import time

from .. import settings
from ..errors import StrataError
from ..frontend.locations import location_text, user_traceback
from .allocs import check_allocs, workspace_alloc
from .compiled import (
    CompileStats,
    coerce_argument,
    compiled_function,
    library_function,
    signature_text,
)
from .log import logger
from .variants import Variants

# MLIR (the bindings, the pipelines) is imported where a compile needs it, not here:
# a jitted function whose variant is in the disk cache runs without loading it
# (see JitFunction.load_cached, runtime/jit.py).

__all__ = ["parse", "Program", "ProgramBase", "lower", "specialized", "clone_module",
           "default_threads", "check_blas", "check_threads", "key_options", "tuned_text",
           "dump_folder"]


def parse(text: str, filename: str = "<string>") -> Module:
    """Parses .mlir text (strata or any level) into a strata.Module."""
    from mlir import ir

    from ..context import new_context
    from ..frontend.module import Module
    from ..parsing import parse_module

    context = new_context()
    module = Module(context)
    with context:
        op = parse_module(text, filename, context)
        module.mlir = ir.Module.parse(op.get_asm(enable_debug_info=True), context)
    return module


def clone_module(module: ir.Module) -> ir.Module:
    from mlir import ir

    from ..context import new_context

    context = new_context()
    with context:
        return ir.Module.parse(module.operation.get_asm(enable_debug_info=True), context)


def default_threads() -> int:
    """Threads compiled CPU code may use: ``STRATA_THREADS``, else this process's CPUs."""
    return settings.get("STRATA_THREADS")


def check_blas(blas: str) -> str:
    """The checked ``blas`` mode (``auto`` is ``never`` where numpy ships no OpenBLAS)."""
    from .blas import resolve_mode

    return resolve_mode(blas, location_text())


def check_threads(threads: int | None) -> int:
    if threads is None:
        return default_threads()
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
        raise StrataError(f"threads must be a positive integer, got {threads!r}",
                          location=location_text())
    return threads


def dump_folder(module: ir.Module) -> str | None:
    """Where ``STRATA_DUMP_DIR`` asks the IR after every pass of this compile to go:
    ``$STRATA_DUMP_DIR/<functions>/<n>`` (a new ``n`` per compile), or None. A compile
    to LLVM also writes its final code there (``<k>-machine-code/``: module.ll,
    module.opt.ll, module.s)."""
    root = settings.get("STRATA_DUMP_DIR")
    if not root:
        return None
    from mlir import ir

    names = [ir.StringAttr(op.attributes["sym_name"]).value for op in module.body.operations
             if op.operation.name == "func.func" and
             "sym_visibility" not in op.operation.attributes]
    base = os.path.join(root, "+".join(names) or "module")
    n = 0
    while True:
        try:
            os.makedirs(os.path.join(base, str(n)))
            return os.path.join(base, str(n))
        except FileExistsError:
            n += 1


def lower(module: ir.Module, compile_to: str = "llvm", *, fusion: bool = True, layout: bool = True,
          record_sizes: dict | None = None, fuse_options: str = "", before=None,
          threads: int = 1, blas: str = "never", timing: dict | None = None,
          tuned: str = "", thread_runtime: str | None = None) -> list:
    """Runs the CPU pipeline on ``module`` in place, up to level ``compile_to``.

    ``before`` maps a level name to a callable run on the module just before the
    passes of that level. Returns the passes' remarks (e.g. strata-fuse's
    decisions with ``report=true``). ``blas``: auto|always|never (see runtime/blas.py).
    ``timing``: filled with MLIR's per-pass timing, ``{level: [(seconds, pass, depth)]}``.
    ``tuned``: per-matmul tuned tiles (passes/tuning.py, runtime/tuning_record.py).
    ``thread_runtime``: omp|async (None: this process's, runtime/openmp.py).
    """
    from ..pipelines.levels import level_steps
    from .openmp import thread_runtime as process_thread_runtime
    from .progress import Progress

    remarks = []
    dump = dump_folder(module)
    steps = level_steps(compile_to, fusion=fusion, layout=layout, fuse_options=fuse_options,
                        threads=threads, blas=blas, tuned=tuned,
                        thread_runtime=thread_runtime or process_thread_runtime())
    progress = Progress(_functions_text(module))
    progress.level(steps[0][0])
    with progress:
        for i, (name, text) in enumerate(steps):
            progress.level(name)
            remarks += _lower_level(module, name, text, i, before, dump, timing,
                                    record_sizes)
    if dump and compile_to == "llvm":  # the final code too: LLVM IR and assembly
        from . import aot

        aot.dump_final_code(module, os.path.join(dump, f"{len(steps)}-machine-code"))
    return remarks


def _functions_text(module) -> str:
    from mlir import ir

    return ", ".join("@" + ir.StringAttr(op.attributes["sym_name"]).value
                     for op in module.body.operations
                     if op.operation.name == "func.func" and
                     "sym_visibility" not in op.operation.attributes) or "a module"


def _lower_level(module, name, text, i, before, dump, timing, record_sizes) -> list:
    """Runs one level's passes (see lower)."""
    from ..pipelines.runner import run_pipeline

    if before and name in before:
        before[name](module)
    rows = None if timing is None else timing.setdefault(name, [])
    remarks = run_pipeline(module.operation, f"builtin.module({text})",
                           dump_dir=dump and os.path.join(dump, f"{i}-{name}"), timing=rows)
    if record_sizes is not None:
        record_sizes[name] = _op_count(module)
    return remarks


def _op_count(module: ir.Module) -> int:
    """How many operations ``module`` holds (a size that needs no printing)."""
    from mlir import ir

    count = 0

    def visit(op):
        nonlocal count
        count += 1
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return count - 1  # the module itself


class ProgramBase:
    """What every compiled program does on a call: guards, then the compiled function.

    Subclasses give ``_get(fname, arg_specs)``, the compiled function for a signature.
    """

    def __init__(self, module: Module | ir.Module, max_variants: int | None = None):
        from mlir import ir

        from ..dialect.types import shape_of
        from ..frontend.module import Module

        self.module = module.mlir if isinstance(module, Module) else module
        self.stats = CompileStats()
        self.fast = None  # jit: the one compiled function, when arrays need no conversion
        self._cache = Variants(max_variants)
        self._signatures = {}
        for op in self.module.body.operations:
            if op.operation.name != "func.func":
                continue
            fname = ir.StringAttr(op.attributes["sym_name"]).value
            ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            names = getattr(module, "arg_names", {}).get(fname) or [
                f"arg{i}" for i in range(len(ftype.inputs))]
            self._signatures[fname] = ([shape_of(t) for t in ftype.inputs], names)
        if not self._signatures:
            raise StrataError("the module has no functions to compile", location="<module>")

    @property
    def functions(self) -> list[str]:
        return list(self._signatures)

    def __getattr__(self, name):
        sigs = self.__dict__.get("_signatures", {})
        if name in sigs:
            return functools.partial(self.call, name)
        raise AttributeError(name)

    def __call__(self, *args, out=None):
        if len(self._signatures) != 1:
            raise StrataError(f"the module has several functions ({', '.join(self.functions)}); "
                              "call one by name", location=location_text())
        try:
            return self.call(next(iter(self._signatures)), *args, out=out)
        except StrataError as e:  # the user's frames only (STRATA_TRACEBACK=full: all)
            raise e.with_traceback(user_traceback(e.__traceback__))  # noqa: B904 - e itself

    def call(self, fname: str, *args, out=None):
        """Runs ``fname`` on ``args``; ``out``: the results' arrays (runtime/out_arrays.py)."""
        specs, names = self._signatures[fname]
        if len(args) != len(specs):
            raise StrataError(f"{fname}: expected {len(specs)} arguments, got {len(args)}",
                              location=location_text())
        arrays = [coerce_argument(a, s, d, n, fname) for a, (s, d), n in
                  zip(args, specs, names, strict=True)]
        compiled = self._get(fname, [(a.shape, d) for a, (_, d) in
                                     zip(arrays, specs, strict=True)])
        self.stats.calls += 1
        outs = compiled.run(arrays) if out is None else compiled.run(arrays, out)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def signature(self, function: str | None = None) -> tuple[list, list[str]]:
        """``(specs, names)`` of ``function`` as declared (None: the module's only
        function): its arguments' ``[(shape, dtype)]``, None for a dynamic dim, and the
        parameter names the guards' messages use."""
        specs, names = self._signatures[self._function(function)]
        return [(tuple(s), d) for s, d in specs], list(names)

    def name_parameters(self, names: list[str], function: str | None = None) -> None:
        """Names ``function``'s parameters ``names`` in the guards' messages (a traced
        Python function's own names, say)."""
        fname = self._function(function)
        self._signatures[fname] = (self._signatures[fname][0], list(names))

    def compile(self, signature: list | None = None, *, function: str | None = None):
        """The compiled function (runtime/compiled.py) of ``function`` (None: the only
        one) for ``signature``, ``[(shape, dtype)]`` (None: as declared). Compiled on
        the first request and kept among the program's variants (``max_variants``): a
        call of the same shapes runs the same code. Raises StrataError where it cannot."""
        fname = self._function(function)
        if signature is None:
            signature = self._signatures[fname][0]
        return self._get(fname, [(tuple(s), d) for s, d in signature])

    def compiled_functions(self) -> list:
        """The compiled functions kept, least recently used first."""
        return list(self._cache.values())

    def _function(self, function: str | None) -> str:
        if function is None:
            if len(self._signatures) != 1:
                raise StrataError(f"the module has several functions "
                                  f"({', '.join(self.functions)}); name one",
                                  location=location_text())
            return next(iter(self._signatures))
        if function not in self._signatures:
            raise StrataError(f"no function '{function}' in the module (functions: "
                              f"{', '.join(self.functions)})", location=location_text())
        return function

    def _get(self, fname, arg_specs):
        raise NotImplementedError


class Program(ProgramBase):
    """The callable result of strata.compile on a module: one entry per function."""

    def __init__(self, module: Module | ir.Module, *, fusion: bool | str = True,
                 opt_level: int = 3, layout: bool = True, threads: int | None = None,
                 max_variants: int | None = None, dynamic: bool = False, blas: str = "auto",
                 timing: bool = False):
        super().__init__(module, max_variants)
        self.timing = timing  # collect a CompileProfile per compile (runtime/profile.py)
        self.fusion = fusion
        self.layout = layout
        self.opt_level = opt_level
        self.threads = check_threads(threads)
        # dynamic: compile each function once as declared, its dynamic dims sized per
        # call; else once per distinct shapes, fully static (faster code)
        self.dynamic = dynamic
        self.blas = check_blas(blas)
        self.trace_digest = None  # a jit variant's: its disk-cache key names the trace
        self.emit_later = False  # a jit variant: its JitFunction emits the profile

    def _get(self, fname, arg_specs):
        if self.dynamic:
            arg_specs = list(self._signatures[fname][0])
        key = (fname, tuple(tuple(s) for s, _ in arg_specs))
        return self._cache.get_or_build(key, lambda: self._compile(fname, arg_specs))

    def _compile(self, fname, arg_specs):
        start = time.perf_counter()
        options = "report=true"
        measured = []
        if self.fusion == "measure":
            from .measure import choose_fusion

            options, measured = choose_fusion(self, fname, arg_specs)
        compiled, remarks, sizes = self._build(fname, arg_specs, options)
        elapsed = time.perf_counter() - start
        self.stats.compiles += 1
        self.stats.compile_seconds += elapsed
        self.stats.ir_sizes = sizes
        self.stats.fusion_report = [str(r) for r in remarks] + measured
        self.stats.specializations.append((fname, [tuple(s) for s, _ in arg_specs], elapsed))
        return compiled

    def build(self, signature: list, *, function: str | None = None,
              fuse_options: str = "report=true"):
        """Compiles ``function`` (None: the only one) for ``signature`` anew, with
        strata-fuse's options ``fuse_options``; kept nowhere: ``(compiled function,
        the passes' remarks, operations per level)``. Measure-both fusion
        (runtime/measure.py) builds its variants so."""
        return self._build(self._function(function), [(tuple(s), d) for s, d in signature],
                           fuse_options)

    def _build(self, fname, arg_specs, fuse_options=""):
        """Specializes, lowers and compiles one function: (compiled, remarks, IR sizes).

        With the on-disk cache on (runtime/cache.py) and a C compiler driver present,
        the function is compiled ahead of time into a cached shared library (and
        loaded from there next time); otherwise MLIR's ExecutionEngine JIT-compiles it.
        With timing on (``timing=True`` or ``STRATA_TIMING``), the compile's profile
        (runtime/profile.py) goes to ``stats.profiles``.
        """
        from .profile import CompileProfile, timing_enabled

        profile = None
        if timing_enabled(self.timing):
            profile = CompileProfile(fname, signature_text(arg_specs))
        built = self._build_profiled(fname, arg_specs, fuse_options, profile)
        if profile is not None:
            self.stats.profiles.append(profile)
            if not self.emit_later:  # a jit variant's adds its trace phases first
                profile.emit()
        return built

    def _build_profiled(self, fname, arg_specs, fuse_options, profile):
        import contextlib

        from . import aot, cache

        def phase(name):
            return profile.phase(name) if profile is not None else contextlib.nullcontext()

        from .allocs import scan_allocs, workspace_bytes
        from .cache_admin import explain_miss
        from .engine import Engine, uses_thread_runtime
        from .specialize import ShapeFunction

        started = time.perf_counter()
        module, result_specs = specialized(self.module, fname, arg_specs)
        dynamic = any(None in tuple(s) for s, _ in arg_specs)
        shapes = ShapeFunction(clone_module(module), fname) if dynamic else None
        use_cache = cache.enabled() and aot.available()
        key = None
        tuned = tuned_text(self.threads)
        if use_cache:
            options = key_options(self.fusion, self.layout, fuse_options, self.opt_level,
                                  self.threads, self.blas, tuned)
            signature = [[list(s), d] for s, d in arg_specs]
            if self.trace_digest is not None:  # a jit variant: keyed by its trace
                parts = cache.key_parts(None, fname, options, signature,
                                        trace=self.trace_digest)
            else:
                parts = cache.key_parts(module.operation.get_asm(enable_debug_info=False),
                                        fname, options, signature)
            key = cache.key_of(parts)
            check = {"function": fname, "args": [[list(s), d] for s, d in arg_specs],
                     "results": [[list(s), d] for s, d in result_specs]}
            hit = cache.load(key, check)
            if hit is not None:
                lib_path, meta = hit
                try:
                    compiled = self._from_library(lib_path, fname, arg_specs, meta, shapes)
                except (OSError, KeyError, TypeError, ValueError, StrataError) as e:
                    cache.discard(key, f"cannot load it: {e}")  # rebuilt below
                else:
                    check_allocs(fname, compiled.allocs +
                                 workspace_alloc(fname, compiled.workspace))
                    self.stats.cache_hits += 1
                    logger("cache").info("hit %s for %s%s", key, fname, signature_text(arg_specs))
                    return compiled, meta["remarks"], meta["ir_sizes"]
            why = explain_miss(parts)
            if settings.get("STRATA_CACHE_MUST_HIT"):
                raise StrataError(f"{fname}{signature_text(arg_specs)}: not in the compilation "
                                  f"cache and STRATA_CACHE_MUST_HIT is set: {why}",
                                  location=location_text())
            logger("cache").info("miss for %s%s: %s", fname, signature_text(arg_specs), why)
        if profile is not None:
            profile.phases.append(("specialize + cache lookup", time.perf_counter() - started))
        with phase("import the passes (once per process)"):
            from ..pipelines import levels, runner  # noqa: F401 - lower's, timed apart
        sizes = {}
        allocs = []
        workspace = []

        def buffers(m):
            allocs.extend(scan_allocs(m))
            workspace.append(workspace_bytes(m, fname))

        # opt | llc start now: their start-ups overlap the passes (aot.start_tools)
        with phase("start opt and llc (they run during the passes)"):
            tools = (aot.start_tools(self.opt_level, in_process=True, threads=self.threads)
                     if use_cache else None)
        try:
            with phase("lower (MLIR passes)"):
                remarks = lower(module, "llvm", fusion=bool(self.fusion), layout=self.layout,
                                record_sizes=sizes, threads=self.threads, blas=self.blas,
                                fuse_options=fuse_options, before={"llvm": buffers}, tuned=tuned,
                                timing=None if profile is None else profile.passes)
            check_allocs(fname, allocs + workspace_alloc(fname, workspace[0]))
            if use_cache:
                meta = {"function": fname, "args": [[list(s), d] for s, d in arg_specs],
                        "results": [[list(s), d] for s, d in result_specs], "allocs": allocs,
                        "threaded": uses_thread_runtime(module), "key": parts,
                        "workspace": workspace[0],
                        "remarks": [str(r) for r in remarks], "ir_sizes": sizes}
                with phase("native code (LLVM)"):
                    lib_path = cache.store(key, lambda path: aot.build_shared_library(
                        module, path, opt_level=self.opt_level, in_process=True, tools=tools), meta)
                if lib_path is not None:
                    with phase("load"):
                        compiled = self._from_library(lib_path, fname, arg_specs, meta, shapes)
                    return compiled, remarks, sizes
        finally:
            if tools is not None:
                with phase("stop unused tools"):
                    tools.close()
        with phase("native code (LLVM JIT)"):
            engine = Engine(module, opt_level=self.opt_level)
        kernel = engine.kernel(fname, [tuple(s) for s, _ in arg_specs + result_specs] +
                               ([(workspace[0],)] if workspace[0] else []))
        compiled = compiled_function(fname, arg_specs, result_specs, kernel, allocs,
                                     workspace[0], shapes)
        return compiled, remarks, sizes

    def _from_library(self, lib_path, fname, arg_specs, meta, shapes=None):
        return library_function(lib_path, fname, arg_specs, meta, shapes)


def tuned_text(threads: int) -> str:
    """The tuning record's tiles for this target (runtime/tuning_record.py), as
    strata-vectorize's ``tuned`` option text ("" without a record)."""
    from .tuning_record import tuned_text as record_text

    return record_text(threads)


def key_options(fusion, layout, fuse_options, opt_level, threads, blas, tuned=None) -> dict:
    """The compile options of a disk-cache key (runtime/cache.py); ``tuned``: the tuned
    tiles the compile uses (None: the tuning record's, read now)."""
    options = {"fusion": str(fusion), "layout": layout, "fuse_options": fuse_options,
               "opt_level": opt_level, "threads": threads}
    if threads > 1:  # what runs the parallel loops changes the code and what it links
        from .openmp import thread_runtime

        options["thread_runtime"] = thread_runtime()
    tuned = tuned_text(threads) if tuned is None else tuned
    if tuned:  # the tuned tiles change the code: part of the key
        options["tuned"] = tuned
    if blas != "never":  # the library the code may call is part of the key
        from .blas import identity

        options.update(blas=blas, blas_library=identity())
    return options


def specialized(source: ir.Module, fname: str, arg_specs):
    """A copy of ``source`` holding only ``fname``, specialized to ``arg_specs``:
    ``(module, result (shape, dtype) specs)``."""
    from .specialize import specialize_function

    module = clone_module(source)
    specialize_function(module.operation, fname, arg_specs)
    return module, _keep_only(module, fname)


def _keep_only(module: ir.Module, fname: str) -> None:
    """Drops every function but ``fname``; returns its result (shape, dtype) specs."""
    from mlir import ir

    from ..dialect.types import shape_of

    result_specs = None
    for op in list(module.body.operations):
        if op.operation.name == "func.func":
            name = ir.StringAttr(op.attributes["sym_name"]).value
            if name != fname:
                op.operation.erase()
            else:
                ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
                result_specs = [shape_of(t) for t in ftype.results]
    return result_specs
