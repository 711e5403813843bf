"""strata.compile, @strata.jit and strata.parse: Python programs in, callables on numpy out.

    prog = strata.compile(module)            # a strata.Module (or .mlir text)
    y = prog(x, w)                           # or prog.mlp(x, w) for a named function

    @strata.jit
    def mlp(x, w):
        return strata.relu(x @ w)
    y = mlp(x, w)                            # traced and compiled per (shapes, dtypes)

Every call checks its arrays against the signature (the guards): a wrong dtype,
rank or static dim raises StrataError naming the argument, expected vs given.
Functions with dynamic dims are specialized to the call's shapes and compiled
once per distinct shape set (cached in memory).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the bindings are imported where they are used
    from mlir import ir

    from ..frontend.module import Module

import ctypes
import functools
import os
import threading
import time
import warnings
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from .. import settings
from ..dialect.types import dtype_of_numpy, numpy_dtype
from ..errors import StrataError
from ..frontend.locations import location_text, user_traceback
from ..frontend.scopes import param_names, spec_of
from ..frontend.tensor import TensorSpec
from .allocs import WORKSPACE_ALIGNMENT, check_allocs, workspace_alloc
from .engine import _char_at, _set_shape, address
from .log import logger
from .out_arrays import copy_into, out_arrays
from .output_pool import PLACEMENT, page_buffer, result_maker
from .pytree import flatten, is_container, leaf_names, unflatten
from .variants import Variants

assert PLACEMENT % WORKSPACE_ALIGNMENT == 0  # a page-placed workspace meets strata-workspace's

# MLIR (the bindings, the pipelines) is imported where a compile needs it, not here:
# a jitted function whose variant is in the disk cache runs without loading it
# (see JitFunction._from_disk).

__all__ = ["compile", "jit", "parse", "Program", "CompiledFunction", "CompileStats"]


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


class StrataPerformanceWarning(UserWarning):
    """strata chose a slower way to keep going (e.g. dynamic dims past max_recompiles)."""


@dataclass
class CompileStats:
    """The three costs, kept apart: cold compiles, warm calls, and new-shape compiles."""

    compiles: int = 0
    compile_seconds: float = 0.0
    calls: int = 0
    specializations: list = field(default_factory=list)
    ir_sizes: dict = field(default_factory=dict)  # level -> operations at that level
    fusion_report: list = field(default_factory=list)
    cache_hits: int = 0
    profiles: list = field(default_factory=list)  # CompileProfile per compile (timing on)


def _clone(module: ir.Module) -> ir.Module:
    from mlir import ir

    from ..context import new_context

    context = new_context()
    with context:
        return ir.Module.parse(module.operation.get_asm(enable_debug_info=True), context)


def default_threads() -> int:
    """Threads compiled CPU code may use: ``STRATA_THREADS``, else this process's CPUs."""
    return settings.get("STRATA_THREADS")


def _blas(blas: str) -> str:
    """The checked ``blas`` mode (``auto`` is ``never`` where numpy ships no OpenBLAS)."""
    from .blas import resolve_mode

    return resolve_mode(blas, location_text())


def _threads(threads: int | None) -> int:
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


_addressof = ctypes.addressof
_ndarray = np.ndarray


def _point_at(descs, arrays, masks) -> bool:
    """Writes each array's address into its descriptor (the warm path); False where an
    array is not C-contiguous and aligned to its dtype (the caller converts it)."""
    for i, a in enumerate(arrays):
        try:
            p = _addressof(_char_at(a))  # a writable buffer: C-contiguous
        except (TypeError, ValueError):  # read-only, not contiguous, or empty
            flags = a.flags
            if not (flags.c_contiguous and flags.aligned):
                return False
            p = a.ctypes.data
        if p & masks[i]:
            return False
        desc = descs[i]
        desc.allocated = desc.aligned = p
    return True


class CompiledFunction:
    """One function compiled for one signature (static shapes).

    Results are new numpy arrays the compiled code writes into (booleans as
    numpy bools: the code stores them as i8 0/1), large ones recycled through the
    output pool (runtime/output_pool.py), or the caller's ``out=`` arrays
    (runtime/out_arrays.py). ``allocs`` lists the code's own
    buffers (runtime/allocs.py). Reentrant: the kernel keeps per-thread state.
    """

    def __init__(self, name, arg_specs, result_specs, kernel, allocs=(), workspace=0):
        self.name = name
        self.arg_specs = arg_specs
        self.result_specs = result_specs
        self.kernel = kernel
        self.allocs = list(allocs)
        self.workspace = workspace  # bytes of intermediates (strata-workspace)
        self._outs = [(tuple(s), numpy_dtype(d)) for s, d in result_specs]
        self._makers = [result_maker(s, d) for s, d in self._outs  # runtime/output_pool.py
                        if None not in s]  # (a dynamic variant makes them per shape)
        self._local = threading.local()
        # what the warm path needs of each argument's address: its dtype's alignment
        self._masks = tuple(numpy_dtype(d).alignment - 1 for _, d in arg_specs)

    def _workspace(self) -> int:
        """This thread's workspace (allocated on its first call, kept): its aligned address."""
        ws = getattr(self._local, "ws", None)
        if ws is None:
            # on a page, like pooled results (no 4K aliasing with numpy inputs: see
            # output_pool's docstring)
            ws = self._local.ws = page_buffer(self.workspace)
        return ws[1]

    def run(self, arrays, out=None):
        """Runs on C-contiguous, aligned, native-order ``arrays`` of the compiled signature;
        the results are new arrays (runtime/output_pool.py), or ``out``'s
        (runtime/out_arrays.py)."""
        if out is None:
            outs = [make() for make in self._makers]
        else:
            outs, copies = out_arrays(self.name, out, self._outs, self._makers, arrays)
        pointers = [address(a) for a in arrays] + [address(o) for o in outs]
        if self.workspace:
            pointers.append(self._workspace())
        self.kernel.call_pointers(pointers)
        if out is not None:
            return _copied(outs, copies)
        return outs

    def run_if_ready(self, arrays, out=None):
        """The warm path: runs on numpy ``arrays`` whose shapes and dtypes (native order)
        are the signature's, and returns the results, or None where an array is not
        C-contiguous and aligned (the caller converts it). One pass over the arguments,
        writing their addresses straight into this thread's descriptors."""
        descs, call = self.kernel.thread_state()
        if not _point_at(descs, arrays, self._masks):
            return None
        i = len(arrays)
        if out is None:
            outs = [make() for make in self._makers]
        else:
            outs, copies = out_arrays(self.name, out, self._outs, self._makers, arrays)
        for o in outs:
            desc = descs[i]
            desc.allocated = desc.aligned = address(o)
            i += 1
        if self.workspace:
            desc = descs[i]
            desc.allocated = desc.aligned = self._workspace()
        call()
        if out is not None:
            return _copied(outs, copies)
        return outs


def _copied(outs, copies):
    """``outs`` with each temporary of ``copies`` (an out= array overlapping an input)
    copied into its out= array and replaced by it."""
    for temporary, target in copies:
        np.copyto(target, temporary)
        outs[next(i for i, o in enumerate(outs) if o is temporary)] = target
    return outs


def _describe_key(key) -> str:
    """A jit variant's key (``(shape, dtype)`` or a Python type per argument), readable."""
    return "(" + ", ".join("x".join(map(str, k[0])) + f"x{dtype_of_numpy(k[1])}"
                           if isinstance(k, tuple) else k.__name__ for k in key) + ")"


def _signature(arg_specs) -> str:
    """``(4x8xf32, ?x3xf32, f32)``: a signature as people read it."""
    return "(" + ", ".join("x".join("?" if n is None else str(n) for n in s) + f"x{d}"
                           if len(s) else d for s, d in arg_specs) + ")"


class DynamicFunction(CompiledFunction):
    """One function compiled with dynamic dims: outputs sized per call by its shape rules.

    The guard (which calls may use it) is the caller's; each new set of input shapes
    has its outputs' shapes inferred once (ShapeFunction) and its largest buffer
    checked against what the process can allocate.
    """

    def __init__(self, *args, shapes):
        super().__init__(*args)
        self.shapes = shapes
        self._made: dict = {}  # input shapes -> (result specs, result makers)
        self._lock = threading.Lock()
        # input shapes -> (results' (shape, dtype)s, every descriptor's shape, result
        # makers): the warm path of a shape seen before sets only addresses, and shapes
        # when they changed
        self._entries: dict = {}

    def run_if_ready(self, arrays, out=None):
        entry = self._entries.get(tuple([a.shape for a in arrays]))
        if entry is None or out is not None:
            for a in arrays:
                flags = a.flags
                if not (flags.c_contiguous and flags.aligned):
                    return None
            return self.run(arrays, out)
        _, shapes, makers = entry
        descs, call = self.kernel.thread_state()
        local = self._local
        if getattr(local, "entry", None) is not entry:
            for desc, shape in zip(descs, shapes, strict=False):
                _set_shape(desc, shape)
            local.entry = entry
        if not _point_at(descs, arrays, self._masks):
            return None
        i = len(arrays)
        outs = [make() for make in makers]
        for o in outs:
            desc = descs[i]
            desc.allocated = desc.aligned = address(o)
            i += 1
        if self.workspace:
            desc = descs[i]
            desc.allocated = desc.aligned = self._workspace()
        call()
        return outs

    def run(self, arrays, out=None):
        specs = [(a.shape, d) for a, (_, d) in zip(arrays, self.arg_specs, strict=True)]
        key = tuple(a.shape for a in arrays)
        made = self._made.get(key)
        if made is None:
            made = self._results_for(key, specs)
        results, makers = made
        if out is None:
            outs = [make() for make in makers]
        else:
            outs, copies = out_arrays(self.name, out, results, makers, arrays)
        pointers = [address(a) for a in arrays] + [address(o) for o in outs]
        shapes = [a.shape for a in arrays] + [o.shape for o in outs]
        if len(self._entries) < 4096:
            self._entries[key] = (results, list(shapes), makers)
        if self.workspace:
            pointers.append(self._workspace())
            shapes.append((self.workspace,))
        self._local.entry = None  # call_shaped sets every shape
        self.kernel.call_shaped(pointers, shapes)
        if out is not None:
            return _copied(outs, copies)
        return outs

    def _results_for(self, key, specs):
        """``(result specs, result makers)`` for a new set of input shapes (checked
        against what the process can allocate; the latest 64 kept)."""
        check_allocs(self.name, [[self.shapes.largest(specs), "<" + self.name + ">",
                                  f"an intermediate for {_signature(specs)}"]])
        results = [(tuple(s), numpy_dtype(d)) for s, d in self.shapes(specs)]
        made = (results, [result_maker(s, d) for s, d in results])
        with self._lock:
            while len(self._made) >= 64:
                self._made.pop(next(iter(self._made)))
            self._made[key] = made
        return made


def compiled_function(fname, arg_specs, result_specs, kernel, allocs, workspace, shapes=None):
    """A CompiledFunction, or a DynamicFunction when ``shapes`` sizes its outputs per call."""
    if shapes is None:
        return CompiledFunction(fname, arg_specs, result_specs, kernel, allocs, workspace)
    return DynamicFunction(fname, arg_specs, result_specs, kernel, allocs, workspace,
                           shapes=shapes)


def _type_text(shape, dtype):
    dims = "x".join("?" if d is None else str(d) for d in shape)
    return f"tensor<{dims + 'x' if dims else ''}{dtype}>"


def check_argument(dtype, shape, spec_shape, spec_dtype, name, fname, what="array"):
    """Raises a StrataError unless ``(dtype, shape)`` fit the parameter's spec."""
    got = dtype_of_numpy(dtype)
    if got != spec_dtype:
        raise StrataError(f"{fname}: argument '{name}' expects {_type_text(spec_shape, spec_dtype)}"
                          f", got a {dtype} {what} of shape {shape}",
                          location=location_text())
    if len(shape) != len(spec_shape) or any(
            d is not None and d != s for d, s in zip(spec_shape, shape, strict=False)):
        raise StrataError(f"{fname}: argument '{name}' expects {_type_text(spec_shape, spec_dtype)}"
                          f", got shape {shape}", location=location_text())


def _coerce(value, spec_shape, spec_dtype, name, fname):
    """The array to pass for one argument, or a StrataError naming what is wrong."""
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        if len(spec_shape) == 0:
            return np.array(value, dtype=numpy_dtype(spec_dtype))
    if not isinstance(value, np.ndarray):
        raise StrataError(f"{fname}: argument '{name}' must be a numpy array of type "
                          f"{_type_text(spec_shape, spec_dtype)}, got {type(value).__name__}",
                          location=location_text())
    check_argument(value.dtype, value.shape, spec_shape, spec_dtype, name, fname)
    if not value.dtype.isnative:
        value = value.astype(value.dtype.newbyteorder("="))
    if not value.flags.c_contiguous or not value.flags.aligned:
        value = np.ascontiguousarray(value)
    return value


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
        arrays = [_coerce(a, s, d, n, fname) for a, (s, d), n in
                  zip(args, specs, names, strict=True)]
        compiled = self._get(fname, [(a.shape, d) for a, (_, d) in
                                     zip(arrays, specs, strict=True)])
        self.stats.calls += 1
        outs = compiled.run(arrays) if out is None else compiled.run(arrays, out)
        return outs[0] if len(outs) == 1 else tuple(outs)

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
        self.threads = _threads(threads)
        # dynamic: compile each function once as declared, its dynamic dims sized per
        # call; else once per distinct shapes, fully static (faster code)
        self.dynamic = dynamic
        self.blas = _blas(blas)
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
            profile = CompileProfile(fname, _signature(arg_specs))
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
        shapes = ShapeFunction(_clone(module), fname) if dynamic else None
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
                    logger("cache").info("hit %s for %s%s", key, fname, _signature(arg_specs))
                    return compiled, meta["remarks"], meta["ir_sizes"]
            why = explain_miss(parts)
            if settings.get("STRATA_CACHE_MUST_HIT"):
                raise StrataError(f"{fname}{_signature(arg_specs)}: not in the compilation cache "
                                  f"and STRATA_CACHE_MUST_HIT is set: {why}",
                                  location=location_text())
            logger("cache").info("miss for %s%s: %s", fname, _signature(arg_specs), why)
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


def library_function(lib_path, fname, arg_specs, meta, shapes=None):
    """The compiled function ``fname`` of a cached shared library, as its metadata says."""
    from .aot import SharedLibrary

    result_specs = [(tuple(s), d) for s, d in meta["results"]]
    lib = SharedLibrary(lib_path, threaded=meta["threaded"])
    workspace = int(meta["workspace"])
    kernel = lib.kernel(fname, [tuple(s) for s, _ in arg_specs + result_specs] +
                        ([(workspace,)] if workspace else []))
    return compiled_function(fname, arg_specs, result_specs, kernel, meta["allocs"],
                             workspace, shapes)


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


class CachedProgram:
    """A jit variant loaded from the disk cache: its compiled function, no MLIR module."""

    def __init__(self, compiled: CompiledFunction, names, meta: dict):
        self.fast = None  # set by the caller when the arrays need no conversion
        self.compiled = compiled
        self.names = names
        self.stats = CompileStats(cache_hits=1, ir_sizes=dict(meta.get("ir_sizes", {})),
                                  fusion_report=list(meta.get("remarks", [])))
        self._cache = Variants(1)
        self._cache.get_or_build(compiled.name, lambda: compiled)

    def __call__(self, *args, out=None):
        fname = self.compiled.name
        if len(args) != len(self.compiled.arg_specs):
            raise StrataError(f"{fname}: expected {len(self.compiled.arg_specs)} arguments, "
                              f"got {len(args)}", location=location_text())
        arrays = [_coerce(a, s, d, n, fname) for a, (s, d), n in
                  zip(args, self.compiled.arg_specs, self.names, strict=True)]
        self.stats.calls += 1
        outs = self.compiled.run(arrays, out)
        return outs[0] if len(outs) == 1 else tuple(outs)


def specialized(source: ir.Module, fname: str, arg_specs):
    """A copy of ``source`` holding only ``fname``, specialized to ``arg_specs``:
    ``(module, result (shape, dtype) specs)``."""
    from .specialize import specialize_function

    module = _clone(source)
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


class JitFunction:
    """A Python function traced and compiled per signature on call (see strata.jit)."""

    def __init__(self, fn, *, fusion: bool | str = True, opt_level: int = 3, layout: bool = True,
                 threads: int | None = None, max_variants: int | None = None,
                 dynamic: dict | None = None, automatic_dynamic: bool = False,
                 max_recompiles: int | None = None, blas: str = "auto", timing: bool = False,
                 buckets: dict | None = None):
        self.fn = fn
        # for the flat function of each argument tree (runtime/pytree.py)
        self._options = dict(fusion=fusion, opt_level=opt_level, layout=layout,
                             threads=threads, max_variants=max_variants, dynamic=dynamic,
                             automatic_dynamic=automatic_dynamic,
                             max_recompiles=max_recompiles, blas=blas, timing=timing,
                             buckets=buckets)
        self._trees: dict = {}      # argument tree -> the JitFunction of its leaves
        self._out_trees: dict = {}  # argument tree -> the tree of the results
        self.timing = timing
        self.fusion = fusion
        self.layout = layout
        self.opt_level = opt_level
        self.threads = _threads(threads)
        self.blas = _blas(blas)
        self._programs = Variants(max_variants, name=getattr(fn, "__name__", "function"),
                                  describe=_describe_key)
        self._signatures_seen: list = []
        self.stats = CompileStats()
        functools.update_wrapper(self, fn)
        self._marked = _dynamic_marks(fn, dynamic)
        self.automatic_dynamic = automatic_dynamic
        self.max_recompiles = _max_recompiles(max_recompiles)
        self._dynamic: list = []      # (guard, Program) of the variants with dynamic dims
        self._dynamic_hits: OrderedDict = OrderedDict()  # exact key -> one of those
        self._failed_dynamic: set = set()  # dims a dynamic compile could not handle
        self._lock = threading.RLock()
        self._last = (None, None)  # (key, variant) of the latest call
        self.bucket_rules = buckets
        self._buckets = None
        if buckets:
            from .buckets import BucketPolicy

            self._buckets = BucketPolicy(fn, buckets)

    def bucket_costs(self) -> dict:
        """What shape buckets cost so far (runtime/buckets.py): calls, padded calls, rows
        asked for vs padded, seconds spent padding and slicing, calls per bucket."""
        if self._buckets is None:
            raise StrataError(f"{self.__name__}: no shape buckets (strata.jit(buckets=...))",
                              location=location_text())
        return self._buckets.stats.as_dict()

    def signature_of(self, args):
        names = _param_names(self.fn, len(args))
        fname = getattr(self.fn, "__name__", "function")
        specs = [spec_of(a, f"{fname}: argument '{n}'") for a, n in zip(args, names, strict=True)]
        return tuple((s.shape, s.dtype) for s in specs)

    def trace(self, *args) -> Module:
        from ..frontend.module import trace

        return trace(self.fn, *args)

    def __call__(self, *args, out=None, **kwargs):
        try:
            if kwargs or not all(type(a) is _ndarray for a in args) and \
                    any(is_container(a) for a in args):
                return self._tree_call(args, kwargs, out)
            if self._buckets is not None:  # pads, calls _call, slices the results back
                results = self._buckets.call(self._call, args)
                return results if out is None else copy_into(self.__name__, results, out)
            return self._call(*args, out=out)
        except StrataError as e:  # the user's frames only (STRATA_TRACEBACK=full: all)
            raise e.with_traceback(user_traceback(e.__traceback__))  # noqa: B904 - e itself

    def _tree_call(self, args, kwargs, out):
        """A call with keyword arguments or containers of arrays (runtime/pytree.py): the
        flat function of this argument tree (compiled per shapes like any other) on the
        leaves; its results rebuilt in the function's result tree. ``out``: arrays for
        the result leaves, in tree order."""
        leaves, tree = flatten((args, kwargs), f"{self.__name__}: argument")
        flat = self._trees.get(tree)
        if flat is None:
            with self._lock:
                flat = self._trees.get(tree)
                if flat is None:
                    flat = self._trees[tree] = self._flat_function(tree, len(args))
        results = flat(*leaves, out=out)
        out_tree = self._out_trees[tree]
        return unflatten(out_tree, [results] if out_tree.leaves == 1 and
                         not isinstance(results, tuple) else results)

    def _flat_function(self, tree, n_args) -> JitFunction:
        """The JitFunction of ``fn`` on the leaves of argument tree ``tree`` (one positional
        argument per leaf, named after its path), sharing this one's stats."""
        import inspect

        fn, name = self.fn, self.__name__
        names = leaf_names(tree, _param_names(fn, n_args))

        def flat(*leaves):
            args, kwargs = unflatten(tree, leaves)
            out_leaves, out_tree = flatten(fn(*args, **kwargs), f"{name}: result")
            known = self._out_trees.setdefault(tree, out_tree)
            if known != out_tree:
                raise StrataError(f"{name}: its results changed structure with the argument "
                                  "shapes; a jitted function returns one tree of arrays per "
                                  "tree of arguments", location=location_text())
            if not out_leaves:
                raise StrataError(f"{name}: returns no array", location=location_text())
            return out_leaves[0] if out_tree.kind == "leaf" else tuple(out_leaves)

        flat.__name__ = getattr(fn, "__name__", "function")
        flat.__qualname__ = getattr(fn, "__qualname__", flat.__name__)
        flat.__signature__ = inspect.Signature(
            [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])
        inner = JitFunction(flat, **self._options)
        inner.stats = self.stats
        return inner

    def _call(self, *args, out=None):
        # The warm path keys on (shape, dtype) / Python type only; the full spec checks
        # (with their error messages) run when a signature is first seen. The variant
        # of the previous call is kept beside its key: a repeated signature skips even
        # the variants' lookup (one tuple, read atomically: safe under threads).
        key = tuple([(a.shape, a.dtype) if isinstance(a, _ndarray) else type(a) for a in args])
        last = self._last
        if last[0] == key:
            program = last[1]
        else:
            program = self._programs.get(key)
            if program is None:
                program = self._dynamic_hits.get(key)
                if program is None:
                    program = self._resolve(key, args)
            self._last = (key, program)
        self.stats.calls += 1
        fast = program.fast
        if fast is not None:  # the key matched shapes and dtypes exactly
            outs = fast.run_if_ready(args, out)
            if outs is not None:
                return outs[0] if len(outs) == 1 else tuple(outs)
        return program(*args, out=out)

    def _resolve(self, key, args) -> Program:
        """The variant for a call no exact-key variant serves: a dynamic variant whose guard
        the call passes, a new dynamic variant (dims marked, or seen to change), or a new
        static one."""
        with self._lock:
            program = self._programs.get(key) or self._dynamic_hits.get(key)
            if program is not None:
                return program
            signature = self.signature_of(args)
            if self._marked:  # the marked dims exist in this call (runtime/jit_options.py)
                from .jit_options import check_dims

                check_dims(self.fn, "dynamic", self._marked, [len(s) for s, _ in signature])
            for guard, program in self._dynamic:
                if _passes(guard, signature):
                    return self._remember(key, program)
            family = [s for s in self._signatures_seen if _family(s) == _family(signature)]
            over_limit = len(family) >= self.max_recompiles
            dims = self._dims_to_generalize(signature, self.automatic_dynamic or over_limit)
            if dims:
                program = self._compile_dynamic(args, signature, dims)
                if program is not None:
                    if over_limit and not self.automatic_dynamic:
                        warnings.warn(
                            f"{self.__name__}: {len(family)} variants compiled for changing "
                            "shapes; further shapes use one variant with the changing dims "
                            "dynamic, which can run much slower (mark dims dynamic or raise "
                            "max_recompiles to choose)", StrataPerformanceWarning, stacklevel=3)
                    return self._remember(key, program)
            if over_limit:
                seen = ", ".join(_signature(s) for s in family)
                raise StrataError(
                    f"{self.__name__}: recompile limit reached ({self.max_recompiles} variants "
                    f"of these dtypes and ranks; shapes seen: {seen}; now "
                    f"{_signature(signature)}): mark the changing dims dynamic "
                    "(strata.jit(dynamic={'x': [0]})) or raise max_recompiles",
                    location=location_text())
            return self._programs.get_or_build(key, lambda: self._compile(args, signature))

    def _remember(self, key, program):
        self._dynamic_hits[key] = program
        while len(self._dynamic_hits) > 4096:
            self._dynamic_hits.popitem(last=False)
        return program

    def _dims_to_generalize(self, signature, changed: bool) -> dict:
        """arg index -> dims to compile dynamic for ``signature``: the marked ones, and
        (``changed``) those that took another value in a seen signature of the same
        dtypes and ranks. Only dims of size >= 2 here (a dynamic dim never broadcasts)."""
        dims = {i: set(d) for i, d in self._marked.items()}
        if changed:
            for old in self._signatures_seen:
                if [(len(s), d) for s, d in old] != [(len(s), d) for s, d in signature]:
                    continue
                for i, ((shape, _), (old_shape, _)) in enumerate(zip(signature, old,
                                                                     strict=True)):
                    dims.setdefault(i, set()).update(
                        j for j, (a, b) in enumerate(zip(shape, old_shape, strict=True))
                        if a != b)
        dims = {i: {j for j in d if j < len(signature[i][0]) and signature[i][0][j] >= 2}
                for i, d in dims.items()}
        dims = {i: d for i, d in dims.items() if d}
        frozen = frozenset((i, j) for i, d in dims.items() for j in d)
        return {} if not frozen or frozen in self._failed_dynamic else dims

    def _compile_dynamic(self, args, signature, dims):
        """Traces with ``dims`` dynamic and compiles once; None if that cannot be done."""
        names = _param_names(self.fn, len(args))
        specs = [TensorSpec(tuple(None if j in dims.get(i, ()) else n
                                  for j, n in enumerate(shape)), dtype)
                 for i, (shape, dtype) in enumerate(signature)]
        what = ", ".join(f"'{names[i]}' dim{'s' if len(d) > 1 else ''} "
                         f"{', '.join(map(str, sorted(d)))}" for i, d in sorted(dims.items()))
        log = logger("recompiles")
        log.info("%s: compiling for %s with %s dynamic: %s", self.__name__,
                 _signature(signature), what, self._why(signature))
        start = time.perf_counter()
        try:
            from ..frontend.module import trace

            module = trace(self.fn, *specs)
            program = Program(module, fusion=self.fusion, opt_level=self.opt_level,
                              layout=self.layout, threads=self.threads, max_variants=1,
                              dynamic=True, blas=self.blas)
            fname = next(iter(program._signatures))
            program._signatures = {fname: (program._signatures[fname][0], names)}
            program._get(fname, None)
        except Exception as e:  # noqa: BLE001 - a Python function may not trace with a ?
            # dim (x.shape[0] * 2, say): static variants serve it as before
            self._failed_dynamic.add(frozenset((i, j) for i, d in dims.items() for j in d))
            reason = e.message if isinstance(e, StrataError) else f"{type(e).__name__}: {e}"
            log.info("%s: cannot compile %s dynamic (%s); compiling for the exact shapes",
                     self.__name__, what, reason)
            return None
        if all(isinstance(a, np.ndarray) and a.dtype.isnative for a in args):
            program.fast = next(iter(program._cache.values()))
        guard = tuple((s.shape, s.dtype) for s in specs)
        self._dynamic.append((guard, program))
        self._signatures_seen.append(signature)
        self._count(program, start)
        return program

    def _count(self, program, start) -> None:
        self.stats.compiles += 1
        self.stats.compile_seconds += time.perf_counter() - start
        self.stats.ir_sizes = program.stats.ir_sizes
        self.stats.cache_hits += program.stats.cache_hits
        self.stats.fusion_report = program.stats.fusion_report

    def _compile(self, args, signature) -> Program:
        """Traces and compiles the static variant for ``args`` (under the variants' lock)."""
        logger("recompiles").info("%s: compiling for %s: %s", self.__name__,
                                  _signature(signature), self._why(signature))
        start = time.perf_counter()
        recorded: list = []  # the recording function of _from_disk's trace, if it ran
        program = self._from_disk(args, recorded)
        if program is not None:
            from .profile import CompileProfile, timing_enabled

            if timing_enabled(self.timing):
                profile = CompileProfile(self.__name__, _signature(signature))
                profile.phases.append(("trace record + load (disk hit)",
                                       time.perf_counter() - start))
                self.stats.profiles.append(profile)
                profile.emit()
            self._signatures_seen.append(signature)
            self._count(program, start)
            return program
        looked_up = time.perf_counter() - start  # the recording, its key, the miss
        imported = time.perf_counter()
        from ..frontend.module import replay, trace  # the MLIR bindings, once per process

        imported = time.perf_counter() - imported
        traced = time.perf_counter()
        # the recording's steps rebuild the trace as MLIR: the user's function runs once
        # per cold compile (a print in it prints once), not once for the digest and again
        module = replay(recorded[0]) if recorded and recorded[0].finished else None
        if module is None:
            module = trace(self.fn, *args)
        traced = time.perf_counter() - traced
        set_up = time.perf_counter()
        program = Program(module, fusion=self.fusion, opt_level=self.opt_level,
                          layout=self.layout, threads=self.threads, max_variants=1,
                          blas=self.blas, timing=self.timing)
        program.emit_later = True
        set_up = time.perf_counter() - set_up
        (record,) = module.records.values()
        program.trace_digest = record.digest()  # the cache key names the trace, not its IR
        program._signatures = {k: (v[0], _param_names(self.fn, len(args)))
                               for k, v in program._signatures.items()}
        specs, _ = next(iter(program._signatures.values()))
        program._get(next(iter(program._signatures)),
                     [(tuple(a.shape) if isinstance(a, np.ndarray) else (), d)
                      for a, (_, d) in zip(args, specs, strict=True)])
        if all(isinstance(a, np.ndarray) and a.dtype.isnative for a in args):
            program.fast = next(iter(program._cache.values()))
        for profile in program.stats.profiles:
            profile.phases[:0] = [("record trace + disk-cache lookup", looked_up),
                                  ("import the MLIR bindings (once per process)", imported),
                                  ("trace (replay as MLIR)", traced),
                                  ("program set-up (MLIR context)", set_up)]
            self.stats.profiles.append(profile)
            profile.emit()
        self._signatures_seen.append(signature)
        self._count(program, start)
        return program

    def _from_disk(self, args, recorded: list | None = None):
        """The static variant for ``args`` from the disk cache, or None (a miss, no cache).

        The function is traced without MLIR (frontend/record.py) and the entry is looked
        up by the trace's digest, as ``_compile`` stores it; a hit loads the shared
        library and its metadata, so a new process runs it without importing MLIR. The
        recording function is appended to ``recorded`` (a miss replays it as MLIR).
        """
        from . import aot, cache

        if not cache.enabled() or self.fusion == "measure" or not aot.available():
            return None
        from ..frontend.record import record_trace

        try:
            record = record_trace(self.fn, *args, scope=recorded)
        except Exception:  # noqa: BLE001 - the MLIR trace raises the same error (or can
            return None     # do what a recording cannot, e.g. read tensor.type)
        arg_specs = [(tuple(shape), dtype) for shape, dtype in record.args]
        signature = [[list(shape), dtype] for shape, dtype in arg_specs]
        parts = cache.key_parts(None, record.name, key_options(
            self.fusion, self.layout, "report=true", self.opt_level, self.threads, self.blas),
            signature, trace=record.digest())
        key = cache.key_of(parts)
        hit = cache.load(key, {"function": record.name, "args": signature, "results": [
            [list(shape), dtype] for shape, dtype in record.result_specs()]})
        if hit is None:
            return None  # _compile's full path logs the miss and explains it
        lib_path, meta = hit
        try:
            compiled = library_function(lib_path, record.name, arg_specs, meta)
        except (OSError, KeyError, TypeError, ValueError, StrataError) as e:
            cache.discard(key, f"cannot load it: {e}")  # rebuilt by the full path
            return None
        check_allocs(record.name, compiled.allocs + workspace_alloc(record.name,
                                                                   compiled.workspace))
        logger("cache").info("hit %s for %s%s (from the trace, MLIR not loaded)", key,
                             record.name, _signature(arg_specs))
        program = CachedProgram(compiled, _param_names(self.fn, len(args)), meta)
        if all(isinstance(a, np.ndarray) and a.dtype.isnative for a in args):
            program.fast = compiled
        return program

    def _why(self, signature) -> str:
        """Which guard the new signature fails, against the most recent variant."""
        if not self._programs.keys():
            return "first call"
        last = next(iter(self._signatures_seen[-1:]), None)
        if last is None:
            return "a new signature"
        names = _param_names(self.fn, len(signature))
        for name, (shape, dtype), (old_shape, old_dtype) in zip(names, signature, last,
                                                                 strict=False):
            if dtype != old_dtype:
                return f"argument '{name}' dtype {old_dtype} -> {dtype}"
            if len(shape) != len(old_shape):
                return f"argument '{name}' rank {len(old_shape)} -> {len(shape)}"
            for i, (a, b) in enumerate(zip(old_shape, shape, strict=True)):
                if a != b:
                    return f"argument '{name}' dim {i}: {a} -> {b}"
        return "a new signature"

    def compile_profile(self):
        """The latest compile's CompileProfile (runtime/profile.py): its phases and MLIR's
        per-pass timing of every level. Needs ``timing=True`` or ``STRATA_TIMING=1``."""
        if not self.stats.profiles:
            raise StrataError(f"{self.__name__}: no compile profile (compile with "
                              "timing=True or STRATA_TIMING=1, and call the function once)",
                              location=location_text())
        return self.stats.profiles[-1]

    def report(self, *args):
        """Measures and returns the four costs (cold compile, restart, warm call, new
        shape) of this function on ``args``: see runtime/report.py. Prints as a table."""
        from .report import measure_costs

        options = dict(fusion=self.fusion, opt_level=self.opt_level, layout=self.layout,
                       threads=self.threads, automatic_dynamic=self.automatic_dynamic,
                       blas=self.blas, buckets=self.bucket_rules)
        return measure_costs(lambda: JitFunction(self.fn, **options), args,
                             _param_names(self.fn, len(args)))

    def variants(self) -> list:
        """The signatures compiled and kept: static ones (most recently used last), then
        the dynamic ones' guards (None for a dynamic dim)."""
        return self._programs.keys() + [guard for guard, _ in self._dynamic]


def _family(signature) -> tuple:
    """What the recompile limit counts variants of: the arguments' dtypes and ranks."""
    return tuple((len(shape), dtype) for shape, dtype in signature)


def _passes(guard, signature) -> bool:
    """Whether a call of ``signature`` may use a dynamic variant compiled for ``guard``."""
    for (gshape, gdtype), (shape, dtype) in zip(guard, signature, strict=True):
        if gdtype != dtype or len(gshape) != len(shape):
            return False
        for g, n in zip(gshape, shape, strict=True):
            if (g is None and n < 2) or (g is not None and g != n):
                return False
    return True


def _dynamic_marks(fn, dynamic) -> dict:
    """``{"x": [0]}`` (parameter name -> dims) as ``{arg index: {dims}}``, checked
    (runtime/jit_options.py)."""
    from .jit_options import dynamic_marks

    return dynamic_marks(fn, dynamic)


def _max_recompiles(value) -> int:
    if value is None:
        return settings.get("STRATA_MAX_RECOMPILES")
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise StrataError(f"max_recompiles must be a positive integer, got {value!r}",
                          location=location_text())
    return value


def _param_names(fn, n):
    return param_names(fn, n)


def jit(fn=None, *, fusion: bool | str = True, opt_level: int = 3, layout: bool = True,
        threads: int | None = None, max_variants: int | None = None,
        dynamic: dict | None = None, automatic_dynamic: bool = False,
        max_recompiles: int | None = None, blas: str = "auto", timing: bool = False,
        buckets: dict | None = None):
    """Decorator: trace and compile ``fn`` for the CPU on first call per shapes/dtypes.

    numpy arrays the function captures (closures, globals) are constants read at
    trace time: changing one later does not change the compiled code. A writable
    one warns once (``strata.CapturedArrayWarning``); pass it as an argument instead.

    ``threads``: how many threads large ops may use (default: default_threads()).
    ``max_variants``: how many compiled signatures to keep; past it the least recently
    used is freed (default ``STRATA_MAX_VARIANTS``, else 32).
    ``dynamic={"x": [0]}`` compiles dim 0 of ``x`` as dynamic (``?``) from the first call:
    one variant serves every size >= 2 of it. ``automatic_dynamic``: when a dim takes a
    second value, recompile once with that dim dynamic (logged under
    ``STRATA_LOG=recompiles``). Off by default. A function row-independent along its
    dynamic dim (rows of a batch) runs as a loop over static blocks of rows
    (strata-row-blocks) at about the speed of static code; other dynamic code is not
    tiled and vectorized like static code (a dynamic matmul runs tens of times slower).
    ``max_recompiles`` (default ``STRATA_MAX_RECOMPILES``, else 8): past that many
    variants for one set of argument dtypes and ranks, the changing dims become dynamic
    (with a StrataPerformanceWarning), or, if that cannot be compiled, a call raises a
    StrataError naming the shapes seen, rather than compiling without end.
    ``blas``: ``auto`` (the cost model chooses, per matmul, between generated code
    and numpy's OpenBLAS; the choice is in ``stats.fusion_report``), ``always``
    or ``never`` (see runtime/blas.py).
    ``timing``: keep each compile's profile (phases and MLIR's per-pass timing of every
    level) for ``f.compile_profile()``; ``STRATA_TIMING=1`` does so and prints each one.
    ``buckets={"x": {0: "pow2"}}`` (or ``{0: [16, 64, 256]}``): pad that dim of ``x`` with
    zero rows up to its bucket and slice the results back, so each bucket compiles one
    static variant; checked once to be sound (padded rows cannot change a real row),
    else a StrataError says why (runtime/buckets.py). ``f.bucket_costs()``: what padding
    cost.
    Arguments may be passed by keyword, and arguments and results may be trees of
    arrays: dicts, lists, tuples, named tuples, dataclasses, None (runtime/pytree.py).
    Each argument tree compiles its own flat function; its leaves are named after their
    paths (``params_w1`` for ``params["w1"]``) in ``dynamic``, ``buckets`` and messages;
    ``out`` then lists arrays for the result leaves in tree order (dict keys sorted).
    The function may be called from several threads at once.
    """
    from .jit_options import check_options

    check_options(fusion=fusion, opt_level=opt_level, layout=layout, timing=timing,
                  automatic_dynamic=automatic_dynamic, dynamic=dynamic, buckets=buckets)
    options = dict(fusion=fusion, opt_level=opt_level, layout=layout, threads=threads,
                   max_variants=max_variants, dynamic=dynamic,
                   automatic_dynamic=automatic_dynamic, max_recompiles=max_recompiles,
                   blas=blas, timing=timing, buckets=buckets)
    if fn is None:
        return lambda f: JitFunction(f, **options)
    return JitFunction(fn, **options)


def compile(fn_or_module, *examples, target: str = "cpu", compile_to: str | None = None,  # noqa: A001
            fusion: bool | str = True, opt_level: int = 3, layout: bool = True,
            threads: int | None = None, max_variants: int | None = None, blas: str = "auto",
            timing: bool = False):
    """Compiles a strata.Module, .mlir text or a Python function.

    ``max_variants``: compiled signatures kept per program (see strata.jit).

    ``blas`` (CPU): ``auto`` lets the cost model choose, per f32 matmul, between
    strata's generated kernel (with its fused epilogue) and a call of the OpenBLAS
    numpy ships (the epilogue as its own loop); ``always``/``never`` force it.

    ``threads`` (CPU): how many threads large matmuls and row reductions may use;
    None means default_threads() (``STRATA_THREADS``, else every CPU of this process).

    With ``compile_to`` (a level name) returns a strata.Module lowered to that level
    (a Python function then needs ``examples`` to trace with); otherwise returns a
    callable on numpy arrays (a Program, or a jit function for a Python function
    without examples).
    """
    try:
        return _compile(fn_or_module, *examples, target=target, compile_to=compile_to,
                        fusion=fusion, opt_level=opt_level, layout=layout, threads=threads,
                        max_variants=max_variants, blas=blas, timing=timing)
    except StrataError as e:  # the user's frames only (STRATA_TRACEBACK=full: all)
        raise e.with_traceback(user_traceback(e.__traceback__))  # noqa: B904 - e itself


def _compile(fn_or_module, *examples, target, compile_to, fusion, opt_level, layout, threads,
             max_variants, blas, timing):
    from ..context import new_context
    from ..frontend.module import Module, trace
    from ..pipelines.levels import level_index
    from .jit_options import check_options

    # (an opt_level LLVM does not know aborted the process in its JIT)
    check_options(fusion=fusion, opt_level=opt_level, layout=layout, automatic_dynamic=False,
                  timing=timing, dynamic=None, buckets=None)
    if target == "cuda":
        from .cuda import compile_cuda

        return compile_cuda(fn_or_module, *examples, opt_level=opt_level, fusion=fusion,
                            compile_to=compile_to)
    if target != "cpu":
        raise StrataError(f"unknown target '{target}' (targets: cpu, cuda)",
                          location=location_text())
    if callable(fn_or_module) and not isinstance(fn_or_module, Module):
        if not examples:
            if compile_to is not None:
                raise StrataError("compile_to needs example arguments to trace a Python "
                                  "function with", location=location_text())
            return JitFunction(fn_or_module, fusion=fusion, opt_level=opt_level, layout=layout,
                               threads=threads, max_variants=max_variants, blas=blas,
                               timing=timing)
        module = trace(fn_or_module, *examples)
    elif isinstance(fn_or_module, str):
        module = parse(fn_or_module)
    else:
        module = fn_or_module
    if compile_to is not None:
        level_index(compile_to)
        out = Module(new_context())
        out.mlir = _clone(module.mlir)
        lower(out.mlir, compile_to, fusion=bool(fusion), layout=layout,
              threads=_threads(threads), blas=_blas(blas), tuned=tuned_text(_threads(threads)))
        return out
    program = Program(module, fusion=fusion, opt_level=opt_level, layout=layout,
                      threads=threads, max_variants=max_variants, blas=blas, timing=timing)
    if callable(fn_or_module) and not isinstance(fn_or_module, Module):
        # guards name a traced function's parameters, as jit's do
        program._signatures = {k: (v[0], _param_names(fn_or_module, len(examples)))
                               for k, v in program._signatures.items()}
    return program
