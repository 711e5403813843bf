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

__all__ = ["record_path", "enabled", "target_key", "entries", "matching", "tuned_text",
           "add", "show", "forced"]

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
    from .cache import cache_dir

    return os.environ.get("STRATA_TUNING_RECORD") or os.path.join(cache_dir(), "tuning.json")


def enabled() -> bool:
    return os.environ.get("STRATA_TUNING", "1") not in ("0", "off", "false", "no")


def target_key() -> dict:
    """This process's target and versions, as a record entry names them."""
    from .cache import _cpu, _versions

    return {"target": _cpu(), "versions": _versions()}


def entries(path: str | None = None) -> list[dict]:
    """Every entry of the record (any target); [] without a readable record."""
    path = path or record_path()
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        return []
    memo = _MEMO.get(path)
    if memo is not None and memo[0] == stamp:
        return memo[1]
    try:
        with open(path) as f:
            data = json.load(f)
        found = [e for e in data["entries"] if isinstance(e, dict)] \
            if data.get("format") == FORMAT else []
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        found = []  # a damaged record tunes nothing (strata tune rewrites it)
    _MEMO[path] = (stamp, found)
    return found


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
    from ..passes.tuning import format_tuned

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
    found = entries(path)
    path = path or record_path()
    if not found:
        return f"no tuning record at {path}\n"
    key = target_key()
    lines = [f"tuning record {path} ({len(found)} entries; * = this target)",
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
