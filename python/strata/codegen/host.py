"""What code generation needs to know about the machine it compiles for.

Read from /proc/cpuinfo (x86 ``flags``, Arm ``Features``); a machine that has
no such file counts as the baseline of its architecture.
"""

from __future__ import annotations

import platform

__all__ = ["cpuinfo", "f32_lanes", "cache_bytes"]


def cpuinfo(field: str, default: str = "") -> str:
    """The first ``field`` line of /proc/cpuinfo (``default`` where there is none)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(field):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return default


def f32_lanes(flags: str | None = None, machine: str | None = None) -> int:
    """f32 lanes in one vector register: 16 with AVX-512, 8 with AVX/AVX2, 4 otherwise
    (SSE, NEON). ``flags``/``machine`` default to this machine's."""
    machine = machine or platform.machine()
    if machine not in ("x86_64", "AMD64", "i686", "x86"):
        return 4
    words = set((cpuinfo("flags") if flags is None else flags).split())
    if "avx512f" in words:
        return 16
    if "avx" in words or "avx2" in words:
        return 8
    return 4


def cache_bytes(level: int, default: int = 1 << 20) -> int:
    """The size of one core's data (or unified) cache of ``level`` (1, 2, 3), from
    /sys/devices/system/cpu/cpu0/cache; ``default`` where it cannot be read."""
    import glob

    for d in sorted(glob.glob("/sys/devices/system/cpu/cpu0/cache/index*")):
        try:
            with open(f"{d}/level") as f:
                if int(f.read()) != level:
                    continue
            with open(f"{d}/type") as f:
                if f.read().strip() == "Instruction":
                    continue
            with open(f"{d}/size") as f:
                text = f.read().strip()
        except (OSError, ValueError):
            continue
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
        try:
            return int(text.rstrip("KMG")) * scale
        except ValueError:
            continue
    return default
