"""Shared helpers for strata's benchmarks: timing, IR statistics, machine description."""

from __future__ import annotations

import os
import platform
import re
import subprocess

import numpy as np
from mlir import ir

from strata.codegen.host import cpuinfo
from strata.runtime.api import default_threads
from strata.runtime.measure import per_call

__all__ = ["per_call", "machine", "kernels_and_bytes", "torch_or_none"]


def machine() -> str:
    cpu = cpuinfo("model name", platform.processor() or "unknown cpu")
    import numpy

    return (f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}, "
            f"Python {platform.python_version()}, numpy {numpy.__version__}, "
            f"strata threads {default_threads()}")


def _bytes(t) -> int:
    t = ir.MemRefType(t)
    n = 1
    for d in t.shape:
        n *= d
    return n * max(1, t.element_type.width // 8)


def kernels_and_bytes(module_text_fused: str, bufferized: ir.Module):
    """(loop nests at the fused level, bytes of intermediate buffers at the bufferized level)."""
    kernels = len(re.findall(r"^\s{4}(?:%\S+ = )?(?:linalg\.(?!fill|yield|index)\w+|scf\.for)",
                             module_text_fused, re.M))
    total = 0

    def visit(op):
        nonlocal total
        if op.name == "memref.alloc":
            total += _bytes(op.results[0].type)
        return ir.WalkResult.ADVANCE

    bufferized.operation.walk(visit)
    return kernels, total


def torch_or_none():
    try:
        import torch  # noqa: F401

        return torch
    except ImportError:
        return None


def git_revision() -> str:
    try:
        return subprocess.check_output(["git", "rev-parse", "--short", "HEAD"], text=True).strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def rng(seed=0):
    return np.random.default_rng(seed)
