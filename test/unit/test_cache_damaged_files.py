"""Damaged files in the cache folder: valid JSON of the wrong kinds, JSON nested too
deeply for Python's parser, bad knobs. ``strata cache`` reports a damaged entry and goes
on listing; a damaged tuning record or cache entry never breaks a compile (it is ignored
or rebuilt, with one warning). Everything runs in a subprocess and must end without a
traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from strata.runtime import aot

STRATA = os.path.join(os.path.dirname(sys.executable), "strata")
needs_cc = pytest.mark.skipif(not aot.available(), reason="no C compiler driver (cc)")
DEEP = "[" * 100000 + "]" * 100000

GOOD_META = {"format": 2, "function": "main", "args": [[[2, 4], "f32"]],
             "results": [[[2], "f32"]], "key": {"function": "main", "options": {}}}
# meta.json texts that are not an entry's metadata, and what `strata cache list` says
BAD_META = {
    "array": ("[1, 2]", "meta.json holds an array, not an object"),
    "string": ('"main"', "meta.json holds a string, not an object"),
    "function-number": (json.dumps({**GOOD_META, "function": 3}),
                        "its function is a number, not a name"),
    "args-string": (json.dumps({**GOOD_META, "args": "xy"}), "its args are not a signature"),
    "shape-of-strings": (json.dumps({**GOOD_META, "args": [[[2, "a"], "f32"]]}),
                         "its args are not a signature"),
    "results-missing": (json.dumps({k: v for k, v in GOOD_META.items() if k != "results"}),
                        "its results are not a signature"),
    "key-array": (json.dumps({**GOOD_META, "key": [1]}), "its key is an array, not an object"),
    "deep": (DEEP, "meta.json is nested too deeply"),
    "not-json": ("{oops", "meta.json is not JSON"),
    "missing": (None, "no readable meta.json"),
}

KEY_INTACT = {"function-number", "args-string", "shape-of-strings", "results-missing"}


def _cli(*args, env):
    return subprocess.run([STRATA, *args], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=120)


def _clean(p, code=0):
    """The process's output, after checking its exit status and that nothing crashed."""
    assert "Traceback" not in p.stderr + p.stdout, p.stderr
    assert p.returncode == code, (p.returncode, p.stdout, p.stderr)
    return p.stdout + p.stderr


def _entry(root, key, meta_text):
    folder = root / key
    folder.mkdir(parents=True)
    (folder / "lib.so").write_bytes(b"\0" * 2048)
    if meta_text is not None:
        (folder / "meta.json").write_text(meta_text)


@pytest.mark.parametrize("case", sorted(BAD_META))
def test_a_damaged_entry_is_listed_as_damaged_and_the_others_still_listed(case, tmp_path):
    root = tmp_path / "cache"
    text, why = BAD_META[case]
    _entry(root, "good0000", json.dumps(GOOD_META))
    _entry(root, "bad00000", text)
    env = {"STRATA_CACHE_DIR": str(root)}
    listed = _clean(_cli("cache", "list", env=env)).splitlines()
    assert len(listed) == 2, listed
    (bad,) = [line for line in listed if line.startswith("bad00000")]
    size = sum(f.stat().st_size for f in (root / "bad00000").iterdir())
    assert f"damaged: {why}" in bad and f"  {size / 1024:.0f} KiB  " in bad
    (good,) = [line for line in listed if line.startswith("good0000")]
    assert "main(2x4xf32)" in good
    info = _clean(_cli("cache", "info", env=env))
    assert "entries: 2 (1 damaged" in info
    if case in KEY_INTACT:  # its key is still there to explain
        assert '"function": "main"' in _clean(_cli("cache", "explain", "bad00000", env=env))
    else:
        explained = _clean(_cli("cache", "explain", "bad00000", env=env), code=1)
        assert f"entry 'bad00000' is damaged: {why}" in explained
    assert '"function": "main"' in _clean(_cli("cache", "explain", "good0000", env=env))


def test_a_bad_size_cap_is_a_message_not_a_traceback(tmp_path):
    env = {"STRATA_CACHE_DIR": str(tmp_path / "cache"), "STRATA_CACHE_MAX_BYTES": "abc"}
    out = _clean(_cli("cache", "info", env=env), code=1)
    assert out.strip() == ("<environment>: error: STRATA_CACHE_MAX_BYTES must be a number "
                           "of bytes (K, M, G, T suffixes allowed), got 'abc'")


# --- compiles under a damaged tuning record or cache entry ------------------------------

COMPILE = """
import sys, warnings
import numpy as np, strata
warnings.simplefilter("always")
f = strata.jit(lambda x, w: strata.relu(x @ w))
for n in (3, 5):
    x, w = np.full((n, 8), 0.5, np.float32), np.ones((8, 4), np.float32)
    assert np.array_equal(f(x, w), np.full((n, 4), 4, np.float32))
print("ok", f.stats.compiles, f.stats.cache_hits)
"""


def _compile(env):
    return subprocess.run([sys.executable, "-c", COMPILE], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=300)


def _record(**entry):
    base = {"op": "1x64x64x64xf32", "threads": 1, "target": {}, "versions": {},
            "config": {"cache_m": 32}}
    return json.dumps({"format": 1, "entries": [{**base, **entry}]})


def _this_target(config):
    """A record whose entries match COMPILE's first matmul on this machine, at any thread
    count: the compile reads their config."""
    from strata.runtime.tuning_record import target_key

    return json.dumps({"format": 1, "entries": [
        {"op": "1x3x4x8xf32", "threads": t, **target_key(), "config": config}
        for t in range(1, 257)]})


BAD_RECORDS = {
    "deep": (DEEP, "is nested too deeply"),
    "array": ("[1]", "holds an array, not an object"),
    "not-json": ("{oops", "is not JSON"),
    "entries-string": ('{"format": 1, "entries": "x"}', "has entries that are a string"),
    "entry-number": ('{"format": 1, "entries": [3]}', "an entry is a number"),
    "op-list": (_record(op=[1]), "op [1] is not an op signature"),
    "op-text": (_record(op="matmul"), "op 'matmul' is not an op signature"),
    "threads-string": (_record(threads="2"), "threads '2' is not a positive integer"),
    "target-string": (_record(target="x86"), "its target is a string, not an object"),
    "config-list": (_record(config=[1]), "its config is an array, not an object"),
    "config-string": (_record(config={"cache_m": "x"}), "config cache_m='x' is not an integer"),
    "config-zero": (_record(config={"cache_m": 0}), "config cache_m=0 is not an integer"),
    "config-unknown": (_record(config={"tile": 4}), "unknown config field 'tile'"),
    "seconds-string": (_record(tuned_s="fast"), "tuned_s 'fast' is not a time"),
    "this-target-zero": (lambda: _this_target({"cache_m": 0}), "cache_m=0 is not an integer"),
    "this-target-text": (lambda: _this_target({"pack": "yes"}), "pack='yes' is not a boolean"),
    "this-target-negative": (lambda: _this_target({"micro_n": -16}),
                             "micro_n=-16 is not an integer of at least 0"),
}


@needs_cc
@pytest.mark.parametrize("case", sorted(BAD_RECORDS))
def test_a_damaged_tuning_record_is_ignored_with_one_warning(case, tmp_path):
    text, why = BAD_RECORDS[case]
    record = tmp_path / "tuning.json"
    record.write_text(text() if callable(text) else text)
    env = {"STRATA_CACHE_DIR": str(tmp_path / "cache"), "STRATA_TUNING_RECORD": str(record)}
    p = _compile(env)
    out = _clean(p)
    assert p.stdout.split() == ["ok", "2", "0"], out
    assert p.stderr.count("StrataCacheWarning") == 1, p.stderr
    assert f"the tuning record {record} " in p.stderr and why in p.stderr
    assert "<string>:8:" in p.stderr  # at the user's line (the first call)
    shown = _clean(_cli("tune", "--show", env=env))
    assert why in shown and "'strata tune' rewrites it" in shown


@needs_cc
@pytest.mark.parametrize("name", ["manifest.json", "meta.json"])
def test_a_cache_entry_nested_too_deeply_is_rebuilt(name, tmp_path):
    env = {"STRATA_CACHE_DIR": str(tmp_path / "cache")}
    assert _compile(env).stdout.split() == ["ok", "2", "0"]
    folders = [f for f in (tmp_path / "cache").iterdir() if f.is_dir()
               and not f.name.startswith(".")]
    assert len(folders) == 2
    (folders[0] / name).write_text(DEEP)
    p = _compile(env)
    _clean(p)
    assert p.stdout.split() == ["ok", "2", "1"], p.stderr  # one hit, one rebuilt
    assert p.stderr.count("StrataCacheWarning") == 1 and "damaged cache entry" in p.stderr


@needs_cc
def test_memo_files_nested_too_deeply_are_recomputed(tmp_path):
    memo = tmp_path / "xdg" / "strata-memo"
    memo.mkdir(parents=True)
    for name in ("source-fingerprint.json", "llc-version.json"):
        (memo / name).write_text(DEEP)
    env = {"STRATA_CACHE_DIR": str(tmp_path / "cache"), "XDG_CACHE_HOME": str(memo.parent)}
    p = _compile(env)
    _clean(p)
    assert p.stdout.split() == ["ok", "2", "0"], p.stderr
    assert json.loads((memo / "source-fingerprint.json").read_text())["source"]
