"""The compiled variants of one function: a bounded, thread-safe, least-recently-used map.

Each distinct signature (shapes, dtypes) a function is called with compiles one
variant: its machine code, its MLIR module and its bookkeeping (about 2 MB per
variant for a small function). A function called with ever new shapes would keep
them all; past ``max_variants`` the least recently used one is dropped, and its
code is freed once no call is still running it (a running call holds a reference).

``max_variants`` defaults to ``STRATA_MAX_VARIANTS``, else 32. Compiles of one
function are serialized: several threads making the same first call compile once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from .. import settings
from ..errors import StrataError
from ..frontend.locations import location_text
from .log import logger

__all__ = ["Variants", "default_max_variants"]


def default_max_variants() -> int:
    return settings.get("STRATA_MAX_VARIANTS")


def check_max_variants(value) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise StrataError(f"max_variants must be a positive integer, got {value!r}",
                          location=location_text())
    return value


class Variants:
    """key -> compiled variant, at most ``limit`` of them (least recently used dropped)."""

    def __init__(self, limit: int | None = None, name: str = "", describe=repr):
        self.limit = default_max_variants() if limit is None else check_max_variants(limit)
        self.name = name
        self.describe = describe
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.RLock()
        self.evictions = 0

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key) -> bool:
        return key in self._items

    def keys(self) -> list:
        return list(self._items)

    def values(self) -> list:
        return list(self._items.values())

    def get(self, key):
        """The variant for ``key`` (marked as just used), or None. Lock-free."""
        item = self._items.get(key)
        if item is not None:
            try:
                self._items.move_to_end(key)
            except KeyError:  # evicted by another thread meanwhile: still usable
                pass
        return item

    def get_or_build(self, key, build):
        """The variant for ``key``, built with ``build()`` once if missing."""
        item = self.get(key)
        if item is not None:
            return item
        with self._lock:
            item = self._items.get(key)
            if item is None:
                item = build()
                self._items[key] = item
                while len(self._items) > self.limit:
                    old, _ = self._items.popitem(last=False)
                    self.evictions += 1
                    logger("variants").info("%s: dropped the least recently used variant %s "
                                            "(max_variants=%d)", self.name or "function",
                                            self.describe(old), self.limit)
            return item

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
