"""Looking into the on-disk cache: what is there, how big, and why a lookup missed.

    strata cache info                 folder, entries, total size, size cap
    strata cache list                 one line per entry: function, signature, size, last use
    strata cache clear                remove every entry
    strata cache explain KEY|PATH     an entry's readable key

The same from Python: ``info()``, ``entries()``, ``clear()``, ``describe(key)``,
and ``explain_miss(parts)``, which names the key components that differ from
the nearest entry of the same function (used by ``STRATA_CACHE_MUST_HIT=1``).
"""

from __future__ import annotations

import os
import shutil
import time

from . import cache, json_file

__all__ = ["info", "entries", "clear", "describe", "damage", "explain_miss"]


def _meta(folder: str) -> dict:
    """An entry's ``meta.json`` object ({} when it is missing or damaged)."""
    return _read_meta(folder)[0]


def _read_meta(folder: str) -> tuple[dict, str | None]:
    """An entry's ``meta.json`` and what is wrong with it (None: nothing): a listing shows
    what it can of an entry, and a damaged one as damaged (a lookup removes and rebuilds
    it, runtime/cache.py)."""
    try:
        meta = json_file.load_object(os.path.join(folder, "meta.json"))
    except OSError:
        return {}, "no readable meta.json"
    except ValueError as e:
        return {}, f"meta.json {e}"
    return meta, _meta_problem(meta)


def _is_signature(specs) -> bool:
    """Whether ``specs`` is a list of ``[shape, dtype]`` (a shape: sizes, None if dynamic)."""
    return isinstance(specs, list) and all(
        isinstance(s, list) and len(s) == 2 and isinstance(s[1], str) and
        isinstance(s[0], list) and all(n is None or type(n) is int for n in s[0])
        for s in specs)


def _meta_problem(meta: dict) -> str | None:
    """What in an entry's metadata is of the wrong kind for a listing (None: nothing)."""
    if not isinstance(meta.get("function"), str):
        return f"its function is {json_file.kind(meta.get('function'))}, not a name"
    for name in ("args", "results"):
        if not _is_signature(meta.get(name)):
            return f"its {name} are not a signature"
    if not isinstance(meta.get("key", {}), dict):
        return f"its key is {json_file.kind(meta['key'])}, not an object"
    return None


def entries() -> list[dict]:
    """Every entry, most recently used first: key, function, signature, size, last use,
    and ``damaged``, what is wrong with its metadata (None when nothing)."""
    out = []
    for folder in cache.entry_folders():
        meta, problem = _read_meta(folder)
        try:
            used = os.path.getmtime(folder)
            size = cache.entry_size(folder)
        except OSError:  # removed meanwhile
            continue
        if problem:
            out.append({"key": os.path.basename(folder), "function": None, "args": None,
                        "results": None, "options": None, "bytes": size, "last_used": used,
                        "damaged": problem})
            continue
        out.append({"key": os.path.basename(folder), "function": meta["function"],
                    "args": meta["args"], "results": meta["results"],
                    "options": meta.get("key", {}).get("options"), "bytes": size,
                    "last_used": used, "damaged": None})
    return sorted(out, key=lambda e: -e["last_used"])


def info() -> dict:
    """The cache folder, whether the cache is on, its entries (and how many are damaged),
    their total size and the size cap (StrataError when ``STRATA_CACHE_MAX_BYTES`` is
    not a number)."""
    items = entries()
    return {"folder": cache.cache_dir(), "enabled": cache.enabled(), "entries": len(items),
            "damaged": sum(1 for e in items if e["damaged"]),
            "bytes": sum(e["bytes"] for e in items), "max_bytes": cache.max_bytes()}


def clear() -> int:
    """Removes every entry; returns how many there were."""
    folders = cache.entry_folders()
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    return len(folders)


def _folder(key_or_path: str) -> str:
    return key_or_path if os.path.isdir(key_or_path) else os.path.join(cache.cache_dir(),
                                                                       key_or_path)


def describe(key_or_path: str) -> dict | None:
    """The readable key of one entry (by key or folder path), or None."""
    key = _meta(_folder(key_or_path)).get("key")
    return key if isinstance(key, dict) else None


def damage(key_or_path: str) -> str | None:
    """What is wrong with an existing entry's metadata (None: nothing, or no such entry)."""
    folder = _folder(key_or_path)
    if not os.path.isdir(folder):
        return None
    meta, problem = _read_meta(folder)
    if problem is None and not isinstance(meta.get("key"), dict):
        problem = "its meta.json has no key"
    return problem


def _differences(a, b, prefix="") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            out += _differences(a.get(k), b.get(k), f"{prefix}{k}.")
        return out
    return [] if a == b else [f"{prefix[:-1]}: {b!r} here, {a!r} in the entry"]


def explain_miss(parts: dict) -> str:
    """Why ``parts`` has no entry: the components that differ from the nearest entry."""
    best = None
    for folder in cache.entry_folders():
        other = _meta(folder).get("key")
        if not isinstance(other, dict) or other.get("function") != parts.get("function"):
            continue
        diffs = _differences(other, parts)
        if best is None or len(diffs) < len(best[1]):
            best = (os.path.basename(folder), diffs)
    if best is None:
        return f"no entry for function '{parts.get('function')}' in {cache.cache_dir()}"
    key, diffs = best
    if any(d.startswith("signature:") for d in diffs):  # then the IR differs too, of course
        diffs = [d for d in diffs if not d.startswith(("ir:", "trace:"))]
    diffs.sort(key=lambda d: (not d.startswith("signature:"), d))
    return f"the nearest entry ({key}) differs in " + "; ".join(diffs)


def format_entries(items: list[dict]) -> str:
    lines = []
    for e in items:
        used = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e["last_used"]))
        if e["damaged"]:
            what = f"damaged: {e['damaged']}"
        else:
            args = ", ".join("x".join("?" if n is None else str(n) for n in s) + f"x{d}"
                             if s else d for s, d in e["args"])
            what = f"{e['function']}({args})"
        lines.append(f"{e['key']}  {what}  {e['bytes'] / 1024:.0f} KiB  {used}")
    return "\n".join(lines)
