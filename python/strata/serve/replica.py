"""One Serve replica of a compiled strata function: checks requests, batches them, runs them.

``deployment()`` (serve/__init__.py) wraps ``StrataReplica`` with ``serve.deployment``;
Ray Serve starts one per replica. A replica:

- compiles once, in ``__init__``: ``strata.jit`` with the batch dim of every request
  input dynamic, called on a 2-row example batch. The compile goes through the disk
  cache (and Redis, with ``STRATA_REMOTE_CACHE``), so the replicas of one machine, or of
  a fleet sharing a Redis, compile the function once between them;
- checks each request on its own (``requests.RequestSpec``): a bad one is answered with
  a StrataError and never joins a batch, so it cannot fail the requests batched with it;
- batches good requests with ``@serve.batch``: their arrays are joined along the batch
  dim, the function runs once (in a worker thread, so the replica's event loop keeps
  taking requests), and the results are cut back per request. A one-row batch is padded
  to two rows (the dynamic variant serves sizes >= 2; a one-row call would compile a
  static variant mid-serving);
- answers HTTP too: a JSON body ``{"inputs": [nested lists, ...]}`` (or one nested list
  for a one-input function) gets ``{"outputs": [...]}``, a bad one a 400 with
  ``{"error": message}``.
"""

from __future__ import annotations

import asyncio
import os
import time

import numpy as np
from ray import serve

from ..errors import StrataError
from .requests import join, split

__all__ = ["StrataReplica"]


class StrataReplica:
    """The replica class (see module doc); ``config`` comes from ``deployment()``."""

    def __init__(self, config: dict):
        from ..runtime.api import jit

        self.fn = config["fn"]
        self.spec = config["spec"]
        self.constants = tuple(config["constants"])
        self.result_axes = config["result_axes"]
        self.run.set_max_batch_size(config["max_batch_size"])
        self.run.set_batch_wait_timeout_s(config["batch_wait_timeout_s"])
        dynamic = {name: [self.spec.batch_dim] for name in self.spec.names}
        self.jitted = jit(self.fn, dynamic=dynamic, **config["jit_options"])
        start = time.perf_counter()
        warm = tuple(np.concatenate([ex, ex], axis=self.spec.batch_dim)
                     for ex in config["examples"])
        self.tuple_result = isinstance(self.jitted(*warm, *self.constants), tuple)
        self.stats_ = {"pid": os.getpid(), "requests": 0, "errors": 0, "batches": 0,
                       "rows": 0, "batch_sizes": {}, "compute_seconds": 0.0,
                       "startup_seconds": time.perf_counter() - start,
                       "compiles": self.jitted.stats.compiles,
                       "cache_hits": self.jitted.stats.cache_hits}

    async def __call__(self, *arrays):
        if len(arrays) == 1 and _is_http(arrays[0]):
            return await self._http(arrays[0])
        try:
            checked, single = self.spec.check(arrays)
        except StrataError:
            self.stats_["errors"] += 1
            raise
        return self._reply(await self.run(checked), single)

    def stats(self) -> dict:
        """This replica's counters: pid, requests, batches, batch sizes seen (requests in a
        batch -> batches), rows, seconds spent computing batches, bad requests, its compile
        (compiles, cache hits)."""
        return dict(self.stats_, batch_sizes=dict(self.stats_["batch_sizes"]))

    @serve.batch(max_batch_size=8, batch_wait_timeout_s=0.005)  # set per deployment
    async def run(self, requests: list) -> list:
        stats = self.stats_
        stats["requests"] += len(requests)
        stats["batches"] += 1
        stats["batch_sizes"][len(requests)] = stats["batch_sizes"].get(len(requests), 0) + 1
        args, counts = join(requests, self.spec.batch_dim)
        stats["rows"] += sum(counts)
        loop = asyncio.get_running_loop()
        start = time.perf_counter()
        results = await loop.run_in_executor(None, self._compute, args, sum(counts))
        stats["compute_seconds"] += time.perf_counter() - start
        return split(results, counts, self.result_axes)

    def _compute(self, args, rows: int):
        """The function on the joined batch; results as a tuple, ``rows`` rows each."""
        dim = self.spec.batch_dim
        if rows == 1:  # pad to 2 rows: the dynamic variant's sizes (see module doc)
            args = tuple(np.concatenate([a, a], axis=dim) for a in args)
        out = self.jitted(*args, *self.constants)
        return out if isinstance(out, tuple) else (out,)

    def _reply(self, parts: tuple, single: bool):
        if single:
            parts = tuple(np.squeeze(p, axis=ax) for p, ax in zip(parts, self.result_axes,
                                                                    strict=True))
        return parts if self.tuple_result else parts[0]

    async def _http(self, request):
        from starlette.responses import JSONResponse

        try:
            try:
                body = await request.json()
            except ValueError as e:
                raise StrataError(f"serve: the request body is not JSON ({e})") from None
            inputs = body.get("inputs") if isinstance(body, dict) else [body]
            if not isinstance(inputs, list):
                raise StrataError('serve: the JSON body must be {"inputs": [array, ...]} or '
                                  "one array")
            checked, single = self.spec.check(inputs, convert=True)
        except StrataError as e:
            self.stats_["errors"] += 1
            return JSONResponse({"error": str(e)}, status_code=400)
        out = self._reply(await self.run(checked), single)
        outs = out if self.tuple_result else (out,)
        return {"outputs": [o.tolist() for o in outs]}


def _is_http(value) -> bool:
    return type(value).__name__ == "Request" and hasattr(value, "json")
