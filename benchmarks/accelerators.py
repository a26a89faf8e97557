"""The accelerator middleware's ideas on CPU workers, measured: the pipelined transport against
the direct one on slow links, the block-size model against a sweep, and the split across
workers of unequal speed.

    python benchmarks/accelerators.py [--scale 16] [--repeats 3]

(a) SSSP (delta-stepping: every superstep scatters offers that merge at the owners) on
    Kronecker ``--scale`` with 4 ranks on 2 workers, direct against pipelined, on the loopback
    link as it is and on links made slower for study (``dgraph.study-link``: a round lasts the
    link's latency plus the larger of the bytes sent and received over its bandwidth). Printed:
    call seconds (best of ``--repeats``), pipelined over direct, and the pipeline's facts of the
    run's largest exchange on one worker (bytes to send, blocks, block bytes, the model's
    predicted and the measured seconds).
(b) The same SSSP on the second link, the pipeline's block size fixed
    (``dgraph.pipeline-block-bytes``) from 4 KiB to 4 MiB and left to the model: call seconds
    per size, the paper's Figure 15 as a table.
(c) Three single-thread workers, the first pinned alone to core 0 and the other two sharing
    core 1, PageRank (30 iterations) on Kronecker ``--scale`` + 4 with 3 ranks (large enough
    that computing, not exchanging, sets the pace), split equally
    (``OneD(ranks=3)``) and by measured speed (``OneD(ranks=3, balance="measured")``): the
    measured speeds, each rank's share of the arcs, the call seconds, and the workers' compute
    seconds (their SpMVs over the run: the slowest, and the slowest over the mean). Needs 2
    cores (skipped with a message otherwise).

Every cluster listens on 127.0.0.1. Nothing is asserted: this is a measurement.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import dask
import numpy as np

LINKS = [None, (0.0002, 50e6), (0.005, 20e6)]  # (latency s, bytes/s): loopback, then slower


def _set_link(link):
    dask.config.set({"dgraph.study-link": link})


def _best(call, repeats):
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - t)
    return best


def _pipelined_vs_direct(client, g, source, repeats, alg):
    print("(a) SSSP delta-stepping, direct vs pipelined")
    print(
        f"{'link':>22s} {'direct s':>9s} {'pipelined s':>11s} {'ratio':>6s} {'bytes':>9s} {'blocks':>6s} "
        f"{'block B':>9s} {'model s':>9s} {'measured s':>10s}"
    )
    piped = g.with_transport("pipelined")
    for link in LINKS:
        client.run(_set_link, link)
        run = lambda h: alg.sssp(h, source, weight="weight", method="delta-stepping").compute()  # noqa: E731
        direct = _best(lambda: run(g), repeats)
        pipelined = _best(lambda: run(piped), repeats)
        info = piped.last_stats.info
        name = "loopback" if link is None else f"{link[0] * 1e3:g} ms, {link[1] / 1e6:g} MB/s"
        print(
            f"{name:>22s} {direct:9.3f} {pipelined:11.3f} {pipelined / direct:6.2f} {info['pipeline_bytes']:9d} "
            f"{info['pipeline_blocks']:6d} {info['pipeline_block_bytes']:9d} {info['pipeline_predicted_s']:9.4f} "
            f"{info['pipeline_measured_s']:10.4f}"
        )
    client.run(_set_link, None)


def _block_sweep(client, g, source, repeats, alg):
    link = LINKS[1]
    print(f"\n(b) SSSP delta-stepping on a {link[0] * 1e3:g} ms, {link[1] / 1e6:g} MB/s link: block size sweep")
    client.run(_set_link, link)
    piped = g.with_transport("pipelined")
    for block in [1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, None]:
        with dask.config.set({"dgraph.pipeline-block-bytes": block}):
            t = _best(lambda: alg.sssp(piped, source, weight="weight", method="delta-stepping").compute(), repeats)
        info = piped.last_stats.info
        label = "model" if block is None else f"{block}"
        print(
            f"  block {label:>8s} B: {t:7.3f} s  (largest exchange: {info['pipeline_bytes']} B in "
            f"{info['pipeline_blocks']} blocks of {info['pipeline_block_bytes']} B, model "
            f"{info['pipeline_predicted_s']:.4f} s, measured {info['pipeline_measured_s']:.4f} s)"
        )
    client.run(_set_link, None)


def _heterogeneous(scale, repeats):
    from distributed import Client, LocalCluster

    from dgraph import algorithms as alg
    from dgraph import generators
    from dgraph.calibrate import worker_speeds
    from dgraph.partitioners import OneD

    print(f"\n(c) PageRank on Kronecker {scale}: 3 workers, one alone on core 0, two sharing core 1")
    if len(os.sched_getaffinity(0)) < 2:
        print("  needs 2 cores; skipped")
        return
    with LocalCluster(n_workers=3, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0") as cluster:
        with Client(cluster) as client:
            addrs = sorted(client.scheduler_info()["workers"])
            for i, w in enumerate(addrs):
                client.run(os.sched_setaffinity, 0, {0 if i == 0 else 1}, workers=[w])
            speeds = worker_speeds(client, addrs)
            print("  measured speeds (M arcs/s): " + ", ".join(f"{speeds[w] / 1e6:.0f}" for w in addrs))
            for layout in (OneD(ranks=3), OneD(ranks=3, balance="measured")):
                g = generators.kronecker_graph(scale, layout=layout)
                arcs = client.gather([client.submit(lambda b: int(b.indices.size), b) for b in g.store.blocks])
                t = _best(lambda: alg.pagerank(g, max_iter=30, tol=0).compute(), repeats)
                share = ", ".join(f"{a / sum(arcs):.2f}" for a in arcs)
                compute = [p.get("compute", 0.0) for p in g.last_stats.worker_phases.values()]
                print(
                    f"  {layout.balance:9s} arcs share {share}: call {t:.3f} s, compute slowest "
                    f"{max(compute):.3f} s, slowest / mean {max(compute) / np.mean(compute):.2f}"
                )


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=int, default=16)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)

    from distributed import Client, LocalCluster

    import dgraph
    from dgraph import algorithms as alg
    from dgraph import generators
    from dgraph.partitioners import OneD
    from dgraph.provenance import header

    print(header() + "\n")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0") as cluster:
        with Client(cluster) as client:
            edges, _ = generators.kronecker(args.scale, seed=1, weights=True)
            g = dgraph.from_edgelist(edges, directed=False, weight="weight", layout=OneD(ranks=4))
            source = int(edges.src.head(1).iloc[0])
            print(f"Kronecker {args.scale}: {g.num_vertices:,} vertices, {g.num_edges:,} edges, 4 ranks on 2 workers\n")
            _pipelined_vs_direct(client, g, source, args.repeats, alg)
            _block_sweep(client, g, source, args.repeats, alg)
    _heterogeneous(args.scale + 4, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
