"""``strata cache info | list | clear | explain KEY``: the on-disk compilation cache."""

from __future__ import annotations

import json
import sys

USAGE = """usage: strata cache <info | list | clear | explain KEY>

  info          the cache folder, its entries' count and size, and the size cap
  list          one line per entry, most recently used first: key, function(signature),
                size, last use
  clear         remove every entry
  explain KEY   the readable key of an entry (a key from 'list', or an entry's folder)

The folder is STRATA_CACHE_DIR (default ~/.cache/strata); STRATA_CACHE_MAX_BYTES caps its
size (default 2 GiB, least recently used entries removed first).
"""


def run(argv: list[str]) -> int:
    """Runs one ``strata cache`` command; its exit status (a bad knob such as
    ``STRATA_CACHE_MAX_BYTES=abc`` is a message and status 1, not a traceback)."""
    from ..errors import StrataError

    try:
        return _run(argv)
    except StrataError as e:
        sys.stderr.write(f"{e}\n")
        return 1


def _run(argv: list[str]) -> int:
    from ..runtime import cache_admin

    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0 if argv else 1
    command, rest = argv[0], argv[1:]
    if command == "info" and not rest:
        i = cache_admin.info()
        cap = f"{i['max_bytes'] / 2**20:.0f} MiB" if i["max_bytes"] else "none"
        damaged = f" ({i['damaged']} damaged: 'strata cache list' names them)" \
            if i["damaged"] else ""
        sys.stdout.write(f"folder:  {i['folder']}\nenabled: {i['enabled']}\n"
                         f"entries: {i['entries']}{damaged}\n"
                         f"size:    {i['bytes'] / 2**20:.1f} MiB\ncap:     {cap}\n")
        return 0
    if command == "list" and not rest:
        text = cache_admin.format_entries(cache_admin.entries())
        sys.stdout.write(text + "\n" if text else "")
        return 0
    if command == "clear" and not rest:
        sys.stdout.write(f"removed {cache_admin.clear()} entries\n")
        return 0
    if command == "explain" and len(rest) == 1:
        key = cache_admin.describe(rest[0])
        if key is None:
            why = cache_admin.damage(rest[0])
            sys.stderr.write(f"strata cache: entry '{rest[0]}' is damaged: {why}\n" if why
                             else f"strata cache: no entry '{rest[0]}'\n")
            return 1
        sys.stdout.write(json.dumps(key, indent=2, sort_keys=True) + "\n")
        return 0
    sys.stderr.write(f"strata cache: bad arguments: {' '.join(argv)}\n{USAGE}")
    return 1
