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

import functools
import os
import threading
import time
import warnings
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
from mlir import ir

from ..context import new_context
from ..dialect.types import dtype_of_numpy, numpy_dtype, shape_of
from ..errors import StrataError
from ..frontend.locations import location_text
from ..frontend.module import Module, spec_of, trace
from ..frontend.tensor import TensorSpec
from ..parsing import parse_module
from ..pipelines.levels import level_index, level_steps
from ..pipelines.runner import run_pipeline
from .allocs import WORKSPACE_ALIGNMENT, check_allocs, scan_allocs, workspace_alloc, workspace_bytes
from .cache_admin import explain_miss
from .engine import address, uses_async_runtime
from .log import logger
from .specialize import ShapeFunction
from .variants import Variants

__all__ = ["compile", "jit", "parse", "Program", "CompiledFunction", "CompileStats"]


def parse(text: str, filename: str = "<string>") -> Module:
    """Parses .mlir text (strata or any level) into a strata.Module."""
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


def _clone(module: ir.Module) -> ir.Module:
    context = new_context()
    with context:
        return ir.Module.parse(module.operation.get_asm(enable_debug_info=True), context)


def default_threads() -> int:
    """Threads compiled CPU code may use: ``STRATA_THREADS``, else this process's CPUs."""
    text = os.environ.get("STRATA_THREADS", "")
    if text.strip():
        n = int(text) if text.strip().lstrip("-").isdigit() else 0
        if n < 1:
            raise StrataError(f"STRATA_THREADS must be a positive integer, got '{text}'",
                              location="<environment>")
        return n
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


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
    ``$STRATA_DUMP_DIR/<functions>/<n>`` (a new ``n`` per compile), or None."""
    root = os.environ.get("STRATA_DUMP_DIR")
    if not root:
        return None
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
          threads: int = 1, blas: str = "never", timing: dict | None = None) -> list:
    """Runs the CPU pipeline on ``module`` in place, up to level ``compile_to``.

    ``before`` maps a level name to a callable run on the module just before the
    passes of that level. Returns the passes' remarks (e.g. strata-fuse's
    decisions with ``report=true``). ``blas``: auto|always|never (see runtime/blas.py).
    ``timing``: filled with MLIR's per-pass timing, ``{level: [(seconds, pass, depth)]}``.
    """
    remarks = []
    dump = dump_folder(module)
    for i, (name, text) in enumerate(level_steps(compile_to, fusion=fusion, layout=layout,
                                                 fuse_options=fuse_options, threads=threads,
                                                 blas=blas)):
        if before and name in before:
            before[name](module)
        rows = None if timing is None else timing.setdefault(name, [])
        remarks += run_pipeline(module.operation, f"builtin.module({text})",
                                dump_dir=dump and os.path.join(dump, f"{i}-{name}"),
                                timing=rows)
        if record_sizes is not None:
            record_sizes[name] = _op_count(module)
    return remarks


def _op_count(module: ir.Module) -> int:
    """How many operations ``module`` holds (a size that needs no printing)."""
    count = 0

    def visit(op):
        nonlocal count
        count += 1
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return count - 1  # the module itself


class CompiledFunction:
    """One function compiled for one signature (static shapes).

    Results are fresh numpy arrays the compiled code writes into (booleans as
    numpy bools: the code stores them as i8 0/1). ``allocs`` lists the code's own
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
        self._local = threading.local()

    def _workspace(self) -> int:
        """This thread's workspace (allocated on its first call, kept): its aligned address."""
        ws = getattr(self._local, "ws", None)
        if ws is None:
            buffer = np.empty(self.workspace + WORKSPACE_ALIGNMENT, np.uint8)
            base = address(buffer)
            ws = self._local.ws = (buffer, base + (-base) % WORKSPACE_ALIGNMENT)
        return ws[1]

    def run(self, arrays):
        """Runs on C-contiguous, aligned, native-order ``arrays`` of the compiled signature."""
        outs = [np.empty(s, d) for s, d in self._outs]
        pointers = [address(a) for a in arrays] + [address(o) for o in outs]
        if self.workspace:
            pointers.append(self._workspace())
        self.kernel.call_pointers(pointers)
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

    def __init__(self, *args, shapes: ShapeFunction):
        super().__init__(*args)
        self.shapes = shapes
        self._checked: set = set()

    def run(self, arrays):
        specs = [(a.shape, d) for a, (_, d) in zip(arrays, self.arg_specs, strict=True)]
        results = self.shapes(specs)
        key = tuple(a.shape for a in arrays)
        if key not in self._checked:
            check_allocs(self.name, [[self.shapes.largest(specs), "<" + self.name + ">",
                                      f"an intermediate for {_signature(specs)}"]])
            self._checked.add(key)
        outs = [np.empty(s, numpy_dtype(d)) for s, d in results]
        pointers = [address(a) for a in arrays] + [address(o) for o in outs]
        shapes = [a.shape for a in arrays] + [o.shape for o in outs]
        if self.workspace:
            pointers.append(self._workspace())
            shapes.append((self.workspace,))
        self.kernel.call_shaped(pointers, shapes)
        return outs


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

    def __call__(self, *args):
        if len(self._signatures) != 1:
            raise StrataError(f"the module has several functions ({', '.join(self.functions)}); "
                              "call one by name", location=location_text())
        return self.call(next(iter(self._signatures)), *args)

    def call(self, fname: str, *args):
        specs, names = self._signatures[fname]
        if len(args) != len(specs):
            raise StrataError(f"{fname}: expected {len(specs)} arguments, got {len(args)}",
                              location=location_text())
        arrays = [_coerce(a, s, d, n, fname) for a, (s, d), n in
                  zip(args, specs, names, strict=True)]
        compiled = self._get(fname, [(a.shape, d) for a, (_, d) in
                                     zip(arrays, specs, strict=True)])
        self.stats.calls += 1
        outs = compiled.run(arrays)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def _get(self, fname, arg_specs):
        raise NotImplementedError


class Program(ProgramBase):
    """The callable result of strata.compile on a module: one entry per function."""

    def __init__(self, module: Module | ir.Module, *, fusion: bool | str = True,
                 opt_level: int = 3, layout: bool = True, threads: int | None = None,
                 max_variants: int | None = None, dynamic: bool = False, blas: str = "auto"):
        super().__init__(module, max_variants)
        self.fusion = fusion
        self.layout = layout
        self.opt_level = opt_level
        self.threads = _threads(threads)
        # dynamic: compile each function once as declared, its dynamic dims sized per
        # call; else once per distinct shapes, fully static (faster code)
        self.dynamic = dynamic
        self.blas = _blas(blas)

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
        """
        from . import aot, cache
        from .engine import Engine

        module, result_specs = specialized(self.module, fname, arg_specs)
        dynamic = any(None in tuple(s) for s, _ in arg_specs)
        shapes = ShapeFunction(_clone(module), fname) if dynamic else None
        use_cache = cache.enabled() and aot.available()
        key = None
        if use_cache:
            options = {"fusion": str(self.fusion), "layout": self.layout,
                       "fuse_options": fuse_options, "opt_level": self.opt_level,
                       "threads": self.threads}
            if self.blas != "never":  # the library the code may call is part of the key
                from .blas import identity

                options.update(blas=self.blas, blas_library=identity())
            parts = cache.key_parts(module.operation.get_asm(enable_debug_info=False), fname,
                                    options, [[list(s), d] for s, d in arg_specs])
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
            if os.environ.get("STRATA_CACHE_MUST_HIT", "") not in ("", "0"):
                raise StrataError(f"{fname}{_signature(arg_specs)}: not in the compilation cache "
                                  f"and STRATA_CACHE_MUST_HIT is set: {why}",
                                  location=location_text())
            logger("cache").info("miss for %s%s: %s", fname, _signature(arg_specs), why)
        sizes = {}
        allocs = []
        workspace = []

        def buffers(m):
            allocs.extend(scan_allocs(m))
            workspace.append(workspace_bytes(m, fname))

        remarks = lower(module, "llvm", fusion=bool(self.fusion), layout=self.layout,
                        record_sizes=sizes, threads=self.threads, blas=self.blas,
                        fuse_options=fuse_options, before={"llvm": buffers})
        check_allocs(fname, allocs + workspace_alloc(fname, workspace[0]))
        if use_cache:
            meta = {"function": fname, "args": [[list(s), d] for s, d in arg_specs],
                    "results": [[list(s), d] for s, d in result_specs], "allocs": allocs,
                    "threaded": uses_async_runtime(module), "key": parts,
                    "workspace": workspace[0],
                    "remarks": [str(r) for r in remarks], "ir_sizes": sizes}
            lib_path = cache.store(key, lambda path: aot.build_shared_library(
                module, path, opt_level=self.opt_level), meta)
            if lib_path is not None:
                compiled = self._from_library(lib_path, fname, arg_specs, meta, shapes)
                return compiled, remarks, sizes
        engine = Engine(module, opt_level=self.opt_level)
        kernel = engine.kernel(fname, [tuple(s) for s, _ in arg_specs + result_specs] +
                               ([(workspace[0],)] if workspace[0] else []))
        compiled = compiled_function(fname, arg_specs, result_specs, kernel, allocs,
                                     workspace[0], shapes)
        return compiled, remarks, sizes

    def _from_library(self, lib_path, fname, arg_specs, meta, shapes=None):
        from .aot import SharedLibrary

        result_specs = [(tuple(s), d) for s, d in meta["results"]]
        lib = SharedLibrary(lib_path, threaded=meta["threaded"])
        workspace = int(meta["workspace"])
        kernel = lib.kernel(fname, [tuple(s) for s, _ in arg_specs + result_specs] +
                            ([(workspace,)] if workspace else []))
        return compiled_function(fname, arg_specs, result_specs, kernel, meta["allocs"],
                                 workspace, shapes)


def specialized(source: ir.Module, fname: str, arg_specs):
    """A copy of ``source`` holding only ``fname``, specialized to ``arg_specs``:
    ``(module, result (shape, dtype) specs)``."""
    from .specialize import specialize_function

    module = _clone(source)
    specialize_function(module.operation, fname, arg_specs)
    return module, _keep_only(module, fname)


def _keep_only(module: ir.Module, fname: str) -> None:
    """Drops every function but ``fname``; returns its result (shape, dtype) specs."""
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
                 max_recompiles: int | None = None, blas: str = "auto"):
        self.fn = fn
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

    def signature_of(self, args):
        names = _param_names(self.fn, len(args))
        fname = getattr(self.fn, "__name__", "function")
        specs = [spec_of(a, f"{fname}: argument '{n}'") for a, n in zip(args, names, strict=True)]
        return tuple((s.shape, s.dtype) for s in specs)

    def trace(self, *args) -> Module:
        return trace(self.fn, *args)

    def __call__(self, *args):
        # The warm path keys on (shape, dtype) / Python type only; the full spec checks
        # (with their error messages) run when a signature is first seen.
        key = tuple((a.shape, a.dtype) if isinstance(a, np.ndarray) else type(a) for a in args)
        program = self._programs.get(key)
        if program is None:
            program = self._dynamic_hits.get(key)
            if program is None:
                program = self._resolve(key, args)
        self.stats.calls += 1
        fast = program.fast
        if fast is not None:
            for a in args:
                flags = a.flags
                if not (flags.c_contiguous and flags.aligned):
                    break
            else:  # the key matched shapes and dtypes exactly: nothing else to check
                outs = fast.run(args)
                return outs[0] if len(outs) == 1 else tuple(outs)
        return program(*args)

    def _resolve(self, key, args) -> Program:
        """The variant for a call no exact-key variant serves: a dynamic variant whose guard
        the call passes, a new dynamic variant (dims marked, or seen to change), or a new
        static one."""
        with self._lock:
            program = self._programs.get(key) or self._dynamic_hits.get(key)
            if program is not None:
                return program
            signature = self.signature_of(args)
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
        module = trace(self.fn, *args)
        program = Program(module, fusion=self.fusion, opt_level=self.opt_level,
                          layout=self.layout, threads=self.threads, max_variants=1,
                          blas=self.blas)
        program._signatures = {k: (v[0], _param_names(self.fn, len(args)))
                               for k, v in program._signatures.items()}
        specs, _ = next(iter(program._signatures.values()))
        program._get(next(iter(program._signatures)),
                     [(tuple(a.shape) if isinstance(a, np.ndarray) else (), d)
                      for a, (_, d) in zip(args, specs, strict=True)])
        if all(isinstance(a, np.ndarray) and a.dtype.isnative for a in args):
            program.fast = next(iter(program._cache.values()))
        self._signatures_seen.append(signature)
        self._count(program, start)
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

    def report(self, *args):
        """Measures and returns the four costs (cold compile, restart, warm call, new
        shape) of this function on ``args``: see runtime/report.py. Prints as a table."""
        from .report import measure_costs

        options = dict(fusion=self.fusion, opt_level=self.opt_level, layout=self.layout,
                       threads=self.threads, automatic_dynamic=self.automatic_dynamic,
                       blas=self.blas)
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
    """``{"x": [0]}`` (parameter name -> dims) as ``{arg index: {dims}}``, checked."""
    if not dynamic:
        return {}
    import inspect

    params = list(inspect.signature(fn).parameters)
    marks = {}
    for name, dims in dynamic.items():
        if name not in params:
            raise StrataError(f"dynamic: '{name}' is not a parameter of "
                              f"{getattr(fn, '__name__', 'the function')} "
                              f"(parameters: {', '.join(params)})", location=location_text())
        dims = [dims] if isinstance(dims, int) else list(dims)
        if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in dims):
            raise StrataError(f"dynamic: dims of '{name}' must be non-negative ints, got {dims}",
                              location=location_text())
        marks[params.index(name)] = set(dims)
    return marks


DEFAULT_MAX_RECOMPILES = 8


def _max_recompiles(value) -> int:
    if value is None:
        text = os.environ.get("STRATA_MAX_RECOMPILES", "").strip()
        if not text:
            return DEFAULT_MAX_RECOMPILES
        value = int(text) if text.isdigit() else text
        where = "STRATA_MAX_RECOMPILES"
    else:
        where = "max_recompiles"
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise StrataError(f"{where} must be a positive integer, got {value!r}",
                          location=location_text())
    return value


def _param_names(fn, n):
    import inspect

    params = list(inspect.signature(fn).parameters)
    return [params[i] if i < len(params) else f"arg{i}" for i in range(n)]


def jit(fn=None, *, fusion: bool | str = True, opt_level: int = 3, layout: bool = True,
        threads: int | None = None, max_variants: int | None = None,
        dynamic: dict | None = None, automatic_dynamic: bool = False,
        max_recompiles: int | None = None, blas: str = "auto"):
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
    ``STRATA_LOG=recompiles``). Off by default: code with dynamic dims is not yet tiled
    and vectorized like static code (a dynamic matmul runs tens of times slower).
    ``max_recompiles`` (default ``STRATA_MAX_RECOMPILES``, else 8): past that many
    variants for one set of argument dtypes and ranks, the changing dims become dynamic
    (with a StrataPerformanceWarning), or, if that cannot be compiled, a call raises a
    StrataError naming the shapes seen, rather than compiling without end.
    ``blas``: ``auto`` (the cost model chooses, per matmul, between generated code
    and numpy's OpenBLAS; the choice is in ``stats.fusion_report``), ``always``
    or ``never`` (see runtime/blas.py).
    The function may be called from several threads at once.
    """
    options = dict(fusion=fusion, opt_level=opt_level, layout=layout, threads=threads,
                   max_variants=max_variants, dynamic=dynamic,
                   automatic_dynamic=automatic_dynamic, max_recompiles=max_recompiles,
                   blas=blas)
    if fn is None:
        return lambda f: JitFunction(f, **options)
    return JitFunction(fn, **options)


def compile(fn_or_module, *examples, target: str = "cpu", compile_to: str | None = None,  # noqa: A001
            fusion: bool | str = True, opt_level: int = 3, layout: bool = True,
            threads: int | None = None, max_variants: int | None = None, blas: str = "auto"):
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
                               threads=threads, max_variants=max_variants, blas=blas)
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
              threads=_threads(threads), blas=_blas(blas))
        return out
    program = Program(module, fusion=fusion, opt_level=opt_level, layout=layout,
                      threads=threads, max_variants=max_variants, blas=blas)
    if callable(fn_or_module) and not isinstance(fn_or_module, Module):
        # guards name a traced function's parameters, as jit's do
        program._signatures = {k: (v[0], _param_names(fn_or_module, len(examples)))
                               for k, v in program._signatures.items()}
    return program
