"""Where one algorithm call's time goes: the whole call against its runs' phases, on a Kronecker graph.

    PYTHONPATH=. python benchmarks/call_phases.py --scale 20 --vertex-order degree,labels
    PYTHONPATH=. python benchmarks/call_phases.py --scale 20 --vertex-order labels --algorithm sssp

Builds the Graph 500 Kronecker graph (undirected, self-loops dropped) on a LocalCluster of 2
workers x 1 thread, once per vertex order asked for, warms up with one call, then times
``--calls`` calls from fixed random
sources with an edge. It prints the median of the whole call (until the result frame exists on
the workers) and of each phase the workers report (``g.last_stats.phases``: connect, kernel,
finish = making the result frame in the user's labels); what is left is dispatch: the client
telling the workers, the replies, and the scheduler learning of the results.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def main(argv=None):
    from distributed import Client, LocalCluster

    from dgraph import algorithms as alg
    from dgraph.build import VERTEX_ORDERS, from_edgelist
    from dgraph.generators import kronecker

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--vertex-order", default="degree,labels", help="comma-separated: degree, labels")
    ap.add_argument("--algorithm", choices=("bfs", "sssp"), default="bfs")
    ap.add_argument("--calls", type=int, default=20)
    args = ap.parse_args(argv)
    orders = args.vertex_order.split(",")
    if not set(orders) <= set(VERTEX_ORDERS):
        ap.error(f"--vertex-order takes {', '.join(VERTEX_ORDERS)}, got {args.vertex_order!r}")
    from dgraph.provenance import header

    print(header(None if argv is None else [sys.argv[0], *argv]) + "\n", flush=True)
    weighted = args.algorithm == "sssp"
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster) as client,
    ):
        edges, n = kronecker(args.scale, 16, 1, weights=weighted)
        edges = client.persist(edges)
        for order in orders:
            g = from_edgelist(
                edges,
                directed=False,
                weight="weight" if weighted else None,
                vertices=np.arange(n),
                renumber=False,
                vertex_order=order,
                self_loops="drop",
                client=client,
            )
            deg = g.degrees().compute()
            pool = deg.vertex[deg.degree > 0].to_numpy()
            sources = np.random.default_rng(3).choice(pool, args.calls + 1, replace=False)
            call = (lambda s: alg.bfs(g, s)) if not weighted else (lambda s: alg.sssp(g, s, weight="weight"))
            call(int(sources[0]))  # warm-up: numba, in-blocks, the tables the workers fetch
            totals, phases = [], []
            for s in sources[1:].tolist():
                t = time.perf_counter()
                call(s)
                totals.append(time.perf_counter() - t)
                phases.append(dict(g.last_stats.phases))
            median = {k: 1e3 * np.median([p.get(k, 0.0) for p in phases]) for k in phases[0]}
            whole = 1e3 * np.median(totals)
            print(
                f"{args.algorithm} on Kronecker scale {args.scale}, vertex_order={order!r}, "
                f"{args.calls} calls (medians, ms):"
            )
            print(
                f"  whole call {whole:.1f}  "
                + "  ".join(f"{k} {v:.1f}" for k, v in median.items())
                + f"  dispatch and the rest {whole - sum(median.values()):.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
