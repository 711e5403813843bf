"""What a compile gives: a function compiled for one signature, and the call's checks.

    compiled = program.compile([((4, 8), "f32")])   # a CompiledFunction (runtime/program.py)
    (y,) = compiled.run([x])                        # C-contiguous, aligned arrays of that signature

``CompiledFunction`` runs a kernel of static shapes; ``DynamicFunction`` one with
dynamic dims, its outputs sized per call by the function's shape rules.
``check_argument`` / ``coerce_argument`` are the guards every call goes through:
a wrong dtype, rank or static dim raises StrataError naming the argument.
"""

from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass, field

import numpy as np

from ..dialect.types import dtype_of_numpy, numpy_dtype
from ..errors import StrataError
from ..frontend.locations import location_text
from .allocs import WORKSPACE_ALIGNMENT, check_allocs
from .engine import _char_at, _set_shape, address
from .out_arrays import out_arrays
from .output_pool import PLACEMENT, page_buffer, result_maker

assert PLACEMENT % WORKSPACE_ALIGNMENT == 0  # a page-placed workspace meets strata-workspace's

__all__ = ["CompiledFunction", "DynamicFunction", "CompileStats", "compiled_function",
           "library_function", "check_argument", "coerce_argument", "signature_text"]


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


_addressof = ctypes.addressof


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

    def workspace_address(self) -> int:
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
            pointers.append(self.workspace_address())
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
            desc.allocated = desc.aligned = self.workspace_address()
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


def signature_text(arg_specs) -> str:
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
            desc.allocated = desc.aligned = self.workspace_address()
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
            pointers.append(self.workspace_address())
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
                                  f"an intermediate for {signature_text(specs)}"]])
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


def coerce_argument(value, spec_shape, spec_dtype, name, fname):
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
