# lit configuration for strata's FileCheck tests.
import os
import shutil
import sys

import lit.formats

config.name = "strata"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "unit", "differential", "Inputs", "__pycache__"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "Output")

python = sys.executable
bindir = os.path.dirname(python)


def tool(name, *fallback_dirs):
    for d in (bindir,) + fallback_dirs:
        path = os.path.join(d, name)
        if os.path.exists(path):
            return path
    found = shutil.which(name)
    if not found:
        lit_config.fatal(f"cannot find {name}; install strata with its test extras")
    return found


def llvm_bin():
    import importlib.util

    spec = importlib.util.find_spec("llvm")
    return os.path.join(list(spec.submodule_search_locations)[0], "bin")


def mlir_bin():
    import importlib.util

    spec = importlib.util.find_spec("mlir")
    return os.path.join(list(spec.submodule_search_locations)[0], "bin")


# The tools' launchers of this checkout (tools/), run with this Python: the tests run the
# checkout's code, installed or not.
tools_dir = os.path.join(os.path.dirname(config.test_source_root), "tools")
strata_opt = f"{python} {os.path.join(tools_dir, 'strata-opt')}"
config.substitutions.append(("%PYTHON", python))
config.substitutions.append(("strata-opt", strata_opt))
config.substitutions.append(("FileCheck", tool("FileCheck", llvm_bin())))
config.substitutions.append(("%mlir-opt", tool("mlir-opt", mlir_bin())))
config.substitutions.append(("not ", tool("not", llvm_bin()) + " "))
config.substitutions.append(("count ", tool("count", llvm_bin()) + " "))
# One RUN line checks that a dialect test round-trips: print, re-parse, print again.
config.substitutions.append(
    ("%roundtrip", f"{strata_opt} %s | {strata_opt} | {strata_opt}"))

config.environment["PYTHONUNBUFFERED"] = "1"
# STRATA_CPU_FEATURES=avx2 runs the suite for the AVX2 code paths on an AVX-512 host
for var in ("HOME", "TMPDIR", "STRATA_CPU_FEATURES"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# Compilations made by tests are cached under Output/, never in the user's cache.
config.environment["STRATA_CACHE_DIR"] = os.path.join(config.test_exec_root, "cache")
# GPU tests run only where a CUDA device answers.
try:
    import ctypes

    lib = ctypes.CDLL("libcuda.so.1")
    count = ctypes.c_int(0)
    if lib.cuInit(0) == 0 and lib.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value:
        config.available_features.add("cuda-device")
except OSError:
    pass
if shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")
