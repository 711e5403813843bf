"""strata's environment variables: every ``STRATA_*`` knob, its type, default and meaning.

    from strata import settings
    settings.get("STRATA_THREADS")        # an int, or the default (every CPU of the process)

One table, ``VARIABLES``, describes each variable; ``get`` reads it from the environment
when called (so a test's ``monkeypatch.setenv`` is seen) and checks its text, once per
distinct text, against its type: a bad value is a ``StrataError`` located at
``<environment>`` that names the variable, the text and what is accepted. The table of
tools/README.md is ``markdown_table()`` (``python -m strata.settings`` prints it;
test/unit/test_settings.py holds the README to it).

Types: ``bool`` (``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off``), ``int``
(at least ``minimum``), ``float`` (seconds, at least ``minimum``: smaller is raised to it),
``size`` (bytes, ``K``/``M``/``G``/``T`` suffixes), ``path``, ``choice`` (one of
``choices``, case-insensitive), ``list`` (comma-separated ``choices``), ``str``. An unset or
empty variable takes its default.

This module imports nothing of strata but ``errors``, so every layer may use it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from .errors import StrataError

__all__ = ["Variable", "Settings", "SETTINGS", "VARIABLES", "get", "raw", "overridden",
           "environment", "not_in_cache_key", "markdown_table", "parse_size"]

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


@dataclass(frozen=True)
class Variable:
    """One environment variable: what it holds and what it does."""

    name: str
    type: str                      # bool, int, float, size, path, choice, list, str
    default: Any                   # the value when unset, or a function giving it
    doc: str                       # one line, for the README's table
    shown_default: str = ""        # the default as the table shows it (else repr-ish)
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    noun: str = "value"            # a list's items in messages ("topic")
    cache_key: bool = True         # whether it is part of the disk cache's key

    def parse(self, text: str) -> Any:
        """The value of the (non-empty, stripped) ``text``, or a StrataError."""
        t = self.type
        if t == "bool":
            low = text.lower()
            if low in _TRUE or low in _FALSE:
                return low in _TRUE
            self._reject(text, f"expected a boolean: {', '.join(_TRUE)} (on), or "
                               f"{', '.join(_FALSE)} (off)")
        if t == "int":
            number = int(text) if text.lstrip("-").isdigit() else None
            if number is None or (self.minimum is not None and number < self.minimum):
                what = ("a positive integer" if self.minimum == 1 else
                        f"an integer of at least {self.minimum:g}" if self.minimum is not None
                        else "an integer")
                raise StrataError(f"{self.name} must be {what}, got '{text}'",
                                  location="<environment>")
            return number
        if t == "float":
            try:
                number = float(text)
            except ValueError:
                raise StrataError(f"{self.name} must be a number of seconds, got '{text}'",
                                  location="<environment>") from None
            return number if self.minimum is None else max(self.minimum, number)
        if t == "size":
            try:
                return parse_size(text)
            except ValueError:
                raise StrataError(f"{self.name} must be a number of bytes (K, M, G, T "
                                  f"suffixes allowed), got '{text}'",
                                  location="<environment>") from None
        if t == "choice":
            low = text.lower()
            if low not in self.choices:
                self._reject(text, f"expected one of {', '.join(self.choices)}")
            return low
        if t == "list":
            items = tuple(dict.fromkeys(i.strip() for i in text.split(",") if i.strip()))
            unknown = [i for i in items if i not in self.choices]
            if unknown:
                raise StrataError(f"{self.name}: unknown {self.noun}(s) {', '.join(unknown)} "
                                  f"(expected a comma-separated list of: "
                                  f"{', '.join(self.choices)})", location="<environment>")
            return items
        return text  # path, str

    def _reject(self, text: str, accepted: str):
        raise StrataError(f"{self.name}={text!r}: {accepted}", location="<environment>")

    def default_value(self) -> Any:
        return self.default() if callable(self.default) else self.default

    def shown(self) -> str:
        """The default as the README's table shows it."""
        if self.shown_default:
            return self.shown_default
        d = self.default
        if d is None or d == ():
            return "unset"
        if isinstance(d, bool):
            return "on" if d else "off"
        return f"`{d}`"


def parse_size(text: str) -> int:
    """``"512M"`` -> 536870912 (``B``/``iB`` after the unit allowed); ValueError otherwise."""
    t = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = t[-1] if t and t[-1] in _UNITS else ""
    number = t[:-1] if unit else t
    if not number.isdigit():
        raise ValueError(f"not a number of bytes: {text!r}")
    return int(number) * _UNITS[unit]


def _cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def _temp_dir() -> str:
    import tempfile

    return tempfile.gettempdir()


def _cache_dir() -> str:
    return os.path.join(os.path.expanduser("~"), ".cache", "strata")


V = Variable
VARIABLES: tuple[Variable, ...] = (
    V("STRATA_THREADS", "int", _cpus, "threads compiled CPU code may use",
      shown_default="every CPU of the process", minimum=1),
    V("STRATA_THREAD_RUNTIME", "choice", None,
      "what runs compiled parallel loops: LLVM's OpenMP runtime (libomp) or MLIR's async "
      "runtime", shown_default="`omp` where libomp is found, else `async`",
      choices=("omp", "async")),
    V("STRATA_OPENMP_LIBRARY", "path", None,
      "the path of libomp, where it is not in a usual library folder or the `cmeel-libomp` "
      "wheel (a missing file means no libomp)", shown_default="searched"),
    V("STRATA_CPU_FEATURES", "choice", "native",
      "the CPU code is generated for: this machine's, or a forced x86 feature set (the host "
      "must have it)", choices=("native", "host", "avx2", "avx512")),
    V("STRATA_CACHE", "bool", True,
      "the on-disk compilation cache (off: MLIR's JIT is used instead)", cache_key=False),
    V("STRATA_CACHE_DIR", "path", _cache_dir, "the cache folder",
      shown_default="`~/.cache/strata`", cache_key=False),
    V("STRATA_CACHE_MAX_BYTES", "size", 2 << 30,
      "the cache's size cap (least recently used entries go first; `0`: no cap)",
      shown_default="2 GiB", cache_key=False),
    V("STRATA_CACHE_MUST_HIT", "bool", False,
      "a compile that misses the disk cache is an error naming why it missed",
      cache_key=False),
    V("STRATA_REMOTE_CACHE", "str", None,
      "`redis://host:port/db`: a shared second level of the disk cache "
      "(runtime/remote_cache.py)", cache_key=False),
    V("STRATA_REMOTE_CACHE_TIMEOUT", "float", 0.5,
      "seconds a shared-cache request may take before this process stops asking it",
      minimum=0.01, cache_key=False),
    V("STRATA_REMOTE_CACHE_LEASE", "float", 120.0,
      "seconds a process holds the shared cache's lease on a key it is compiling",
      minimum=1.0, cache_key=False),
    V("STRATA_AOT", "choice", None,
      "`engine`: the disk cache's object code comes from MLIR's ExecutionEngine in the "
      "compiling process (faster; LLVM aborts the process where the code needs a helper "
      "routine the process lacks), not from the `opt` and `llc` programs", choices=("engine",)),
    V("STRATA_TUNING", "bool", True,
      "compiles use the tuning record's tiles (off: untuned compiles)", cache_key=False),
    V("STRATA_TUNING_RECORD", "path",
      lambda: os.path.join(get("STRATA_CACHE_DIR"), "tuning.json"),
      "the tuning record's file", shown_default="`<cache dir>/tuning.json`", cache_key=False),
    V("STRATA_MAX_VARIANTS", "int", 32,
      "compiled signatures kept per function (least recently used dropped)", minimum=1,
      cache_key=False),
    V("STRATA_MAX_RECOMPILES", "int", 8,
      "static variants of one function a jitted function may compile before it raises",
      minimum=1),
    V("STRATA_OUTPUT_POOL_BYTES", "size", 1 << 30,
      "idle bytes the output pool keeps for results of 128 KiB or more (`0`: no pool)",
      shown_default="1 GiB", cache_key=False),
    V("STRATA_TIMING", "bool", False,
      "every jitted function keeps its compile profile and prints it on stderr"),
    V("STRATA_PROGRESS", "bool", None,
      "a progress line on stderr for long compiles",
      shown_default="on where stderr is a terminal"),
    V("STRATA_PROGRESS_AFTER", "float", 1.0, "seconds a compile runs before progress shows",
      minimum=0.0),
    V("STRATA_DUMP_DIR", "path", None,
      "a folder that gets the IR after every pass of each compile (and its LLVM IR and "
      "assembly)"),
    V("STRATA_LOG", "list", (), "logging topics to turn on on stderr (`all`: every one)",
      choices=("recompiles", "cache", "variants", "all"), noun="topic", cache_key=False),
    V("STRATA_REPRO_DIR", "path", _temp_dir,
      "where a failing pipeline saves its input IR for the reproducer",
      shown_default="the temp folder", cache_key=False),
    V("STRATA_TRACEBACK", "choice", None,
      "`full`: a located error's traceback keeps strata's own frames (by default only the "
      "user's lines)", choices=("full",)),
    V("STRATA_TORCH_STRICT", "bool", False,
      "a part of a torch.compile'd model left to eager PyTorch is an error"),
    V("STRATA_DEBUG", "bool", False,
      "an internal error of `strata-opt` shows its Python traceback", cache_key=False),
    V("STRATA_OPT_IN_PROCESS", "bool", False,
      "`strata-opt` does its work in the calling process, without the forked guard that "
      "reports a crashing pass"),
    V("STRATA_GPU_DEBUG", "bool", False,
      "`strata-gpu-launch` prints each transform script it applies, on stderr"),
)
del V


class Settings:
    """The variables of ``VARIABLES``, read from the environment at each ``get``."""

    def __init__(self, variables: tuple[Variable, ...]):
        self.variables = {v.name: v for v in variables}
        self._parsed: dict[tuple[str, str], Any] = {}

    def variable(self, name: str) -> Variable:
        try:
            return self.variables[name]
        except KeyError:
            raise KeyError(f"{name} is not a strata setting (settings.VARIABLES)") from None

    def raw(self, name: str) -> str | None:
        """The variable's text (stripped), or None when it is unset or empty."""
        self.variable(name)
        text = os.environ.get(name, "").strip()
        return text or None

    def get(self, name: str) -> Any:
        """The variable's value: its text checked and converted, else its default."""
        return self.parse(name, os.environ.get(name, ""))

    def parse(self, name: str, text: str) -> Any:
        """What ``get`` returns when the variable holds ``text``."""
        variable = self.variable(name)
        text = text.strip()
        if not text:
            return variable.default_value()
        key = (name, text)
        if key not in self._parsed:
            self._parsed[key] = variable.parse(text)
        return self._parsed[key]


SETTINGS = Settings(VARIABLES)
get: Callable[[str], Any] = SETTINGS.get
raw: Callable[[str], str | None] = SETTINGS.raw


@contextmanager
def overridden(values: dict[str, str | None]) -> Iterator[None]:
    """Sets (a string) or unsets (None) environment variables for the ``with`` block, then
    puts back what was there (subprocesses started inside see the new values too)."""
    saved = {k: os.environ.get(k) for k in values}
    try:
        for k, v in values.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def environment() -> dict[str, str]:
    """Every ``STRATA_*`` variable set in the environment, known or not, with its text."""
    return {k: v for k, v in os.environ.items() if k.startswith("STRATA_")}


def not_in_cache_key() -> frozenset[str]:
    """The known variables left out of the disk cache's key (any other ``STRATA_*``
    variable set in the environment, known or not, is part of it)."""
    return frozenset(v.name for v in VARIABLES if not v.cache_key)


def markdown_table() -> str:
    """The environment-variable table of tools/README.md."""
    rows = ["| variable | type | default | effect | in the cache key |",
            "| --- | --- | --- | --- | --- |"]
    for v in VARIABLES:
        kind = v.type
        if v.choices:
            kind += ": " + ", ".join(f"`{c}`" for c in v.choices)
        if v.minimum is not None:
            kind += f" ≥ {v.minimum:g}"
        rows.append(f"| `{v.name}` | {kind} | {v.shown()} | {v.doc} | "
                    f"{'yes' if v.cache_key else 'no'} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    sys.stdout.write(markdown_table())
