"""Ahead-of-time compilation: the LLVM dialect to a shared library, and loading one back.

    LLVM dialect --translate (in process)--> LLVM IR --opt -O3
                 | llc -O3 (PIC)--> object
                 --cc -shared [-fuse-ld=gold] (+ libmlir_c_runner_utils, libmlir_async_runtime
                               [+ numpy's OpenBLAS, when strata-blas made calls to it])--> lib.so
                 --ctypes--> Kernel

opt's bitcode goes to llc through a pipe. A cold compile of the disk cache starts opt | llc
at its cache miss (:func:`start_tools`), before the MLIR passes run, and writes the LLVM
IR to opt's stdin: the tools' start-ups (loading libLLVM) overlap the passes.

With ``STRATA_AOT=engine`` (opt-in), the on-disk cache's libraries (``in_process=True``,
this machine's CPU) take a shorter road: MLIR's ExecutionEngine optimizes (the same -O
pipeline as opt) and generates the object in this process, which
saves opt's and llc's start-ups and the bitcode between them, and only
the link is a subprocess. It is not the default because LLVM aborts the whole process
when the engine cannot resolve a helper its code generator calls (a compiler-rt
routine such as ``__truncsfbf2`` for bf16 on a CPU without AVX-512 BF16, or
``__divti3``), where the opt/llc road at worst fails one compile with an error. The
engine's object also uses LLVM's large code model without PIC, so the library carries
text relocations. Libraries for other machines (``export_library``) always take the
opt/llc road, position-independent.

Used by the on-disk cache (runtime/cache.py) and by :func:`strata.export_library`.
Functions are called through their C interface ``_mlir_ciface_<name>(desc*, ...)``
with the same memref descriptors the JIT path uses. ``cpu`` is LLVM's CPU name
(``native``: this machine's, as the JIT does, or the set forced by
``STRATA_CPU_FEATURES``: codegen/host.py).
"""

from __future__ import annotations

import _ctypes
import ctypes
import importlib.util
import os
import sys
from typing import TYPE_CHECKING

from .. import settings
from ..errors import StrataError
from .engine import Kernel, capped_opt_level, keep_for_good, load_runtime_libraries, runtime_library

if TYPE_CHECKING:  # the bindings are imported where they are used
    from mlir import ir

__all__ = ["available", "build_shared_library", "SharedLibrary", "host_cpu", "start_tools",
           "StartedTools"]


def _bin(package: str, tool: str) -> str:
    root = list(importlib.util.find_spec(package).submodule_search_locations)[0]
    return os.path.join(root, "bin", tool)


def _linker() -> str | None:
    return _which("cc") or _which("gcc") or _which("clang")


def _which(tool: str) -> str | None:
    """The executable ``tool`` on the PATH (shutil.which's answer, without importing shutil
    at a disk-cache hit)."""
    for folder in os.get_exec_path():
        path = os.path.join(folder, tool)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def available() -> bool:
    """Whether a system C compiler driver is there to link shared libraries."""
    return _linker() is not None


_LLC_VERSION = None


def _llc_field(name: str, default: str) -> str:
    """A field of ``llc --version`` (read once), e.g. "Host CPU" or "Default target"."""
    global _LLC_VERSION
    if _LLC_VERSION is None:
        _LLC_VERSION = _llc_version()
    return next((line.split(":", 1)[1].strip() for line in _LLC_VERSION.splitlines()
                 if name in line), default)


def _llc_version() -> str:
    """``llc --version``, kept in the memo folder (memo.memo_dir) for this llc and this
    CPU (running llc takes ~30 ms, most of a disk-cache hit's time in a new process)."""
    import hashlib

    from ..codegen.host import cpuinfo
    from . import json_file
    from .memo import memo_dir

    llc = _bin("llvm", "llc")
    try:
        st = os.stat(llc)
    except OSError:
        st = None
    stamp = {"llc": llc, "llc_stat": [st.st_size, st.st_mtime_ns] if st else None,
             "cpu": hashlib.sha256((cpuinfo("model name") + cpuinfo("flags")).encode())
             .hexdigest()[:16]}
    path = os.path.join(memo_dir(), "llc-version.json")
    try:
        saved = json_file.load_object(path)
        if saved.get("stamp") == stamp and isinstance(saved.get("version"), str):
            return saved["version"]
    except (OSError, ValueError):
        pass
    import subprocess

    from .memo import save_json

    version = subprocess.run([llc, "--version"], capture_output=True, text=True).stdout
    save_json(path, {"stamp": stamp, "version": version}, make=True)
    return version


def host_cpu() -> str:
    """LLVM's name for this machine's CPU."""
    return _llc_field("Host CPU", "unknown")


def _host_triple() -> str:
    """LLVM's default target triple of this machine."""
    return _llc_field("Default target", "x86_64-unknown-linux-gnu")


def _run(cmd: list[str], what: str) -> None:
    import subprocess

    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise StrataError(f"{what} failed ({os.path.basename(cmd[0])} exit {p.returncode}): "
                          f"{p.stderr.strip()[:2000]}", location="<aot>")


# opt runs at LLVM's own -O level, unroll threshold included. Capping -O3's loop-unroll
# threshold at -O2's (150 instead of 300) made libraries 2-3x smaller and opt | llc ~25 ms
# faster on the demo MLP, with matmuls and the MLP no slower, but a direct grouped conv
# (conv_2d_ngchw_gfchw, 32 groups of 4 channels at 56x56, whose loops LLVM vectorizes and
# unrolls itself) ran 6.2-8.8 ms instead of 1.4 ms: it is not capped.


def _run_piped(first: tuple[list[str], str], second: tuple[list[str], str], tmp: str) -> None:
    """Runs ``first[0] | second[0]`` (each a command and what it does, for the error); their
    stderr go to files in the folder ``tmp`` (a full stderr pipe cannot stall them). The
    first command's failure is the one reported where both fail."""
    _finish_piped(_start_piped(first, second, tmp, stdin=None))


def _start_piped(first, second, tmp: str, stdin) -> tuple:
    """Starts ``first[0] | second[0]`` (see _run_piped), the first one reading ``stdin``
    (None: nothing; subprocess.PIPE: what the caller writes)."""
    import subprocess

    errs = [os.path.join(tmp, f"stderr-{i}") for i in (0, 1)]
    with open(errs[0], "w") as e0, open(errs[1], "w") as e1:
        a = subprocess.Popen(first[0], stdin=stdin if stdin is not None else subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=e0)
        try:
            b = subprocess.Popen(second[0], stdin=a.stdout, stdout=subprocess.DEVNULL,
                                 stderr=e1)
        except BaseException:
            a.kill()
            a.wait()
            raise
        finally:
            a.stdout.close()  # b holds the read end: a sees a closed pipe if b exits
    return (first, second), (a, b), errs


def _finish_piped(started) -> None:
    """Waits for a pipe _start_piped started; raises the first failure (see _run_piped)."""
    steps, procs, errs = started
    codes = [p.wait() for p in procs]
    for (cmd, what), code, err in zip(steps, codes, errs, strict=True):
        if code != 0:
            with open(err) as f:
                text = f.read()
            raise StrataError(f"{what} failed ({os.path.basename(cmd[0])} exit {code}): "
                              f"{text.strip()[:2000]}", location="<aot>")


# llc's DAG combiner inlines up to 2048 operands of a TokenFactor (the chain joining a
# block's memory operations) by default, a cost superlinear in a block's loads and stores:
# in a tiny GPT-2 (2 layers, 64 wide), one block of ~2000 vector loads, adds and stores
# that opt -O3 had fully unrolled took llc 11 s at -O3 (the model's cold compile 15.9 s),
# 1.0 s with the limit at 64 (cold 5.7 s). The assembly of a matmul, an MLP, a softmax, a
# layer norm, attention and a conv is identical with the limit as without.
LLC_FLAGS = ("-combiner-tokenfactor-inline-limit=64",)


def _tool_steps(opt_level: int, cpu: str, attrs: list, source: str, obj: str) -> tuple:
    """opt's and llc's commands (and what each does) from LLVM IR ``source`` ("-": stdin)
    to the object file ``obj``."""
    # The translated module names no target: without the triple, opt's cost model
    # knows no vector registers and the loop vectorizer does nothing.
    triple = f"-mtriple={_host_triple()}"
    return (([_bin("llvm", "opt"), f"-O{opt_level}", triple,
              f"-mcpu={cpu}", *attrs, source, "-o", "-"], "optimizing LLVM IR"),
            ([_bin("llvm", "llc"), f"-O{opt_level}", triple, "-relocation-model=pic",
              "-filetype=obj", f"-mcpu={cpu}", *attrs, *LLC_FLAGS, "-", "-o", obj],
             "generating machine code"))


def _target(cpu: str) -> tuple[str, list, bool]:
    """``(cpu, llc/opt -mattr options, forced)`` for ``cpu`` ("native": this machine's, or
    the one STRATA_CPU_FEATURES forces: codegen/host.py)."""
    from ..codegen.host import llvm_target

    forced = llvm_target()
    attrs = []
    if forced is not None and cpu == "native":
        cpu = forced[0]
        attrs = [f"-mattr={forced[1]}"] if forced[1] else []
    return cpu, attrs, forced is not None


def _engine_road(in_process: bool, cpu: str, forced: bool) -> bool:
    """Whether the object is made with the ExecutionEngine (see build_shared_library)."""
    return (in_process and cpu == "native" and not forced and
            settings.get("STRATA_AOT") == "engine")


class StartedTools:
    """``opt | llc`` for this machine, started before the LLVM IR they compile exists.

    A cold compile starts them at its disk-cache miss, before the MLIR passes run, so
    that their start-ups (loading libLLVM, ~10 ms each) overlap the passes; the IR goes
    to opt's stdin (:meth:`compile`). With ``parts`` > 1, ``llvm-split`` and that many
    pipes start: a module with outlined parallel regions is cut in parts compiled at
    once (runtime/llvm_split.py), any other goes whole through the first pipe.
    :meth:`close` ends what was not used (the passes failed, the engine road) and
    removes their folder.
    """

    def __init__(self, opt_level: int, parts: int = 1):
        import subprocess
        import tempfile

        from .llvm_split import start_split

        self.opt_level = opt_level
        self.used = False  # compile() feeds them once
        self.tmp = tempfile.mkdtemp(prefix="strata-aot-")
        self.obj = os.path.join(self.tmp, "m.o")
        self.cpu, self.attrs, _ = _target("native")
        self._pipes = []
        self._split = None
        try:
            for i in range(parts):
                folder = os.path.join(self.tmp, f"p{i}")
                os.mkdir(folder)
                obj = self.obj if i == 0 else os.path.join(folder, "m.o")
                self._pipes.append((obj, _start_piped(
                    *_tool_steps(opt_level, self.cpu, self.attrs, "-", obj), folder,
                    stdin=subprocess.PIPE)))
            if parts > 1:
                self._split = start_split(_bin("llvm", "llvm-split"), parts, self.tmp)
        except BaseException:
            self.close()
            raise
        self._started = self._pipes[0][1]

    def compile(self, llvm_ir: str) -> list[str]:
        """Compiles LLVM IR text; returns the object files' paths (raises StrataError)."""
        from .llvm_split import finish_split, worth_splitting

        self.used = True
        feeds = [llvm_ir.encode()]
        if self._split is not None and worth_splitting(llvm_ir, len(self._pipes)):
            split = finish_split(self._split, llvm_ir, self.tmp, len(self._pipes))
            if isinstance(split, str):  # compiled whole: slower, the same code
                from .log import logger

                logger("cache").info("compiling in one part: %s", split)
            else:
                feeds = split
        for (_, started), data in zip(self._pipes[:len(feeds)], feeds, strict=True):
            _feed(started[1][0], data)
        self.close(keep=len(feeds))  # the pipes (and llvm-split) not fed
        for _, started in self._pipes[:len(feeds)]:
            _finish_piped(started)
        return [obj for obj, _ in self._pipes[:len(feeds)]]

    def close(self, keep: int = 0) -> None:
        """Ends the started processes but the first ``keep`` pipes'; with ``keep`` 0
        (the default) also removes their folder."""
        procs = [p for _, started in self._pipes[keep:] for p in started[1]]
        for p in procs + ([self._split] if self._split is not None else []):
            if p.poll() is None:
                p.kill()
            p.wait()
            if p.stdin is not None and not p.stdin.closed:
                try:
                    p.stdin.close()
                except BrokenPipeError:
                    pass
        if keep == 0:
            import shutil

            shutil.rmtree(self.tmp, ignore_errors=True)


def _feed(proc, data: bytes) -> None:
    """Writes ``data`` to a started process's stdin and closes it (where it exited early,
    its exit status and stderr say why)."""
    try:
        proc.stdin.write(data)
    except BrokenPipeError:
        pass
    finally:
        try:
            proc.stdin.close()
        except BrokenPipeError:
            pass


def start_tools(opt_level: int, in_process: bool = False, threads: int = 1) -> StartedTools | None:
    """opt | llc started for a build_shared_library(..., cpu="native", tools=...) call to
    come, or None where that build will not run them (the ExecutionEngine road, no
    linker) or they cannot start (the build then reports why). Code for ``threads`` > 1
    on a machine with two or more CPUs gets two pipes and llvm-split (see StartedTools)."""
    cpu, _, forced = _target("native")
    if _engine_road(in_process, cpu, forced) or _linker() is None:
        return None
    parts = 2 if threads > 1 and _cpus() > 1 else 1
    try:
        return StartedTools(opt_level, parts)
    except OSError:
        return None


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def build_shared_library(module: ir.Module, out_path: str, *, cpu: str = "native",
                         opt_level: int = 3, in_process: bool = False,
                         tools: StartedTools | None = None) -> None:
    """Compiles an LLVM-dialect module into the shared library ``out_path`` (atomically).

    ``in_process``: generate the object with MLIR's ExecutionEngine in this process
    where it can and ``STRATA_AOT=engine`` asks for it (this machine's CPU, no forced
    target), else with opt and llc. ``tools``: opt | llc already started
    (:func:`start_tools`), used where they fit (this machine's CPU, ``opt_level``); the
    caller closes them."""
    import tempfile

    linker = _linker()
    if linker is None:
        raise StrataError("no C compiler driver (cc) to link a shared library with",
                          location="<aot>")
    libdir = os.path.dirname(runtime_library("libmlir_c_runner_utils.so"))
    from .blas import link_args

    blas = link_args(module)  # numpy's OpenBLAS and an rpath to it (runtime/blas.py)
    blas += _openmp_link_args(module)
    cpu, attrs, forced = _target(cpu)
    in_process = _engine_road(in_process, cpu, forced)
    opt_level = capped_opt_level(module, opt_level)
    out_dir = os.path.dirname(os.path.abspath(out_path))
    with tempfile.TemporaryDirectory(prefix="strata-aot-") as tmp:
        src, ll, obj = (os.path.join(tmp, n) for n in ("m.mlir", "m.ll", "m.o"))
        if in_process and _object_in_process(module, obj, opt_level):
            _link(linker, [obj], libdir, blas, out_dir, out_path)
            return
        translated = _translate(module)
        if (translated is not None and tools is not None and not tools.used and
                tools.opt_level == opt_level and (tools.cpu, tools.attrs) == (cpu, attrs)):
            _link(linker, tools.compile(translated), libdir, blas, out_dir, out_path)
            return
        if translated is not None:
            with open(ll, "w") as f:
                f.write(translated)
        else:
            with open(src, "w") as f:
                f.write(module.operation.get_asm(enable_debug_info=False))
            _run([_bin("mlir", "mlir-translate"), "--mlir-to-llvmir", src, "-o", ll],
                 "translating to LLVM IR")
        # opt's bitcode goes to llc through a pipe: no file between them, and llc starts
        # (loads libLLVM) while opt optimizes
        _run_piped(*_tool_steps(opt_level, cpu, attrs, ll, obj), tmp)
        _link(linker, [obj], libdir, blas, out_dir, out_path)


def _openmp_link_args(module: ir.Module) -> list:
    """LLVM's OpenMP runtime and an rpath to its folder, where the code calls it."""
    from .engine import thread_runtime_of

    if thread_runtime_of(module) != "omp":
        return []
    from .openmp import load_openmp

    path = load_openmp()  # a clear error where it is missing
    return [path, f"-Wl,-rpath,{os.path.dirname(path)}"]


def _link(linker: str, objs: list[str], libdir: str, blas: list, out_dir: str,
          out_path: str) -> None:
    """Links the object files ``objs`` into the shared library ``out_path`` (atomically)."""
    import tempfile

    fd, tmp_lib = tempfile.mkstemp(prefix=".strata-lib-", suffix=".so", dir=out_dir)
    os.close(fd)
    try:
        # --as-needed: a library whose code calls neither runtime library does not
        # load them (they pull in libMLIR and libLLVM: ~100 ms at a new process's
        # first disk-cache hit). The float16 helpers (__truncsfbf2 and the like: bf16
        # and f16 conversions on a CPU without them) are linked by name: they live in
        # libmlir_float16_utils, which the runner utils only depend on, so a library
        # calling nothing else would otherwise leave them undefined in a new process
        args = ["-shared", "-o", tmp_lib, *objs, f"-L{libdir}", "-Wl,--as-needed",
                "-lmlir_c_runner_utils", "-lmlir_async_runtime", "-lmlir_float16_utils",
                "-Wl,--no-as-needed",
                f"-Wl,-rpath,{libdir}"] + blas
        # gold, where there is one, links the demo MLP's library in ~20 ms where the
        # default (bfd) ld takes ~40 (most of it reading OpenBLAS's symbol table); the
        # default linker remains the fallback
        gold = ["-fuse-ld=gold"] if _which("ld.gold") else []
        try:
            _run([linker, *gold, *args], "linking")
        except StrataError:
            if not gold:
                raise
            _run([linker, *args], "linking")
        os.replace(tmp_lib, out_path)
    finally:
        if os.path.exists(tmp_lib):
            os.unlink(tmp_lib)


def _object_in_process(module: ir.Module, obj: str, opt_level: int) -> bool:
    """Optimizes and compiles LLVM-dialect ``module`` to the object file ``obj`` with an
    ExecutionEngine whose code is never run (the engine is freed at once); False where
    the bindings cannot write its object.

    The engine links what it compiles, and LLVM aborts the process where a symbol the
    code calls does not resolve; the object it writes is the one before that link. So
    each function the module declares (the async runtime's, the BLAS's, libc's) is
    given a placeholder address rather than loading the libraries that define them
    (MLIR's runtime libraries pull in libMLIR and libLLVM: ~0.1 s); the shared
    library's own link resolves them.
    """
    from mlir._mlir_libs._mlirExecutionEngine import ExecutionEngine

    engine = ExecutionEngine(module, opt_level, [])
    if not hasattr(engine, "dump_to_object_file"):  # pragma: no cover - other bindings
        return False
    for name in _declared_symbols(module):
        engine.raw_register_runtime(name, _PLACEHOLDER)
    engine.dump_to_object_file(obj)
    return os.path.exists(obj)


_PLACEHOLDER_TARGET = ctypes.c_uint64(0)
_PLACEHOLDER = ctypes.c_void_p(ctypes.addressof(_PLACEHOLDER_TARGET))


def _declared_symbols(module: ir.Module) -> list[str]:
    """The symbols LLVM-dialect ``module`` declares without defining them: functions
    without a body, globals without a value."""
    from mlir import ir

    found = []

    def visit(op):
        if op.name == "builtin.module":
            return ir.WalkResult.ADVANCE
        if op.name in ("llvm.func", "llvm.mlir.global") and "sym_name" in op.attributes:
            if not op.regions[0].blocks and "value" not in op.attributes:
                found.append(ir.StringAttr(op.attributes["sym_name"]).value)
        return ir.WalkResult.SKIP

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def dump_final_code(module: ir.Module, folder: str, *, opt_level: int = 3) -> list[str]:
    """Writes what a compile of the LLVM-dialect ``module`` produces into ``folder``, as
    the disk cache's road makes it (this machine's CPU, or the forced features):
    ``module.ll`` (the translated LLVM IR), ``module.opt.ll`` (after opt) and ``module.s``
    (llc's assembly). Returns the paths written."""
    cpu, attrs, _ = _target("native")
    opt_level = capped_opt_level(module, opt_level)
    triple = f"-mtriple={_host_triple()}"
    os.makedirs(folder, exist_ok=True)
    paths = [os.path.join(folder, n) for n in ("module.ll", "module.opt.ll", "module.s")]
    translated = _translate(module)
    if translated is not None:
        with open(paths[0], "w") as f:
            f.write(translated)
    else:
        src = os.path.join(folder, "module.llvm.mlir")
        with open(src, "w") as f:
            f.write(module.operation.get_asm(enable_debug_info=False))
        _run([_bin("mlir", "mlir-translate"), "--mlir-to-llvmir", src, "-o", paths[0]],
             "translating to LLVM IR")
    _run([_bin("llvm", "opt"), f"-O{opt_level}", triple, f"-mcpu={cpu}", *attrs, "-S",
          paths[0], "-o", paths[1]], "optimizing LLVM IR")
    _run([_bin("llvm", "llc"), f"-O{opt_level}", triple, "-relocation-model=pic",
          "-filetype=asm", f"-mcpu={cpu}", *attrs, *LLC_FLAGS, paths[1], "-o", paths[2]],
         "generating assembly")
    return paths


def _translate(module: ir.Module) -> str | None:
    """LLVM IR of an LLVM-dialect module, translated in this process (as mlir-translate
    --mlir-to-llvmir does, without its ~50 ms of start-up); None where the bindings lack it.
    Taken from the extension itself: ``mlir.dialects.llvm`` costs ~0.1 s to import."""
    try:
        from mlir._mlir_libs._mlirDialectsLLVM import translate_module_to_llvmir
    except ImportError:  # pragma: no cover - other builds of the bindings
        return None
    return translate_module_to_llvmir(module.operation)


def _dlclose(handle: int) -> None:
    if sys.is_finalizing():  # the process is ending: the OS unmaps everything
        return
    try:
        _ctypes.dlclose(handle)
    except OSError:  # pragma: no cover - already closed
        pass


_RUNTIME_LIBRARIES = ("libmlir_c_runner_utils.so", "libmlir_async_runtime.so")


def _runtime_needed(path: str) -> set:
    """The runtime libraries (MLIR's, LLVM's OpenMP) that the shared library ``path``
    links (its DT_NEEDED names are in its string table); all where it cannot be read."""
    from .openmp import OPENMP_LIBRARY_NAMES

    names = _RUNTIME_LIBRARIES + OPENMP_LIBRARY_NAMES
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return set(names)
    return {name for name in names if b"\0" + name.encode() + b"\0" in data}


class SharedLibrary:
    """A compiled strata library loaded with ctypes; unloaded when no kernel uses it.

    Kernels hold their library (``Kernel.owner``), and a running call holds its
    kernel, so the library is closed only once nothing can call into it. A
    ``threaded`` library (one calling a thread runtime) stays loaded for good.
    """

    def __init__(self, path: str, threaded: bool = True):
        # The runtime libraries stay loaded for good: closing the last library that
        # needs the async runtime would unmap it under its running worker threads.
        # Code that calls neither (linked --as-needed) loads neither, and code that does
        # not link the async runtime cannot be threaded, whatever it declares.
        needed = _runtime_needed(path)
        threaded = threaded and ("libmlir_async_runtime.so" in needed or
                                 any(name.startswith("libomp") for name in needed))
        if needed & set(_RUNTIME_LIBRARIES):
            load_runtime_libraries()
        self.path = path
        self.lib = ctypes.CDLL(path)
        self.closable = not threaded
        if threaded:  # never closed: see engine._KEPT_FOR_GOOD
            keep_for_good(self.lib)

    def __del__(self):
        lib, self.lib = getattr(self, "lib", None), None
        if lib is not None and getattr(self, "closable", False) and _dlclose is not None:
            _dlclose(lib._handle)

    def kernel(self, name: str, shapes: list[tuple[int, ...]]) -> Kernel:
        try:
            fn = getattr(self.lib, "_mlir_ciface_" + name)
        except AttributeError:
            raise StrataError(f"{self.path} has no function '{name}'", location="<aot>") from None
        address = ctypes.cast(fn, ctypes.c_void_p).value
        return Kernel(self, address, shapes, packed=False)
