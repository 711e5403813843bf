"""The tuning knobs beyond cache tiles (passes/tuning.py): the packed micro-kernel shape
(``mr``/``nr``), the in-place register columns (``rn``) and the thread split (``pf``).
Each one reaches the compiled code through the tuning record (the IR changes), is part of
the cache key through the tuned text, and computes the same as float64 numpy on odd
shapes, on this host's vector width and on AVX2's (a subprocess with
``STRATA_CPU_FEATURES=avx2``); strata.tune searches them and merges group winners."""

import os
import subprocess
import sys
import time

import numpy as np
import pytest

import strata
from strata.autotune.search import _all_configs, _merge_winners, _micro_shapes, heavy_ops
from strata.codegen.host import f32_lanes, host_flags
from strata.passes.tuning import format_tuned, parse_tuned
from strata.runtime import aot, tuning_record

needs_cc = pytest.mark.skipif(not aot.available(), reason="no C compiler driver (cc)")
LANES = f32_lanes()


@pytest.fixture
def record(tmp_path, monkeypatch):
    monkeypatch.setenv("STRATA_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("STRATA_TUNING_RECORD", "STRATA_TUNING", "STRATA_CACHE"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "cache" / "tuning.json"


def _entry(op, config, threads=1):
    return {"op": op, **tuning_record.target_key(), "threads": threads, "config": config,
            "default_s": 2e-3, "tuned_s": 1e-3}


def _mm(x, w):
    return x @ w


def _args(m, k, n, dtype=np.float32):
    rng = np.random.default_rng(1)
    return (rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype))


def _ops_at(level, *args, threads=1):
    module = strata.compile(_mm, *args, compile_to=level, threads=threads, blas="never")
    return str(module.mlir)


def test_new_knobs_round_trip():
    configs = {"1x96x128x64xf32": {"micro_m": 12, "micro_n": 32, "parallel_flops": 1},
               "1x8x8x8xf32": {"pack": False, "register_n": 16}}
    text = format_tuned(configs)
    assert text == "1x8x8x8xf32:pack0.rn16,1x96x128x64xf32:mr12.nr32.pf1"
    assert parse_tuned(text) == configs


def test_micro_kernel_shape_reaches_the_code(record):
    x, w = _args(96, 64, 128)
    default = _ops_at("bufferized", x, w)
    mr, nr = 4, 4 * LANES
    tuning_record.add([_entry("1x96x128x64xf32", {"micro_m": mr, "micro_n": nr})])
    tuned = _ops_at("bufferized", x, w)
    assert f"{96 // mr}x64x{mr}xf32" in tuned and f"{96 // mr}x64x{mr}xf32" not in default
    assert f"{128 // nr}x64x{nr}xf32" in tuned


def test_register_columns_reach_the_code(record):
    x, w = _args(64, 32, 128)
    tuning_record.add([_entry("1x64x128x32xf32", {"pack": False, "register_m": 4,
                                                  "register_n": 4 * LANES})])
    assert f"vector<4x{4 * LANES}xf32>" in _ops_at("bufferized", x, w)


def test_thread_split_reaches_the_code(record):
    # 128x160x96 (3.9 MFLOP) is under the default threshold: one thread; pf1 splits its
    # 32-row blocks over the threads
    x, w = _args(128, 96, 160)
    tuning_record.add([_entry("1x128x160x96xf32", {"pack_m": 32}, threads=2)])
    assert "scf.forall" not in _ops_at("bufferized", x, w, threads=2)
    tuning_record.add([_entry("1x128x160x96xf32", {"pack_m": 32, "parallel_flops": 1},
                              threads=2)])
    assert "scf.forall" in _ops_at("bufferized", x, w, threads=2)
    # the record is per thread count: a 1-thread compile is not split
    assert "scf.forall" not in _ops_at("bufferized", x, w, threads=1)


@needs_cc
def test_the_cache_key_names_the_new_knobs(record):
    from strata.runtime.api import key_options

    tuning_record.add([_entry("1x96x128x64xf32", {"micro_m": 4, "micro_n": 4 * LANES})])
    options = key_options(True, True, "", 3, 1, "never")
    assert options["tuned"] == f"1x96x128x64xf32:mr4.nr{4 * LANES}"


@needs_cc
@pytest.mark.parametrize("config,threads", [
    ({"micro_m": 12, "micro_n": 2 * LANES}, 1),
    ({"micro_m": 3, "micro_n": 3 * LANES}, 1),
    ({"micro_m": 5, "micro_n": LANES, "pack_m": 40, "pack_n": 64, "pack_k": 24}, 1),
    ({"pack": False, "register_m": 3, "register_n": 3 * LANES}, 1),
    ({"parallel_flops": 1}, 2),
    ({"parallel_flops": 1 << 40, "micro_m": 6, "micro_n": 2 * LANES}, 2),
])
def test_tuned_knobs_compute_the_same_on_odd_shapes(record, config, threads):
    x, w = _args(131, 77, 97)
    tuning_record.add([_entry("1x131x97x77xf32", config, threads=threads)])
    got = strata.jit(_mm, threads=threads, blas="never")(x, w)
    np.testing.assert_allclose(got, x.astype(np.float64) @ w, rtol=1e-4, atol=1e-3)


@needs_cc
@pytest.mark.skipif("avx2" not in host_flags().split(), reason="needs an AVX2 host")
def test_avx2_micro_kernels_compute_the_same(tmp_path):
    # every micro-kernel shape strata.tune tries on an 8-lane target, in a subprocess
    # forced to AVX2 (its kernels and its shapes)
    code = (
        "import numpy as np, strata\n"
        "from strata.autotune.search import _micro_shapes\n"
        "from strata.codegen.host import f32_lanes\n"
        "from strata.runtime import tuning_record as r\n"
        "assert f32_lanes() == 8\n"
        "rng = np.random.default_rng(2)\n"
        "x = rng.standard_normal((70, 33)).astype(np.float32)\n"
        "w = rng.standard_normal((33, 90)).astype(np.float32)\n"
        "for mr, nr in _micro_shapes(8):\n"
        "    with r.forced(f'1x70x90x33xf32:mr{mr}.nr{nr}'):\n"
        "        got = strata.compile(lambda a, b: a @ b, x, w, threads=1, blas='never')(x, w)\n"
        "    np.testing.assert_allclose(got, x.astype(np.float64) @ w, rtol=1e-4, atol=1e-3)\n"
        "print('ok', len(_micro_shapes(8)))\n")
    env = dict(os.environ, STRATA_CPU_FEATURES="avx2", STRATA_CACHE_DIR=str(tmp_path))
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.startswith("ok")


def test_micro_shapes_fit_the_vector_registers():
    for lanes, registers in ((16, 32), (8, 16)):
        for mr, nr in _micro_shapes(lanes):
            vectors = nr // lanes
            assert nr % lanes == 0 and mr * vectors + vectors + 1 <= registers


def test_the_search_covers_every_group():
    configs = _all_configs(lanes=16, threads=2)
    assert configs[0] == {}
    assert {"parallel_flops": 1} in configs and {"micro_m": 12, "micro_n": 32} in configs
    assert any("pack_m" in c for c in configs) and any(c.get("pack") is False for c in configs)
    assert not any("parallel_flops" in c for c in _all_configs(lanes=16, threads=1))
    # a 512^3 matmul on 2 threads: distinct thread splits, micro-kernels and tiles
    (found,) = heavy_ops(_mm, _args(512, 512, 512), threads=2, blas="never").values()
    assert found[0] == {} and {"parallel_flops": 1 << 40} in found
    assert sum("micro_m" in c for c in found) == len(_micro_shapes(LANES))


def test_group_winners_merge():
    def r(s):
        return {"seconds": s}

    good = [({}, r(1.0)), ({"micro_m": 12, "micro_n": 32}, r(0.8)),
            ({"micro_m": 4, "micro_n": 64}, r(0.85)), ({"parallel_flops": 1}, r(0.9)),
            ({"pack_m": 64, "pack_n": 256, "pack_k": 256}, r(0.7)),
            ({"pack": False, "cache_m": 32, "cache_n": 64, "cache_k": 128}, r(0.99))]
    merged = _merge_winners(good, 0.95)
    assert merged == {"micro_m": 12, "micro_n": 32, "parallel_flops": 1, "pack_m": 64,
                      "pack_n": 256, "pack_k": 256}
    assert _merge_winners(good[:2], 0.95) is None  # one group: nothing to merge
    # in-place tiles (the fastest) exclude the packed groups
    good.append(({"pack": False, "cache_m": 16, "cache_n": 256, "cache_k": 128}, r(0.5)))
    assert _merge_winners(good, 0.95) == {"pack": False, "cache_m": 16, "cache_n": 256,
                                          "cache_k": 128, "parallel_flops": 1}


def test_a_micro_n_off_the_vector_width_is_a_diagnostic(tmp_path):
    src = tmp_path / "m.mlir"
    src.write_text(
        "func.func @f(%a: tensor<96x64xf32>, %b: tensor<64x128xf32>, %c: tensor<96x128xf32>)"
        " -> tensor<96x128xf32> {\n"
        "  %0 = linalg.matmul ins(%a, %b : tensor<96x64xf32>, tensor<64x128xf32>) "
        "outs(%c : tensor<96x128xf32>) -> tensor<96x128xf32>\n"
        "  return %0 : tensor<96x128xf32>\n}\n")
    p = subprocess.run([os.path.join(os.path.dirname(sys.executable), "strata-opt"), str(src),
                        "--strata-vectorize=lanes=16 tuned=1x96x128x64xf32:nr20"],
                       capture_output=True, text=True)
    assert p.returncode != 0 and "Traceback" not in p.stderr
    assert "m.mlir:2:" in p.stderr and "must be a multiple of the 16 vector lanes" in p.stderr


def _blas_ops_at(threads=1):
    x, w = _args(256, 512, 384)
    module = strata.compile(_mm, x, w, compile_to="bufferized", threads=threads, blas="auto")
    return str(module.mlir)


def test_blas_or_generated_reaches_the_code(record):
    tuning_record.add([_entry("1x256x384x512xf32", {"blas": True})])
    assert "scipy_cblas_sgemm64_" in _blas_ops_at()
    tuning_record.add([_entry("1x256x384x512xf32", {"blas": False, "pack_m": 64})])
    generated = _blas_ops_at()
    assert "scipy_cblas_sgemm64_" not in generated and "32x512x8xf32" in generated


@needs_cc
def test_a_tuned_blas_choice_computes_the_same(record):
    x, w = _args(131, 77, 97)
    for choice in (True, False):
        tuning_record.add([_entry("1x131x97x77xf32", {"blas": choice})])
        got = strata.jit(_mm, threads=1, blas="auto")(x, w)
        np.testing.assert_allclose(got, x.astype(np.float64) @ w, rtol=1e-4, atol=1e-3)


def test_the_search_tries_the_other_side_of_the_blas_choice():
    from strata.autotune.search import _blas_choices

    x, w = _args(256, 512, 384)
    module = strata.compile(_mm, x, w, compile_to="layout", threads=1, blas="auto")
    ((signature, marked),) = _blas_choices(module.mlir.operation).items()
    assert signature == "1x256x384x512xf32"
    (found,) = heavy_ops(_mm, (x, w), threads=1, blas="auto").values()
    if marked:  # the cost model chose BLAS: only generated code is tried
        assert found == [{}, {"blas": False}]
    else:
        assert found[:2] == [{}, {"blas": True}] and len(found) > 4
    (never,) = heavy_ops(_mm, (x, w), threads=1, blas="never").values()
    assert not any("blas" in c for c in never)


def _attn(q, k, v):
    return strata.softmax(q @ strata.transpose(k, (0, 2, 1)) * 0.25, axis=-1) @ v


def _attn_args(h, sq, sk, d, dv):
    rng = np.random.default_rng(3)
    return tuple(rng.standard_normal(s).astype(np.float32)
                 for s in ((h, sq, d), (h, sk, d), (h, sk, dv)))


def _attn_ref(q, k, v):
    s = q.astype(np.float64) @ k.transpose(0, 2, 1) * 0.25
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


def test_attention_tiles_reach_the_code(record):
    args = _attn_args(2, 64, 96, 16, 8)
    tuning_record.add([_entry("2x64x96x16x8xf32", {"block_q": 16, "block_k": 32})])
    text = str(strata.compile(_attn, *args, compile_to="fused", threads=1).mlir)
    assert "tensor<16x16xf32>, tensor<16x32xf32>) outs(%" in text  # a 16 x 32 score tile


@needs_cc
@pytest.mark.parametrize("tiles", [(8, 16), (5, 7), (64, 64)])
def test_tuned_attention_tiles_compute_the_same(record, tiles):
    args = _attn_args(3, 37, 29, 16, 12)
    tuning_record.add([_entry("3x37x29x16x12xf32", {"block_q": tiles[0],
                                                    "block_k": tiles[1]})])
    got = strata.jit(_attn, threads=1, blas="never")(*args)
    np.testing.assert_allclose(got, _attn_ref(*args), rtol=1e-4, atol=1e-4)


def test_the_search_tries_attention_tiles():
    from strata.autotune.search import attention_ops

    ((signature, configs),) = attention_ops(_attn, _attn_args(2, 64, 96, 16, 8), 1).items()
    assert signature == "2x64x96x16x8xf32" and configs[0] == {}
    assert all(c["block_q"] <= 64 and c["block_k"] <= 96 for c in configs[1:])
    assert len({(c["block_q"], c["block_k"]) for c in configs[1:]}) == len(configs) - 1
    assert attention_ops(_mm, _args(8, 8, 8), 1) == {}


def test_the_warm_up_lasts_warmup_s():
    from strata.autotune.measure import measure

    stamps = []
    measure(lambda: stamps.append(time.perf_counter()), warmup=0, warmup_s=0.05, rounds=1,
            round_s=0.0, max_spread=1e9)
    # the round's one call starts only after 0.05 s of warm-up calls
    assert stamps[-1] - stamps[0] >= 0.049 and len(stamps) > 2


@needs_cc
def test_a_candidate_is_built_with_its_own_choice(record):
    # strata.compile builds on the first call: the call must run under the candidate's
    # text, else every candidate is the default build (the record's text) timed again
    import json

    from strata.autotune.search import evaluate

    text = "1x96x128x64xf32:pack0.cm32"
    evaluate(_mm, _args(96, 64, 128), text, 1, "never",
             {"rounds": 1, "round_s": 0.0, "max_spread": 1e9})
    root = record.parent
    tuned = [json.load(open(root / e / "meta.json"))["key"]["options"].get("tuned")
             for e in os.listdir(root) if (root / e / "meta.json").exists()]
    assert tuned == [text]
