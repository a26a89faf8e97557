"""Direct vs grouped (TuCOMM) transport: what crosses domain boundaries, and what it would cost.

    python benchmarks/transports.py                  # Kronecker scale 20, 16 ranks in 4 domains
    python benchmarks/transports.py --scale 16 --layouts 1d,1.5d,2d,tdorch

On one Kronecker graph placed once, BFS (from the highest-degree vertex) and PageRank run with
the direct transport and with the grouped one (the same placed blocks: ``Graph.with_transport``).
For each: supersteps, inter-domain messages and bytes per superstep (mean) and in total,
intra-domain ones, the wall time here, and a modelled communication time. A message costs
``alpha + bytes x beta`` (alpha = 2 us, beta = 1 ns/byte), ten times more when it crosses
domains (the paper's example ratio). Inside a domain the busiest rank pays for what it sends and
receives; across domains a domain's ranks share its router's uplink (TuCOMM Figure 2), so the
busiest domain pays for all its inter-domain messages. The model is the sum of the two.
Ranks are logical (2 workers here), so the wall time says what the extra hops cost in rounds,
not what a network would do.
Nothing is asserted: this is a measurement.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

ALPHA, BETA, INTER = 2e-6, 1e-9, 10.0
PR_ITERS = 10


def modelled(stats):
    dom = stats.domain_of
    inter = dom[:, None] != dom[None, :]
    cost = ALPHA * stats.messages + BETA * stats.bytes
    intra = np.where(inter, 0.0, cost)
    per_rank = intra.sum(axis=1) + intra.sum(axis=0)  # sending and receiving ranks both pay
    out = np.where(inter, INTER * cost, 0.0)
    per_rank_out, per_rank_in = out.sum(axis=1), out.sum(axis=0)
    per_domain = [per_rank_out[dom == d].sum() + per_rank_in[dom == d].sum() for d in np.unique(dom)]
    return float(per_rank.max() + max(per_domain))


def row(g, what, call):
    t = time.perf_counter()
    call(g).compute()
    wall = time.perf_counter() - t
    st = g.last_stats
    c = np.array(st.crossings, dtype=np.int64).reshape(-1, 4)
    steps = max(st.supersteps, 1)
    return (
        f"| {what} | {g.transport} | {st.supersteps} | {c[:, 0].sum() / steps:,.1f} | {c[:, 1].sum() / steps:,.0f} | "
        f"{c[:, 0].sum():,} | {c[:, 1].sum():,} | {c[:, 2].sum():,} | {c[:, 3].sum():,} | "
        f"{wall:.3f} | {modelled(st) * 1e3:.2f} |"
    )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--ranks", type=int, default=16)
    ap.add_argument("--domains", type=int, default=4)
    ap.add_argument("--layouts", default="1d")
    args = ap.parse_args(argv)
    from dgraph.provenance import header

    print(header(None if argv is None else [sys.argv[0], *argv]) + "\n", flush=True)

    from distributed import Client, LocalCluster

    from dgraph import algorithms as alg
    from dgraph.generators import kronecker_graph

    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster),
    ):
        print(
            f"Kronecker scale {args.scale}, {args.ranks} ranks in {args.domains} domains; 2 workers x 1 thread; "
            f"model: alpha {ALPHA * 1e6:g} us, beta {BETA * 1e9:g} ns/byte, inter-domain x{INTER:g}\n"
        )
        print(
            "| algorithm | transport | supersteps | inter msgs/step | inter bytes/step | inter msgs | inter bytes | "
            "intra msgs | intra bytes | wall s | modelled ms |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for layout in args.layouts.split(","):
            g = kronecker_graph(args.scale, layout=layout, ranks=args.ranks)
            g.store.reverse()
            deg = g.degrees().compute().reset_index(drop=True)
            source = int(deg.vertex.iloc[int(deg.degree.to_numpy().argmax())])
            for transport in ("direct", "grouped"):
                h = g.with_transport(transport, domains=args.domains)
                print(row(h, f"BFS {layout}", lambda x: alg.bfs(x, source)), flush=True)
                print(
                    row(h, f"PageRank x{PR_ITERS} {layout}", lambda x: alg.pagerank(x, tol=0, max_iter=PR_ITERS)),
                    flush=True,
                )
            del g


if __name__ == "__main__":
    main()
