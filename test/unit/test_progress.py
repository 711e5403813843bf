"""The progress line of long compiles (runtime/progress.py)."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import numpy as np, strata
f = strata.jit(lambda x, w: strata.softmax(x @ w))
f(np.ones((8, 16), np.float32), np.ones((16, 4), np.float32))
"""


def _run(env, tmp_path):
    env = {"PATH": "/usr/bin:/bin", "STRATA_CACHE": "0", **env}
    p = subprocess.run([sys.executable, "-c", CODE], capture_output=True, env=env,
                       timeout=300, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    return p.stderr.decode()


def test_progress_names_the_function_and_level_when_asked(tmp_path):
    err = _run({"STRATA_PROGRESS": "1", "STRATA_PROGRESS_AFTER": "0"}, tmp_path)
    assert "strata: compiling @main: level " in err
    assert err.endswith("\r\x1b[K")  # the line is erased when the compile ends


def test_progress_is_silent_off_a_terminal(tmp_path):
    assert "compiling" not in _run({"STRATA_PROGRESS_AFTER": "0"}, tmp_path)
    assert "compiling" not in _run({"STRATA_PROGRESS": "0", "STRATA_PROGRESS_AFTER": "0"},
                                   tmp_path)
