"""strata.compile, @strata.jit and strata.parse: the runtime's public API in one import.

    prog = strata.compile(module)            # a strata.Module (or .mlir text)
    y = prog(x, w)                           # or prog.mlp(x, w) for a named function
    f = prog.compile(prog.signature()[0])    # the CompiledFunction of the declared signature

    @strata.jit
    def mlp(x, w):
        return strata.relu(x @ w)
    y = mlp(x, w)                            # traced and compiled per (shapes, dtypes)

The code lives where each stage is: runtime/program.py (Program, parse, lower,
specialized: a module compiled per signature), runtime/jit.py (jit, compile,
JitFunction: Python functions traced per signature) and runtime/compiled.py
(CompiledFunction: one signature's code, and the guards every call goes through).
"""

from __future__ import annotations

from .compiled import (
    CompiledFunction,
    CompileStats,
    DynamicFunction,
    check_argument,
    coerce_argument,
    compiled_function,
    library_function,
    signature_text,
)
from .jit import CachedProgram, JitFunction, compile, jit
from .performance import StrataPerformanceWarning
from .program import (
    Program,
    ProgramBase,
    check_blas,
    check_threads,
    clone_module,
    default_threads,
    dump_folder,
    key_options,
    lower,
    parse,
    specialized,
    tuned_text,
)

__all__ = ["compile", "jit", "parse", "Program", "ProgramBase", "CompiledFunction",
           "DynamicFunction", "CompileStats", "JitFunction", "CachedProgram",
           "StrataPerformanceWarning", "check_argument",
           "coerce_argument", "compiled_function", "library_function", "signature_text",
           "check_blas", "check_threads", "clone_module", "default_threads", "dump_folder",
           "key_options", "lower", "specialized", "tuned_text"]
