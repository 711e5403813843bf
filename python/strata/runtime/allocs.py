"""Buffers compiled code allocates, checked against what this process can allocate.

Compiled code allocates its intermediate buffers with ``malloc``; when that fails
(a 10^6 x 10^6 temporary, a tight ``ulimit -v``) the code would write through a
null pointer and the process would die. Every buffer of a specialized function
has a static size, so the sizes are read from the bufferized IR when a variant is
compiled (and kept in its cache entry), and a variant with a buffer larger than
the process can ever get raises :class:`StrataMemoryError` naming the op's line,
the buffer type and its size, before any code runs:

    model.py:7:12: error: f: an intermediate buffer memref<1000000x1000000xf32>
    needs 3.64 TiB; this process can allocate at most 23.4 GiB

"Can ever get" is physical memory plus swap, or less under ``RLIMIT_AS`` (what
the limit leaves beyond what the process maps at compile time) or
``RLIMIT_DATA``. Results are numpy arrays, whose allocation raises MemoryError
on its own.
"""

from __future__ import annotations

import os
import resource
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the bindings are imported where they are used
    from mlir import ir

from ..errors import Diagnostic, StrataMemoryError, format_location

__all__ = ["scan_allocs", "check_allocs", "memory_limit", "workspace_bytes", "workspace_alloc",
           "WORKSPACE_ALIGNMENT"]

WORKSPACE_ALIGNMENT = 64  # what strata-workspace's offsets assume of the buffer

_BITS = {"f64": 64, "f32": 32, "f16": 16, "bf16": 16, "i64": 64, "i32": 32, "i8": 8, "i1": 8,
         "index": 64}


def scan_allocs(module: ir.Module) -> list[list]:
    """``[bytes, location, type]`` of each statically sized buffer, largest first: heap
    buffers, and those strata-workspace placed in the workspace (views of it)."""
    from mlir import ir

    found = []

    def visit(op):
        op = op.operation if hasattr(op, "operation") else op
        if op.name in ("memref.alloc", "memref.view"):  # a view: a workspace buffer
            t = ir.MemRefType(op.results[0].type)
            if t.has_static_shape:
                count = 1
                for d in t.shape:
                    count *= d
                bits = _BITS.get(str(t.element_type), 64)
                found.append([count * bits // 8, format_location(op.location), str(t)])
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    visit(child)

    visit(module.operation)
    return sorted(found, key=lambda a: -a[0])


def workspace_bytes(module: ir.Module, fname: str) -> int:
    """The workspace function ``fname`` takes (strata-workspace), in bytes; 0 if none."""
    from mlir import ir

    for op in module.body.operations:
        op = op.operation
        if op.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == fname \
                and "strata.workspace" in op.attributes:
            return ir.IntegerAttr(op.attributes["strata.workspace"]).value
    return 0


def workspace_alloc(fname: str, size: int) -> list:
    """The workspace as one more buffer for :func:`check_allocs`."""
    return [[size, f"<{fname}>", f"workspace memref<{size}xi8>"]] if size else []


def _meminfo(field: str) -> int:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def memory_limit() -> int:
    """The most bytes one allocation of this process could get."""
    limit = _meminfo("MemTotal") + _meminfo("SwapTotal")
    if not limit:
        limit = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        limit = min(limit, soft - _mapped())
    soft, _ = resource.getrlimit(resource.RLIMIT_DATA)
    if soft != resource.RLIM_INFINITY:
        limit = min(limit, soft)
    return max(limit, 0)


def _mapped() -> int:
    """Bytes of address space this process maps now."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.3g} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    return f"{n} B"  # pragma: no cover


def check_allocs(fname: str, allocs: list) -> None:
    """Raises StrataMemoryError if a buffer of ``allocs`` cannot be allocated here."""
    if not allocs:
        return
    limit = memory_limit()
    too_big = [a for a in allocs if a[0] > limit]
    if too_big:
        diags = [Diagnostic(where, f"{fname}: an intermediate buffer {typ} needs {_size(n)}; "
                                   f"this process can allocate at most {_size(limit)}")
                 for n, where, typ in too_big]
        raise StrataMemoryError(diagnostics=diags, hint="hint: split the computation, or use "
                                "smaller shapes (the buffers' sizes are static)")
