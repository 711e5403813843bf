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

import json
import os
import shutil
import time

from . import cache

__all__ = ["info", "entries", "clear", "describe", "explain_miss"]


def _meta(folder: str) -> dict:
    try:
        with open(os.path.join(folder, "meta.json")) as f:
            meta = json.load(f)
        return meta if isinstance(meta, dict) else {}
    except (OSError, ValueError):
        return {}


def entries() -> list[dict]:
    """Every entry, most recently used first: key, function, signature, size, last use."""
    out = []
    for folder in cache.entry_folders():
        meta = _meta(folder)
        try:
            used = os.path.getmtime(folder)
        except OSError:
            continue
        parts = meta.get("key") or {}
        out.append({"key": os.path.basename(folder), "function": meta.get("function", "?"),
                    "args": meta.get("args"), "results": meta.get("results"),
                    "options": parts.get("options"), "bytes": cache.entry_size(folder),
                    "last_used": used})
    return sorted(out, key=lambda e: -e["last_used"])


def info() -> dict:
    items = entries()
    return {"folder": cache.cache_dir(), "enabled": cache.enabled(), "entries": len(items),
            "bytes": sum(e["bytes"] for e in items), "max_bytes": cache.max_bytes()}


def clear() -> int:
    """Removes every entry; returns how many there were."""
    folders = cache.entry_folders()
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    return len(folders)


def describe(key_or_path: str) -> dict | None:
    """The readable key of one entry (by key or folder path), or None."""
    folder = key_or_path if os.path.isdir(key_or_path) else os.path.join(cache.cache_dir(),
                                                                        key_or_path)
    meta = _meta(folder)
    return meta.get("key") if meta else None


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
        args = ", ".join("x".join("?" if n is None else str(n) for n in s) + f"x{d}" if s else d
                         for s, d in e["args"] or [])
        used = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e["last_used"]))
        lines.append(f"{e['key']}  {e['function']}({args})  {e['bytes'] / 1024:.0f} KiB  {used}")
    return "\n".join(lines)
