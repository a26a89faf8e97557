"""PageRank across two hosts joined by a shaped link: per-superstep time against bytes moved,
beside the ``dgraph.study-link`` model's prediction.

    sudo python benchmarks/link.py [--scale 16] [--rates 1gbit,100mbit,20mbit]

Needs root and iproute2 (``ip``, ``tc``): makes three hosts of network namespaces
(``tests/hosts.py``), the scheduler and the client on the first, one worker on each of the
others, so every exchange between the two ranks crosses the link. Each host's sending side is
shaped with tc's token bucket (``tbf``: this kernel has no ``netem``, so no added latency). For
each rate: PageRank (20 iterations) on the Graph 500 Kronecker graph on 2 ranks, best of 3, and
per superstep its seconds, the bytes a worker sent, and what the study-link model predicts: the
unshaped superstep plus the bytes over the rate (``latency + max(sent, received) / bandwidth``
for a round, latency 0 here). Nothing is asserted: this is a measurement.
"""

from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

RATE_UNITS = {"kbit": 1e3, "mbit": 1e6, "gbit": 1e9}


def _bits(rate):
    for unit, factor in RATE_UNITS.items():
        if rate.endswith(unit):
            return float(rate[: -len(unit)]) * factor
    return float(rate)


def _measure(client, scale, rates, worker_hosts):
    """In the client process: the Kronecker graph on 2 ranks, then for each rate (None first:
    unshaped) the worker hosts shaped to it and the best of 3 PageRank runs: (rate, seconds,
    supersteps, wire bytes summed over the workers). Returns (edges, rows)."""
    import time

    from hosts import shape

    from dgraph import algorithms as alg
    from dgraph.generators import kronecker_graph

    g = kronecker_graph(scale, ranks=2, client=client)
    rows = []
    try:
        for rate in rates:
            for namespace in worker_hosts:
                shape(namespace, rate, None if rate is None else _bits(rate))
            best = None
            for _ in range(3):
                started = time.perf_counter()
                alg.pagerank(g, max_iter=20, tol=0).compute()
                took = time.perf_counter() - started
                if best is None or took < best[1]:
                    best = (rate, took, g.last_stats.supersteps, g.last_stats.wire_bytes)
            rows.append(best)
    finally:
        for namespace in worker_hosts:
            shape(namespace, None)
    return g.num_edges, rows


def main(argv=None):
    from hosts import NamespaceCluster, unavailable

    from dgraph.provenance import header

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=16)
    ap.add_argument("--rates", default="1gbit,100mbit,20mbit")
    args = ap.parse_args(argv)
    why = unavailable()
    if why:
        sys.exit(f"no separate hosts here: {why}")
    print(header(None if argv is None else [sys.argv[0], *argv]) + "\n", flush=True)
    cluster = NamespaceCluster([1, 1])
    try:
        rates = [None, *args.rates.split(",")]
        names = cluster.hosts.names[1:]
        edges, rows = cluster.remote.call(_measure, args.scale, rates, names, timeout=3600)
    finally:
        cluster.close()
    print(f"PageRank x20 on Kronecker scale {args.scale} ({edges:,} edges), 2 ranks on 2 hosts, 1 worker each\n")
    print("| link | s / superstep | bytes a worker sent / superstep | model s / superstep | measured / model |")
    print("|---|---|---|---|---|")
    plain = None
    for rate, seconds, steps, wire in rows:
        step, sent = seconds / steps, wire / steps / 2
        if rate is None:
            plain = step
            print(f"| unshaped | {step:.4f} | {sent:,.0f} | - | - |")
            continue
        model = plain + sent * 8 / _bits(rate)
        print(f"| {rate} | {step:.4f} | {sent:,.0f} | {model:.4f} | {step / model:.2f} |")


if __name__ == "__main__":
    main()
