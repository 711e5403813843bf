"""Inspecting the compilation cache, must-hit mode, its size cap, and STRATA_LOG."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from strata.runtime import aot

pytestmark = pytest.mark.skipif(not aot.available(), reason="no C compiler driver (cc)")
STRATA = os.path.join(os.path.dirname(sys.executable), "strata")

PROGRAM = """
import sys
import numpy as np, strata
f = strata.jit(lambda x, w: strata.relu(x @ w), max_variants=int(sys.argv[2]),
               automatic_dynamic=False)  # one cache entry per shape
for n in [int(v) for v in sys.argv[1].split(",")]:
    x, w = np.ones((n, 4), np.float32), np.ones((4, 3), np.float32)
    assert np.array_equal(f(x, w), np.full((n, 3), 4, np.float32))
print("ok", f.stats.compiles, f.stats.cache_hits)
"""


def _run(sizes, env, max_variants=8):
    return subprocess.run([sys.executable, "-c", PROGRAM, ",".join(map(str, sizes)),
                           str(max_variants)], capture_output=True, text=True,
                          env={**os.environ, **env})


def _cli(*args, env):
    return subprocess.run([STRATA, "cache", *args], capture_output=True, text=True,
                          env={**os.environ, **env})


@pytest.fixture
def env(tmp_path):
    return {"STRATA_CACHE_DIR": str(tmp_path / "cache")}


def test_info_list_explain_clear(env):
    assert _run([2, 3], env).stdout.split() == ["ok", "2", "0"]
    info = _cli("info", env=env)
    assert info.returncode == 0 and "entries: 2" in info.stdout
    assert env["STRATA_CACHE_DIR"] in info.stdout
    listed = _cli("list", env=env).stdout.splitlines()
    assert len(listed) == 2
    assert "main(3x4xf32, 4x3xf32)" in listed[0] and "main(2x4xf32, 4x3xf32)" in listed[1]
    key = listed[1].split()[0]
    explained = _cli("explain", key, env=env)
    assert explained.returncode == 0
    for part in ('"function": "main"', '"cpu"', '"versions"', '"source"', '"options"',
                 '"threads"', '"knobs"'):
        assert part in explained.stdout
    assert _cli("explain", "nope", env=env).returncode == 1
    assert _cli("clear", env=env).stdout.strip() == "removed 2 entries"
    assert "entries: 0" in _cli("info", env=env).stdout
    assert _cli("bogus", env=env).returncode == 1


def test_must_hit_turns_a_miss_into_an_error_naming_what_differs(env):
    assert _run([2], env).returncode == 0
    hit = _run([2], {**env, "STRATA_CACHE_MUST_HIT": "1"})
    assert hit.stdout.split() == ["ok", "1", "1"], hit.stderr
    miss = _run([5], {**env, "STRATA_CACHE_MUST_HIT": "1"})
    assert miss.returncode == 1
    assert "main(5x4xf32, 4x3xf32): not in the compilation cache and STRATA_CACHE_MUST_HIT " \
           "is set: the nearest entry" in miss.stderr
    assert "signature: [[[5, 4], 'f32'], [[4, 3], 'f32']] here, [[[2, 4], 'f32'], [[4, 3], " \
           "'f32']] in the entry" in miss.stderr
    knob = _run([2], {**env, "STRATA_CACHE_MUST_HIT": "1", "STRATA_FUSE_SOMETHING": "x"})
    assert "knobs.STRATA_FUSE_SOMETHING: 'x' here, None in the entry" in knob.stderr


def test_size_cap_keeps_the_most_recently_used_entries(env):
    assert _run([2, 3, 4], env).returncode == 0
    sizes = sorted(int(line.split()[-4]) for line in _cli("list", env=env).stdout.splitlines())
    cap = str(int(sum(sizes[:2]) * 1024 * 1.3))  # room for about two entries
    assert _run([2, 5], {**env, "STRATA_CACHE_MAX_BYTES": cap}).returncode == 0
    listed = _cli("list", env=env).stdout
    assert "main(5x4xf32" in listed and "main(2x4xf32" in listed
    assert "main(3x4xf32" not in listed and "main(4x4xf32" not in listed


def test_strata_log_names_the_failed_guard_and_the_cache_and_variant_events(env):
    p = _run([2, 3, 2, 7], {**env, "STRATA_LOG": "recompiles,cache,variants"}, max_variants=2)
    assert p.stdout.split() == ["ok", "3", "0"], p.stderr
    err = p.stderr
    assert "strata.recompiles: <lambda>: compiling for (2x4xf32, 4x3xf32): first call" in err
    assert "strata.recompiles: <lambda>: compiling for (3x4xf32, 4x3xf32): argument 'x' " \
           "dim 0: 2 -> 3" in err
    assert "strata.cache: miss for main(7x4xf32, 4x3xf32)" in err
    assert "strata.variants: <lambda>: dropped the least recently used variant " \
           "(3x4xf32, 4x3xf32) (max_variants=2)" in err
    quiet = _run([2, 3], env)
    assert "strata." not in quiet.stderr
    bad = _run([2], {**env, "STRATA_LOG": "everything"})
    assert "STRATA_LOG: unknown topic(s) everything" in bad.stderr


def test_bad_knobs_are_clear_errors(env):
    p = _run([2], {**env, "STRATA_CACHE_MAX_BYTES": "lots"})
    assert p.returncode == 1 and "STRATA_CACHE_MAX_BYTES must be a number of bytes" in p.stderr
    assert np is not None
