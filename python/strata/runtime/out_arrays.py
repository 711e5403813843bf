"""``f(x, y, out=arr)``: results written into the caller's arrays, checked first.

    y = np.empty((4096, 4096), np.float32)
    f(x, out=y)                  # one result: an array; returns y
    f(x, out=(y, s))             # several results: a tuple, one array per result

Each array must have the result's shape and dtype (native byte order), be writable,
C-contiguous and aligned to its dtype; two of them may not overlap. Anything else
raises a StrataError at the caller's line. An ``out`` array that overlaps an input
(``f(x, out=x)``) is allowed and gives the same values as without ``out``: the
code writes a temporary result, copied into ``out`` after the call (one extra
pass over it); use a separate array to avoid the copy.
"""

from __future__ import annotations

import numpy as np

from ..dialect.types import dtype_of_numpy
from ..errors import StrataError
from ..frontend.locations import location_text

__all__ = ["out_arrays", "copy_into"]


def _type_text(shape, dtype: np.dtype) -> str:
    dims = "x".join(map(str, shape))
    return f"tensor<{dims + 'x' if dims else ''}{dtype_of_numpy(dtype)}>"


def _fail(message: str):
    raise StrataError(message, location=location_text())


def out_arrays(fname: str, out, specs, makers, inputs) -> tuple[list, list]:
    """``(arrays the code writes, [(temporary, out array)] to copy after the call)`` for
    ``out`` (an array or a tuple/list of arrays) and the results' ``(shape, dtype)``
    ``specs``; ``makers[i]()`` makes a temporary for result ``i``."""
    arrays = list(out) if isinstance(out, (tuple, list)) else [out]
    if len(arrays) != len(specs):
        many = "a tuple of " if len(specs) > 1 else ""
        _fail(f"{fname}: out= needs {many}{len(specs)} array{'s' if len(specs) > 1 else ''}"
              f" (one per result), got {len(arrays)}")
    targets, copies = [], []
    for i, (a, (shape, dtype)) in enumerate(zip(arrays, specs, strict=True)):
        if (type(a) is np.ndarray and a.dtype == dtype and a.shape == shape and
                a.flags.carray and a.dtype.isnative):  # the usual case: nothing to report
            pass
        else:
            _check(fname, a, i, len(specs), shape, dtype)
        for j in range(i):
            if np.may_share_memory(a, arrays[j]):
                what = "out" if len(specs) == 1 else f"out[{i}]"
                _fail(f"{fname}: {what} overlaps out[{j}]: each result needs its own memory")
        if any(np.may_share_memory(a, x) for x in inputs):
            temporary = makers[i]()
            copies.append((temporary, a))
            targets.append(temporary)
        else:
            targets.append(a)
    return targets, copies


def _check(fname, a, i, count, shape, dtype) -> None:
    """Raises the StrataError saying what is wrong with out array ``i`` (if anything)."""
    what = "out" if count == 1 else f"out[{i}]"
    want = _type_text(shape, dtype)
    if not isinstance(a, np.ndarray):
        _fail(f"{fname}: {what} must be a numpy array of type {want}, got "
              f"{type(a).__name__}")
    if not a.dtype.isnative:
        _fail(f"{fname}: {what} expects {want}, got a non-native byte order "
              f"({a.dtype.str}) array")
    if a.dtype != dtype:
        _fail(f"{fname}: {what} expects {want}, got a {a.dtype} array")
    if a.shape != tuple(shape):
        _fail(f"{fname}: {what} expects {want}, got shape {a.shape}")
    if not a.flags.writeable:
        _fail(f"{fname}: {what} is read-only")
    if not a.flags.c_contiguous:
        _fail(f"{fname}: {what} must be C-contiguous (np.ascontiguousarray makes a copy "
              "to pass instead)")
    if not a.flags.aligned:
        _fail(f"{fname}: {what} is not aligned to its dtype ({a.dtype.alignment} bytes)")


def copy_into(fname: str, results, out):
    """``out`` (checked as by out_arrays) holding a copy of ``results`` (one array or a
    tuple): for calls whose results are made elsewhere (shape buckets slice them)."""
    results = list(results) if isinstance(results, tuple) else [results]
    targets, _ = out_arrays(fname, out, [(r.shape, r.dtype) for r in results], None, ())
    for target, result in zip(targets, results, strict=True):
        np.copyto(target, result)
    return targets[0] if len(targets) == 1 else tuple(targets)
