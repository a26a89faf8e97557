"""1D vs 2D vs 1.5D on one Kronecker graph: balance, traffic, time and work per layout.

    python benchmarks/layouts.py                   # Kronecker scale 20, ranks 16 and 64
    python benchmarks/layouts.py --scale 16 --ranks 16

For each rank count and layout, on a LocalCluster of 2 workers x 1 thread (ranks are logical, so
the traffic is what a P-machine run would send): arcs max/mean per rank (and per subgraph for
1.5D), messages and bytes per rank for one BFS from the highest-degree vertex and per PageRank
iteration (max over ranks, and BFS total, as counted by the runtime), the wall time of both
calls, and the arcs the BFS examined (for 1.5D also with Sunway's sub-iteration direction
choice). "build s" is placement plus the in-arc blocks, which the first pulling algorithm on a
graph builds once.
Nothing is asserted: this is a measurement.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

PR_ITERS = 10


def _per_rank(stats):
    msgs, nbytes = stats.messages.sum(axis=1), stats.bytes.sum(axis=1)
    return msgs, nbytes


def _row(g, source):
    from dgraph import algorithms as alg

    rep = g.layout_report()
    s = rep.attrs["summary"]
    out = {"arcs max/mean": s["arcs_max_over_mean"]}
    out.update(
        {
            k.replace("arcs_", "").replace("_max_over_mean", " max/mean"): v
            for k, v in s.items()
            if k.startswith("arcs_") and k != "arcs_max_over_mean"
        }
    )
    t = time.perf_counter()
    alg.bfs(g, source).compute()
    out["bfs s"] = time.perf_counter() - t
    msgs, nbytes = _per_rank(g.last_stats)
    out.update(
        {
            "bfs msgs/rank max": int(msgs.max()),
            "bfs bytes/rank max": int(nbytes.max()),
            "bfs bytes total": int(nbytes.sum()),
            "bfs arcs examined": g.last_stats.info["edges_examined"],
        }
    )
    if g.layout.subgraphs:
        alg.bfs(g, source, sub_iterations=True).compute()
        msgs, nbytes = _per_rank(g.last_stats)
        out.update(
            {
                "sub-iter bfs bytes total": int(nbytes.sum()),
                "sub-iter bfs arcs examined": g.last_stats.info["edges_examined"],
            }
        )
    t = time.perf_counter()
    alg.pagerank(g, tol=0, max_iter=PR_ITERS).compute()
    out["pagerank s"] = time.perf_counter() - t
    msgs, nbytes = _per_rank(g.last_stats)
    out.update(
        {
            "pr msgs/rank/iter max": round(msgs.max() / PR_ITERS, 1),
            "pr bytes/rank/iter max": int(nbytes.max() / PR_ITERS),
        }
    )
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--ranks", default="16,64")
    ap.add_argument("--layouts", default="1d,2d,1.5d")
    args = ap.parse_args(argv)
    from dgraph.provenance import header

    print(header(None if argv is None else [sys.argv[0], *argv]) + "\n", flush=True)

    from distributed import Client, LocalCluster

    from dgraph.generators import kronecker_graph

    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster),
    ):
        print(f"Kronecker scale {args.scale}, edge factor 16; 2 workers x 1 thread; PageRank {PR_ITERS} iterations")
        for P in (int(x) for x in args.ranks.split(",")):
            rows = {}
            for name in args.layouts.split(","):
                t = time.perf_counter()
                g = kronecker_graph(args.scale, layout=name, ranks=P)
                g.store.reverse()  # the in-arcs BFS and PageRank pull along, built once per graph
                build = time.perf_counter() - t
                if not rows:  # the same source for every layout: the highest-degree vertex
                    deg = g.degrees().compute().reset_index(drop=True)
                    source = int(deg.vertex.iloc[int(deg.degree.to_numpy().argmax())])
                rows[repr(g.layout)] = {"build s": build, **_row(g, source)}
                del g
            keys = list(dict.fromkeys(k for r in rows.values() for k in r))
            print(f"\n== {P} ranks, BFS source {source}")
            width = max(len(k) for k in keys) + 2
            names = list(rows)
            for n in names:
                print(f"   {n}")
            print(" " * width + "".join(f"{'[' + str(i) + ']':>16}" for i in range(len(names))))
            for k in keys:
                cells = []
                for n in names:
                    v = rows[n].get(k, "")
                    cells.append(
                        f"{v:>16.3f}"
                        if isinstance(v, float)
                        else f"{v:>16,}"
                        if isinstance(v, (int, np.integer))
                        else f"{v:>16}"
                    )
                print(f"{k:<{width}}" + "".join(cells))


if __name__ == "__main__":
    main()
