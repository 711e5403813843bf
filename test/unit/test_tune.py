"""Autotuning (strata.tune, strata/autotune/) and the persistent tuning record
(runtime/tuning_record.py): the tuned option text, the record's keys and matching,
the cache key, tuned numerics, the noise check, and the ``strata tune`` command."""

import json
import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest

import strata
from strata.autotune.measure import measure
from strata.passes.tuning import format_tuned, parse_tuned
from strata.runtime import aot, tuning_record

needs_cc = pytest.mark.skipif(not aot.available(), reason="no C compiler driver (cc)")


@pytest.fixture
def record(tmp_path, monkeypatch):
    """A cache folder (and so a tuning record) of this test's own."""
    monkeypatch.setenv("STRATA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("STRATA_TUNING_RECORD", raising=False)
    monkeypatch.delenv("STRATA_TUNING", raising=False)
    monkeypatch.delenv("STRATA_CACHE", raising=False)
    return tmp_path / "cache" / "tuning.json"


def _entry(op, config, threads=1, **changes):
    entry = {"op": op, **tuning_record.target_key(), "threads": threads, "config": config,
             "default_s": 2e-3, "tuned_s": 1e-3}
    entry.update(changes)
    return entry


# --- the option text ---------------------------------------------------------------

def test_tuned_text_round_trips():
    configs = {"1x64x128x32xf32": {"pack": False, "cache_m": 32, "cache_k": 16},
               "2x8x8x8xf16": {"register_m": 4}}
    text = format_tuned(configs)
    assert text == "1x64x128x32xf32:ck16.cm32.pack0,2x8x8x8xf16:rm4"
    assert parse_tuned(text) == configs
    assert parse_tuned("") == {} and format_tuned({}) == ""


@pytest.mark.parametrize("text", ["garbage", "1x2x3xf32:cm1", "1x2x3x4xf64:cm1",
                                  "1x2x3x4xf32:zz1", "1x2x3x4xf32:", "1x2x3x4xf32:cm1;"])
def test_malformed_tuned_text_is_rejected(text):
    with pytest.raises(ValueError, match="malformed"):
        parse_tuned(text)


def test_a_malformed_option_is_a_clear_error(tmp_path):
    src = tmp_path / "m.mlir"
    src.write_text("func.func @f(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {\n"
                   "  return %a : tensor<4x4xf32>\n}\n")
    p = subprocess.run([os.path.join(os.path.dirname(sys.executable), "strata-opt"), str(src),
                        "--strata-vectorize=tuned=1x4x4x4xf32:zz1"],
                       capture_output=True, text=True)
    assert p.returncode != 0 and "Traceback" not in p.stderr
    assert "option 'tuned' must look like SIG:KNOBS" in p.stderr


# --- the record --------------------------------------------------------------------

def test_only_this_targets_entries_apply(record):
    other_cpu = tuning_record.target_key()["target"] | {"llvm": "another-cpu"}
    tuning_record.add([
        _entry("1x64x64x64xf32", {"cache_m": 32}),
        _entry("1x32x32x32xf32", {"cache_m": 16}, target=other_cpu),
        _entry("1x16x16x16xf32", {"cache_m": 8}, threads=2),
        _entry("1x8x8x8xf32", {"cache_m": 4}, versions={"strata": "0.0.1"}),
        _entry("1x128x128x128xf32", {}),  # the default was best: nothing to apply
    ])
    assert tuning_record.matching(1) == {"1x64x64x64xf32": {"cache_m": 32}}
    assert tuning_record.matching(2) == {"1x16x16x16xf32": {"cache_m": 8}}
    assert tuning_record.tuned_text(1) == "1x64x64x64xf32:cm32"
    shown = tuning_record.show()
    assert shown.count("\n* ") == 3 and "another-cpu" in shown and "2.00x" in shown


def test_adding_replaces_the_same_key_and_keeps_others(record):
    tuning_record.add([_entry("1x64x64x64xf32", {"cache_m": 32}),
                       _entry("1x64x64x64xf32", {"cache_m": 16}, threads=2)])
    tuning_record.add([_entry("1x64x64x64xf32", {"cache_m": 64})])
    found = {(e["op"], e["threads"]): e["config"] for e in tuning_record.entries()}
    assert found == {("1x64x64x64xf32", 1): {"cache_m": 64},
                     ("1x64x64x64xf32", 2): {"cache_m": 16}}


def test_a_damaged_record_or_strata_tuning_0_tunes_nothing(record, monkeypatch):
    tuning_record.add([_entry("1x64x64x64xf32", {"cache_m": 32})])
    monkeypatch.setenv("STRATA_TUNING", "0")
    assert tuning_record.tuned_text(1) == ""
    monkeypatch.delenv("STRATA_TUNING")
    time.sleep(0.01)
    record.write_text("{not json")
    assert tuning_record.tuned_text(1) == ""
    assert "no tuning record" in tuning_record.show()


# --- compiles use the record -------------------------------------------------------

def _mm(x, w):
    return x @ w


def _args(m, k, n, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype))


def _ops_at(level, *args):
    module = strata.compile(_mm, *args, compile_to=level, threads=1, blas="never")
    return str(module.mlir)


def test_a_compile_on_this_target_uses_the_record(record):
    x, w = _args(128, 96, 160)
    # the default: packed panels (A as 16 panels of 8 rows: a 16x96x8 buffer)
    assert "16x96x8xf32" in _ops_at("bufferized", x, w)
    tuning_record.add([_entry("1x128x160x96xf32", {"pack": False, "cache_m": 32})])
    tuned = _ops_at("bufferized", x, w)
    assert "16x96x8xf32" not in tuned and "to %c128 step %c32" in tuned


@needs_cc
def test_the_cache_key_includes_the_tuned_tiles(record):
    from strata.runtime import cache

    x, w = _args(128, 96, 160)
    first = strata.jit(_mm, threads=1, blas="never")
    first(x, w)
    tuning_record.add([_entry("1x128x160x96xf32", {"pack": False})])
    second = strata.jit(_mm, threads=1, blas="never")
    np.testing.assert_allclose(second(x, w), x.astype(np.float64) @ w, rtol=1e-4, atol=1e-4)
    assert second.stats.cache_hits == 0  # not the untuned entry
    entries = [n for n in os.listdir(cache.cache_dir()) if not n.startswith(".")
               and os.path.isdir(os.path.join(cache.cache_dir(), n))]
    assert len(entries) == 2
    metas = [json.load(open(os.path.join(cache.cache_dir(), n, "meta.json"))) for n in entries]
    assert sorted(m["key"]["options"].get("tuned", "") for m in metas) == [
        "", "1x128x160x96xf32:pack0"]


RESTART = r"""
import json, sys
import numpy as np
import strata
def mm(x, w):
    return x @ w
rng = np.random.default_rng(0)
x = rng.standard_normal((128, 96)).astype(np.float32)
w = rng.standard_normal((96, 160)).astype(np.float32)
f = strata.jit(mm, threads=1, blas="never")
f(x, w)
print(json.dumps({"hits": f.stats.cache_hits, "mlir": "mlir" in sys.modules}))
"""


@needs_cc
def test_a_tuned_disk_hit_still_loads_without_mlir(record):
    tuning_record.add([_entry("1x128x160x96xf32", {"pack": False})])
    runs = [json.loads(subprocess.run([sys.executable, "-c", RESTART], capture_output=True,
                                      text=True, check=True, env=dict(os.environ),
                                      timeout=600).stdout) for _ in range(2)]
    assert runs == [{"hits": 0, "mlir": True}, {"hits": 1, "mlir": False}]


@needs_cc
@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-4), (np.float16, 3e-2)])
@pytest.mark.parametrize("config", [
    {"pack": False, "cache_m": 7, "cache_n": 5, "cache_k": 3},
    {"pack_m": 16, "pack_n": 32, "pack_k": 8},
    {"pack": False, "register_m": 3},
])
def test_tuned_tiles_compute_the_same_on_odd_shapes(record, dtype, tol, config):
    x, w = _args(67, 29, 83, dtype)
    name = "f16" if dtype == np.float16 else "f32"
    tuning_record.add([_entry(f"1x67x83x29x{name}", config)])
    got = strata.jit(_mm, threads=1, blas="never")(x, w)
    ref = x.astype(np.float64) @ w.astype(np.float64)
    np.testing.assert_allclose(got.astype(np.float64), ref, rtol=tol, atol=tol * 10)


# --- measuring ---------------------------------------------------------------------

def test_a_steady_call_is_not_noisy():
    t = measure(lambda: sum(range(200)), rounds=5, round_s=0.002, max_spread=10.0)
    assert not t.noisy and t.seconds > 0


def test_a_call_that_keeps_slowing_down_is_rejected_as_noisy():
    delay = [1e-4]

    def call():
        time.sleep(delay[0])
        delay[0] *= 1.6  # every round slower than the last: the best three never agree

    t = measure(call, warmup=0, rounds=4, round_s=0.0, max_spread=0.2, retries=1)
    assert t.noisy and t.tries == 2 and t.spread > 0.2


def test_cpu_time_counts_the_work_not_the_waiting():
    # a sleeping call takes wall time but (almost) no CPU time
    wall = measure(lambda: time.sleep(0.002), warmup=0, rounds=3, round_s=0.0, max_spread=1e9)
    cpu = measure(lambda: time.sleep(0.002), warmup=0, rounds=3, round_s=0.0, max_spread=1e9,
                  clock="cpu")
    assert wall.seconds >= 0.002 and cpu.seconds < 0.001
    with pytest.raises(ValueError, match="clock"):
        measure(lambda: None, clock="sundial")


# --- strata.tune -------------------------------------------------------------------

def _relu_mm(x, w):
    return strata.relu(x @ w)


@needs_cc
def test_tune_records_every_heavy_op_and_later_compiles_use_it(record):
    x, w = _args(96, 64, 80)
    result = strata.tune(_relu_mm, x, w, budget=20, threads=1, blas="never",
                         max_spread=100.0, rounds=3, round_s=0.002)
    assert result.record == str(record)
    # the op strata-vectorize tiles: the matmul of an output tile of the fused epilogue
    (entry,) = result.entries
    assert re.fullmatch(r"1x[0-9]+x[0-9]+x64xf32", entry["op"])
    assert entry["target"] == tuning_record.target_key()["target"]
    assert entry["candidates"] >= 2 and entry["tuned_s"] <= entry["default_s"]
    assert tuning_record.entries()[0]["op"] == entry["op"]
    assert entry["op"] in result.table()
    np.testing.assert_allclose(strata.jit(_relu_mm, threads=1, blas="never")(x, w),
                               np.maximum(x.astype(np.float64) @ w, 0), rtol=1e-4, atol=1e-4)


def test_only_candidates_that_make_different_code_are_measured():
    from strata.autotune.search import heavy_ops

    # 16x16x16: too small to pack, and every cache tile holds the whole op: only the
    # register rows change the code
    (configs,) = heavy_ops(_mm, _args(16, 16, 16), threads=1, blas="never").values()
    assert configs == [{}, {"register_m": 4}, {"register_m": 2}]
    # 128x160x96 packs: packed tiles, and tiles in place with pack0, but no in-place
    # tile without pack0 (the op would still pack: the default's code)
    (configs,) = heavy_ops(_mm, _args(128, 96, 160), threads=1, blas="never").values()
    assert configs[0] == {} and len(configs) > 4
    assert all("pack_m" in c or "micro_m" in c or c.get("pack") is False
               for c in configs[1:])


def test_tune_with_an_unknown_executor_is_an_error():
    with pytest.raises(strata.StrataError, match="unknown executor 'spark'"):
        strata.tune(_relu_mm, *_args(8, 8, 8), executor="spark")


SCRIPT = """
import numpy as np, strata

def mm(x, w):
    return x @ w

def mm_inputs():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((64, 32)).astype(np.float32),
            rng.standard_normal((32, 72)).astype(np.float32))
"""


@needs_cc
def test_the_tune_command_tunes_and_shows(record, tmp_path):
    script = tmp_path / "model.py"
    script.write_text(SCRIPT)
    strata_cmd = os.path.join(os.path.dirname(sys.executable), "strata")
    env = dict(os.environ, STRATA_THREADS="1")
    p = subprocess.run([strata_cmd, "tune", f"{script}:mm", "--budget", "5",
                        "--max-spread", "100", "--blas", "never"], capture_output=True, text=True, env=env,
                       timeout=600)
    assert p.returncode == 0, p.stderr
    assert "1x64x72x32xf32" in p.stdout and f"record: {record}" in p.stdout
    shown = subprocess.run([strata_cmd, "tune", "--show"], capture_output=True, text=True,
                           env=env, timeout=120)
    assert shown.returncode == 0 and "* 1x64x72x32xf32" in shown.stdout
    bad = subprocess.run([strata_cmd, "tune", f"{tmp_path}/nope.py:mm"], capture_output=True,
                         text=True, env=env, timeout=120)
    assert bad.returncode == 1 and "no such script" in bad.stderr
    assert "Traceback" not in bad.stderr
