"""A bounded load test of strata.serve on loopback: throughput and latency against the
largest batch and the number of replicas, every answer checked, and a replica killed.

    python bench/serve_bench.py [--requests 600] [--clients 16] [--cpus 2] [--dims 256,512,10]

Serves the demo MLP (strata.demo.mlp: relu(x @ w1 + b1) @ w2 + b2, f32; its demo
sizes 256 -> 512 -> 10 by default, ``--dims 1024,4096,1024`` for one whose weights
(32 MB) make each call cost milliseconds, so that batching pays) on a local Ray
(``ray.init(num_cpus=--cpus)``), each replica one CPU and one thread. For each row
(replicas x max batch size) a new application is deployed and warmed, then
``--clients`` asyncio tasks each send one-row requests back to back through a
DeploymentHandle (``strata.serve.acall``), ``--requests`` in all (closed loop): requests
per second over the run's wall time, p50/p99 latency of one request as its client saw
it, and every answer compared with a float64 numpy reference (``wrong``: outside
rtol 1e-4; ``lost``: no answer). The last row kills one of two replicas a third of the
way through (``ray.kill`` of its actor): ``call`` sends the requests it was running
again, Serve starts a replacement, and the row counts the requests sent again.

The clients run in this process (one asyncio loop; Serve's handle costs a few ms of
CPU per request), so on a small machine they compete with the replicas for the CPUs,
and with many clients the client side, not the replicas, can bound throughput:
figures are for comparing rows of one run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np


def _weights(rng, d_in, d_hid, d_out):
    return (rng.standard_normal((d_in, d_hid)).astype(np.float32) / float(np.sqrt(d_in)),
            rng.standard_normal(d_hid).astype(np.float32),
            rng.standard_normal((d_hid, d_out)).astype(np.float32) / float(np.sqrt(d_hid)),
            rng.standard_normal(d_out).astype(np.float32))


def _reference(x, w1, b1, w2, b2):
    f = [np.asarray(a, np.float64) for a in (x, w1, b1, w2, b2)]
    return np.maximum(f[0] @ f[1] + f[2], 0) @ f[3] + f[4]


def run_load(ray, sserve, handle, xs, want, clients: int, kill_at: int | None, app: str):
    """Closed loop: ``clients`` asyncio tasks send the requests (``strata.serve.acall``),
    each its next one when its last is answered; returns the row's figures."""
    import asyncio

    latencies = [None] * len(xs)
    counts = {"wrong": 0, "lost": 0, "done": 0}

    def kill():
        names = [a["name"] for a in ray.util.list_named_actors(all_namespaces=True)
                 if a["name"].startswith(f"SERVE_REPLICA::{app}#")]
        ray.kill(ray.get_actor(names[0], namespace="serve"), no_restart=True)

    async def client(k):
        for i in range(k, len(xs), clients):
            start = time.perf_counter()
            try:
                y = await sserve.acall(handle, xs[i], timeout_s=120)
            except Exception as e:  # noqa: BLE001 - counted as lost
                print(f"request {i} lost: {type(e).__name__}: {e}", file=sys.stderr)
                counts["lost"] += 1
                continue
            latencies[i] = time.perf_counter() - start
            counts["wrong"] += not np.allclose(y, want[i], rtol=1e-4, atol=1e-4)
            counts["done"] += 1
            if counts["done"] == kill_at:
                kill()

    async def all_clients():
        await asyncio.gather(*[client(k) for k in range(clients)])

    retries = sserve.RETRIES["count"]
    start = time.perf_counter()
    asyncio.run(all_clients())
    wall = time.perf_counter() - start
    lat = np.array([v for v in latencies if v is not None]) * 1e3
    return {"rps": len(lat) / wall, "p50": float(np.percentile(lat, 50)),
            "p99": float(np.percentile(lat, 99)), "wrong": counts["wrong"],
            "lost": counts["lost"], "resent": sserve.RETRIES["count"] - retries}


def batch_sizes(sserve, handle, tries=16):
    """Mean requests per batch over the replicas the stats calls reach."""
    seen = {}
    for _ in range(tries):
        s = sserve.call(handle, method="stats")
        seen[s["pid"]] = s
    requests = sum(s["requests"] for s in seen.values())
    batches = sum(s["batches"] for s in seen.values())
    return requests / max(1, batches)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--requests", type=int, default=600)
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--cpus", type=int, default=2)
    p.add_argument("--sizes", default="1,8,32")
    p.add_argument("--replicas", default="1,2")
    p.add_argument("--dims", default="256,512,10", help="in,hidden,out")
    p.add_argument("--wait-ms", type=float, default=2.0, help="batch_wait_timeout_s, in ms")
    args = p.parse_args(argv)

    import ray
    from ray import serve

    import strata.demo
    import strata.serve as sserve

    d_in, d_hid, d_out = map(int, args.dims.split(","))
    rng = np.random.default_rng(0)
    w = _weights(rng, d_in, d_hid, d_out)
    xs = [rng.standard_normal((1, d_in)).astype(np.float32) for _ in range(args.requests)]
    want = [_reference(x, *w) for x in xs]
    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
    serve.start(http_options={"host": "127.0.0.1", "port": 0})
    rows = []
    runs = [(r, b, None) for r in map(int, args.replicas.split(","))
            for b in map(int, args.sizes.split(","))]
    runs.append((2, 8, args.requests // 3))
    for replicas, size, kill_at in runs:
        app = f"mlp{replicas}x{size}{'k' if kill_at else ''}"
        dep = sserve.deployment(strata.demo.mlp, np.zeros((2, d_in), np.float32),
                                constants=w, max_batch_size=size,
                                batch_wait_timeout_s=args.wait_ms / 1e3,
                                num_replicas=replicas, name=app,
                                max_ongoing_requests=max(2 * size, args.clients))
        handle = serve.run(dep, name=app, route_prefix=f"/{app}")
        for x in xs[:20]:  # warm: every replica up and called
            sserve.call(handle, x)
        r = run_load(ray, sserve, handle, xs, want, args.clients, kill_at, app)
        r["batch"] = batch_sizes(sserve, handle)
        rows.append((replicas, size, kill_at, r))
        print(f"{app}: {r}", file=sys.stderr, flush=True)
        serve.delete(app)
    serve.shutdown()
    ray.shutdown()

    load = os.getloadavg()[0]
    print(f"\nMLP {d_in} -> {d_hid} -> {d_out} f32, {args.requests} one-row requests, "
          f"{args.clients} clients, "
          f"{args.cpus} CPUs, batch wait {args.wait_ms} ms, load average {load:.1f}\n")
    print("| replicas | max batch | requests/s | p50 ms | p99 ms | mean batch | wrong | lost "
          "| sent again |")
    print("|---|---|---|---|---|---|---|---|---|")
    for replicas, size, kill_at, r in rows:
        what = f"{replicas}{' (one killed)' if kill_at else ''}"
        print(f"| {what} | {size} | {r['rps']:.0f} | {r['p50']:.1f} | {r['p99']:.1f} | "
              f"{r['batch']:.1f} | {r['wrong']} | {r['lost']} | {r['resent']} |")
    return 0 if all(r["wrong"] == 0 and r["lost"] == 0 for *_, r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
