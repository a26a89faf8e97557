"""TD-Orch against its baselines: the Zipf hash-table microbenchmark, then graphs by layout.

    python benchmarks/orchestrate.py                       # paper 2.5 sizes, Kronecker scale 20
    python benchmarks/orchestrate.py --quick               # small sizes, a minute

Part 1 is ``dgraph orchestrate-bench``: for ranks 2..16 and Zipf 1.5, 2.0, 2.5, every strategy's
stage time (best of ``--repeat``) and per-rank words, with max/mean over ranks of words sent +
received (the BSP h-relation), and the time those words would take on the paper's 1 Gb/s links
(busiest rank's words x 8 bytes / 125 MB/s): what Table 7 measured on 16 machines. Ranks are
logical (2 workers here), so the stage time is mostly per-rank Python work, not the network.

Part 2 places one Kronecker graph with 1D, 1.5D and TD-Orch layouts at ``--graph-ranks`` ranks
and runs BFS (from the highest-degree vertex) and PageRank: bytes per rank (sent + received),
max/mean over ranks, and totals, as the runtime counted them.
Nothing is asserted: this is a measurement.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

LINK_BYTES_PER_S = 125e6  # 1 Gb/s, the paper's cluster network
PR_ITERS = 10


def orchestration_table(args, client):
    from dgraph.orchestration import bench

    rows = bench.zipf_bench(
        ranks=[int(x) for x in args.ranks.split(",")],
        tasks_per_rank=args.tasks_per_rank,
        zipf=[float(x) for x in args.zipf.split(",")],
        repeat=args.repeat,
        client=client,
        progress=lambda r: print(f"  zipf {r['zipf']} ranks {r['ranks']} {r['strategy']} done", file=sys.stderr),
    )
    print("\n## Zipf hash-table microbenchmark (per rank: words sent + received during the stage)\n")
    print("| zipf | ranks | strategy | stage s | max words/rank | max/mean | total words | modelled s at 1 Gb/s |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['zipf']} | {r['ranks']} | {r['strategy']} | {r['stage_s']:.3f} | {r['max_words']:,} | "
            f"{r['max/mean']:.2f} | {r['total_words']:,} | {r['max_words'] * 8 / LINK_BYTES_PER_S:.4f} |"
        )
    return rows


def _traffic(stats):
    per_rank = stats.bytes.sum(axis=1) + stats.bytes.sum(axis=0)
    return int(per_rank.max()), float(per_rank.max() / max(per_rank.mean(), 1)), int(stats.bytes.sum())


def graph_table(args):
    from dgraph import algorithms as alg
    from dgraph.generators import kronecker_graph

    print(f"\n## Kronecker scale {args.scale}, {args.graph_ranks} ranks: bytes per rank (sent + received)\n")
    print(
        "| layout | build s | BFS s | BFS max bytes/rank | BFS max/mean | BFS total bytes | "
        f"PageRank s ({PR_ITERS} it) | PR max bytes/rank/iter | PR max/mean | PR total bytes/iter |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    source = None
    for name in args.layouts.split(","):
        t = time.perf_counter()
        g = kronecker_graph(args.scale, layout=name, ranks=args.graph_ranks)
        g.store.reverse()
        build = time.perf_counter() - t
        if source is None:
            deg = g.degrees().compute().reset_index(drop=True)
            source = int(deg.vertex.iloc[int(deg.degree.to_numpy().argmax())])
        t = time.perf_counter()
        alg.bfs(g, source).compute()
        bfs_s = time.perf_counter() - t
        b_max, b_ratio, b_total = _traffic(g.last_stats)
        t = time.perf_counter()
        alg.pagerank(g, tol=0, max_iter=PR_ITERS).compute()
        pr_s = time.perf_counter() - t
        p_max, p_ratio, p_total = _traffic(g.last_stats)
        print(
            f"| {g.layout!r} | {build:.2f} | {bfs_s:.3f} | {b_max:,} | {b_ratio:.2f} | {b_total:,} | {pr_s:.2f} | "
            f"{p_max // PR_ITERS:,} | {p_ratio:.2f} | {p_total // PR_ITERS:,} |",
            flush=True,
        )
        del g


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="ranks 2,4,16, 20,000 tasks a rank, Kronecker scale 16")
    ap.add_argument("--ranks", default="2,4,8,16")
    ap.add_argument("--tasks-per-rank", type=int, default=100_000)
    ap.add_argument("--zipf", default="1.5,2.0,2.5")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--graph-ranks", type=int, default=16)
    ap.add_argument("--layouts", default="1d,1.5d,tdorch")
    ap.add_argument("--skip-graphs", action="store_true")
    args = ap.parse_args(argv)
    from dgraph.provenance import header

    print(header(None if argv is None else [sys.argv[0], *argv]) + "\n", flush=True)
    if args.quick:
        args.ranks, args.tasks_per_rank, args.scale, args.repeat = "2,4,16", 20_000, 16, 1

    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster) as client,
    ):
        print(f"2 workers x 1 thread; {args.tasks_per_rank:,} tasks per rank; best of {args.repeat}")
        orchestration_table(args, client)
        if not args.skip_graphs:
            graph_table(args)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
