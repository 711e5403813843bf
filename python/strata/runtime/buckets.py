"""Shape buckets: a changing batch dim padded up to a few sizes, results sliced back.

    f = strata.jit(model, buckets={"x": {0: "pow2"}})        # 5 -> 8, 97 -> 128
    f = strata.jit(model, buckets={"x": {0: [16, 64, 256]}})  # the smallest that fits

Each call pads the bucketed arguments with zero rows up to the bucket's size, runs
the static variant compiled for that size, and returns views of the results' first
``n`` rows: one static variant per bucket instead of one per size, each as fast as
static code. Sizes above the largest listed bucket run exactly (their own variant).

Padding is only sound where padded rows cannot change a real row: the policy is
checked once per set of argument dtypes and ranks by tracing the function with the
bucketed dims dynamic and following them (dialect/rows.py: rows of elementwise ops,
a matmul's M, reductions, softmax and norms over other axes). A function where they
could (a reduction or a softmax over the bucketed dim, a matmul contracting it, a
result without it) is rejected with a StrataError that names the reason: buckets are
an explicit request, and silently compiling every size would be the storm they exist
to prevent. (The check imports the MLIR bindings once per process.)

The cost of padding and slicing is counted in ``stats``: calls padded, rows padded
vs real, and the seconds spent copying (``f.bucket_costs()``).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import StrataError, StrataMemoryError
from ..frontend.locations import location_text
from .jit_options import bucket_rules, check_dims

__all__ = ["BucketPolicy", "BucketStats", "bucket_size"]


@dataclass
class BucketStats:
    """What padding cost: calls padded, rows computed vs asked for, copy time."""

    calls: int = 0
    padded_calls: int = 0
    rows: int = 0
    padded_rows: int = 0
    seconds: float = 0.0  # pad + slice
    sizes: dict = field(default_factory=dict)  # bucket -> calls

    def as_dict(self) -> dict:
        return {"calls": self.calls, "padded_calls": self.padded_calls, "rows": self.rows,
                "padded_rows": self.padded_rows, "pad_slice_seconds": self.seconds,
                "buckets": dict(self.sizes)}


def bucket_size(n: int, rule) -> int:
    """The bucket for size ``n``: the next power of two (``"pow2"``), or the smallest
    listed size >= n (``n`` itself above them all)."""
    if n < 1:
        return n
    if rule == "pow2":
        return 1 << (n - 1).bit_length()
    for size in rule:
        if size >= n:
            return size
    return n


class BucketPolicy:
    """Pads a jit function's bucketed arguments and slices its results (see module doc)."""

    def __init__(self, fn, buckets: dict):
        self.fn = fn
        self.rules = bucket_rules(fn, buckets)  # checked (runtime/jit_options.py)
        self.stats = BucketStats()
        self._plans: dict = {}  # dtypes and ranks -> result axes
        self._lock = threading.Lock()

    def call(self, run, args):
        """``run(*padded)`` on the padded arguments; the results sliced back."""
        n = target = None
        for i, (dim, rule) in self.rules.items():
            a = args[i] if i < len(args) else None
            if isinstance(a, np.ndarray) and a.ndim > dim:
                if n is None:
                    n = a.shape[dim]
                    target = bucket_size(n, rule)
            else:  # not passed, or without that dim: a located error
                self._check_dims(args)
        stats = self.stats
        stats.calls += 1
        if n is None:  # the guards of the call report what is wrong
            return run(*args)
        stats.rows += n
        stats.sizes[target] = stats.sizes.get(target, 0) + 1
        if target == n:
            return run(*args)
        axes = self._result_axes(args)  # checked once per dtypes and ranks
        start = time.perf_counter()
        padded = list(args)
        for i, (dim, _) in self.rules.items():
            a = args[i] if i < len(args) else None
            if isinstance(a, np.ndarray) and a.ndim > dim and a.shape[dim] == n:
                shape = list(a.shape)
                shape[dim] = target
                p = self._zeros(i, dim, n, shape, a.dtype)
                p[(slice(None),) * dim + (slice(0, n),)] = a
                padded[i] = p
        elapsed = time.perf_counter() - start
        out = run(*padded)
        start = time.perf_counter()
        outs = out if isinstance(out, tuple) else (out,)
        sliced = tuple(o[(slice(None),) * ax + (slice(0, n),)]
                       for o, ax in zip(outs, axes, strict=True))
        stats.padded_calls += 1
        stats.padded_rows += target - n
        stats.seconds += elapsed + time.perf_counter() - start
        return sliced if isinstance(out, tuple) else sliced[0]

    def _check_dims(self, args) -> None:
        """Raises a located StrataError when an argument the buckets name is not passed
        or lacks the bucketed dim (an argument that is not an array: its guards say)."""
        ranks = [np.ndim(a) if isinstance(a, (np.ndarray, np.generic, int, float)) else None
                 for a in args]
        check_dims(self.fn, "buckets", {i: dim for i, (dim, _) in self.rules.items()}, ranks)

    def _zeros(self, index, dim, n, shape, dtype) -> np.ndarray:
        """The padded argument's buffer; a StrataMemoryError naming the bucket when it
        cannot be allocated."""
        try:
            return np.zeros(shape, dtype)
        except (MemoryError, ValueError):
            from ..frontend.scopes import param_names

            name = getattr(self.fn, "__name__", "function")
            arg = param_names(self.fn, index + 1)[index]
            size = np.dtype(dtype).itemsize * float(np.prod([float(s) for s in shape]))
            raise StrataMemoryError(
                f"{name}: buckets: padding '{arg}' dim {dim} from {n} to its bucket "
                f"{shape[dim]} needs {size:.3g} bytes, more than this process can allocate "
                "(use smaller bucket sizes)", location=location_text()) from None

    def _result_axes(self, args) -> list:
        """Where each result carries the bucketed dim (checked once per dtypes/ranks)."""
        key = tuple((a.dtype, a.ndim) if isinstance(a, np.ndarray) else type(a) for a in args)
        axes = self._plans.get(key)
        if axes is None:
            with self._lock:
                axes = self._plans.get(key)
                if axes is None:
                    axes = self._plans[key] = self._analyse(args)
        return axes

    def _analyse(self, args) -> list:
        from ..dialect.rows import row_plan
        from ..frontend.module import trace
        from ..frontend.scopes import param_names, spec_of
        from ..frontend.tensor import TensorSpec

        name = getattr(self.fn, "__name__", "function")
        names = param_names(self.fn, len(args))
        specs = []
        for i, (a, n) in enumerate(zip(args, names, strict=True)):
            s = spec_of(a, f"{name}: argument '{n}'")
            if i in self.rules:
                dim = self.rules[i][0]
                specs.append(TensorSpec(tuple(None if j == dim else d
                                              for j, d in enumerate(s.shape)), s.dtype))
            else:
                specs.append(TensorSpec(tuple(s.shape), s.dtype))
        what = ", ".join(f"'{names[i]}' dim {d}" for i, (d, _) in sorted(self.rules.items()))
        try:
            module = trace(self.fn, *specs)
        except StrataError as e:
            raise StrataError(f"{name}: buckets: cannot trace with {what} dynamic to check "
                              f"that padding is sound: {e.message}",
                              location=location_text()) from None
        fn_op = next(op.operation for op in module.mlir.body.operations
                     if op.operation.name == "func.func")
        axes = [self.rules[i][0] if i in self.rules else None for i in range(len(args))]
        with module.mlir.context:
            plan = row_plan(fn_op, axes)
        if not plan.ok:
            raise StrataError(f"{name}: buckets: padding {what} could change the results "
                              f"({plan.reason}); use dynamic={{...}} for this function "
                              "instead", location=location_text())
        return plan.results
