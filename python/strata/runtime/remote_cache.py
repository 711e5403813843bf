"""The shared compile cache on Redis: a second level behind the disk cache.

``STRATA_REMOTE_CACHE=redis://127.0.0.1:6379/0`` makes the disk cache
(runtime/cache.py) ask Redis for an entry it does not have, and publish every
entry it builds, so a fleet sharing one Redis compiles each variant once.
An entry travels as one Redis string ``strata:entry:<key>`` (the disk entry's
files, framed; see :func:`pack`) and is written with ``SET NX``: the first
publisher wins, nothing is overwritten.

A fetched entry is validated before it is installed into the local cache,
exactly as a local entry is and more: every file against the SHA-256 of its
``manifest.json``, the format, and the key parts recorded in ``meta.json``
must hash to the key asked for and name this process's target CPU and
features, strata/MLIR/LLVM versions and strata's source fingerprint. An entry
that fails is rejected with a one-time :class:`StrataRemoteCacheWarning` (and
compiled locally). Once installed, the local cache's own checks run on it as on
any entry (runtime/cache.py ``load``).

While a process compiles a key it holds a lease (``strata:lease:<key>``, ``SET
NX PX``, ``STRATA_REMOTE_CACHE_LEASE`` seconds, default 120); a second process
that misses the same key waits for the entry to be published (or the lease to end:
published, failed, the holder exited, or expired) instead of compiling it too.

Redis down, slow or refusing: one :class:`StrataRemoteCacheWarning`, then this
process runs on its local cache alone. Sockets time out after
``STRATA_REMOTE_CACHE_TIMEOUT`` seconds (default 0.5) and nothing is retried, so
an unreachable server costs one timeout, never a hang or a failure. Without the
``redis`` client installed (``pip install strata[cluster]``) the variable only
warns. Nothing here imports MLIR: a remote hit loads as fast as a disk hit.
"""

from __future__ import annotations

import atexit
import json
import os
import time
import warnings

from .. import settings
from . import json_file

__all__ = ["ENV", "StrataRemoteCacheWarning", "enabled", "fetch", "publish", "pack", "unpack",
           "acquire_lease", "release_lease", "entry_name", "reset"]

ENV = "STRATA_REMOTE_CACHE"
MAGIC = b"STRATA-ENTRY 1\n"
ENTRY = "strata:entry:"
LEASE = "strata:lease:"
MAX_ENTRY_BYTES = 256 << 20


class StrataRemoteCacheWarning(UserWarning):
    """The shared cache is unreachable (local-only from now on) or sent a bad entry."""


_client = None
_down = False
_warned: set[str] = set()
_held: set[str] = set()


def reset() -> None:
    """Forgets the connection and the one-time warnings (tests; a changed ``ENV``)."""
    global _client, _down
    _client, _down = None, False
    _warned.clear()


def enabled() -> bool:
    return settings.raw(ENV) is not None and not _down


def _timeout() -> float:
    return settings.get("STRATA_REMOTE_CACHE_TIMEOUT")


def _warn(kind: str, text: str) -> None:
    if kind not in _warned:
        _warned.add(kind)
        warnings.warn(f"strata: {text}", StrataRemoteCacheWarning, stacklevel=4)


def _go_local(why: str) -> None:
    """Redis failed: warn once and stop asking it in this process."""
    global _down, _client
    _down, _client = True, None
    _warn("down", f"the shared compile cache {settings.raw(ENV)} is not usable ({why}); "
          "using the local cache only")


def _redis():
    """A client for ``ENV``'s URL, or None (unset, unreachable, no client package)."""
    global _client
    if _client is not None or not enabled():
        return _client
    try:
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry
    except ImportError:
        _go_local("the redis client is not installed: pip install 'strata[cluster]'")
        return None
    t = _timeout()
    try:
        _client = redis.Redis.from_url(settings.raw(ENV), socket_timeout=t,
                                       socket_connect_timeout=t, retry=Retry(NoBackoff(), 0),
                                       health_check_interval=0)
    except ValueError as e:  # a malformed URL
        _go_local(str(e))
    return _client


def _call(what, *args, **kwargs):
    """``client.what(...)``; on any Redis or socket error, local-only (returns None)."""
    client = _redis()
    if client is None:
        return None
    try:
        return getattr(client, what)(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - redis errors, timeouts, OSError: all mean "down"
        _go_local(f"{type(e).__name__}: {e}")
        return None


def entry_name(key: str) -> str:
    return ENTRY + key


def pack(folder: str, names) -> bytes:
    """A disk entry's files as one blob: ``MAGIC``, a JSON line ``{name: size}``, the bytes."""
    blobs = {}
    for name in names:
        with open(os.path.join(folder, name), "rb") as f:
            blobs[name] = f.read()
    header = json.dumps({n: len(b) for n, b in blobs.items()}).encode() + b"\n"
    return MAGIC + header + b"".join(blobs.values())


def unpack(blob: bytes) -> dict[str, bytes]:
    """The files of a :func:`pack` blob; ValueError when it is not one."""
    if not isinstance(blob, bytes) or not blob.startswith(MAGIC):
        raise ValueError("not a strata entry")
    line_end = blob.find(b"\n", len(MAGIC))
    if line_end < 0:
        raise ValueError("no header")
    sizes = json_file.loads(blob[len(MAGIC):line_end])
    if not isinstance(sizes, dict) or not all(
            isinstance(n, str) and "/" not in n and not n.startswith(".") and
            isinstance(s, int) and s >= 0 for n, s in sizes.items()):
        raise ValueError("bad header")
    files, at = {}, line_end + 1
    for name, size in sizes.items():
        files[name] = blob[at:at + size]
        if len(files[name]) != size:
            raise ValueError("truncated")
        at += size
    if at != len(blob):
        raise ValueError("trailing bytes")
    return files


def fetch(key: str) -> dict[str, bytes] | None:
    """The files of the shared entry ``key``, unpacked, or None; runtime/cache.py validates
    them, installs them and then releases the lease. A peer compiling the key holds its
    lease: wait for its entry (or the lease's end)."""
    if not enabled() or key in _held:
        return None
    blob = _call("get", entry_name(key))
    if blob is None and enabled() and _wait_for_peer(key):
        blob = _call("get", entry_name(key))
    if blob is None:
        return None
    try:
        return unpack(blob)
    except (ValueError, TypeError, KeyError, AttributeError, UnicodeDecodeError) as e:
        reject(key, e)
        return None


def reject(key: str, error: Exception) -> None:
    """Says (once a process) that the shared entry ``key`` was not used, and why."""
    _warn("rejected", f"rejected the shared cache's entry {key} ({error}); compiled locally "
          "(later rejections are silent)")


def _lease_seconds() -> float:
    return settings.get("STRATA_REMOTE_CACHE_LEASE")


def acquire_lease(key: str) -> bool:
    """Takes the compile lease of ``key`` (or already holds it); False: a peer holds it."""
    if key in _held:
        return True
    got = _call("set", LEASE + key, str(os.getpid()), nx=True,
                px=int(_lease_seconds() * 1000))
    if got:
        _held.add(key)
    return bool(got) or not enabled()


def release_lease(key: str) -> None:
    if key in _held:
        _held.discard(key)
        if enabled():
            _call("delete", LEASE + key)


def _wait_for_peer(key: str) -> bool:
    """On a miss: take the lease, waiting while a peer holds it (it compiles ``key``).
    True when there was a peer: its entry may be published now (ask again)."""
    deadline = time.monotonic() + _lease_seconds()
    waited = False
    while not acquire_lease(key):
        waited = True
        if _call("exists", entry_name(key)) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    return waited and enabled()


def publish(key: str, folder: str, names) -> None:
    """Shares the local entry ``folder`` (first publisher wins) and ends this key's lease."""
    if not enabled():
        _held.discard(key)
        return
    try:
        blob = pack(folder, names)
    except OSError:
        blob = None
    if blob is not None and len(blob) <= MAX_ENTRY_BYTES:
        _call("set", entry_name(key), blob, nx=True)
    release_lease(key)


@atexit.register
def _release_all() -> None:
    for key in list(_held):
        release_lease(key)
