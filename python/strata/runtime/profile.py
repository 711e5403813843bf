"""Where a compile's time went: phases, and MLIR's per-pass timing of every level.

    f = strata.jit(model, timing=True)      # or STRATA_TIMING=1 (also prints each profile)
    f(x, w)
    print(f.compile_profile())

    @model(32x64xf32, 64x16xf32): 212.4 ms
      trace                       3.1 ms
      lower (MLIR passes)       118.0 ms
        strata                    1.9 ms
          StrataVerify            0.5 ms
          ...
      native code (LLVM)         84.2 ms
      load                        7.1 ms

The per-pass rows are MLIR's own execution time report of each level's
PassManager run (pipelines/runner.py); the phases are wall-clock times measured
around them. A variant served from the disk cache has only ``trace`` (the
recording its key is made from) and ``load``.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from .. import settings

__all__ = ["CompileProfile", "timing_enabled"]


def timing_enabled(option: bool) -> bool:
    """``option``, or the ``STRATA_TIMING`` environment variable set to anything but 0."""
    return bool(option) or settings.get("STRATA_TIMING")


@dataclass
class CompileProfile:
    function: str
    signature: str
    phases: list = field(default_factory=list)  # (name, seconds)
    passes: dict = field(default_factory=dict)  # level -> [(seconds, pass, depth)]

    @contextmanager
    def phase(self, name: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.phases.append((name, time.perf_counter() - start))

    @property
    def total(self) -> float:
        return sum(s for _, s in self.phases)

    def as_dict(self) -> dict:
        return {"function": self.function, "signature": self.signature,
                "total_s": self.total, "phases": [list(p) for p in self.phases],
                "passes": {level: [list(r) for r in rows] for level, rows in self.passes.items()}}

    def __str__(self) -> str:
        lines = [f"@{self.function}{self.signature}: {_ms(self.total)}"]
        for name, seconds in self.phases:
            lines.append(f"  {name:<30}{_ms(seconds):>12}")
            if name.startswith("lower"):
                in_passes = sum(s for rows in self.passes.values() for s, _, d in rows
                                if d == 0)
                if self.passes:
                    lines.append(f"    {'(pipeline set-up, IR walks)':<28}"
                                 f"{_ms(max(0.0, seconds - in_passes)):>12}")
                for level, rows in self.passes.items():
                    level_total = sum(s for s, _, d in rows if d == 0)
                    lines.append(f"    {level:<28}{_ms(level_total):>12}")
                    for seconds_, pass_name, depth in rows:
                        label = "  " * depth + pass_name
                        lines.append(f"      {label:<26}{_ms(seconds_):>12}")
        return "\n".join(lines)

    def emit(self) -> None:
        """Prints the profile to stderr when ``STRATA_TIMING`` asks for it."""
        if timing_enabled(False):
            sys.stderr.write(f"strata: compile profile\n{self}\n")


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms"
