"""``strata.bisect``: which pass (and which fusion decision) breaks a function's numbers.

    r = strata.bisect(fn, *args)
    print(r)        # "strata-fuse{...} breaks the result: max error 3.1e-02 > bound 2.4e-04;
                    #  decision [6b19c203] (fused linalg.generic at f.py:5 into ...)"
    r.save("bisect-out")   # before.mlir, after.mlir and repro.sh (a strata-opt command)

The reference is a float64 function the caller gives (``reference=``, numpy code
on float64 copies of the arguments); without one, the function compiled with
every optional decision off (no fusion, no layout, no BLAS, one thread) in the
arguments' own dtypes stands in. The pipeline under test is the CPU pipeline as a list
of single passes (``pipeline_passes``). Prefix *k* runs its first *k* passes,
then those of the rest that the plain pipeline runs too — the optional passes
(strata-fuse, strata-layout, strata-parallelize, strata-blas: each decides how,
never whether, code runs) and any pass foreign to the pipeline left out —,
compiles and runs it. The error of a prefix is ``max |y - ref|`` over
``max(max |ref|, 1)``; it is out of tolerance above
``BOUND_FACTOR * sqrt(K) * 2u`` (``u`` the result dtype's unit roundoff, ``K``
the largest input dim, an upper bound on any reduction length) — the same
square-root growth that strata.testing's bounds use, so a reordering of sums
stays inside it. The first prefix out of tolerance names the pass. When that
pass is strata-fuse, its applied decisions (the ``[key]`` of its remarks) are
replayed in order: the first one that, kept with those before it and all later
ones turned off, takes the result out of tolerance is named.
"""

from __future__ import annotations

import math
import os
import re
import shlex
from dataclasses import dataclass, field

import numpy as np

from ..dialect.types import dtype_of_numpy
from ..errors import StrataError
from ..frontend.module import trace
from ..pipelines.levels import level_steps
from ..pipelines.runner import run_pipeline
from ..runtime.allocs import scan_allocs, workspace_bytes
from ..runtime.api import clone_module, compiled_function, specialized
from ..runtime.engine import Engine
from ..testing import unit_roundoff

__all__ = ["BisectResult", "bisect", "pipeline_passes", "split_pipeline"]

OPTIONAL = ("strata-fuse", "strata-layout", "strata-parallelize", "strata-blas")
BOUND_FACTOR = 16.0
_KEY = re.compile(r"strata-fuse: \[([0-9a-f]+)\] (fused|not fusing|tiled|BLAS sgemm for|"
                  r"generated code for)(.*)$")


def split_pipeline(text: str) -> list[str]:
    """``"a, b{x=1}, func.func(c, d)"`` -> ``["a", "b{x=1}", "func.func(c, d)"]``."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


def pipeline_passes(**options) -> list[str]:
    """The CPU pipeline (``strata-cpu`` with ``options``) as single pass elements; parallel
    loops for this process's thread runtime unless ``thread_runtime`` is given (strata-cpu's
    default, omp, would need libomp where the process has none: runtime/openmp.py)."""
    from ..runtime.openmp import thread_runtime

    options.setdefault("thread_runtime", thread_runtime())
    passes = []
    for _, text in level_steps("llvm", **options):
        passes += split_pipeline(text)
    return passes


def _flag(element: str) -> str:
    return re.split(r"[{(]", element, maxsplit=1)[0].strip()


@dataclass
class Step:
    passes: list[str]
    error: float
    remarks: list = field(default_factory=list)


@dataclass
class BisectResult:
    function: str
    bound: float
    reference: str                      # how the reference was computed
    full_error: float                   # the whole pipeline's error
    culprit: str | None = None          # the first pass after which the result is wrong
    culprit_index: int | None = None
    decision: str | None = None         # strata-fuse's remark of the decision that breaks it
    before: str = ""                    # IR before and after the culprit pass
    after: str = ""
    errors: list = field(default_factory=list)  # (prefix length, error) measured

    @property
    def clean(self) -> bool:
        return self.culprit is None

    def repro(self, folder: str = ".") -> str:
        """The strata-opt command that runs the culprit pass on ``before.mlir``."""
        if self.culprit is None:
            return ""
        return (f"strata-opt {shlex.quote(os.path.join(folder, 'before.mlir'))} "
                f"--mlir-print-debuginfo --pass-pipeline="
                f"{shlex.quote(f'builtin.module({self.culprit})')}")

    def save(self, folder: str) -> list[str]:
        """Writes before.mlir, after.mlir and repro.sh into ``folder``; returns the paths."""
        os.makedirs(folder, exist_ok=True)
        paths = []
        for name, text in (("before.mlir", self.before), ("after.mlir", self.after),
                           ("repro.sh", f"#!/bin/sh\n{self.repro(folder)}\n")):
            path = os.path.join(folder, name)
            with open(path + ".tmp", "w") as f:
                f.write(text)
            os.replace(path + ".tmp", path)
            paths.append(path)
        return paths

    def __str__(self) -> str:
        if self.clean:
            return (f"@{self.function}: no pass leaves tolerance (whole pipeline: error "
                    f"{self.full_error:.2e} <= bound {self.bound:.2e}; reference: "
                    f"{self.reference})")
        text = (f"@{self.function}: the result leaves tolerance after pass "
                f"#{self.culprit_index} {self.culprit} (whole pipeline: error "
                f"{self.full_error:.2e} > bound {self.bound:.2e}; reference: {self.reference})")
        if self.decision:
            text += f"\n  the decision that breaks it: {self.decision}"
        return text + f"\n  reproduce: {self.repro()}"


class _Runner:
    """Compiles and runs one function of a strata-level module through given passes."""

    def __init__(self, module, fname, args):
        self.fname = fname
        self.args = args
        self.specs = [(tuple(a.shape), _dtype(a)) for a in args]
        self.module, self.results = specialized(module.mlir, fname, self.specs)
        self.context = module.context

    def lowered(self, passes: list[str]):
        """(module after ``passes``, their remarks, allocs, workspace bytes)."""
        with self.context:
            m = clone_module(self.module)
            remarks, allocs, workspace = [], None, None
            at_llvm = False
            for element in passes:
                # buffers and the workspace are read at the last step before LLVM's dialect
                at_llvm = at_llvm or _flag(element) == "strata-lower-to-llvm" or \
                    ("to-llvm" in element and not element.startswith("func.func"))
                if not at_llvm:
                    allocs, workspace = None, None
                if at_llvm and allocs is None:
                    allocs, workspace = scan_allocs(m), workspace_bytes(m, self.fname)
                remarks += run_pipeline(m.operation, f"builtin.module({element})")
        return m, remarks, allocs, workspace

    def run(self, passes: list[str]):
        m, remarks, allocs, workspace = self.lowered(passes)
        with self.context:
            engine = Engine(m, opt_level=2)
            shapes = [s for s, _ in self.specs + self.results] + \
                ([(workspace,)] if workspace else [])
            kernel = engine.kernel(self.fname, shapes)
            fn = compiled_function(self.fname, self.specs, self.results, kernel, allocs,
                                   workspace)
            out = fn.run(list(self.args))
        return (tuple(out) if isinstance(out, (tuple, list)) else (out,)), remarks


def _dtype(a) -> str:
    name = dtype_of_numpy(a.dtype)
    if name is None:
        raise StrataError(f"bisect: no strata dtype for numpy's {a.dtype}", location="<bisect>")
    return name


def _error(outs, refs) -> float:
    worst = 0.0
    for y, r in zip(outs, refs, strict=True):
        y = np.asarray(y, np.float64)
        r = np.asarray(r, np.float64)
        if y.shape != r.shape:
            return math.inf
        if y.size == 0:
            continue
        same_nan = np.isnan(y) == np.isnan(r)
        if not same_nan.all():
            return math.inf
        finite = ~np.isnan(r)
        scale = max(float(np.max(np.abs(r[finite]), initial=0.0)), 1.0)
        diff = np.abs(y[finite] - r[finite])
        diff[np.isnan(diff)] = 0.0  # inf - inf of matching infinities
        worst = max(worst, float(np.max(diff, initial=0.0)) / scale)
    return worst


def _plain_flags(threads: int) -> set[str]:
    return {_flag(p) for p in pipeline_passes(fusion=False, layout=False, blas="never",
                                              threads=threads)}


def _complete(passes: list[str], k: int, plain: set[str]) -> list[str]:
    """The first ``k`` passes, then those of the rest whose flags are in ``plain`` (the plain
    pipeline's: no optional pass, nor any pass foreign to the CPU pipeline)."""
    return passes[:k] + [p for p in passes[k:] if _flag(p) in plain and
                         _flag(p) not in OPTIONAL]


def _reference(module, args, fname, reference):
    """(reference results as float64, how they were computed)."""
    if reference is not None:
        wide = [a.astype(np.float64) if a.dtype.kind == "f" or a.dtype.name == "bfloat16"
                else a for a in args]
        out = reference(*wide)
        outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        return [np.asarray(o, np.float64) for o in outs], "the given float64 reference"
    plain = pipeline_passes(fusion=False, layout=False, blas="never", threads=1)
    outs, _ = _Runner(module, fname, args).run(plain)
    return outs, "the plain pipeline (no optional pass) in the arguments' dtypes"


def _reporting(element: str) -> str:
    """``element`` with its decision report on (strata-fuse's ``report=true``)."""
    if _flag(element) != "strata-fuse":
        return element
    if "report=" in element:
        return re.sub(r"report=\w+", "report=true", element)
    return _with_option(element, "report=true")


def _with_option(element: str, option: str) -> str:
    if element.endswith("}"):
        return element[:-1] + f" {option}}}"
    return element + "{" + option + "}"


_APPLIED = ("fused", "tiled", "BLAS sgemm for")


def _decisions(remarks) -> list[tuple[str, str]]:
    """(key, remark text) of each decision strata-fuse applied, in its order."""
    out = []
    for r in remarks:
        m = _KEY.search(getattr(r, "message", str(r)))
        if m and m.group(2) in _APPLIED:
            out.append((m.group(1), f"[{m.group(1)}] {m.group(2)}{m.group(3)}"))
    return out


def _first_bad_decision(runner, passes, at, remarks, refs, bound, plain) -> str | None:
    """The first of strata-fuse's applied decisions (at pass ``at``) that, kept with the
    ones before it and every later one turned off, takes the result out of tolerance.
    Turning a decision off can make new candidates (a producer now meets another
    consumer): those are turned off too, until no new one appears."""
    decided = _decisions(remarks)
    element = _reporting(passes[at])
    for j in range(1, len(decided) + 1):
        keep = {key for key, _ in decided[:j]}
        off = {key for key, _ in decided[j:]}
        while True:
            trial = re.sub(r" ?decisions=[^ }]*", "", element)
            if off:
                trial = _with_option(trial, "decisions=" + ",".join(f"{k}=off"
                                                                    for k in sorted(off)))
            _, seen, _, _ = runner.lowered(passes[:at] + [trial])
            new = {key for key, _ in _decisions(seen)} - keep - off
            if not new:
                break
            off |= new
        flipped = list(passes)
        flipped[at] = trial
        outs, _ = runner.run(_complete(flipped, at + 1, plain))
        if _error(outs, refs) > bound:
            return decided[j - 1][1]
    return None


def bisect(fn, *args, reference=None, passes: list[str] | None = None, threads: int = 1,
           blas: str = "auto") -> BisectResult:
    """Finds the first pass of the CPU pipeline (or of ``passes``) after which ``fn`` on
    ``args`` leaves tolerance of the reference (see the module's docstring).

    ``reference``: a function of float64 numpy arrays giving the exact results (numpy
    code); without it, the plain pipeline (no optional pass) in the arguments' dtypes
    stands in (the strata dialect has no float64 form to widen the program to).
    """
    args = [np.asarray(a) for a in args]
    module = trace(getattr(fn, "fn", fn), *args)
    fname = module.functions[0]
    passes = list(passes) if passes is not None else \
        pipeline_passes(threads=threads, blas=blas)
    refs, how = _reference(module, args, fname, reference)
    runner = _Runner(module, fname, args)
    dtypes = [d for _, d in runner.results if d in ("f32", "f16", "bf16", "f64")]
    u = max((unit_roundoff(d) for d in dtypes), default=0.0)
    k_max = max((max(a.shape, default=1) for a in args), default=1)
    bound = BOUND_FACTOR * math.sqrt(k_max) * 2 * u if u else 0.0
    errors = {}
    plain = _plain_flags(threads)

    def error_of(k: int) -> float:
        if k not in errors:
            outs, _ = runner.run(_complete(passes, k, plain))
            errors[k] = _error(outs, refs)
        return errors[k]

    full = error_of(len(passes))
    result = BisectResult(fname, bound, how, full)
    if full <= bound:
        result.errors = sorted(errors.items())
        return result
    if error_of(0) > bound:
        raise StrataError(f"@{fname}: even the plain pipeline leaves tolerance (error "
                          f"{errors[0]:.2e} > bound {bound:.2e}): the fault is not in an "
                          "optional pass", location="<bisect>")
    lo, hi = 0, len(passes)  # error_of(lo) <= bound < error_of(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if error_of(mid) > bound:
            hi = mid
        else:
            lo = mid
    culprit = passes[hi - 1]
    result.culprit, result.culprit_index = culprit, hi - 1
    before, _, _, _ = runner.lowered(passes[:hi - 1])
    reported = passes[:hi - 1] + [_reporting(culprit)]
    after, remarks, _, _ = runner.lowered(reported)
    result.before = before.operation.get_asm(enable_debug_info=True)
    result.after = after.operation.get_asm(enable_debug_info=True)
    if _flag(culprit) == "strata-fuse":
        result.decision = _first_bad_decision(runner, passes, hi - 1, remarks, refs, bound,
                                              plain)
    result.errors = sorted(errors.items())
    return result
