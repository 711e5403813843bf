"""strata.serve: a compiled function on Ray Serve, requests batched along a dynamic dim.

The request checks run without Ray. The rest starts Serve on a local ``ray.init(num_cpus=2)``
(skipped without ``ray[serve]``: ``pip install 'strata[cluster]'``): concurrent requests
through a DeploymentHandle and over HTTP on loopback, each answer checked against a
float64 numpy reference; requests really batched; bad requests answered with a
StrataError while the replica keeps serving; a replica killed during a load run loses
no request (``strata.serve.call`` sends a request again when its replica was lost, and
Serve starts a new replica, which loads the compiled function from the disk cache).
"""

import json
import os
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import serve_models as models

import strata
from strata.runtime import aot
from strata.serve.requests import RequestSpec, join, split

HERE = os.path.dirname(os.path.abspath(__file__))
RNG = np.random.default_rng(1)
W = models.weights()
X_EXAMPLE = np.zeros((2, models.D_IN), np.float32)


def _close(got, want):
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


# --- request checks (no Ray) ---------------------------------------------------------

SPEC = RequestSpec.from_examples(["x", "m"], [np.zeros((3, 4), np.float32),
                                              np.zeros((3, 5), np.float16)], batch_dim=0)


def test_a_request_with_and_without_the_batch_dim():
    x, m = np.ones((2, 4), np.float32), np.ones((2, 5), np.float16)
    (cx, cm), single = SPEC.check((x, m))
    assert not single and cx.shape == (2, 4) and cm.shape == (2, 5)
    (cx, cm), single = SPEC.check((x[0], m[0]))
    assert single and cx.shape == (1, 4)


@pytest.mark.parametrize("arrays,message", [
    ((np.ones((2, 4), np.float64), np.ones((2, 5), np.float16)),
     "input 'x' has dtype float64, expected (n, 4) float32"),
    ((np.ones((2, 3), np.float32), np.ones((2, 5), np.float16)),
     "input 'x' has shape (2, 3), expected (n, 4) float32 or one example (4,)"),
    ((np.ones((2, 4), np.float32),), "a request takes 2 array(s) (x, m), got 1"),
    ((np.ones((2, 4), np.float32), np.ones((3, 5), np.float16)),
     "must carry the same rows (input 'm' has 3, 'x' 2)"),
    ((np.ones((0, 4), np.float32), np.ones((0, 5), np.float16)), "has 0 rows"),
    (([1.0] * 4, np.ones((2, 5), np.float16)), "input 'x' must be a numpy array, got list"),
])
def test_a_bad_request_is_told_why(arrays, message):
    with pytest.raises(strata.StrataError, match="^<request>: error: serve: ") as e:
        SPEC.check(arrays)
    assert message in str(e.value)


def test_json_numbers_are_cast_and_checked():
    (cx, cm), single = SPEC.check(([[1, 2, 3, 4]], [[0.5] * 5]), convert=True)
    assert cx.dtype == np.float32 and cm.dtype == np.float16 and not single
    with pytest.raises(strata.StrataError, match="'x': not an array of numbers"):
        SPEC.check((["a", "b", "c", "d"], [0.5] * 5), convert=True)


def test_join_and_split_follow_each_results_batch_axis():
    reqs = [(np.full((n, 2), i, np.float32),) for i, n in enumerate([1, 3, 2])]
    (joined,), counts = join(reqs, 0)
    assert counts == [1, 3, 2] and joined.shape == (6, 2)
    parts = split((joined, joined.T), counts, [0, 1])
    for i, (n, (a, b)) in enumerate(zip(counts, parts, strict=True)):
        assert a.shape == (n, 2) and b.shape == (2, n) and (a == i).all() and (b == i).all()


def test_without_ray_deployment_says_what_to_install(monkeypatch):
    import strata.serve as sserve

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(strata.StrataError, match=r"pip install 'strata\[cluster\]'"):
        sserve.deployment(models.mlp, X_EXAMPLE, constants=W)


# --- on Ray Serve ----------------------------------------------------------------------

def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster():
    ray = pytest.importorskip("ray", reason="no Ray (pip install 'strata[cluster]')")
    serve = pytest.importorskip("ray.serve", reason="no Ray Serve (pip install "
                                "'strata[cluster]')")
    if not aot.available():
        pytest.skip("no C compiler driver (cc)")
    import strata.serve as sserve

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": HERE}})
    port = _free_port()
    serve.start(http_options={"host": "127.0.0.1", "port": port})
    app = sserve.deployment(models.mlp, X_EXAMPLE, constants=W, max_batch_size=16,
                            batch_wait_timeout_s=0.02, num_replicas=2,
                            ray_actor_options={"num_cpus": 0.5})
    handle = serve.run(app, name="mlp", route_prefix="/mlp")
    yield {"ray": ray, "serve": serve, "sserve": sserve, "handle": handle,
           "url": f"http://127.0.0.1:{port}"}
    serve.shutdown()
    ray.shutdown()


def _replica_stats(c, tries=12):
    """Stats per replica pid (asked several times: each call reaches one replica)."""
    out = {}
    for _ in range(tries):
        s = c["sserve"].call(c["handle"], method="stats")
        out[s["pid"]] = s
    return out


def _stats_of_every_replica(c, n=2, timeout_s=60):
    """Stats of all ``n`` replicas: the router may send a dozen calls in a row to one of
    them, so ask again until ``n`` pids answered (or the deadline passes)."""
    out = {}
    deadline = time.monotonic() + timeout_s
    while len(out) < n and time.monotonic() < deadline:
        out.update(_replica_stats(c))
    return out


def _request(i):
    n = int(RNG.integers(1, 6)) if i % 4 else 0  # every 4th: one example, no batch dim
    shape = (n, models.D_IN) if n else (models.D_IN,)
    return RNG.standard_normal(shape).astype(np.float32)


def test_concurrent_requests_are_answered_right(cluster):
    xs = [_request(i) for i in range(48)]
    with ThreadPoolExecutor(8) as pool:
        ys = list(pool.map(lambda x: cluster["sserve"].call(cluster["handle"], x), xs))
    for x, y in zip(xs, ys, strict=True):
        assert y.shape == x.shape[:-1] + (models.D_OUT,) and y.dtype == np.float32
        _close(y, models.np_mlp(x, *W))


def test_concurrent_requests_are_batched(cluster):
    xs = [RNG.standard_normal((2, models.D_IN)).astype(np.float32) for _ in range(32)]
    responses = [cluster["handle"].remote(x) for x in xs]  # all in flight at once
    for x, r in zip(xs, responses, strict=True):
        _close(r.result(timeout_s=60), models.np_mlp(x, *W))
    stats = _replica_stats(cluster)
    sizes = {size for s in stats.values() for size in s["batch_sizes"]}
    assert max(sizes) > 1, stats
    for s in stats.values():
        assert s["rows"] >= s["requests"] >= s["batches"]


def test_a_bad_request_gets_an_error_and_the_replica_keeps_serving(cluster):
    call, handle = cluster["sserve"].call, cluster["handle"]
    before = set(_stats_of_every_replica(cluster))
    bad = [(np.ones((2, models.D_IN)), "has dtype float64, expected (n, 16) float32"),
           (np.ones((2, 17), np.float32), "has shape (2, 17), expected (n, 16) float32"),
           (np.ones((1, 2, models.D_IN), np.float32), "has shape (1, 2, 16)")]
    for x, message in bad:
        with pytest.raises(strata.StrataError) as e:
            call(handle, x)
        assert message in str(e.value) and "<request>: error: serve:" in str(e.value)
    with pytest.raises(strata.StrataError, match="takes 1 array"):
        call(handle, X_EXAMPLE, X_EXAMPLE)
    x = _request(1)
    _close(call(handle, x), models.np_mlp(x, *W))
    after = _replica_stats(cluster)
    assert set(after) <= before, "a replica was restarted"
    assert sum(s["errors"] for s in after.values()) >= 1


def _post(url, body: bytes):
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_http_on_loopback(cluster):
    url = cluster["url"] + "/mlp"
    xs = [_request(i) for i in range(8)]
    with ThreadPoolExecutor(4) as pool:
        replies = list(pool.map(
            lambda x: _post(url, json.dumps({"inputs": [x.tolist()]}).encode()), xs))
    for x, (status, body) in zip(xs, replies, strict=True):
        assert status == 200, body
        _close(np.array(body["outputs"][0], np.float32), models.np_mlp(x, *W))
    status, body = _post(url, json.dumps({"inputs": [[1.0] * 5]}).encode())
    assert status == 400 and "has shape (5,), expected (n, 16) float32" in body["error"]
    status, body = _post(url, b"{not json")
    assert status == 400 and "not JSON" in body["error"]


def test_two_inputs_two_results_with_their_own_batch_axes(cluster):
    serve, sserve = cluster["serve"], cluster["sserve"]
    w = RNG.standard_normal((6, 5)).astype(np.float32)
    ex = (np.zeros((2, 6), np.float32), np.zeros((2, 5), np.float32))
    app = sserve.deployment(models.two_heads, ex, constants=(w,), max_batch_size=8,
                            ray_actor_options={"num_cpus": 0.5}, name="two")
    handle = serve.run(app, name="two", route_prefix="/two")
    try:
        reqs = [(RNG.standard_normal((n, 6)).astype(np.float32),
                 RNG.standard_normal((n, 5)).astype(np.float32)) for n in (1, 3, 2, 5)]
        reqs.append((reqs[0][0][0], reqs[0][1][0]))  # one example
        with ThreadPoolExecutor(5) as pool:
            outs = list(pool.map(lambda r: sserve.call(handle, *r), reqs))
        for (x, m), (sm, t) in zip(reqs, outs, strict=True):
            want_sm, want_t = models.np_two_heads(x, m, w)
            _close(sm, want_sm)
            _close(t, want_t)
    finally:
        serve.delete("two")


def test_a_function_that_mixes_rows_is_refused(cluster):
    with pytest.raises(strata.StrataError, match="batching requests along dim 0 could change"):
        cluster["sserve"].deployment(models.column_sum, X_EXAMPLE)


def _replica_names(ray):
    return [a["name"] for a in ray.util.list_named_actors(all_namespaces=True)
            if a["name"].startswith("SERVE_REPLICA::mlp#")]


def _load_with_a_kill(ray, sserve, handle):
    """16 clients send 320 requests; one replica is killed once they are running.
    Returns the number of requests sent again; asserts every answer is right."""
    xs = [_request(i) for i in range(320)]
    results = [None] * len(xs)
    started = threading.Event()
    errors = []

    def client(k):  # 16 clients: each replica has requests in flight
        for i in range(k, len(xs), 16):
            try:
                results[i] = sserve.call(handle, xs[i], timeout_s=90)
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(f"request {i}: {type(e).__mro__}: {e}")
            started.set()

    retries = sserve.RETRIES["count"]
    threads = [threading.Thread(target=client, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    started.wait(60)
    ray.kill(ray.get_actor(_replica_names(ray)[0], namespace="serve"), no_restart=True)
    for t in threads:
        t.join(120)
    assert errors == []
    for x, y in zip(xs, results, strict=True):
        assert y is not None
        _close(y, models.np_mlp(x, *W))
    return sserve.RETRIES["count"] - retries


def test_a_replica_killed_under_load_loses_no_request(cluster):
    ray, sserve, handle = cluster["ray"], cluster["sserve"], cluster["handle"]
    # every replica that was up before the kills: one left out would be taken for a
    # replacement below (it compiled the function itself, so it had no cache hit)
    before = _stats_of_every_replica(cluster)
    assert len(before) == 2, before
    # A request the killed replica was running fails, and `call` sends it again. Whether
    # a kill finds one running there is timing (some kills here found none, three in a
    # row once), so kill again (up to 6 times) until `call` had to send one again.
    # Each kill waits until both replicas answer requests: a replacement actor is listed
    # before the router sends it any, and a kill of that one finds nothing running. On
    # fresh CI machines six kills in a row still found none (twice in five runs): then
    # every answer was still checked right, the replacement below is still checked, and
    # the test is skipped as not having exercised the resend (which
    # test_a_lost_replica_error_is_resent covers on its own).
    resent = False
    for _ in range(6):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (
                len(_replica_names(ray)) == 2 and len(_replica_stats(cluster)) == 2):
            time.sleep(0.2)  # the replacement of the last kill is up and routed to
        assert len(_replica_names(ray)) == 2, _replica_names(ray)
        if _load_with_a_kill(ray, sserve, handle):
            resent = True
            break
    deadline = time.monotonic() + 60  # Serve starts a replacement
    while time.monotonic() < deadline:
        after = _replica_stats(cluster)
        new = set(after) - set(before)
        if new:
            break
        time.sleep(0.5)
    assert new, "no replacement replica"
    # the replacement loaded the function the first replicas compiled (one disk cache)
    assert all(after[p]["cache_hits"] >= 1 for p in new), after
    if not resent:
        pytest.skip("6 kills found no request running on the killed replica: no answer "
                    "was lost or wrong, but call() never had to send one again")


def test_a_lost_replica_error_is_resent():
    """The errors of a lost replica are sent again (counted), until the deadline; any other
    error is raised as it is."""
    exceptions = pytest.importorskip("ray.exceptions")
    from strata.serve import RETRIES, _resend_or_raise

    before = RETRIES["count"]
    far = time.monotonic() + 60
    assert _resend_or_raise(exceptions.ActorDiedError(), far, 0.25) == 0.25
    assert _resend_or_raise(exceptions.ActorUnavailableError("gone", None), far, 0.5) == 0.5
    assert RETRIES["count"] == before + 2
    with pytest.raises(exceptions.ActorDiedError):  # the deadline would pass
        _resend_or_raise(exceptions.ActorDiedError(), time.monotonic() + 0.1, 1.0)
    with pytest.raises(ValueError, match="not a lost replica"):
        _resend_or_raise(ValueError("not a lost replica"), far, 0.25)
    assert RETRIES["count"] == before + 2
