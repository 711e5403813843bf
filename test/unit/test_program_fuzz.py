"""Property-based fuzzing of whole strata programs against a float64 numpy reference.

hypothesis draws small random programs over the whole op set (program_gen.py),
renders each to the Python source a user would write, and a worker process
(program_worker.py: a crash fails the test instead of killing pytest) traces
it with ``strata.compile(prog, *inputs, ...)`` and runs it:

- with the default fusion on 2 threads, against the float64 reference of
  program_ref.py at its per-element rounding-error bound (unknown elements,
  e.g. a comparison of two values within their bounds, are skipped; NaN and
  inf positions must match); on a second set of inputs too, and each call
  repeated, in turn and from two threads at once: bit-identical;
- with ``fusion=False`` (through ``strata.jit``), with ``blas="always"`` and with
  dynamic dims (``strata.jit(dynamic=...)``: every dim of size >= 2, or a seeded
  half of them), against the same reference; a dynamic compile may fall back to
  static shapes only for a documented limitation (``DYNAMIC_LIMITS``);
- with ``threads=1`` when the main compile is threaded: bit-identical results.

A failure reports the shrunk program's source and its inputs. The default run
is sized for CI (a couple of minutes on 2 cores); ``pytest --slow`` runs many
more and larger programs. The examples are derandomized (the same programs on
every run) and no hypothesis database is written.

Known bugs outside the files this fuzzer's owners may change are pinned by
``xfail(strict=True)`` reproducers below, and the generator steers around them
(``KNOWN_BUGS``), so the suite stays green and notices when one gets fixed.
"""

from __future__ import annotations

import collections
import hashlib
import os
import re

import numpy as np
import program_gen as pg
import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from program_ref import evaluate
from program_worker import Worker

from strata.testing import assert_close

# main and threads1 are strata's generated code (bit-identical across thread counts);
# "blas" gives every f32 matmul to OpenBLAS, whose results depend on its thread count.
CONFIGS = [("main", {"threads": 2, "fusion": True, "blas": "never"}),
           ("nofuse", {"threads": 2, "fusion": False, "api": "jit", "blas": "never"}),
           ("blas", {"threads": 2, "fusion": True, "blas": "always"}),
           ("threads1", {"threads": 1, "fusion": True, "blas": "never"}),
           ("dynamic", {"threads": 2, "api": "jit", "dynamic": "all", "blas": "never"})]
SAFETY = 2.0  # on top of program_ref's bounds
# Why a dynamic-dims compile may fall back to static shapes: documented limitations
# (anything else, e.g. IR that fails to verify, is a bug).
DYNAMIC_LIMITS = (r"is not supported|scale and bias must be given when the normalized dims "
                  r"are dynamic|needs explicit non-negative bounds|negative index -?\d+ into "
                  r"dynamic dim")
# Examples per test in the default (CI) run; --slow multiplies them by SLOW_FACTOR.
CI_EXAMPLES = int(os.environ.get("STRATA_PROGRAM_FUZZ_EXAMPLES", "20"))
PER_OP_EXAMPLES = 2
CI_BIG_EXAMPLES = 5
SLOW_FACTOR = 20

STATS = collections.Counter()
RATIOS: list = []  # per float result: the largest error / bound (how tight the bounds are)
OUTCOMES: dict = {}  # program key -> None (passed) or its ProgramFailure: hypothesis repeats


class ProgramFailure(AssertionError):
    def __init__(self, message, prog=None, kind=None):
        super().__init__(message)
        self.prog = prog
        self.kind = kind


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    w.close()
    if STATS["tried"]:
        print(f"\nprogram fuzz: {dict(STATS)}; worker restarts {w.restarts}")


def _report(prog, kind, detail):
    return ProgramFailure(f"{kind}: {detail}\n{prog.reproducer()}", prog,
                          kind.split(" ")[0])


def check_output(actual, node, value, bound, what):
    actual = np.asarray(actual)
    want = np.dtype(pg.NP[node.dtype])
    if actual.dtype != want or actual.shape != node.shape:
        raise AssertionError(f"{what}: got {actual.dtype}{list(actual.shape)}, expected "
                             f"{want}{list(node.shape)}")
    unknown = ~np.isfinite(bound)
    got = np.where(unknown, 0, actual.astype(np.float64))
    ref = np.where(unknown, 0, np.asarray(value).astype(np.float64))
    assert_close(got, ref, node.dtype, rtol_factor=0.0, magnitude=0.0, what=what,
                 atol=SAFETY * np.where(unknown, 0.0, bound))
    if node.dtype in pg.FLOATS and actual.size:
        with np.errstate(all="ignore"):
            ratio = np.abs(got - ref) / (SAFETY * bound)
        ratio = ratio[np.isfinite(ratio)]
        if ratio.size:
            RATIOS.append(float(ratio.max()))
    return int(unknown.sum()), int(unknown.size)


def run_program(worker, prog, stats=STATS, skip_known=True):
    """Compiles and runs ``prog`` in the worker under each config; checks every result.

    A program matching a known bug is rejected (hypothesis draws another) unless
    ``skip_known`` is false (the bug's own reproducer).
    """
    for _name, pred, _reason in KNOWN_BUGS if skip_known else ():
        if pred(prog):
            stats["skipped (known bug)"] += 1
            assume(False)
    source = prog.source()
    key = hashlib.sha1((source + prog.describe_inputs()).encode()).hexdigest()
    if key in OUTCOMES:  # the same program again (generation, shrinking): same outcome
        stats["repeated"] += 1
        if OUTCOMES[key] is not None:
            raise OUTCOMES[key]
        return
    stats["tried"] += 1
    try:
        _run(worker, prog, source, stats, skip_known)
    except ProgramFailure as e:
        OUTCOMES[key] = e
        raise
    OUTCOMES[key] = None


def _run(worker, prog, source, stats, skip_known):
    inputs, inputs2 = prog.make_inputs(), prog.make_inputs(salt=1)
    reply = worker.run({"source": source, "inputs": inputs, "inputs2": inputs2,
                        "configs": CONFIGS, "seed": prog.seed})
    status = reply["status"]
    if status in ("crash", "timeout"):
        stats["crash"] += 1
        raise _report(prog, status, reply["message"])
    if status != "ok":
        stats["error"] += 1
        raise _report(prog, f"{status} ({reply['type']} in {reply['phase']}, "
                      f"config {reply['config']})", f"{reply['message']}\n{reply['traceback']}")
    if reply.get("dynamic"):  # "dynamic", or why the dynamic compile fell back to static
        why = re.sub(r"^.*? dynamic \((.*)\); compiling .*$", r"\1", reply["dynamic"],
                     flags=re.S)
        stats["dynamic: " + re.sub(r"\d+", "N", why)[:100]] += 1
        known = [n for n, pattern, _ in KNOWN_DYNAMIC_BUGS if re.search(pattern, why)]
        if known and skip_known:
            stats[f"known bug {known[0]}"] += 1
        elif why != "dynamic" and (not skip_known or not re.search(DYNAMIC_LIMITS, why)):
            stats["error"] += 1
            raise _report(prog, "dynamic_error", f"the dynamic-dims compile failed, and jit fell "
                          f"back to static shapes: {reply['dynamic']}")
    refs = {"main2": evaluate(prog, inputs2)}
    ref = evaluate(prog, inputs)
    results = reply["results"]
    try:
        if reply["problems"]:
            raise AssertionError("; ".join(reply["problems"]))
        for cfg, outs in results.items():
            if len(outs) != len(prog.outputs):
                raise AssertionError(f"{cfg}: {len(outs)} results for {len(prog.outputs)} outputs")
            for i, (name, out) in enumerate(zip(prog.outputs, outs, strict=True)):
                value, bound = refs.get(cfg, ref)[name]
                unknown, size = check_output(out, prog.node(name), value, bound,
                                             f"{cfg} result {i} ({name})")
                stats["elements"] += size
                stats["unknown elements"] += unknown
        if "threads1" in results:
            stats["threaded"] += 1
            for i, (a, b) in enumerate(zip(results["main"], results["threads1"], strict=True)):
                if a.tobytes() != b.tobytes():
                    raise AssertionError(f"threads=2 and threads=1 differ in result {i}")
    except AssertionError as e:
        stats["wrong"] += 1
        raise _report(prog, "wrong result", e) from None
    stats["clean"] += 1


def minimized(worker, failure: ProgramFailure) -> ProgramFailure:
    """``failure`` with a smaller reproducer when one output's cone fails the same way.

    hypothesis shrinks the op sequence; this drops the ops the failing result does
    not depend on (inputs keep their values: make_inputs seeds each one by name).
    """
    prog = failure.prog
    if prog is None:
        return failure
    for out in dict.fromkeys(prog.outputs):
        small = prog.cone([out])
        if len(small.nodes) >= len(prog.nodes):
            continue
        try:
            run_program(worker, small, collections.Counter())
        except ProgramFailure as e:
            if e.kind == failure.kind:
                return minimized(worker, e)
        except Exception:  # noqa: BLE001 - e.g. hypothesis' assume in a known-bug filter
            pass
    return failure


def fuzz_and_minimize(worker, fuzz):
    """Runs a hypothesis test; a failure is re-raised with its smallest reproducer."""
    try:
        fuzz()
    except ProgramFailure as e:
        small = minimized(worker, e)
        if small is e:
            raise
        raise ProgramFailure(f"{small}\n(minimized from the shrunk example:)\n{e}",
                             small.prog, small.kind) from None


def _settings(request, n):
    if request.config.getoption("--slow"):
        n *= SLOW_FACTOR
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    phases=[Phase.explicit, Phase.generate, Phase.shrink],
                    suppress_health_check=list(HealthCheck), print_blob=False)


# ------------------------------------------------------------------------- known bugs

# (name, predicate on a program, reason): programs matching one are skipped (the
# generator avoids most of them already, pg.AVOID), and each has an xfail(strict=True)
# reproducer below, so that the suite notices when the bug is fixed.
def _has(op, **attrs):
    return lambda p: any(n.op == op and all(
        (n.dtype if k == "dtype" else n.attrs.get(k)) == v for k, v in attrs.items())
        for n in p.nodes)


KNOWN_BUGS = []  # (integer ** was one: strata-lower-to-llvm now runs convert-math-to-funcs)
pg.AVOID.update(name for name, _, _ in KNOWN_BUGS)
# (name, pattern of jit's message, reason): dynamic-dims compiles that fall back to static
# shapes because of a bug (results stay right, so only the fallback is the symptom).
KNOWN_DYNAMIC_BUGS = [
    ("dynamic_full_slice", r"^$",  # its message is a documented limitation's: not matched
     "x[:, None] (a full slice) of a dynamic dim cannot be compiled with dynamic dims: "
     "frontend/ops.py _index_entry asks for explicit bounds for any slice of a dynamic dim, "
     "':' included (jit falls back to static shapes; the fuzzer counts it as the documented "
     "limitation 'slicing dynamic dim N needs explicit non-negative bounds')"),
]
REASONS = {name: reason for name, _, reason in KNOWN_BUGS + KNOWN_DYNAMIC_BUGS}


def _program(inputs, ops, outputs=None, seed=0):
    """A program from ``inputs`` [(shape, dtype, range)] and ``ops`` [(op, args, attrs,
    shape, dtype)], args as node numbers (inputs first); it returns the last op's value,
    or the nodes numbered in ``outputs``."""
    p = pg.Program(seed=seed)
    names = [p.add("input", attrs={"range": r}, shape=s, dtype=d).name for s, d, r in inputs]
    for op, args, attrs, shape, dtype in ops:
        names.append(p.add(op, [names[a] for a in args], attrs, shape, dtype).name)
    p.outputs = [names[i] for i in outputs] if outputs else [names[-1]]
    return p


REPRODUCERS = {
    # v1 = x0[:, None] with x0's dims dynamic (jit(dynamic={"x0": [0, 1]}): odd seed)
    "dynamic_full_slice": _program([((2, 3), "f32", "sym")],
                                   [("getitem", [0], {"index": (slice(None), None)}, (2, 1, 3),
                                     "f32")], seed=1),
}


# Bugs this fuzzer found and that are fixed: the shrunk programs, run as found (an odd
# seed makes the "dynamic" config mark every dim of size >= 2).
REGRESSIONS = {
    # x0.reshape(-1) with x0's dims dynamic: specialization multiplied the dims, None
    # included (dialect/specialize.py now leaves the result dim dynamic)
    "dynamic_reshape": _program([((2, 3), "f32", "sym")],
                                [("reshape", [0], {"target": (-1,), "form": "method"}, (6,),
                                  "f32")], seed=1),
    # y[2:] of a size-2 dim: extract_slice rejected the start (shape_ops.py)
    "slice_empty_at_end": _program(
        [((2, 3), "f32", "sym")],
        [("getitem", [0], {"index": (slice(2, None),)}, (0, 3), "f32")]),
    # both results empty, one through a relu: the slice's bare tensor.empty and the relu's
    # init merged, one buffer was returned twice, buffer-results-to-out-params crashed
    "two_empty_slices_returned": _program(
        [((3,), "f16", "wide")],
        [("slice", [0], {"starts": (0,), "limits": (0,), "steps": (1,)}, (0,), "f16"),
         ("unary", [1], {"fn": "relu"}, (0,), "f16")], outputs=[1, 2]),
    # concat with an empty last input: insert_slice rejected its offset (shape_ops.py)
    "concat_empty_input": _program(
        [((1, 33), "f16", "sym"), ((0, 33), "f16", "sym")],
        [("concat", [0, 1], {"axis": 0, "form": "default"}, (1, 33), "f16")]),
    # matmul with an empty result and its (f16 rounding) epilogue: strata-fuse divided
    # by the zero dim when tiling the epilogue (fuse.py)
    "matmul_empty_epilogue": _program(
        [((0, 8), "bf16", "pos"), ((4, 0), "bf16", "pos")],
        [("slice", [0], {"starts": (0, 0), "limits": (0, 8), "steps": (2, 2)}, (0, 4), "bf16"),
         ("matmul", [2, 1], {"form": "fn"}, (0, 0), "bf16")]),
    # batched matrix @ vector with the batch and row dims dynamic (the "dynamic" config):
    # an expand_shape with two dynamic sizes in a group aborted the process (contraction.py)
    "matvec_dynamic_rows": _program(
        [((3, 16, 3, 2), "f32", "pos"), ((2,), "f32", "pos")],
        [("matmul", [0, 1], {"form": "fn"}, (3, 16, 3), "f32")], seed=1),
    # a dynamic batch dim against a static batch of 1 (the "dynamic" config): lowered as a
    # linalg.batch_matmul, which read the rhs at every batch index: wrong results, heap
    # corruption (contraction.py)
    "batch_dynamic_vs_one": _program(
        [((2, 3, 4), "f32", "sym"), ((1, 4, 5), "f32", "sym")],
        [("matmul", [0, 1], {"form": "op"}, (2, 3, 5), "f32")], seed=1),
    # a dynamic row dim beside an empty one (the "dynamic" config): the collapse of the rows
    # failed to verify after bufferization, and jit fell back to static shapes
    "matmul_empty_and_dynamic_rows": _program(
        [((0, 2, 3), "f32", "sym"), ((3, 4), "f32", "sym")],
        [("matmul", [0, 1], {"form": "op"}, (0, 2, 4), "f32")], seed=1),
    # x0.reshape(0) of an empty x0 with dynamic dims (the "dynamic" config): the collapse
    # of the 0 with a dynamic dim failed to verify after bufferization (shape_ops.py)
    "reshape_empty_dynamic": _program(
        [((17, 33, 1, 0), "f32", "pos")],
        [("reshape", [0], {"target": (0,), "form": "method"}, (0,), "f32")], seed=1),
}


@pytest.mark.parametrize("name", list(REGRESSIONS))
def test_regression(worker, name):
    run_program(worker, REGRESSIONS[name], collections.Counter())


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.xfail(
    strict=True, raises=ProgramFailure, reason=REASONS[name])) for name in REPRODUCERS])
def test_known_bug(worker, name):
    prog = REPRODUCERS[name]
    assert any(pred(prog) for n, pred, _ in KNOWN_BUGS if n == name) or \
        name in dict((n, p) for n, p, _ in KNOWN_DYNAMIC_BUGS)
    run_program(worker, prog, collections.Counter(), skip_known=False)


# ------------------------------------------------------------------------- the fuzzers

@pytest.mark.parametrize("first", pg.FIRST)
def test_programs_starting_with(worker, request, first):
    """A few programs whose first op is ``first``: every op is covered in every run."""

    @_settings(request, PER_OP_EXAMPLES)
    @given(pg.programs(max_ops=3, first=first))
    def fuzz(prog):
        run_program(worker, prog)

    fuzz_and_minimize(worker, fuzz)


def test_random_programs(worker, request):
    max_ops = 8 if request.config.getoption("--slow") else 5

    @_settings(request, CI_EXAMPLES)
    @given(pg.programs(max_ops=max_ops))
    def fuzz(prog):
        run_program(worker, prog)

    fuzz_and_minimize(worker, fuzz)


def test_big_programs_threads(worker, request):
    """Ops above strata's threading thresholds: threads=1 and 2 bit-identical, both right."""

    @_settings(request, CI_BIG_EXAMPLES)
    @given(pg.big_programs())
    def fuzz(prog):
        run_program(worker, prog)

    fuzz_and_minimize(worker, fuzz)


# ------------------------------------------------------------------------- the harness

def test_worker_crash_is_reported_and_worker_restarts(worker):
    before = worker.restarts
    reply = worker.run({"crash": True})
    assert reply["status"] == "crash" and "SIGSEGV" in reply["message"], reply
    prog = pg.Program()
    x = prog.add("input", attrs={"range": "sym"}, shape=(3,), dtype="f32")
    prog.add("unary", (x.name,), {"fn": "relu"}, (3,), "f32")
    prog.outputs = ["v1"]
    run_program(worker, prog, collections.Counter())
    assert worker.restarts == before + 1


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(pg.programs())
def test_reference_bounds_hold_for_rounded_simulation(prog):
    """The bounds hold for the program run in numpy in its own dtypes (every op rounded).

    No compile: this checks the fuzzer's reference, so that a failure of the fuzzers
    above is strata's, not a too-tight bound.
    """
    inputs = prog.make_inputs()
    ref = evaluate(prog, inputs)
    sim = evaluate(prog, inputs, simulate=True)
    for name in prog.outputs:
        node = prog.node(name)
        got = np.asarray(sim[name][0]).astype(pg.NP[node.dtype])
        check_output(got, node, *ref[name], f"simulated {name}\n{prog.reproducer()}")


@pytest.mark.slow
def test_long_programs(worker, request):
    """--slow only: programs of up to 12 ops, without the per-op start."""

    @_settings(request, 10)
    @given(pg.programs(max_ops=12))
    def fuzz(prog):
        run_program(worker, prog)

    fuzz_and_minimize(worker, fuzz)
