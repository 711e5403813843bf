"""strata.compile_many: compile many (function, arguments) variants at once, on Ray or here.

    results = strata.compile_many([(mlp, (x, w1, w2)), (mlp, (x2, w1, w2)), (attn, specs)],
                                  executor="ray")

Each item is a function and its arguments (numpy arrays, or ``strata.TensorSpec``
for an argument known only by shape and dtype). Each is built by one task: on
``executor="ray"`` a Ray task (on any node of the cluster), on ``"local"`` this
process, one after the other. A task compiles the variant as ``strata.jit`` would,
into a fresh cache folder of its own, and sends the entry back as files (the Redis
cache's framing, runtime/remote_cache.py ``pack``). The driver validates each entry
exactly as a shared-cache entry is validated (checksums, format, key, and this
process's CPU, features, versions and strata source: an entry built on a node of
another CPU type is rejected) and installs it into the local disk cache, then
publishes it to Redis when ``STRATA_REMOTE_CACHE`` is set. Later calls of
``strata.jit(fn)(*args)`` in any process sharing the cache load it without compiling.

The tuning record's tiles are read once, by the driver, and every task compiles
with them (a node has no record of its own): a tuned variant is built tuned.

A task whose worker dies (killed, out of memory, node lost) is run again by Ray,
up to ``max_retries`` times; an error raised by strata is not retried and is
reported for its item. ``fallback=True`` compiles here the items whose entry did
not come back or was rejected.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np

from .. import settings

__all__ = ["compile_many", "BatchResult"]


@dataclass
class BatchResult:
    """One item's outcome: ``ok`` when its variant is now in the local cache."""

    index: int
    ok: bool
    keys: list[str]          # the cache entries the item's task built
    seconds: float           # the task's compile time
    where: str               # "local", a Ray node id, or "fallback"
    error: str | None = None


def _arrays(args) -> tuple:
    from ..frontend.tensor import TensorSpec

    out = []
    for a in args:
        if isinstance(a, TensorSpec):
            if any(d is None for d in a.shape):
                from ..errors import StrataError

                raise StrataError(f"compile_many: {a} has a dynamic dim; give static shapes",
                                  location="<strata.compile_many>")
            out.append(np.zeros(a.shape, np.dtype(_NUMPY.get(a.dtype, a.dtype))))
        else:
            out.append(a)
    return tuple(out)


_NUMPY = {"f32": "float32", "f64": "float64", "f16": "float16", "i32": "int32",
          "i64": "int64", "i8": "int8", "i1": "bool"}


def build_entries(fn, args, options: dict, tuned: str) -> dict:
    """Compiles ``fn(*args)`` into a fresh cache folder and returns its entries:
    ``{"entries": {key: packed files}, "seconds": compile time}`` (a task's body)."""
    import shutil
    import tempfile

    from ..runtime import cache
    from ..runtime.api import JitFunction
    from ..runtime.remote_cache import pack
    from ..runtime.tuning_record import forced

    root = tempfile.mkdtemp(prefix="strata-batch-")
    try:  # the driver publishes what it accepts: not this process
        with settings.overridden({"STRATA_CACHE_DIR": root, "STRATA_REMOTE_CACHE": None}):
            start = time.perf_counter()
            with forced(tuned):
                f = JitFunction(fn, **options)
                f.compile_variant(*args)
            seconds = time.perf_counter() - start
            entries = {}
            for key in sorted(os.listdir(root)):
                folder = os.path.join(root, key)
                if os.path.isdir(folder) and not key.startswith("."):
                    entries[key] = pack(folder, cache.FILES + (cache.MANIFEST,))
            return {"entries": entries, "seconds": seconds}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _build_task(fn, args, options, tuned):
    import ray

    out = build_entries(fn, args, options, tuned)
    out["node"] = ray.get_runtime_context().get_node_id()
    return out


def install(key: str, blob: bytes) -> None:
    """Validates a packed entry for this process's target and installs it into the local
    cache (then publishes it when a shared cache is set); ValueError when rejected."""
    import shutil
    import tempfile

    from ..runtime import cache
    from ..runtime.remote_cache import unpack

    try:
        files = unpack(blob)
        cache.validate_entry(key, files)
    except (TypeError, KeyError, AttributeError, UnicodeDecodeError) as e:
        raise ValueError(str(e) or type(e).__name__) from None
    root = cache.cache_dir()
    final = os.path.join(root, key)
    cache.make_root(root)
    tmp = tempfile.mkdtemp(prefix=".tmp-", dir=root)
    try:
        for name, data in files.items():
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(data)
        os.replace(tmp, final)
    except OSError:  # already there (another process installed it first)
        shutil.rmtree(tmp, ignore_errors=True)
        if not os.path.isdir(final):
            raise
    remote = cache.shared_cache()
    if remote is not None:
        remote.publish(key, final, cache.FILES + (cache.MANIFEST,))


def compile_many(items, *, executor: str = "local", threads: int | None = None,
                 blas: str = "auto", fusion: bool = True, opt_level: int = 3,
                 fallback: bool = True, ray_options: dict | None = None) -> list[BatchResult]:
    """Compiles every ``(fn, args)`` of ``items`` into the local cache (see the module's
    docstring); one :class:`BatchResult` per item, in order."""
    from ..errors import StrataError
    from ..runtime.api import check_blas, check_threads
    from ..runtime.tuning_record import tuned_text

    if executor not in ("local", "ray"):
        raise StrataError(f"unknown executor '{executor}' (executors: local, ray)",
                          location="<strata.compile_many>")
    items = [(getattr(fn, "fn", fn), _arrays(args)) for fn, args in items]
    threads = check_threads(threads)
    options = {"threads": threads, "blas": check_blas(blas), "fusion": fusion,
               "opt_level": opt_level}
    tuned = tuned_text(threads)
    if executor == "ray":
        outcomes = _on_ray(items, options, tuned, ray_options)
    else:
        outcomes = []
        for fn, args in items:
            try:
                outcomes.append({**build_entries(fn, args, options, tuned), "node": "local"})
            except StrataError as e:
                outcomes.append({"error": str(e)})
    results = []
    for i, ((fn, args), out) in enumerate(zip(items, outcomes, strict=True)):
        error = out.get("error")
        keys = sorted(out.get("entries", {}))
        for key, blob in out.get("entries", {}).items():
            try:
                install(key, blob)
            except (ValueError, OSError) as e:
                error = f"entry {key} rejected: {e}"
        # the proof: this process's own jit now finds the variant in its cache
        ok = error is None and bool(keys) and _cached_here(fn, args, options)
        if error is None and not ok:
            error = "its entries are not the ones this process looks up (other STRATA_ knobs?)"
        where = out.get("node", "?")
        if not ok and fallback:
            start = time.perf_counter()
            try:
                build_here(fn, args, options, tuned)
                ok, where = True, "fallback"
            except StrataError as e:
                error = f"{error}; here too: {e}"
            results.append(BatchResult(i, ok, keys, time.perf_counter() - start, where, error))
            continue
        results.append(BatchResult(i, ok, keys, out.get("seconds", 0.0), where, error))
    return results


def _cached_here(fn, args, options) -> bool:
    from ..runtime.api import JitFunction

    return JitFunction(fn, **options).load_cached(*args) is not None


def build_here(fn, args, options, tuned) -> None:
    """Compiles ``fn(*args)`` in this process, straight into the local cache."""
    from ..runtime.api import JitFunction
    from ..runtime.tuning_record import forced

    with forced(tuned):
        f = JitFunction(fn, **options)
        f.compile_variant(*args)


def _on_ray(items, options, tuned, ray_options) -> list[dict]:
    from .ray_executor import gather, started_ray

    ray = started_ray("<strata.compile_many>")
    task = ray.remote(_build_task).options(
        **{"num_cpus": 1, "max_retries": 3, "retry_exceptions": False, **(ray_options or {})})
    return gather(ray, [task.remote(fn, args, options, tuned) for fn, args in items])
