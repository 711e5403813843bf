"""Shared helpers for strata's benchmarks: timing, IR statistics, machine description."""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys

import numpy as np
from mlir import ir

from strata.codegen.host import cpuinfo
from strata.runtime.api import default_threads
from strata.runtime.measure import per_call

__all__ = ["per_call", "machine", "kernels_and_bytes", "torch_or_none", "best_in_fresh_processes"]


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


def best_in_fresh_processes(script: str, cases, repeats: int, env=None) -> dict:
    """Run `script --worker *case` in a fresh process per (repeat, case); keep each case's fastest.

    A worker prints one JSON object (with an "ms" field) as its last stdout line. The
    cases are interleaved across repeats so that a burst of machine noise hits every
    system alike. Returns {case: result}; a failed worker is reported and skipped.
    """
    best = {}
    for _ in range(repeats):
        for case in cases:
            cmd = [sys.executable, script, "--worker", *map(str, case)]
            out = subprocess.run(cmd, capture_output=True, text=True, env=env)
            if out.returncode:
                print(f"{' '.join(map(str, case))} failed:\n{out.stderr[-2000:]}")
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            if case not in best or r["ms"] < best[case]["ms"]:
                best[case] = r
    return best
