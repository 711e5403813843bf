"""Results from the output pool (runtime/output_pool.py) and into out= arrays (out_arrays.py).

A result is never memory another live array uses; freed results (and all their
views) are handed out again, so a warm call first-touches no fresh page; out=
is checked with located errors and gives the same values as a plain call, also
when it overlaps an input.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import threading

import ml_dtypes
import numpy as np
import pytest

import strata
from strata.runtime import output_pool
from strata.runtime.output_pool import MIN_BYTES, OutputPool, pool_cap, result_maker

HERE = os.path.basename(__file__)
BIG = (256, 512)  # 512 KiB of f32: pooled


def _softmax(x):
    return strata.softmax(x, axis=-1)


def _softmax_ref(x):
    e = np.exp(x.astype(np.float64) - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _x(shape=BIG, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _root(a):
    """What owns ``a``'s memory at the end of its chain of bases."""
    while isinstance(a, np.ndarray) and a.base is not None:
        a = a.base
    return a


def _addr(a) -> int:
    return a.__array_interface__["data"][0]


# -- the pool ------------------------------------------------------------------------------

def test_large_results_come_from_the_pool_small_ones_do_not():
    f = strata.jit(lambda x: x * 2.0 + 1.0)
    big = f(_x())
    assert isinstance(big.base, output_pool._Owner)
    assert big.flags.writeable and big.flags.c_contiguous and big.flags.owndata is False
    assert _addr(big) % output_pool.ALIGNMENT == 0
    small = f(_x((4, 8)))
    assert small.base is None  # below MIN_BYTES: np.empty, nothing to recycle
    np.testing.assert_allclose(big, _x() * 2 + 1, rtol=1e-6)


def test_live_results_are_distinct_and_correct_then_reused_once_freed():
    f = strata.jit(_softmax)
    xs = [_x(seed=i) for i in range(6)]
    f(xs[0])  # compile
    gc.collect()
    results = [f(x) for x in xs]
    addresses = {_addr(r) for r in results}
    assert len(addresses) == len(results)  # no two live results share memory
    for x, r in zip(xs, results, strict=True):
        np.testing.assert_allclose(r, _softmax_ref(x), rtol=1e-5, atol=1e-7)
    pool = output_pool.process_pool()
    reused = pool.reused
    del results, r
    again = [f(x) for x in xs]
    assert {_addr(r) for r in again} <= addresses  # the freed buffers, handed out again
    assert pool.reused >= reused + len(xs)
    for x, r in zip(xs, again, strict=True):
        np.testing.assert_allclose(r, _softmax_ref(x), rtol=1e-5, atol=1e-7)


def test_a_view_keeps_the_buffer_from_the_pool():
    f = strata.jit(lambda x: x + 1.0)
    x = _x()
    first = f(x)
    view = first[3:].T  # only the view is left: its memory must stay its own
    expected = view.copy()
    del first
    gc.collect()
    later = [f(x * 3) for _ in range(3)]
    assert all(not np.may_share_memory(view, r) for r in later)
    np.testing.assert_array_equal(view, expected)


def test_bf16_and_bool_results_are_pooled_with_their_dtype():
    f = strata.jit(lambda x: (x * 2.0, x > 0.0))
    x = _x((512, 512)).astype(ml_dtypes.bfloat16)
    y, mask = f(x)
    assert y.dtype == np.dtype(ml_dtypes.bfloat16) and y.shape == x.shape
    assert mask.dtype == np.bool_ and mask.shape == x.shape
    assert isinstance(_root(y), output_pool._Owner) and isinstance(_root(mask),
                                                                   output_pool._Owner)
    np.testing.assert_array_equal(y.astype(np.float32), x.astype(np.float32) * 2)
    np.testing.assert_array_equal(mask, x.astype(np.float32) > 0)


def test_idle_bytes_stay_under_the_cap_least_recently_used_size_first():
    pool = OutputPool(cap=3 * MIN_BYTES)
    make_a = result_maker((MIN_BYTES // 4,), np.float32, pool)  # MIN_BYTES each
    make_b = result_maker((MIN_BYTES // 2,), np.float32, pool)  # 2 * MIN_BYTES each
    a = [make_a() for _ in range(3)]
    b = make_b()
    del a
    assert pool.idle_bytes == 3 * MIN_BYTES
    del b  # files 2 * MIN_BYTES: two of the older size go
    assert pool.idle_bytes == 3 * MIN_BYTES
    assert sorted(pool._free) == [MIN_BYTES, 2 * MIN_BYTES]
    too_big = result_maker((MIN_BYTES,), np.float32, pool)  # 4 * MIN_BYTES > cap
    assert too_big().base is None
    pool.clear()
    assert pool.idle_bytes == 0


def test_an_owner_dying_while_the_pool_is_busy_is_filed_later():
    pool = OutputPool(cap=1 << 30)
    make = result_maker((MIN_BYTES,), np.uint8, pool)
    r = make()
    with pool._lock:  # another thread inside take(), or a collection during it
        del r
        assert pool.idle_bytes == 0 and len(pool._queued) == 1
    make()
    assert pool.reused == 1 and not pool._queued


@pytest.mark.parametrize("text,cap", [("", 1 << 30), ("0", 0), ("4096", 4096),
                                       ("64M", 64 << 20), ("2GiB", 2 << 30), ("1k", 1024)])
def test_the_cap_knob(text, cap):
    assert pool_cap(text) == cap


def test_a_bad_cap_knob_is_a_clear_error():
    with pytest.raises(strata.StrataError, match="STRATA_OUTPUT_POOL_BYTES must be a number"):
        pool_cap("lots")


def test_cap_zero_turns_the_pool_off():
    assert result_maker(BIG, np.float32, OutputPool(cap=0))().base is None


def test_results_stay_distinct_and_correct_from_eight_threads():
    f = strata.jit(_softmax)
    f(_x())
    wrong, errors, kept = [], [], {}

    def worker(t):
        try:
            mine = []
            for i in range(12):
                x = _x(seed=100 * t + i)
                r = f(x)
                if not np.allclose(r, _softmax_ref(x), rtol=1e-5, atol=1e-7):
                    wrong.append((t, i))
                if i % 3 == 0:
                    mine.append((x, r))  # some results stay alive, the rest go back
            kept[t] = mine
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert not errors and not wrong
    alive = [pair for mine in kept.values() for pair in mine]
    assert len({_addr(r) for _, r in alive}) == len(alive)
    for x, r in alive:  # nothing written over a kept result after it was returned
        np.testing.assert_allclose(r, _softmax_ref(x), rtol=1e-5, atol=1e-7)


FAULTS = """
import resource, numpy as np, strata
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
f = strata.jit(lambda x: strata.softmax(x, axis=-1) * 2.0, threads={threads})
x = np.random.default_rng(0).standard_normal((2048, 2048)).astype(np.float32)
out = np.empty_like(x)
y = f(x); y = f(x); f(x, out=out)  # warm: compiled, two results' buffers made
before = faults()
for _ in range(10):
    y = f(x)                        # the previous result lives while the next is made
pooled = faults() - before
before = faults()
for _ in range(10):
    f(x, out=out)
into = faults() - before
print(pooled, into)
"""


@pytest.mark.parametrize("threads", [1, 2])
def test_warm_calls_fault_in_no_fresh_pages(threads):
    # a count, not a timing: 16 MiB results would fault in >= 4096 pages (or 8 huge
    # pages) per call if each were fresh memory
    p = subprocess.run([sys.executable, "-c", FAULTS.format(threads=threads)],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    pooled, into = map(int, p.stdout.split())
    assert (pooled, into) == (0, 0), p.stdout


# -- out= ----------------------------------------------------------------------------------

def test_out_gets_the_result_and_is_returned():
    f = strata.jit(_softmax)
    x = _x()
    out = np.empty_like(x)
    assert f(x, out=out) is out
    np.testing.assert_allclose(out, _softmax_ref(x), rtol=1e-5, atol=1e-7)
    small = np.empty((3, 5), np.float32)
    assert f(x[:3, :5].copy(), out=small) is small
    np.testing.assert_allclose(small, _softmax_ref(x[:3, :5]), rtol=1e-5, atol=1e-7)


def test_out_tuple_for_several_results_and_compiled_programs():
    def two(x, w):
        y = strata.relu(x @ w)
        return y, y.sum(axis=1)

    x, w = _x((33, 17)), _x((17, 9), seed=1)
    y, s = np.empty((33, 9), np.float32), np.empty(33, np.float32)
    ry, rs = strata.jit(two)(x, w, out=(y, s))
    assert ry is y and rs is s
    ref = np.maximum(x.astype(np.float64) @ w, 0)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(s, ref.sum(1), rtol=1e-5, atol=1e-4)
    prog = strata.compile(two, x, w)
    y2, s2 = np.empty_like(y), np.empty_like(s)
    prog(x, w, out=[y2, s2])
    np.testing.assert_array_equal(y2, y)
    np.testing.assert_array_equal(s2, s)


def test_out_with_a_dynamic_variant():
    f = strata.jit(lambda x: x * 3.0, dynamic={"x": [0]})
    for n in (5, 300, 7):
        x = _x((n, 600))
        out = np.empty_like(x)
        assert f(x, out=out) is out
        np.testing.assert_allclose(out, x * 3, rtol=1e-6)
        np.testing.assert_allclose(f(x), x * 3, rtol=1e-6)


@pytest.mark.parametrize("fn,ref", [
    (lambda a, b: a @ b, lambda a, b: a.astype(np.float64) @ b),
    (lambda a, b: strata.softmax(a, axis=-1) + b, lambda a, b: _softmax_ref(a) + b),
])
def test_out_overlapping_an_input_gives_the_same_values(fn, ref):
    f = strata.jit(fn)
    a, b = _x((64, 64)), _x((64, 64), seed=1)
    expected = ref(a, b)
    got = f(a, b, out=a)  # written through a temporary, then copied into a
    assert got is a
    np.testing.assert_allclose(a, expected, rtol=1e-4, atol=1e-4)


def _bad_outs():
    x = np.empty(BIG, np.float32)
    misaligned = np.frombuffer(np.empty(x.nbytes + 1, np.uint8)[1:].data, np.float32)
    return [
        ("wrong-shape", np.empty((2, 2), np.float32), r"out expects tensor<256x512xf32>, got "
                                                      r"shape \(2, 2\)"),
        ("wrong-dtype", np.empty(BIG, np.float64), "out expects tensor<256x512xf32>, got a "
                                                   "float64 array"),
        ("byte-order", np.empty(BIG, ">f4"), "non-native byte order"),
        ("strided", np.empty((256, 1024), np.float32)[:, ::2], "must be C-contiguous"),
        ("read-only", np.frombuffer(bytes(x.nbytes), np.float32).reshape(BIG), "read-only"),
        ("misaligned", misaligned.reshape(BIG), "not aligned to its dtype"),
        ("not-an-array", [[0.0]], "out must be a numpy array of type tensor<256x512xf32>, "
                                  "got list"),
        ("too-many", (x, x.copy()), r"out= needs 1 array \(one per result\), got 2"),
    ]


@pytest.mark.parametrize("case", _bad_outs(), ids=lambda c: c[0])
def test_bad_out_is_a_located_error(case):
    _, out, message = case
    f = strata.jit(_softmax)
    with pytest.raises(strata.StrataError, match=message) as e:
        f(_x(), out=out)
    assert str(e.value).startswith(f"{HERE}:") or f"/{HERE}:" in str(e.value).split(": ")[0]
    assert "error:" in str(e.value)


def test_out_arrays_may_not_overlap_each_other():
    f = strata.jit(lambda x: (x + 1.0, x * 2.0))
    x = _x((8, 8))
    both = np.empty((8, 8), np.float32)
    with pytest.raises(strata.StrataError, match=r"out\[1\] overlaps out\[0\]"):
        f(x, out=(both, both))
    with pytest.raises(strata.StrataError, match=r"out= needs a tuple of 2 arrays"):
        f(x, out=both)


SUBPROCESS_ERROR = """
import numpy as np, strata
f = strata.jit(lambda x: x + 1.0)
f(np.ones(4, np.float32), out=np.ones(5, np.float32))
"""


def test_a_bad_out_from_a_script_names_the_script_line(tmp_path):
    script = tmp_path / "user.py"
    script.write_text(textwrap.dedent(SUBPROCESS_ERROR))
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode != 0
    assert f"{script}:4:" in p.stderr and "out expects tensor<4xf32>" in p.stderr, p.stderr


EXIT = """
import threading, numpy as np, strata
f = strata.jit(lambda x: x * 2.0)
kept = [f(np.ones((512, 512), np.float32)) for _ in range(3)]
views = [k[1:] for k in kept]
threading.Thread(target=lambda: kept.append(f(np.ones((512, 512), np.float32)))).start()
"""


def test_results_alive_at_interpreter_exit_are_no_trouble():
    p = subprocess.run([sys.executable, "-c", EXIT], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0 and not p.stderr.strip(), p.stderr[-3000:]


def test_the_alignment_results_promise_matches_what_the_pool_gives():
    make = result_maker((MIN_BYTES // 4 + 3,), np.float32, OutputPool(cap=1 << 30))
    assert all(_addr(make()) % output_pool.ALIGNMENT == 0 for _ in range(4))


def test_pooled_results_start_on_a_page():
    # a numpy input of that size starts 16 bytes into a page; a result a line or two
    # further in would 4K-alias with it (output_pool's docstring)
    pool = OutputPool(cap=1 << 30)
    make = result_maker((MIN_BYTES // 4 + 3,), np.float32, pool)
    results = [make() for _ in range(3)]  # three fresh buffers, then reused ones
    del results
    assert pool.allocated == 3
    assert all(_addr(make()) % output_pool.PLACEMENT == 0 for _ in range(3))
    assert pool.reused == 3


def test_out_with_shape_buckets_gets_the_sliced_result():
    f = strata.jit(lambda x: x * 3.0, buckets={"x": {0: "pow2"}})
    x = _x((5, 40))
    out = np.empty_like(x)
    assert f(x, out=out) is out
    np.testing.assert_allclose(out, x * 3, rtol=1e-6)
    with pytest.raises(strata.StrataError, match="out expects tensor<5x40xf32>"):
        f(x, out=np.empty((8, 40), np.float32))
