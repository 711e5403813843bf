"""strata's loggers, and the ``STRATA_LOG`` knob that turns topics on.

    STRATA_LOG=recompiles,cache python app.py

Topics are child loggers of the standard ``logging`` logger ``strata``:
``strata.recompiles`` (why a function compiled: a new signature, with the guard
that failed), ``strata.cache`` (disk-cache misses, hits and evictions) and
``strata.variants`` (in-memory variants evicted). ``STRATA_LOG=all`` turns on
every topic. Without the knob strata logs nothing unless the application
configures the ``strata`` logger itself.
"""

from __future__ import annotations

import logging
import sys

from .. import settings
from ..errors import StrataError

__all__ = ["logger", "TOPICS"]

TOPICS = ("recompiles", "cache", "variants")
_configured = False


def logger(topic: str) -> logging.Logger:
    """The logger of one topic, configured from ``STRATA_LOG`` on first use."""
    _configure()
    return logging.getLogger(f"strata.{topic}")


def _configure() -> None:
    global _configured
    if _configured:
        return
    _configured = True
    try:
        wanted = set(settings.get("STRATA_LOG"))
    except StrataError as e:  # a bad topic is said, not raised: logging never stops a program
        sys.stderr.write(f"strata: {e.message}\n")
        wanted = {t.strip() for t in settings.raw("STRATA_LOG").split(",")}
    if "all" in wanted:
        wanted = set(TOPICS)
    for topic in wanted & set(TOPICS):
        log = logging.getLogger(f"strata.{topic}")
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("strata.%(topic)s: %(message)s".replace(
            "%(topic)s", topic)))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
