"""The shared compile cache on Redis (runtime/remote_cache.py): processes with empty local
caches compile once between them; down, slow, corrupted and foreign entries never fail.

Each test starts its own redis-server on a free loopback port in a temp folder; they skip
without the binary (Debian's redis-server) or the client (``pip install strata[cluster]``).
Every compile runs in a child process with its own local cache folder, as a fleet would.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

from strata.runtime import aot, remote_cache

pytestmark = pytest.mark.skipif(not aot.available(), reason="no C compiler driver (cc)")

HERE = os.path.dirname(os.path.abspath(__file__))

# A child: jit-compile one function with its own local cache, report what happened.
CHILD = r"""
import json, sys, warnings
import numpy as np
import strata
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    f = strata.jit(lambda x, w: strata.relu(x @ w) * 2.0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 7)).astype(np.float32)
    w = rng.standard_normal((7, 3)).astype(np.float32)
    out = f(x, w)
ok = bool(np.allclose(out, np.maximum(x.astype(np.float64) @ w, 0) * 2, rtol=1e-5, atol=1e-5))
print(json.dumps({"ok": ok, "hits": f.stats.cache_hits,
                  "warnings": [str(w.message) for w in caught
                               if "shared compile cache" in str(w.message)
                               or "shared cache" in str(w.message)]}))
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def redis_url(tmp_path):
    """A redis-server of this test's own, on a free loopback port; its URL."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("no redis-server (apt-get install redis-server)")
    redis = pytest.importorskip("redis", reason="no redis client (pip install strata[cluster])")
    port = _free_port()
    folder = tmp_path / "redis"
    folder.mkdir()
    server = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1",
                               "--dir", str(folder), "--save", "", "--appendonly", "no"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=1)
    deadline = time.monotonic() + 20
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                pytest.fail("redis-server did not start")
            time.sleep(0.05)
    yield f"redis://127.0.0.1:{port}/0"
    client.close()
    server.terminate()
    server.wait(timeout=20)


def _client(url):
    import redis

    return redis.Redis.from_url(url, socket_timeout=5)


def _env(tmp_path, name, url, **extra):
    env = dict(os.environ, STRATA_CACHE_DIR=str(tmp_path / name), STRATA_REMOTE_CACHE=url,
               **extra)
    env.pop("STRATA_CACHE", None)
    return env


def _start(env):
    return subprocess.Popen([sys.executable, "-c", CHILD], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _finish(child) -> dict:
    out, err = child.communicate(timeout=300)  # a hang fails here, it does not block CI
    assert child.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def _run(env) -> dict:
    return _finish(_start(env))


def _local_entries(folder):
    return [n for n in os.listdir(folder) if not n.startswith(".")] if folder.exists() else []


def _entry_keys(url):
    return sorted(k.decode() for k in _client(url).keys(remote_cache.ENTRY + "*"))


def test_two_processes_with_empty_caches_compile_once(tmp_path, redis_url):
    first = _run(_env(tmp_path, "a", redis_url))
    assert first == {"ok": True, "hits": 0, "warnings": []}
    (key,) = _entry_keys(redis_url)
    # the second process must not compile: STRATA_CACHE_MUST_HIT raises on a miss
    second = _run(_env(tmp_path, "b", redis_url, STRATA_CACHE_MUST_HIT="1"))
    assert second == {"ok": True, "hits": 1, "warnings": []}
    assert _local_entries(tmp_path / "b") == [key.removeprefix(remote_cache.ENTRY)]
    assert _entry_keys(redis_url) == [key]
    assert not _client(redis_url).keys(remote_cache.LEASE + "*")  # no lease left behind


def test_two_processes_started_together_compile_once(tmp_path, redis_url):
    children = [_start(_env(tmp_path, name, redis_url)) for name in ("a", "b")]
    results = [_finish(c) for c in children]
    assert all(r["ok"] and r["warnings"] == [] for r in results)
    # one compiled (0 hits) and published, the other waited on its lease and loaded it
    assert sorted(r["hits"] for r in results) == [0, 1]
    assert len(_entry_keys(redis_url)) == 1


def _tamper(url, change):
    client = _client(url)
    (name,) = client.keys(remote_cache.ENTRY + "*")
    client.set(name, change(client.get(name)))


def _repack(blob, edit):
    """The entry with ``edit(files)`` applied and its manifest made to match again."""
    import hashlib

    files = remote_cache.unpack(blob)
    edit(files)
    files["manifest.json"] = json.dumps({n: hashlib.sha256(files[n]).hexdigest()
                                         for n in ("lib.so", "meta.json")}).encode()
    header = json.dumps({n: len(b) for n, b in files.items()}).encode() + b"\n"
    return remote_cache.MAGIC + header + b"".join(files.values())


def _flip_lib_byte(blob):
    files = remote_cache.unpack(blob)
    lib = bytearray(files["lib.so"])
    lib[len(lib) // 2] ^= 0xFF
    files["lib.so"] = bytes(lib)
    header = json.dumps({n: len(b) for n, b in files.items()}).encode() + b"\n"
    return remote_cache.MAGIC + header + b"".join(files.values())


def _other_cpu(blob):
    def edit(files):
        meta = json.loads(files["meta.json"])
        meta["key"]["cpu"]["llvm"] = "some-other-cpu"
        files["meta.json"] = json.dumps(meta).encode()
    return _repack(blob, edit)


def _other_version(blob):
    def edit(files):
        meta = json.loads(files["meta.json"])
        meta["key"]["versions"]["strata"] = "0.0.0"
        files["meta.json"] = json.dumps(meta).encode()
    return _repack(blob, edit)


@pytest.mark.parametrize("change,why", [
    (_flip_lib_byte, "lib.so does not match its checksum"),
    (lambda blob: blob[:len(blob) // 2], "truncated"),
    (lambda blob: b"garbage", "not a strata entry"),
    (_other_cpu, "key parts do not hash to its key"),
    (_other_version, "key parts do not hash to its key"),
])
def test_a_corrupted_or_foreign_entry_is_rejected(tmp_path, redis_url, change, why):
    assert _run(_env(tmp_path, "a", redis_url))["hits"] == 0
    _tamper(redis_url, change)
    got = _run(_env(tmp_path, "b", redis_url))
    assert got["ok"] and got["hits"] == 0  # compiled locally, right answer
    assert len(got["warnings"]) == 1 and why in got["warnings"][0], got["warnings"]
    assert len(_local_entries(tmp_path / "b")) == 1


def test_an_entry_for_another_cpu_under_its_own_key_is_rejected(tmp_path, redis_url):
    # a forger that also rewrites the key parts to hash right cannot make them name this CPU
    from strata.runtime import cache

    assert _run(_env(tmp_path, "a", redis_url))["hits"] == 0
    client = _client(redis_url)
    (name,) = client.keys(remote_cache.ENTRY + "*")
    files = remote_cache.unpack(client.get(name))
    meta = json.loads(files["meta.json"])
    meta["key"]["cpu"]["llvm"] = "some-other-cpu"
    client.set(name, _repack(client.get(name), lambda f: f.update(
        {"meta.json": json.dumps(meta).encode()})))
    with pytest.raises(ValueError, match="do not hash"):
        cache.validate_entry(name.decode().removeprefix(remote_cache.ENTRY),
                             remote_cache.unpack(client.get(name)))
    foreign_key = cache.key_of(meta["key"])
    with pytest.raises(ValueError, match="another CPU"):
        cache.validate_entry(foreign_key, remote_cache.unpack(client.get(name)))


def test_redis_down_warns_once_and_runs_locally(tmp_path):
    url = f"redis://127.0.0.1:{_free_port()}/0"  # nothing listens there
    pytest.importorskip("redis")
    got = _run(_env(tmp_path, "a", url))
    assert got["ok"] and got["hits"] == 0
    assert len(got["warnings"]) == 1 and "local cache only" in got["warnings"][0]
    assert len(_local_entries(tmp_path / "a")) == 1  # the local cache still works


def test_redis_slow_times_out_once_and_runs_locally(tmp_path):
    pytest.importorskip("redis")
    silent = socket.socket()  # accepts connections (its backlog) and never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    try:
        url = f"redis://127.0.0.1:{silent.getsockname()[1]}/0"
        got = _run(_env(tmp_path, "a", url, STRATA_REMOTE_CACHE_TIMEOUT="0.2"))
    finally:
        silent.close()
    assert got["ok"] and got["hits"] == 0
    assert len(got["warnings"]) == 1 and "Timeout" in got["warnings"][0]


def test_without_the_client_the_variable_only_warns(tmp_path):
    fake = tmp_path / "fake"
    (fake / "redis").mkdir(parents=True)
    (fake / "redis" / "__init__.py").write_text("raise ImportError('no redis here')\n")
    env = _env(tmp_path, "a", "redis://127.0.0.1:1/0",
               PYTHONPATH=os.pathsep.join([str(fake), os.environ.get("PYTHONPATH", "")]))
    got = _run(env)
    assert got["ok"] and got["hits"] == 0
    assert len(got["warnings"]) == 1 and "strata[cluster]" in got["warnings"][0]


def test_the_variable_is_not_part_of_the_key(monkeypatch):
    from strata.runtime import cache

    monkeypatch.delenv(remote_cache.ENV, raising=False)
    without = cache.key_parts("ir", "f", {})
    monkeypatch.setenv(remote_cache.ENV, "redis://127.0.0.1:1/0")
    monkeypatch.setenv("STRATA_REMOTE_CACHE_TIMEOUT", "2")
    assert cache.key_parts("ir", "f", {}) == without


@pytest.mark.parametrize("blob,why", [
    (b"nope", "not a strata entry"),
    (remote_cache.MAGIC + b'{"lib.so": 5}', "no header"),
    (remote_cache.MAGIC + b'{"lib.so": 5}\nabc', "truncated"),
    (remote_cache.MAGIC + b'{"lib.so": 1}\nabc', "trailing"),
    (remote_cache.MAGIC + b'{"../x": 1}\na', "bad header"),
])
def test_unpack_rejects_what_pack_did_not_make(blob, why):
    with pytest.raises(ValueError, match=why):
        remote_cache.unpack(blob)


def test_pack_unpack_round_trip(tmp_path):
    (tmp_path / "a").write_bytes(b"\x00\x01")
    (tmp_path / "b").write_bytes(b"")
    assert remote_cache.unpack(remote_cache.pack(str(tmp_path), ["a", "b"])) == {
        "a": b"\x00\x01", "b": b""}
