"""@strata.jit and strata.compile: Python functions traced and compiled per signature.

    @strata.jit
    def mlp(x, w):
        return strata.relu(x @ w)
    y = mlp(x, w)                            # traced and compiled per (shapes, dtypes)

A JitFunction keeps one Program (runtime/program.py) per signature it was called
with (its variants), or one per dynamic guard; a variant in the disk cache is
loaded from its trace without MLIR (``CachedProgram``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the bindings are imported where they are used
    from ..frontend.module import Module

import functools
import threading
import time
import warnings
from collections import OrderedDict

import numpy as np

from .. import settings
from ..dialect.types import dtype_of_numpy
from ..errors import StrataError
from ..frontend.locations import location_text, user_traceback
from ..frontend.scopes import param_names, spec_of
from ..frontend.tensor import TensorSpec
from .allocs import check_allocs, workspace_alloc
from .compiled import (
    CompiledFunction,
    CompileStats,
    coerce_argument,
    library_function,
    signature_text,
)
from .log import logger
from .out_arrays import copy_into
from .performance import StrataPerformanceWarning
from .program import (
    Program,
    check_blas,
    check_threads,
    clone_module,
    key_options,
    lower,
    parse,
    tuned_text,
)
from .pytree import flatten, is_container, leaf_names, unflatten
from .variants import Variants

__all__ = ["jit", "compile", "JitFunction", "CachedProgram"]

_ndarray = np.ndarray


def _describe_key(key) -> str:
    """A jit variant's key (``(shape, dtype)`` or a Python type per argument), readable."""
    return "(" + ", ".join("x".join(map(str, k[0])) + f"x{dtype_of_numpy(k[1])}"
                           if isinstance(k, tuple) else k.__name__ for k in key) + ")"


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
        arrays = [coerce_argument(a, s, d, n, fname) for a, (s, d), n in
                  zip(args, self.compiled.arg_specs, self.names, strict=True)]
        self.stats.calls += 1
        outs = self.compiled.run(arrays, out)
        return outs[0] if len(outs) == 1 else tuple(outs)


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
        self.threads = check_threads(threads)
        self.blas = check_blas(blas)
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
                seen = ", ".join(signature_text(s) for s in family)
                raise StrataError(
                    f"{self.__name__}: recompile limit reached ({self.max_recompiles} variants "
                    f"of these dtypes and ranks; shapes seen: {seen}; now "
                    f"{signature_text(signature)}): mark the changing dims dynamic "
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
                 signature_text(signature), what, self._why(signature))
        start = time.perf_counter()
        try:
            from ..frontend.module import trace

            module = trace(self.fn, *specs)
            program = Program(module, fusion=self.fusion, opt_level=self.opt_level,
                              layout=self.layout, threads=self.threads, max_variants=1,
                              dynamic=True, blas=self.blas)
            program.name_parameters(names)
            compiled = program.compile()
        except Exception as e:  # noqa: BLE001 - a Python function may not trace with a ?
            # dim (x.shape[0] * 2, say): static variants serve it as before
            self._failed_dynamic.add(frozenset((i, j) for i, d in dims.items() for j in d))
            reason = e.message if isinstance(e, StrataError) else f"{type(e).__name__}: {e}"
            log.info("%s: cannot compile %s dynamic (%s); compiling for the exact shapes",
                     self.__name__, what, reason)
            return None
        if all(isinstance(a, np.ndarray) and a.dtype.isnative for a in args):
            program.fast = compiled
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
                                  signature_text(signature), self._why(signature))
        start = time.perf_counter()
        recorded: list = []  # the recording function of load_cached's trace, if it ran
        program = self.load_cached(*args, recorded=recorded)
        if program is not None:
            from .profile import CompileProfile, timing_enabled

            if timing_enabled(self.timing):
                profile = CompileProfile(self.__name__, signature_text(signature))
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
        program.name_parameters(_param_names(self.fn, len(args)))
        specs, _ = program.signature()
        compiled = program.compile([(tuple(a.shape) if isinstance(a, np.ndarray) else (), d)
                                    for a, (_, d) in zip(args, specs, strict=True)])
        if all(isinstance(a, np.ndarray) and a.dtype.isnative for a in args):
            program.fast = compiled
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

    def compile_variant(self, *args):
        """Compiles the static variant for ``args`` as a first call with them would (the
        disk cache first, then a trace and a compile, stored in the cache when it is on)
        and returns it, without keeping it among this function's variants: what
        ``strata.compile_many`` (autotune/batch.py) builds caches with."""
        return self._compile(args, self.signature_of(args))

    def load_cached(self, *args, recorded: list | None = None):
        """The static variant for ``args`` from the disk cache, or None (a miss, no cache).

        The function is traced without MLIR (frontend/record.py) and the entry is looked
        up by the trace's digest, as ``_compile`` stores it; a hit loads the shared
        library and its metadata, so a new process runs it without importing MLIR. The
        recording function is appended to ``recorded`` (a miss replays it as MLIR).
        """
        from . import aot, cache

        if not cache.enabled() or self.fusion == "measure" or not aot.available():
            return None
        from ..frontend.recording import record_trace

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
                             record.name, signature_text(arg_specs))
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
        out.mlir = clone_module(module.mlir)
        lower(out.mlir, compile_to, fusion=bool(fusion), layout=layout,
              threads=check_threads(threads), blas=check_blas(blas),
              tuned=tuned_text(check_threads(threads)))
        return out
    program = Program(module, fusion=fusion, opt_level=opt_level, layout=layout,
                      threads=threads, max_variants=max_variants, blas=blas, timing=timing)
    if callable(fn_or_module) and not isinstance(fn_or_module, Module):
        # guards name a traced function's parameters, as jit's do
        for name in program.functions:
            program.name_parameters(_param_names(fn_or_module, len(examples)), name)
    return program
