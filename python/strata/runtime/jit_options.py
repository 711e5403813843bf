"""The checks of ``strata.jit``'s options, each a located StrataError naming the option.

Three moments:

* ``check_options``, when ``strata.jit`` is called (or used as a decorator): the kinds
  of the plain options (``fusion``, ``opt_level``, ``layout``, ``automatic_dynamic``,
  ``timing``) and that ``dynamic`` and ``buckets`` are dicts;
* ``dynamic_marks`` and ``bucket_rules``, when the jit function is made: every
  name is a positional parameter of the function, every dim a non-negative int, every
  bucket rule ``"pow2"`` or a list of positive sizes;
* ``check_dims``, when a call of a new signature arrives: the dims ``dynamic`` or
  ``buckets`` names exist in the arguments of that call (an argument of the call, of
  that many dims), which only a call can tell.

Messages are at the user's line (frontend/locations.py), never a Python traceback.
"""

from __future__ import annotations

import numbers

from ..errors import StrataError
from ..frontend.locations import location_text

__all__ = ["check_options", "dynamic_marks", "bucket_rules", "check_dims", "MAX_BUCKET"]

FUSION = (True, False, "measure")
OPT_LEVELS = (0, 1, 2, 3)
# A bucket is a size an argument's dim is padded to: at most the largest array dim
# numpy can make (its sizes are signed 64-bit); whether the padded array fits in memory
# is seen when a call pads to it (runtime/buckets.py).
MAX_BUCKET = 2**63 - 1
_DYNAMIC_FORM = "{'x': [0]} (a parameter name to the dims compiled dynamic)"
_BUCKETS_FORM = "{'x': {0: 'pow2'}} or {'x': {0: [16, 64, 256]}}"


def _fail(message: str) -> StrataError:
    return StrataError(message, location=location_text())


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_bool(value) -> bool:
    return isinstance(value, bool)  # a numpy bool is not JSON (the cache key's options)


def check_options(*, fusion, opt_level, layout, automatic_dynamic, timing, dynamic,
                  buckets) -> None:
    """Checks the kinds of jit's options (threads, blas, max_variants and
    max_recompiles are checked where they are read)."""
    if not (_is_bool(fusion) or fusion == "measure"):
        raise _fail(f"fusion must be True, False or 'measure', got {fusion!r}")
    if type(opt_level) is not int or opt_level not in OPT_LEVELS:  # a plain int: JSON
        raise _fail(f"opt_level must be 0, 1, 2 or 3, got {opt_level!r}")
    for name, value in (("layout", layout), ("automatic_dynamic", automatic_dynamic),
                        ("timing", timing)):
        if not _is_bool(value):
            raise _fail(f"{name} must be True or False, got {value!r}")
    if dynamic is not None and not isinstance(dynamic, dict):
        raise _fail(f"dynamic must be a dict such as {_DYNAMIC_FORM}, got "
                    f"{type(dynamic).__name__} {dynamic!r}")
    if buckets is not None and not isinstance(buckets, dict):
        raise _fail(f"buckets must be a dict such as {_BUCKETS_FORM}, got "
                    f"{type(buckets).__name__} {buckets!r}")


def _positional(fn) -> list[str]:
    """The names of the parameters a call of ``fn`` fills by position (a ``*args``
    parameter names the first of them)."""
    import inspect

    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
             inspect.Parameter.VAR_POSITIONAL)
    return [p.name for p in inspect.signature(fn).parameters.values() if p.kind in kinds]


def _parameter(option: str, fn, name, params: list[str]) -> int:
    """The position of the parameter ``name`` that ``option`` names."""
    if not isinstance(name, str) or name not in params:
        fname = getattr(fn, "__name__", "the function")
        raise _fail(f"{option}: {name!r} is not a parameter of {fname} (its positional "
                    f"parameters: {', '.join(params) or 'none'})")
    return params.index(name)


def _dim(option: str, name: str, dim) -> int:
    if not _is_int(dim) or dim < 0:
        what = "dims of '{}' must be non-negative ints" if option == "dynamic" else \
            "the dim of '{}' must be a non-negative int"
        raise _fail(f"{option}: {what.format(name)}, got {dim!r}")
    return int(dim)


def dynamic_marks(fn, dynamic) -> dict[int, set[int]]:
    """``{"x": [0]}`` (parameter name -> a dim or a list of dims) as ``{arg index:
    {dims}}``, checked."""
    if dynamic is None:
        return {}
    if not isinstance(dynamic, dict):
        raise _fail(f"dynamic must be a dict such as {_DYNAMIC_FORM}, got "
                    f"{type(dynamic).__name__} {dynamic!r}")
    params = _positional(fn) if dynamic else []
    marks = {}
    for name, dims in dynamic.items():
        index = _parameter("dynamic", fn, name, params)
        if _is_int(dims):
            dims = [dims]
        elif isinstance(dims, (str, bytes, dict)) or not hasattr(dims, "__iter__"):
            raise _fail(f"dynamic: '{name}' must map to a dim or a list of dims (non-negative "
                        f"ints), got {type(dims).__name__} {dims!r}")
        marks[index] = {_dim("dynamic", name, d) for d in dims}
    return marks


def bucket_rules(fn, buckets) -> dict[int, tuple]:
    """``{"x": {0: "pow2"}}`` as ``{arg index: (dim, rule)}``, a rule being ``"pow2"`` or
    the sorted tuple of sizes; checked."""
    if not isinstance(buckets, dict):
        raise _fail(f"buckets must be a dict such as {_BUCKETS_FORM}, got "
                    f"{type(buckets).__name__} {buckets!r}")
    params = _positional(fn) if buckets else []
    out = {}
    for arg, dims in buckets.items():
        index = _parameter("buckets", fn, arg, params)
        if not isinstance(dims, dict) or len(dims) != 1:
            raise _fail(f"buckets: '{arg}' must map one dim to a rule, e.g. {{0: 'pow2'}} or "
                        f"{{0: [16, 64, 256]}}, got {dims!r}")
        ((dim, rule),) = dims.items()
        dim = _dim("buckets", arg, dim)
        if isinstance(rule, str) and rule == "pow2":
            out[index] = (dim, rule)
            continue
        sizes = list(rule) if isinstance(rule, (list, tuple)) else None
        if not sizes or not all(_is_int(s) and 1 <= s <= MAX_BUCKET for s in sizes):
            raise _fail(f"buckets: the rule of '{arg}' dim {dim} must be 'pow2' or a list of "
                        f"positive sizes (at most 2**63-1), got {rule!r}")
        out[index] = (dim, tuple(sorted({int(s) for s in sizes})))
    return out


def check_dims(fn, option: str, dims: dict, ranks: list[int | None]) -> None:
    """Checks that the dims ``option`` names (``{arg index: dims}``) are in a call whose
    arguments have ``ranks`` (None: not an array; the call's guards report it)."""
    for index in sorted(dims):
        wanted = dims[index]
        wanted = {wanted} if isinstance(wanted, int) else wanted
        if not wanted:
            continue
        fname = getattr(fn, "__name__", "the function")
        params = _positional(fn)
        name = params[min(index, len(params) - 1)] if params else f"arg{index}"
        if index >= len(ranks):
            raise _fail(f"{option}: names '{name}', which this call of {fname} does not pass "
                        f"({len(ranks)} argument{'s' if len(ranks) != 1 else ''})")
        rank = ranks[index]
        if rank is None:
            continue
        outside = sorted(d for d in wanted if d >= rank)
        if outside:
            has = ("a scalar (no dims)" if rank == 0 else "1-d (dim 0)" if rank == 1
                   else f"{rank}-d (dims 0 to {rank - 1})")
            raise _fail(f"{option}: '{name}' dim {outside[0]} is out of range: this call's "
                        f"'{name}' is {has}")
