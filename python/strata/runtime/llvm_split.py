"""Parallel code generation: one LLVM module cut in parts that opt | llc compile at once.

A function compiled for several threads holds its parallel loops in functions that
MLIR's OpenMP translation outlines (``@f..omp_par``, ``@f..omp_par.1``, ...), called
through the OpenMP runtime and never inlined. ``llvm-split --round-robin`` deals the
module's definitions out to ``parts`` modules (the outlined functions with
``hidden`` visibility, so that they stay inside the shared library), and each part
goes through its own opt | llc while the others do: the demo MLP's native code took
~0.11 s in one pipe and ~0.07 s in two on two cores::

    define void @f(...)            { ... fork_call(@f..omp_par) ... }     -> part 0
    define internal @f..omp_par()  { the parallel matmul }                -> part 1
    define void @_mlir_ciface_f()  { call @f }                            -> part 0

Only modules whose definitions are the function, its C interface wrapper and its
outlined parallel regions are cut: a call between them is never one that inlining
would have made faster (the wrapper's call of ``@f`` runs once per call). Anything
else (a helper a loop calls) stays in one module, optimized as a whole.
"""

from __future__ import annotations

import os
import re
import subprocess

__all__ = ["worth_splitting", "start_split", "finish_split"]

_DEFINE = re.compile(r"^define [^@\n]*@([\w.$\"-]+)\(", re.M)


def worth_splitting(llvm_ir: str, parts: int) -> bool:
    """Whether ``llvm_ir`` has at least ``parts`` definitions, only of the kinds the
    module docstring names (a function with a ``_mlir_ciface_`` wrapper, that wrapper,
    the function's outlined ``..omp_par`` regions), at least one an outlined region."""
    names = _DEFINE.findall(llvm_ir)
    if len(names) < parts or not any("..omp_par" in n for n in names):
        return False
    roots = {n.removeprefix("_mlir_ciface_") for n in names if n.startswith("_mlir_ciface_")}
    return all(n in roots or n.split("..omp_par", 1)[0] in roots or
               n.removeprefix("_mlir_ciface_") in roots for n in names)


def start_split(tool: str, parts: int, folder: str) -> subprocess.Popen:
    """``llvm-split`` started reading LLVM IR from its stdin, to write the bitcode
    files ``folder/part0`` .. ``part<parts-1>``; its stderr goes to ``folder/stderr``."""
    with open(os.path.join(folder, "stderr"), "w") as err:
        return subprocess.Popen([tool, f"-j{parts}", "--round-robin", "-o",
                                 os.path.join(folder, "part"), "-"],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=err)


def finish_split(proc: subprocess.Popen, llvm_ir: str, folder: str,
                 parts: int) -> list[bytes] | str:
    """Feeds ``llvm_ir`` to a :func:`start_split` process and waits for it: the parts'
    bitcode, or (where it failed) its error text."""
    try:
        proc.stdin.write(llvm_ir.encode())
    except BrokenPipeError:  # it exited early: its stderr says why
        pass
    finally:
        try:
            proc.stdin.close()
        except BrokenPipeError:
            pass
    code = proc.wait()
    if code != 0:
        with open(os.path.join(folder, "stderr")) as f:
            return f"llvm-split exit {code}: {f.read().strip()[:2000]}"
    out = []
    for i in range(parts):
        with open(os.path.join(folder, f"part{i}"), "rb") as f:
            out.append(f.read())
    return out
