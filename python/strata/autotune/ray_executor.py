"""strata.tune on Ray: candidate builds and measurements as Ray tasks.

``strata.tune(..., executor="ray")`` sends each candidate of an op to a Ray
task (autotune/measure.py ``evaluate``: compile with the candidate's tiles, check,
time) and gathers the results into the same record. A task whose worker dies
(the process is killed, the node goes away) is run again by Ray, up to
``max_retries`` times; an exception raised by strata itself is not retried (it
would fail again) and counts as a rejected candidate.

Each result carries the target it was measured on (CPU name, flags, forced
features, versions: runtime/tuning_record.py ``target_key``); search.py keeps
only those measured on the driver's own target, so a node of another CPU type
in the cluster never puts its timings into this target's record. Tasks ask for
``threads`` CPUs each, so Ray runs no more measurements side by side than the
nodes have cores for.

Ray is an optional dependency (``pip install 'strata[cluster]'``); ``ray.init()``
is called with Ray's defaults when no Ray runtime is up.
"""

from __future__ import annotations

__all__ = ["RayExecutor"]


def _evaluate_task(fn, args, tuned, threads, blas, timing):
    import ray

    from .measure import evaluate

    out = evaluate(fn, args, tuned, threads, blas, timing)
    out["node"] = ray.get_runtime_context().get_node_id()
    return out


def started_ray(where: str):
    """The ``ray`` module, with Ray started in this process (a local cluster unless one
    was started already); a StrataError located at ``where`` when Ray is not installed."""
    from ..errors import StrataError

    try:
        import ray
    except ImportError:
        raise StrataError("executor='ray' needs Ray: pip install 'strata[cluster]'",
                          location=where) from None
    if not ray.is_initialized():
        ray.init(log_to_driver=False)
    return ray


def gather(ray, refs) -> list[dict]:
    """The results of ``refs`` in order; ``{"error": text}`` for a task that failed (it
    raised, or its worker died more often than its ``max_retries``)."""
    out = []
    for ref in refs:
        try:
            out.append(ray.get(ref))
        except ray.exceptions.RayError as e:
            out.append({"error": f"{type(e).__name__}: {str(e).strip().splitlines()[-1]}"})
    return out


class RayExecutor:
    """Runs ``evaluate`` calls as Ray tasks (``options``: extra ``.options()`` for each)."""

    def __init__(self, options: dict | None = None):
        ray = self.ray = started_ray("<strata.tune>")
        self.options = {"max_retries": 3, "retry_exceptions": False, **(options or {})}
        self.task = ray.remote(_evaluate_task)

    def map(self, fn, args, texts, threads, blas, timing) -> list[dict]:
        """One result per tuned text, in order; ``{"error": text}`` for a task that failed
        (strata raised, or its worker died more than ``max_retries`` times)."""
        ray = self.ray
        task = self.task.options(num_cpus=threads, **self.options)
        fn_ref, args_ref = ray.put(fn), ray.put(args)
        return gather(ray, [task.remote(fn_ref, args_ref, text, threads, blas, timing)
                            for text in texts])
