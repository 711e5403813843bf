"""Bad values of strata.jit's options (runtime/jit_options.py): each is a StrataError at
the user's line that names the option and what it allows, never a raw Python error, and
a dim that ``dynamic`` or ``buckets`` names but a call lacks is an error, not ignored."""

from __future__ import annotations

import numpy as np
import pytest

import strata


def f(x, y=None):
    return strata.relu(x)


X = np.ones((3,), np.float32)
M = np.ones((3, 4), np.float32)

# name -> (what the user does, a part of the message); where a bad value could pass
# unnoticed where the function is made, the case calls it too
CASES = {
    # dynamic
    "dynamic-list": (lambda: strata.jit(f, dynamic=["x"]),
                     "dynamic must be a dict such as {'x': [0]}"),
    "dynamic-string": (lambda: strata.jit(f, dynamic="x"), "dynamic must be a dict"),
    "dynamic-none-dims": (lambda: strata.jit(f, dynamic={"x": None}),
                          "dynamic: 'x' must map to a dim or a list of dims"),
    "dynamic-float-dims": (lambda: strata.jit(f, dynamic={"x": 0.5}),
                           "dynamic: 'x' must map to a dim or a list of dims"),
    "dynamic-text-dims": (lambda: strata.jit(f, dynamic={"x": "0"}),
                          "dynamic: 'x' must map to a dim or a list of dims"),
    "dynamic-negative": (lambda: strata.jit(f, dynamic={"x": [-1]}),
                         "dynamic: dims of 'x' must be non-negative ints, got -1"),
    "dynamic-int-name": (lambda: strata.jit(f, dynamic={0: [0]}),
                         "dynamic: 0 is not a parameter of f (its positional parameters: x, y)"),
    "dynamic-unknown-name": (lambda: strata.jit(f, dynamic={"z": [0]}),
                             "dynamic: 'z' is not a parameter of f"),
    "dynamic-dim-out-of-range": (lambda: strata.jit(f, dynamic={"x": [5]})(X),
                                 "dynamic: 'x' dim 5 is out of range: this call's 'x' is 1-d "
                                 "(dim 0)"),
    "dynamic-dim-out-of-range-2d": (lambda: strata.jit(f, dynamic={"x": [0, 2]})(M),
                                    "dynamic: 'x' dim 2 is out of range: this call's 'x' is "
                                    "2-d (dims 0 to 1)"),
    "dynamic-scalar": (lambda: strata.jit(f, dynamic={"y": 0})(X, 2.0),
                       "dynamic: 'y' dim 0 is out of range: this call's 'y' is a scalar"),
    "dynamic-not-passed": (lambda: strata.jit(f, dynamic={"y": [0]})(X),
                           "dynamic: names 'y', which this call of f does not pass"),
    # buckets
    "buckets-string": (lambda: strata.jit(f, buckets="x"),
                       "buckets must be a dict such as {'x': {0: 'pow2'}}"),
    "buckets-list": (lambda: strata.jit(f, buckets=["x"]), "buckets must be a dict"),
    "buckets-huge": (lambda: strata.jit(f, buckets={"x": {0: [2**62]}})(X),
                     "f: buckets: padding 'x' dim 0 from 3 to its bucket 4611686018427387904 "
                     "needs 1.84e+19 bytes, more than this process can allocate"),
    "buckets-past-int64": (lambda: strata.jit(f, buckets={"x": {0: [2**64]}})(X),
                           "must be 'pow2' or a list of positive sizes (at most 2**63-1)"),
    "buckets-float-size": (lambda: strata.jit(f, buckets={"x": {0: [16.0]}}),
                           "must be 'pow2' or a list of positive sizes"),
    "buckets-dims-list": (lambda: strata.jit(f, buckets={"x": [0]}),
                          "buckets: 'x' must map one dim to a rule"),
    "buckets-int-name": (lambda: strata.jit(f, buckets={0: {0: "pow2"}}),
                         "buckets: 0 is not a parameter of f"),
    "buckets-dim-out-of-range": (lambda: strata.jit(f, buckets={"x": {5: "pow2"}})(X),
                                 "buckets: 'x' dim 5 is out of range: this call's 'x' is 1-d"),
    "buckets-second-arg-out-of-range": (
        lambda: strata.jit(lambda x, y: x + y, buckets={"x": {0: "pow2"}, "y": {1: "pow2"}})(
            X, X), "buckets: 'y' dim 1 is out of range: this call's 'y' is 1-d"),
    "buckets-not-passed": (lambda: strata.jit(f, buckets={"y": {0: "pow2"}})(X),
                           "buckets: names 'y', which this call of f does not pass"),
    # the plain options
    "fusion": (lambda: strata.jit(f, fusion="x")(X), "fusion must be True, False or 'measure'"),
    "opt-level-9": (lambda: strata.jit(f, opt_level=9)(X), "opt_level must be 0, 1, 2 or 3, got 9"),
    "opt-level-text": (lambda: strata.jit(f, opt_level="3")(X), "opt_level must be 0, 1, 2 or 3"),
    "opt-level-numpy": (lambda: strata.jit(f, opt_level=np.int64(3))(X),
                        "opt_level must be 0, 1, 2 or 3"),
    "layout": (lambda: strata.jit(f, layout="no")(X), "layout must be True or False"),
    "automatic-dynamic": (lambda: strata.jit(f, automatic_dynamic="yes")(X),
                          "automatic_dynamic must be True or False"),
    "timing": (lambda: strata.jit(f, timing=None)(X), "timing must be True or False"),
    "max-variants": (lambda: strata.jit(f, max_variants=0)(X),
                     "max_variants must be a positive integer, got 0"),
    "decorator": (lambda: strata.jit(buckets="x")(f), "buckets must be a dict"),
}


def outcome(case):
    """What the case does: ('right', message) for a StrataError at this file's line,
    ('clean error', message) for one elsewhere, ('raw', text) for another exception,
    ('wrong', result) when it is accepted."""
    action, _ = CASES[case]
    try:
        result = action()
    except strata.StrataError as e:
        where = "right" if e.location.startswith(__file__ + ":") else "clean error"
        return where, str(e)
    except Exception as e:  # noqa: BLE001 - what the test reports
        return "raw", f"{type(e).__name__}: {e}"
    return "wrong", repr(result)


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_option_is_a_located_error_naming_it(case):
    kind, text = outcome(case)
    assert kind == "right", text
    assert CASES[case][1] in text, text
    assert "Traceback" not in text and text.count(": error: ") == 1


def test_good_options_still_work():
    g = strata.jit(f, dynamic={"x": range(1)}, fusion="measure", opt_level=2)
    assert np.array_equal(g(np.full((5,), -1, np.float32)), np.zeros(5, np.float32))
    b = strata.jit(lambda x, y: x + y, buckets={"x": {0: (4, np.int64(8))}, "y": {0: "pow2"}})
    assert np.array_equal(b(X, X), np.full(3, 2, np.float32))
    assert b.bucket_costs()["buckets"] == {4: 1}


def test_compile_checks_opt_level_before_llvm_sees_it():
    """strata.compile(opt_level=9) with the disk cache off aborted the process in LLVM's
    JIT ('invalid optimization level'): a located error now, on both roads."""
    import subprocess
    import sys

    code = ("import numpy as np, strata\n"
            "try:\n"
            "    strata.compile(lambda x: x * 2, np.ones(3, np.float32), opt_level=9)\n"
            "except strata.StrataError as e:\n"
            "    print(e)\n")
    for cache in ("0", "1"):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             timeout=300, env={**__import__("os").environ,
                                               "STRATA_CACHE": cache})
        assert out.returncode == 0, out.stderr[-2000:]
        assert "<string>:3:" in out.stdout and "opt_level must be 0, 1, 2 or 3, got 9" in \
            out.stdout
