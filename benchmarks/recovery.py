"""PageRank before a worker is lost, while the cluster replaces it, and after ranks spread back.

    python benchmarks/recovery.py [--scale 18] [--ranks 4]

Builds the Graph 500 Kronecker graph on a LocalCluster of 2 workers x 1 thread, times PageRank
(20 iterations), kills one worker's process (its nanny starts a new one at a new address), then
times PageRank again every few seconds: the first call rebuilds the lost blocks on the survivor,
and once the new worker is seen the ranks spread back over both. Every row, before the kill and
after, is the best of 3 calls in a row (the first of them does the rebuilding or the moving),
with how many workers hold the graph's blocks and the runs' outcome. Nothing is asserted: this
is a measurement.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time


def main(argv=None):
    from distributed import Client, LocalCluster

    from dgraph import algorithms as alg
    from dgraph import graph as graph_module
    from dgraph.cluster import workers
    from dgraph.errors import DgraphRunError
    from dgraph.generators import kronecker_graph
    from dgraph.provenance import header

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=18)
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--calls", type=int, default=8)
    args = ap.parse_args(argv)
    print(header(None if argv is None else [sys.argv[0], *argv]) + "\n", flush=True)
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster) as client,
    ):
        g = kronecker_graph(args.scale, ranks=args.ranks)

        def call():
            best, outcomes = float("inf"), []
            for _ in range(3):
                t = time.perf_counter()
                try:
                    alg.pagerank(g, max_iter=20, tol=0).compute()
                    best = min(best, time.perf_counter() - t)
                    outcomes.append(g.last_stats.dispatch)
                except DgraphRunError as exc:
                    outcomes.append(f"failed: {str(exc)[:50]}")
            who = client.who_has(g.store.blocks)
            holders = len({who[b.key][0] for b in g.store.blocks if who.get(b.key)})
            return best, holders, ", ".join(dict.fromkeys(outcomes))

        before, holders, _ = call()
        print(f"PageRank x20 on Kronecker scale {args.scale}, {args.ranks} ranks, 2 workers x 1 thread")
        print(f"before the fault: {before:.3f} s (best of 3), blocks on {holders} workers\n")
        victim = workers(client)[1]
        os.kill(client.run(os.getpid, workers=[victim])[victim], signal.SIGKILL)
        killed = time.perf_counter()
        print("| calls | seconds after the kill | best call s | workers holding blocks | outcomes |")
        print("|---|---|---|---|---|")
        for i in range(args.calls):
            seconds, holders, outcome = call()
            since = time.perf_counter() - killed
            print(f"| {i + 1} | {since:.1f} | {seconds:.3f} | {holders} | {outcome} |", flush=True)
            time.sleep(graph_module.SPREAD_EVERY / 2)  # calls spaced as a notebook's would be


if __name__ == "__main__":
    main()
