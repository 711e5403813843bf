"""A progress line for long compiles: which function and level, on a terminal only.

    strata: compiling @encoder_block(32x64xf32, ...): level bufferized (1.4 s)

Shown on stderr once a compile has run for ``STRATA_PROGRESS_AFTER`` seconds
(default 1), updated at each level, erased when the compile ends; silent when
stderr is not a terminal (``STRATA_PROGRESS=1`` shows it anyway, ``0`` never).
"""

from __future__ import annotations

import sys
import threading
import time

from .. import settings

__all__ = ["Progress"]


def _wanted() -> bool:
    forced = settings.get("STRATA_PROGRESS")
    if forced is not None:
        return forced
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class Progress:
    """``with Progress("@f(...)") as p: p.level("fused") ...``"""

    def __init__(self, what: str):
        self.what = what
        self.stage = "starting"
        self.enabled = _wanted()
        self.after = settings.get("STRATA_PROGRESS_AFTER")
        self._start = time.perf_counter()
        self._done = threading.Event()
        self._shown = False
        self._thread = None

    def __enter__(self):
        if self.enabled:
            self._thread = threading.Thread(target=self._run, daemon=True,
                                            name="strata-progress")
            self._thread.start()
        return self

    def level(self, name: str) -> None:
        self.stage = f"level {name}"

    def _line(self) -> str:
        return f"strata: compiling {self.what}: {self.stage} " \
               f"({time.perf_counter() - self._start:.1f} s)"

    def _run(self) -> None:
        if self._done.wait(self.after):
            return
        while not self._done.is_set():
            sys.stderr.write("\r\x1b[K" + self._line())
            sys.stderr.flush()
            self._shown = True
            self._done.wait(0.25)

    def __exit__(self, *exc):
        self._done.set()
        if self._thread is not None:
            self._thread.join()
        if self._shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
        return False
