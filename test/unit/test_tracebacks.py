"""A located error's traceback shows the user's frames, not strata's tracing and
compiling (frontend/locations.py ``user_traceback``); ``STRATA_TRACEBACK=full`` shows all."""

import os
import subprocess
import sys
import textwrap

import pytest

import strata

SCRIPT = textwrap.dedent("""
    import numpy as np, strata

    def model(x, w):
        h = x @ w                                  # line 5: the error
        return strata.relu(h)

    x, w = np.ones((2, 3), np.float32), np.ones((4, 5), np.float32)
    if "{how}" == "jit":
        strata.jit(model)(x, w)                    # line 10
    elif "{how}" == "pytree":
        strata.jit(lambda d: model(d["x"], d["w"]))({{"x": x, "w": w}})   # line 12
    else:
        strata.compile(model, x, w)                # line 14
""")
STRATA_DIR = os.path.dirname(os.path.abspath(strata.__file__))


def _frames(how: str, full: bool):
    env = dict(os.environ)
    env.pop("STRATA_TRACEBACK", None)
    if full:
        env["STRATA_TRACEBACK"] = "full"
    p = subprocess.run([sys.executable, "-c", SCRIPT.format(how=how)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, p.stderr[-2000:]
    assert "StrataError" in p.stderr and "<string>:5:" in p.stderr, p.stderr[-2000:]
    return [line.strip() for line in p.stderr.splitlines() if line.strip().startswith("File ")]


@pytest.mark.parametrize("how, call_line", [("jit", 10), ("pytree", 12), ("compile", 14)])
def test_located_errors_show_the_users_frames(how, call_line):
    frames = _frames(how, full=False)
    ours = [f for f in frames if STRATA_DIR in f]
    assert len(ours) == 1, frames  # the API boundary that re-raised it
    assert f'File "<string>", line {call_line}, in <module>' in frames[0], frames
    assert 'File "<string>", line 5, in model' in frames[-1], frames


def test_full_tracebacks_on_request():
    frames = _frames("jit", full=True)
    assert len([f for f in frames if STRATA_DIR in f]) >= 4, frames
    assert 'File "<string>", line 5, in model' in frames, frames
    assert STRATA_DIR in frames[-1], frames  # down to where strata raised it
