"""The persistent tuning record: the tiles autotuning measured best, per op and target.

``strata.tune`` (strata/autotune/) measures candidate tiles per heavy op and saves
the winners here; every later compile on a matching target reads them and
hands them to strata-vectorize as its ``tuned`` option (passes/tuning.py), and
the compile cache's key includes that text, so a tuned and an untuned build
never share an entry.

The record is one JSON file, ``<cache dir>/tuning.json`` (``STRATA_TUNING_RECORD``
names another), written atomically under a lock so tuners may run side by side.
An entry is keyed like a cache entry, without the source fingerprint:

    op        1x512x512x512xf32   (batch x M x N x K x dtype, passes/tuning.py)
    target    LLVM host CPU, a hash of the CPU flags, the forced feature set
    versions  strata, MLIR and LLVM package versions
    threads   the threads the code was measured with

and holds the chosen ``config`` (strata-vectorize option fields) beside the
measured default and tuned seconds. Only entries whose key matches this
process's target, versions and threads are used. ``STRATA_TUNING=0`` ignores
the record (untuned compiles). Nothing here imports MLIR.
"""

from __future__ import annotations

import json
import os

from .. import settings
from . import json_file

__all__ = ["record_path", "enabled", "target_key", "entries", "entry_problem", "matching",
           "tuned_text", "add", "show", "forced"]

FORMAT = 1
_MEMO: dict = {}
_FORCED: list[str] = []


class forced:  # noqa: N801 - used as a context manager, like a function
    """``with forced(text):`` compiles in this thread use ``text`` as the tuned tiles
    instead of the record's (strata.tune measuring a candidate)."""

    def __init__(self, text: str):
        self.text = text

    def __enter__(self):
        _FORCED.append(self.text)
        return self

    def __exit__(self, *exc):
        _FORCED.pop()


def record_path() -> str:
    return settings.get("STRATA_TUNING_RECORD")


def enabled() -> bool:
    return settings.get("STRATA_TUNING")


def target_key() -> dict:
    """This process's target and versions, as a record entry names them."""
    from .cache import _cpu, _versions

    return {"target": _cpu(), "versions": _versions()}


def entries(path: str | None = None) -> list[dict]:
    """Every well-formed entry of the record (any target); [] without a readable record.

    A damaged record (not JSON, nested too deeply, values of the wrong kinds) never
    breaks a compile: what is damaged is ignored, with one :class:`StrataCacheWarning`
    per record and process, and ``strata tune`` rewrites the record without it."""
    path = path or record_path()
    found, problem = _read(path)
    if problem:
        _warn_ignored(path, problem)
    return found


def _read(path: str) -> tuple[list[dict], str | None]:
    """The record's well-formed entries and what is wrong with the rest (None: nothing),
    memoized while the file's modification time stays the same."""
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        return [], None
    memo = _MEMO.get(path)
    if memo is not None and memo[0] == stamp:
        return memo[1], memo[2]
    found, problem = [], None
    try:
        data = json_file.load_object(path)
        if data.get("format") != FORMAT:
            problem = f"has format {data.get('format')!r}, not {FORMAT}"
        elif not isinstance(data.get("entries"), list):
            problem = f"has entries that are {json_file.kind(data.get('entries'))}, not an array"
        else:
            bad = []
            for entry in data["entries"]:
                why = entry_problem(entry)
                if why:
                    bad.append(why)
                else:
                    found.append(entry)
            if bad:
                problem = (f"has {len(bad)} malformed entr{'y' if len(bad) == 1 else 'ies'} "
                           f"(the first: {bad[0]})")
    except OSError:
        return [], None
    except ValueError as e:
        problem = str(e)
    _MEMO[path] = (stamp, found, problem)
    return found, problem


def entry_problem(entry) -> str | None:
    """What makes ``entry`` unusable as a record entry (None: it is well formed): an op
    signature, a thread count, target and versions objects, and a config of known option
    fields to integers in their options' ranges (or booleans), as strata-vectorize's tuned
    text needs. (A tile the pass rejects for this op, such as a micro-kernel width that is
    not a multiple of the vector lanes, is still the pass's located error.)"""
    import re

    from ..passes.knobs import BOOL_KNOBS, KNOBS, SIGNATURE, ZERO_MEANS_HOST

    if not isinstance(entry, dict):
        return f"an entry is {json_file.kind(entry)}, not an object"
    op = entry.get("op")
    if not isinstance(op, str) or not re.fullmatch(SIGNATURE, op):
        return f"op {op!r} is not an op signature such as 1x64x64x64xf32"
    threads = entry.get("threads")
    if type(threads) is not int or threads < 1:
        return f"{op}: threads {threads!r} is not a positive integer"
    for name in ("target", "versions"):
        if not isinstance(entry.get(name), dict):
            return f"{op}: its {name} is {json_file.kind(entry.get(name))}, not an object"
    config = entry.get("config")
    if not isinstance(config, dict):
        return f"{op}: its config is {json_file.kind(config)}, not an object"
    for name, value in config.items():
        if name not in KNOBS and name not in KNOBS.values():
            return f"{op}: unknown config field {name!r}"
        field = KNOBS.get(name, name)
        if field in BOOL_KNOBS:
            if type(value) is not bool and value not in (0, 1):
                return f"{op}: config {name}={value!r} is not a boolean"
            continue
        least = 0 if field in ZERO_MEANS_HOST else 1
        if type(value) is not int or not least <= value < 2**63:
            return f"{op}: config {name}={value!r} is not an integer of at least {least}"
    for name in ("default_s", "tuned_s"):
        value = entry.get(name)
        if value is not None and (type(value) not in (int, float) or value < 0):
            return f"{op}: {name} {value!r} is not a time in seconds"
    return None


_WARNED: set[str] = set()


def _warn_ignored(path: str, why: str) -> None:
    """Warns, once per record and process, at the user's line, that (part of) the record
    was ignored."""
    import warnings

    from ..frontend.locations import user_frame
    from .cache import StrataCacheWarning

    if path in _WARNED:
        return
    _WARNED.add(path)
    message = (f"strata: the tuning record {path} {why}: ignored (what it tuned compiles "
               "untuned until 'strata tune' rewrites the record)")
    frame = user_frame()
    if frame is None:
        warnings.warn(message, StrataCacheWarning, stacklevel=2)
        return
    warnings.warn_explicit(message, StrataCacheWarning, frame.f_code.co_filename,
                           frame.f_lineno, registry=frame.f_globals.setdefault(
                               "__warningregistry__", {}))


def _same_key(entry: dict, op: str, key: dict, threads: int) -> bool:
    return (entry.get("op") == op and entry.get("target") == key["target"] and
            entry.get("versions") == key["versions"] and entry.get("threads") == threads)


def matching(threads: int) -> dict[str, dict]:
    """``{op signature: config}`` of the entries for this target, versions and threads."""
    if not enabled():
        return {}
    found = entries()
    if not found:
        return {}
    key = target_key()
    return {e["op"]: e["config"] for e in found
            if _same_key(e, e.get("op"), key, threads) and isinstance(e.get("config"), dict)
            and e["config"]}


def tuned_text(threads: int) -> str:
    """strata-vectorize's ``tuned`` option text for this target ("" when nothing applies)."""
    if _FORCED:
        return _FORCED[-1]
    configs = matching(threads)
    if not configs:
        return ""
    from ..passes.knobs import format_tuned

    return format_tuned(configs)


def add(new: list[dict], path: str | None = None) -> None:
    """Adds entries (each with ``op``, ``target``, ``versions``, ``threads``, ``config``),
    replacing those of the same key; atomic, under a lock beside the record."""
    import fcntl
    import tempfile

    path = path or record_path()
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _MEMO.pop(path, None)
        kept = [e for e in entries(path) if not any(
            _same_key(e, n["op"], n, n["threads"]) for n in new)]
        fd, tmp = tempfile.mkstemp(prefix=".tuning-", dir=folder)
        with os.fdopen(fd, "w") as f:
            json.dump({"format": FORMAT, "entries": kept + list(new)}, f, indent=1)
        os.replace(tmp, path)
        _MEMO.pop(path, None)


def show(path: str | None = None) -> str:
    """The record as a table: one row per entry, this target's marked ``*``."""
    path = path or record_path()
    found, problem = _read(path)
    damaged = f" (it {problem}: ignored; 'strata tune' rewrites it)" if problem else ""
    if not found:
        return f"no tuning record at {path}{damaged}\n"
    key = target_key()
    lines = [f"tuning record {path} ({len(found)} entries; * = this target){damaged}",
             f"  {'op':<24} {'thr':>3} {'default':>11} {'tuned':>11} {'speedup':>7}  "
             "config  [cpu]"]
    for e in sorted(found, key=lambda e: (str(e.get("op")), e.get("threads", 0))):
        mine = "*" if _same_key(e, e.get("op"), key, e.get("threads")) else " "
        d, t = e.get("default_s"), e.get("tuned_s")
        speed = f"{d / t:6.2f}x" if d and t else "      ?"
        config = " ".join(f"{k}={v}" for k, v in sorted(e.get("config", {}).items())) \
            or "(default)"
        cpu = e.get("target", {}).get("llvm", "?")
        lines.append(f"{mine} {e.get('op', '?'):<24} {e.get('threads', '?'):>3} "
                     f"{_us(d):>11} {_us(t):>11} {speed}  {config}  [{cpu}]")
    return "\n".join(lines) + "\n"


def _us(seconds) -> str:
    return f"{seconds * 1e6:.1f} us" if isinstance(seconds, (int, float)) else "?"
