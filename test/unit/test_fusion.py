"""strata-fuse end to end: the same numbers with fusion on, off and measured.

Each model runs through ``strata.jit`` three times (``fusion=True``, ``False`` and
``"measure"``) and is compared with a float64 numpy reference. The measured
compile's report (``stats.fusion_report``) is checked against the cost model's
own candidates (the ``fusion=True`` report): one ``strata-fuse measure:`` line
per candidate, and the final compile's remarks agree with what was measured.
Matmuls stay generated code (``blas="never"``; the BLAS choice: test_blas.py).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import strata
from strata.codegen import host
from strata.testing import assert_close

MODES = [True, False, "measure"]
_REMARK = re.compile(r"remark: strata-fuse: \[([0-9a-f]+)\] (fused|not fusing|tiled) ")
_MEASURE = re.compile(
    r"^strata-fuse measure: \[([0-9a-f]+)\] predicted (fuse|no fusion); "
    r"measured fused (\d+\.\d) us, unfused (\d+\.\d) us -> (fuse|no fusion)"
    r"( \(cost model overruled\))?$")


def f64(a):
    return np.asarray(a).astype(np.float64)


def rand(rng, shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


# -- the models (module level, so every mode traces the same source locations) -----


def mlp(x, w1, b1, w2, b2):
    h = strata.relu(x @ w1 + b1)
    return h @ w2 + b2


def chain(x, s, b, r, v):
    e = strata.exp(v)                      # a 64-vector exp broadcast over 32 rows: not fused
    y = strata.relu((x * s + b) - r) + e   # add, mul, sub, relu with three broadcasts
    t = strata.exp(x)                      # exp with two users: computed once
    return y * t, t - y


def softmax(x):
    return strata.softmax(x)


def layer_norm(x, scale, bias):
    return strata.layer_norm(x, scale, bias)


def conv_bias_relu(x, w, b):
    return strata.relu(strata.conv2d(x, w, padding=1) + b)


# -- float64 references ------------------------------------------------------------


def softmax_ref(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def layer_norm_ref(a, scale, bias, eps=1e-5):
    mu = a.mean(axis=-1, keepdims=True)
    var = ((a - mu) ** 2).mean(axis=-1, keepdims=True)
    return (a - mu) / np.sqrt(var + eps) * scale + bias


def conv_ref(x, w):
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, f, h, wd))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nchw,fc->nfhw", xp[:, :, i:i + h, j:j + wd], w[:, :, i, j])
    return out


# -- the cases: (fn, args, check(results, args)) -------------------------------------


def _mlp_case(rng):
    x, w1, b1 = rand(rng, (64, 128)), rand(rng, (128, 256)), rand(rng, (256,))
    w2, b2 = rand(rng, (256, 64)), rand(rng, (64,))

    def check(y, what):
        h = np.maximum(f64(x) @ f64(w1) + f64(b1), 0.0)
        hm = np.abs(f64(x)) @ np.abs(f64(w1)) + np.abs(f64(b1))
        ref = h @ f64(w2) + f64(b2)
        mag = hm @ np.abs(f64(w2)) + np.abs(f64(b2))
        assert_close(y, ref, "f32", reduction_length=128 + 256, ops=3, magnitude=mag, what=what)

    return mlp, (x, w1, b1, w2, b2), check


def _chain_case(rng):
    x, s, b = rand(rng, (32, 64)), rand(rng, (64,)), rand(rng, (1, 64))
    r, v = rand(rng, (32, 1)), rand(rng, (64,))

    def check(out, what):
        y = np.maximum((f64(x) * f64(s) + f64(b)) - f64(r), 0.0) + np.exp(f64(v))
        t = np.exp(f64(x))
        assert_close(out[0], y * t, "f32", ops=8, what=what + " y*t")
        assert_close(out[1], t - y, "f32", ops=8, what=what + " t-y")

    return chain, (x, s, b, r, v), check


def _softmax_case(rng):
    x = rand(rng, (32, 100), -4.0, 4.0)

    def check(y, what):
        assert_close(y, softmax_ref(f64(x)), "f32", reduction_length=100, ops=4, what=what)

    return softmax, (x,), check


def _layer_norm_case(rng):
    x, scale, bias = rand(rng, (32, 96), -3.0, 3.0), rand(rng, (96,)), rand(rng, (96,))

    def check(y, what):
        ref = layer_norm_ref(f64(x), f64(scale), f64(bias))
        mag = np.abs(layer_norm_ref(f64(x), 1.0, 0.0) * f64(scale)) + np.abs(f64(bias)) + 1.0
        assert_close(y, ref, "f32", reduction_length=96, ops=8, magnitude=mag, what=what)

    return layer_norm, (x, scale, bias), check


def _conv_case(rng):
    x, w, b = rand(rng, (2, 3, 16, 16)), rand(rng, (8, 3, 3, 3)), rand(rng, (1, 8, 1, 1))

    def check(y, what):
        ref = np.maximum(conv_ref(f64(x), f64(w)) + f64(b), 0.0)
        mag = conv_ref(np.abs(f64(x)), np.abs(f64(w))) + np.abs(f64(b))
        assert_close(y, ref, "f32", reduction_length=27, ops=2, magnitude=mag, what=what)

    return conv_bias_relu, (x, w, b), check


CASES = {"mlp": _mlp_case, "chain": _chain_case, "softmax": _softmax_case,
         "layer_norm": _layer_norm_case, "conv_bias_relu": _conv_case}


def _keys(report, pattern=_REMARK):
    return [m.group(1) for line in report for m in [pattern.search(line)] if m]


@pytest.mark.parametrize("name", list(CASES))
def test_fusion_modes_agree_with_numpy(name):
    fn, args, check = CASES[name](np.random.default_rng(sorted(CASES).index(name)))
    reports = {}
    for mode in MODES:
        jitted = strata.jit(fn, fusion=mode, blas="never")
        check(jitted(*args), f"{name} fusion={mode}")
        assert jitted.stats.compiles == 1
        reports[mode] = list(jitted.stats.fusion_report)

    # fusion=False runs no strata-fuse: nothing to report but strata-conv-to-matmul's
    # choice (a kernel strategy, made with fusion on or off).
    for mode in reports:
        reports[mode] = [r for r in reports[mode] if "strata-conv-to-matmul:" not in r]
    assert reports[False] == []
    # fusion=True: the cost model's remarks, and no measurements.
    assert not any(line.startswith("strata-fuse measure:") for line in reports[True])
    candidates = _keys(reports[True])
    assert len(candidates) == len(set(candidates)), reports[True]

    # fusion="measure": the final remarks first, then one measure line per candidate.
    report = reports["measure"]
    remarks = [line for line in report if not line.startswith("strata-fuse measure:")]
    measured = [line for line in report if line.startswith("strata-fuse measure:")]
    assert report == remarks + measured, report
    assert all(": remark: strata-fuse: " in line for line in remarks), remarks
    assert len(measured) == len(candidates), report
    decided = {}
    for line in measured:
        m = _MEASURE.match(line)
        assert m, line
        key, predicted, _fused_us, _unfused_us, chosen, overruled = m.groups()
        assert key not in decided, f"{key} measured twice: {report}"
        decided[key] = chosen
        assert (predicted != chosen) == bool(overruled), line
        # The prediction is the cost model's own decision for that candidate.
        base = next(r for r in reports[True] if f"[{key}]" in r)
        assert (predicted == "fuse") == (" not fusing " not in base), (line, base)
    assert set(decided) == set(candidates), (decided, candidates)
    # The final compile did what was measured: a decided key in its remarks is
    # fused/tiled exactly when the measurement said fuse.
    final = {m.group(1): m.group(2) for line in remarks for m in [_REMARK.search(line)] if m}
    for key, chosen in decided.items():
        if key in final:
            assert (final[key] != "not fusing") == (chosen == "fuse"), (key, chosen, remarks)
    overruled = [_MEASURE.match(line).group(1) for line in measured
                 if line.endswith("(cost model overruled)")]
    if not overruled:
        # Nothing flipped: the final compile is the cost model's, candidate for candidate.
        assert set(final) == set(decided), (final, decided)
    else:
        # Everything before the first flipped candidate is as in the baseline, so that
        # flip reaches the final compile under its key. (A flip can rename later
        # candidates, e.g. an epilogue whose consumer is no longer fused: those keys
        # are not checked.)
        first = overruled[0]
        assert first in final, (first, remarks)
        assert any(f"[{first}]" in r and "by the measured decision" in r for r in remarks), \
            (first, remarks)


def test_fusion_report_names_the_rules():
    """The cost model's decisions on the chain model, as the remarks say them."""
    fn, args, _ = _chain_case(np.random.default_rng(0))
    jitted = strata.jit(fn, fusion=True, blas="never")
    jitted(*args)
    report = "\n".join(jitted.stats.fusion_report)
    assert "broadcasts into a 32x larger iteration space" in report, report
    assert "2 users; recomputing costs" in report, report
    assert re.search(r"\] fused linalg\.generic at .*test_fusion\.py:\d+:\d+ into linalg\.generic "
                     r"at .*test_fusion\.py:\d+:\d+: single use", report), report


def test_fusion_report_conv_and_matmul_epilogues_are_tiled():
    for make in (_mlp_case, _conv_case):
        fn, args, _ = make(np.random.default_rng(1))
        jitted = strata.jit(fn, fusion=True, blas="never")
        jitted(*args)
        report = "\n".join(jitted.stats.fusion_report)
        assert re.search(r"\] tiled linalg\.generic at \S+ by \[[\d, ]+\] with "
                         r"linalg\.(matmul|batch_matmul|conv_2d_\w+) at ", report), report


@pytest.mark.parametrize("features", [
    "native", pytest.param("avx2", marks=pytest.mark.skipif(
        "avx2" not in host.host_flags().split(), reason="no AVX2"))])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(1, 192, 640, 515), (2, 192, 640, 515), (1, 192, 1024, 300),
                                   (1, 130, 600, 515)])
def test_packed_matmul_with_its_epilogue_after_it(monkeypatch, shape, threads, features):
    """Large matmuls with an epilogue: the cost model keeps strata-vectorize's packed panels
    (M and N whole panels for both vector widths, odd K) and runs bias + relu + residual as
    their own loop; with partial panels (130 x 600) the epilogue is tiled in."""
    if features == "avx2":
        monkeypatch.setenv("STRATA_CPU_FEATURES", "avx2")
    batch, m, n, k = shape
    rng = np.random.default_rng(m + n)
    lead = (batch,) if batch > 1 else ()
    x, w = rand(rng, lead + (m, k)), rand(rng, lead + (k, n))
    b, r = rand(rng, (n,)), rand(rng, lead + (m, n))
    jitted = strata.jit(lambda x, w, b, r: strata.relu(x @ w + b) + r, blas="never",
                        threads=threads)
    y = jitted(x, w, b, r)
    ref = np.maximum(f64(x) @ f64(w) + f64(b), 0.0) + f64(r)
    # the scale of the sum's terms, not of the result (relu and the residual shrink it)
    mag = np.abs(f64(x)) @ np.abs(f64(w)) + np.abs(f64(b)) + np.abs(f64(r))
    assert_close(y, ref, reduction_length=k, ops=3, magnitude=mag,
                 what=f"{shape} threads={threads}")
    report = "\n".join(jitted.stats.fusion_report)
    unfused = re.search(r"not tiling linalg\.generic at \S+ with linalg\.(batch_)?matmul at "
                        r"\S+: the matmul runs on packed panels", report)
    if m % 192:
        assert not unfused and " tiled linalg.generic" in report, report
    else:
        assert unfused and " tiled linalg.generic" not in report, report
