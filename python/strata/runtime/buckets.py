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

import inspect
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import StrataError
from ..frontend.locations import location_text

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


def _rules(fn, buckets) -> dict:
    """``{"x": {0: "pow2"}}`` as ``{arg index: (dim, rule)}``, checked."""
    params = list(inspect.signature(fn).parameters)
    name = getattr(fn, "__name__", "the function")
    out = {}
    for arg, dims in buckets.items():
        if arg not in params:
            raise StrataError(f"buckets: '{arg}' is not a parameter of {name} (parameters: "
                              f"{', '.join(params)})", location=location_text())
        if not isinstance(dims, dict) or len(dims) != 1:
            raise StrataError(f"buckets: '{arg}' must map one dim to a rule, e.g. "
                              "{0: 'pow2'} or {0: [16, 64, 256]}", location=location_text())
        ((dim, rule),) = dims.items()
        if not isinstance(dim, int) or isinstance(dim, bool) or dim < 0:
            raise StrataError(f"buckets: the dim of '{arg}' must be a non-negative int, got "
                              f"{dim!r}", location=location_text())
        if rule != "pow2":
            sizes = list(rule) if isinstance(rule, (list, tuple)) else None
            if not sizes or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 1
                                    for s in sizes):
                raise StrataError(f"buckets: the rule of '{arg}' dim {dim} must be 'pow2' or "
                                  f"a list of positive sizes, got {rule!r}",
                                  location=location_text())
            rule = tuple(sorted(set(sizes)))
        out[params.index(arg)] = (dim, rule)
    return out


class BucketPolicy:
    """Pads a jit function's bucketed arguments and slices its results (see module doc)."""

    def __init__(self, fn, buckets: dict):
        self.fn = fn
        self.rules = _rules(fn, buckets)
        self.stats = BucketStats()
        self._plans: dict = {}  # dtypes and ranks -> result axes
        self._lock = threading.Lock()

    def call(self, run, args):
        """``run(*padded)`` on the padded arguments; the results sliced back."""
        n = target = None
        for i, (dim, rule) in self.rules.items():
            a = args[i] if i < len(args) else None
            if isinstance(a, np.ndarray) and a.ndim > dim:
                n = a.shape[dim]
                target = bucket_size(n, rule)
                break
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
                p = np.zeros(shape, a.dtype)
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
