"""Serving a compiled strata function on Ray Serve, concurrent requests batched.

    import strata.serve
    from ray import serve

    app = strata.serve.deployment(mlp, x_example, constants=(w1, b1, w2, b2),
                                  max_batch_size=32, batch_wait_timeout_s=0.005,
                                  num_replicas=2)
    handle = serve.run(app)
    y = strata.serve.call(handle, x)          # x: (n, 64) f32, or one example (64,)

``deployment(fn, example, ...)`` returns a Ray Serve application (the deployment bound
to its arguments, for ``serve.run``). ``fn``'s leading parameters are the request's
inputs, batched along ``batch_dim``; ``constants`` fill the rest (weights). ``example``
is an example batch of the inputs (an array, or a tuple of arrays): it fixes their
dtypes and their shapes outside the batch dim, which every request must match.

The function must compute each row of the batch on its own (elementwise ops, matmul
rows, reductions and softmax over other axes...): batching joins unrelated requests,
so a row must not see another. ``deployment`` checks this once, by tracing ``fn`` with
the batch dim dynamic (dialect/rows.py's ``row_plan``), and raises a StrataError if it
cannot prove it. That trace also says where each result carries the batch dim.

Each replica (serve/replica.py) compiles the function once at start (the disk cache,
and Redis with ``STRATA_REMOTE_CACHE``: the driver's ``STRATA_CACHE_DIR``,
``STRATA_REMOTE_CACHE*`` and ``STRATA_THREADS`` are passed to the replicas), checks
each request, batches good ones with ``@serve.batch`` and runs the batch in one call.
A bad request (dtype, shape, number of inputs) gets a StrataError back; the replica
keeps serving.

Lost replicas. Serve restarts a replica that dies, but a request that was running on
it fails (``ray.exceptions.ActorDiedError`` and kin). ``call`` (``acall`` in asyncio
code) sends a request again
when it fails that way, until ``timeout_s``: requests are pure functions of their
arrays, so sending one twice cannot give a different answer. A StrataError (a bad
request) is not retried. Retried requests are counted in ``RETRIES``.

Needs ``pip install 'strata[cluster]'`` (``ray[serve]``); ``import strata`` does not
import this package, and without Ray ``deployment`` raises a StrataError saying so.
"""

from __future__ import annotations

import time

import numpy as np

from .. import settings
from ..errors import StrataError
from ..frontend.locations import location_text
from .requests import RequestSpec

__all__ = ["deployment", "call", "acall", "RETRIES", "row_axes"]

RETRIES = {"count": 0}  # requests `call` sent again after a lost replica (this process)

_PASSED_ENV = ("STRATA_CACHE_DIR", "STRATA_REMOTE_CACHE", "STRATA_REMOTE_CACHE_TIMEOUT",
               "STRATA_REMOTE_CACHE_LEASE", "STRATA_THREADS", "STRATA_TUNING_RECORD")


def _serve():
    try:
        from ray import serve
    except ImportError as e:
        raise StrataError("strata.serve needs Ray Serve: pip install 'strata[cluster]' "
                          f"(ray[serve]) ({e})", location=location_text()) from None
    return serve


def deployment(fn, example, *, constants=(), batch_dim: int = 0, max_batch_size: int = 32,
               batch_wait_timeout_s: float = 0.005, num_replicas: int = 1,
               max_ongoing_requests: int | None = None, name: str | None = None,
               ray_actor_options: dict | None = None, max_request_rows: int = 1 << 16,
               **jit_options):
    """A Ray Serve application serving ``fn`` (see the module doc).

    ``max_batch_size``: requests joined into one call at most; ``batch_wait_timeout_s``:
    how long the first request of a batch waits for others. ``num_replicas``,
    ``max_ongoing_requests`` (default ``2 * max_batch_size``), ``ray_actor_options``
    (default one CPU per replica) and ``name`` go to ``serve.deployment``.
    ``jit_options`` go to ``strata.jit`` (``threads`` defaults to the replica's CPUs).
    """
    serve = _serve()
    from .replica import StrataReplica

    examples = tuple(example) if isinstance(example, (tuple, list)) else (example,)
    examples = tuple(np.asarray(e) for e in examples)
    constants = tuple(constants)
    from ..frontend.scopes import param_names

    names = param_names(fn, len(examples) + len(constants))
    spec = RequestSpec.from_examples(names[:len(examples)], examples, batch_dim,
                                     max_request_rows)
    result_axes = row_axes(fn, examples, constants, batch_dim)
    actor = dict(ray_actor_options or {"num_cpus": 1})
    jit_options.setdefault("threads", max(1, int(actor.get("num_cpus") or 1)))
    env = {k: settings.raw(k) for k in _PASSED_ENV if settings.raw(k) is not None}
    if env:
        runtime_env = dict(actor.get("runtime_env") or {})
        runtime_env["env_vars"] = {**env, **runtime_env.get("env_vars", {})}
        actor["runtime_env"] = runtime_env
    config = {"fn": fn, "spec": spec, "constants": constants, "examples": examples,
              "result_axes": result_axes,
              "max_batch_size": max_batch_size, "batch_wait_timeout_s": batch_wait_timeout_s,
              "jit_options": jit_options}
    dep = serve.deployment(
        StrataReplica, name=name or f"strata-{getattr(fn, '__name__', 'fn')}",
        num_replicas=num_replicas, ray_actor_options=actor,
        max_ongoing_requests=max_ongoing_requests or 2 * max_batch_size)
    return dep.bind(config)


def row_axes(fn, examples, constants, batch_dim: int):
    """Where each result of ``fn`` carries the batch dim; a StrataError if a row of a
    result could depend on another row (then batching requests would change answers)."""
    from ..dialect.rows import row_plan
    from ..frontend.module import trace
    from ..frontend.scopes import spec_of
    from ..frontend.tensor import TensorSpec

    name = getattr(fn, "__name__", "function")
    specs = []
    for e in examples:
        s = spec_of(e, f"{name}: example")
        specs.append(TensorSpec(tuple(None if j == batch_dim else d
                                      for j, d in enumerate(s.shape)), s.dtype))
    specs += [spec_of(c, f"{name}: constant") for c in constants]
    try:
        module = trace(fn, *specs)
    except StrataError as e:
        raise StrataError(f"{name}: serve: cannot trace with the batch dim {batch_dim} "
                          f"dynamic: {e.message}", location=location_text()) from None
    fn_op = next(op.operation for op in module.mlir.body.operations
                 if op.operation.name == "func.func")
    axes = [batch_dim] * len(examples) + [None] * len(constants)
    with module.mlir.context:
        plan = row_plan(fn_op, axes)
    if not plan.ok:
        raise StrataError(f"{name}: serve: batching requests along dim {batch_dim} could "
                          f"change their results ({plan.reason})", location=location_text())
    return list(plan.results)


_LOST = ("ActorDiedError", "ActorUnavailableError", "RayActorError", "WorkerCrashedError",
         "NodeDiedError", "RequestCancelledError", "DeploymentUnavailableError",
         "BackPressureError")


def _lost_replica(err: BaseException) -> bool:
    """Whether ``err`` says the request's replica went away (worth sending again)."""
    for cls in type(err).__mro__:
        if cls.__name__ in _LOST:
            return True
    cause = getattr(err, "cause", None)
    return cause is not None and cause is not err and _lost_replica(cause)


def call(handle, *arrays, timeout_s: float = 60.0, method: str | None = None):
    """Sends one request through a ``DeploymentHandle`` and returns its result, sending
    it again if its replica was lost (see the module doc). A bad request raises the
    replica's StrataError (its message, the same text)."""
    h = handle.options(method_name=method) if method else handle
    deadline = time.monotonic() + timeout_s
    delay = 0.05
    while True:
        try:
            return h.remote(*arrays).result(timeout_s=max(0.1, deadline - time.monotonic()))
        except StrataError:
            raise
        except Exception as e:  # noqa: BLE001 - sorted by _resend_or_raise
            time.sleep(_resend_or_raise(e, deadline, delay))
            delay = min(1.0, delay * 2)


async def acall(handle, *arrays, timeout_s: float = 60.0, method: str | None = None):
    """``call`` for asyncio code: awaits the request, sending it again if its replica
    was lost (the same rules as ``call``)."""
    import asyncio

    h = handle.options(method_name=method) if method else handle
    deadline = time.monotonic() + timeout_s
    delay = 0.05
    while True:
        try:
            return await asyncio.wait_for(h.remote(*arrays),
                                          max(0.1, deadline - time.monotonic()))
        except StrataError:
            raise
        except Exception as e:  # noqa: BLE001 - sorted by _resend_or_raise
            await asyncio.sleep(_resend_or_raise(e, deadline, delay))
            delay = min(1.0, delay * 2)


def _resend_or_raise(err: Exception, deadline: float, delay: float) -> float:
    """After a failed send: raises the replica's StrataError (a bad request), or ``err``
    itself when the replica was not lost or the deadline would pass; otherwise counts a
    resend and returns how long to wait before it."""
    strata_error = _strata_cause(err)
    if strata_error is not None:
        raise strata_error from None
    if not _lost_replica(err) or time.monotonic() + delay > deadline:
        raise err
    RETRIES["count"] += 1
    return delay


def _strata_cause(err):
    """The StrataError a Ray error wraps, rebuilt with its own message."""
    cause = getattr(err, "cause", None)
    if isinstance(cause, StrataError):
        return StrataError(diagnostics=cause.diagnostics, hint=cause.hint)
    return None
