"""The memo folder: what strata works out once per installation and machine, kept.

``memo_dir()`` holds the source fingerprint (runtime/cache.py) and ``llc --version``
(runtime/aot.py), each stamped with the files it depends on; ``save_json`` writes
such a file, or a small file of the cache, atomically.
"""

from __future__ import annotations

import json
import os

__all__ = ["memo_dir", "save_json"]


def memo_dir() -> str:
    """Where strata keeps what it works out once per installation and machine (the source
    fingerprint, ``llc --version``), each stamped with the files it depends on: beside
    the default cache, not in ``STRATA_CACHE_DIR``, so that an empty compilation cache
    does not recompute them (~50 ms of a cold compile)."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "strata-memo")


def save_json(path: str, data: dict, *, make: bool = False) -> None:
    """Writes a small file of the cache (or memo) folder atomically, if the folder exists
    or ``make`` (best effort: it only saves time)."""
    import tempfile

    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        if not make:
            return
        try:
            os.makedirs(folder, 0o700, exist_ok=True)
        except OSError:
            return
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
        with os.fdopen(fd, "w") as f:
            json.dump(data, f)
        os.replace(tmp, path)
    except OSError:
        pass
