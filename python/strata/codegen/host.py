"""What code generation needs to know about the machine it compiles for.

Read from /proc/cpuinfo (x86 ``flags``, Arm ``Features``); a machine that has
no such file counts as the baseline of its architecture.

The target's CPU features can be forced below the host's with the environment
variable ``STRATA_CPU_FEATURES``, so that every vector width's code path runs
(and is tested) on one machine:

    STRATA_CPU_FEATURES=avx2     AVX2 + FMA, 16 ymm registers (LLVM x86-64-v3, no AVX-512)
    STRATA_CPU_FEATURES=avx512   AVX-512 F/BW/CD/DQ/VL (LLVM x86-64-v4); the host must have it
    STRATA_CPU_FEATURES=native   (or unset) this machine's CPU, as LLVM detects it

It changes both what strata's passes choose (:func:`f32_lanes`, read by
strata-vectorize's micro-kernel and register tiles and by the BLAS cost model)
and the CPU LLVM compiles for (:func:`llvm_target`: the JIT's function
attributes and the AOT compiler's ``-mcpu``/``-mattr``), and it is part of the
disk cache's key.
"""

from __future__ import annotations

import platform

from .. import settings
from ..errors import StrataError

__all__ = ["CPU_FEATURES", "cache_bytes", "cpuinfo", "f32_lanes", "forced_features",
           "host_flags", "llvm_target", "target_flags"]

ENV = "STRATA_CPU_FEATURES"

# name: (the cpuinfo flags it stands for, LLVM CPU, LLVM features, the host flag it needs)
CPU_FEATURES = {
    "avx2": ("sse sse2 sse3 ssse3 sse4_1 sse4_2 avx avx2 fma f16c bmi1 bmi2",
             "x86-64-v3", "-avx512f", "avx2"),
    "avx512": ("sse sse2 sse3 ssse3 sse4_1 sse4_2 avx avx2 fma f16c bmi1 bmi2 "
               "avx512f avx512bw avx512cd avx512dq avx512vl",
               "x86-64-v4", "", "avx512f"),
}


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


def host_flags() -> str:
    """This machine's CPU flags (x86 ``flags`` of /proc/cpuinfo)."""
    return cpuinfo("flags")


def _x86(machine: str | None = None) -> bool:
    return (machine or platform.machine()) in ("x86_64", "AMD64", "i686", "x86")


def forced_features() -> str | None:
    """The name of the forced feature set (``avx2``, ``avx512``), or None for this machine's.

    Raises StrataError for an unknown name, for a forced set on a machine that is not
    x86, and for one the host cannot run (AVX-512 on an AVX2-only machine)."""
    value = settings.get(ENV)
    if value in ("native", "host"):
        return None
    if not _x86():
        raise StrataError(f"{ENV}={value} needs an x86 machine, this is "
                          f"{platform.machine()}", location=f"<{ENV}>")
    needs = CPU_FEATURES[value][3]
    if needs not in host_flags().split():
        raise StrataError(f"{ENV}={value}: this machine has no {needs}, so code for it "
                          "could not run here", location=f"<{ENV}>")
    return value


def target_flags() -> str:
    """The CPU flags code is generated for: the forced set's, else the host's."""
    forced = forced_features()
    return CPU_FEATURES[forced][0] if forced else host_flags()


def llvm_target() -> tuple[str, str] | None:
    """(LLVM CPU name, LLVM feature string) of the forced feature set, or None: this
    machine's CPU (``native``)."""
    forced = forced_features()
    if forced is None:
        return None
    _, cpu, features, _ = CPU_FEATURES[forced]
    return cpu, features


def f32_lanes(flags: str | None = None, machine: str | None = None) -> int:
    """f32 lanes in one vector register: 16 with AVX-512, 8 with AVX/AVX2, 4 otherwise
    (SSE, NEON). ``flags``/``machine`` default to the target's (:func:`target_flags`)."""
    if not _x86(machine):
        return 4
    words = set((target_flags() if flags is None else flags).split())
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
