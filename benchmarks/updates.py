"""Updating a graph against building it again, side by side in one run; incremental results.

    python benchmarks/updates.py [--scale 17] [--share 0.01] [--repeats 2] [--ranks 1,2]

The Graph 500 Kronecker edge list of ``--scale`` (labels 0..n-1, as generated) is held as a
pandas DataFrame by the client, on a LocalCluster of 2 workers x 1 thread, and built undirected
(``dgraph.from_edgelist(df, directed=False)``, with each ``--ranks``). A change is ``--share``
of its edges: edges of another Kronecker draw (new, some repeating the graph's) for
``add_edges``, a sample of the graph's rows for ``remove_edges``, and as many vertices as that
share of the graph's for ``add_vertices`` (new labels) and ``remove_vertices``. Each update is
timed until every block of the new graph is in its worker's memory, and the "rebuild" is
``from_edgelist`` of the edge list the update ends with, built the same way; seconds are the
best of ``--repeats``, the ratio is the update over the rebuild of its own result.

Incremental results: on the graph after ``add_edges``, ``connected_components(g2,
previous=cc(g))`` against ``connected_components(g2)``; after ``add_edges`` and after
``remove_edges``, ``pagerank(g2, nstart=pagerank(g))`` against ``pagerank(g2)`` at networkx's
tol (1e-6: an L1 change below n x 1e-6) and at 1e-10 (iterations and seconds, each computed to
pandas). Nothing is asserted: this is a measurement.
"""

from __future__ import annotations

import argparse
import sys
import time


def _best(call, repeats):
    best, out = float("inf"), None
    for _ in range(repeats):
        t = time.perf_counter()
        out = call()
        best = min(best, time.perf_counter() - t)
    return best, out


def _ready(g):
    from distributed import wait

    wait(g.store.blocks)
    return g


def _changes(df, scale, share, seed=7):
    """(edges to add, edges to remove, labels to add, labels to remove) of ``share`` of ``df``."""
    import numpy as np

    from dgraph.generators import kronecker

    k = max(1, int(share * len(df)))
    more = kronecker(scale, seed=seed)[0].compute(scheduler="threads")
    added = more.iloc[:k].reset_index(drop=True)
    rng = np.random.default_rng(seed)
    removed = df.iloc[rng.choice(len(df), k, replace=False)].reset_index(drop=True)
    vertices = np.unique(np.r_[df.src.to_numpy(), df.dst.to_numpy()])
    kv = max(1, int(share * vertices.size))
    return added, removed, np.arange(kv) + int(vertices.max()) + 1, rng.choice(vertices, kv, replace=False)


def _finals(df, changes):
    """The edge list (and extra vertices) each update ends with, for its rebuild."""
    import numpy as np
    import pandas as pd

    added, removed, new_vertices, gone = changes
    pairs = set(zip(removed.src.tolist(), removed.dst.tolist()))
    pairs |= {(b, a) for a, b in pairs}
    keep = np.fromiter(((a, b) not in pairs for a, b in zip(df.src.tolist(), df.dst.tolist())), bool, len(df))
    ends = np.unique(np.r_[df.src.to_numpy(), df.dst.to_numpy()])
    return {
        "add_edges": (pd.concat([df, added], ignore_index=True), None),
        "remove_edges": (df[keep], ends),
        "add_vertices": (df, np.r_[ends, new_vertices]),
        "remove_vertices": (df[~df.src.isin(gone) & ~df.dst.isin(gone)], np.setdiff1d(ends, gone)),
    }


def _measure(df, scale, share, ranks, repeats):
    import dgraph
    from dgraph.algorithms import connected_components, pagerank

    changes = _changes(df, scale, share)
    finals = _finals(df, changes)
    g = _ready(dgraph.from_edgelist(df, directed=False, ranks=ranks))
    added, removed, new_vertices, gone = changes
    calls = {
        "add_edges": lambda: g.add_edges(added),
        "remove_edges": lambda: g.remove_edges(removed),
        "add_vertices": lambda: g.add_vertices(new_vertices),
        "remove_vertices": lambda: g.remove_vertices(gone),
    }
    rows, kept = [], {}
    for name, call in calls.items():
        took, h = _best(lambda: _ready(call()), repeats)  # noqa: B023
        edges, vertices = finals[name]
        again = dict(directed=False, ranks=ranks, vertices=vertices)
        rebuilt, r = _best(lambda: _ready(dgraph.from_edgelist(edges, **again)), repeats)  # noqa: B023
        same = (h.num_vertices, h.num_edges) == (r.num_vertices, r.num_edges)
        stats = h.update_stats
        rows.append((name, len(changes[0]) if "edges" in name else len(new_vertices), took, rebuilt, same, stats))
        kept[name] = h
    g2 = kept["add_edges"]
    cc = connected_components(g).persist()
    inc_cc, a = _best(lambda: connected_components(g2, previous=cc).compute(), repeats)
    full_cc, b = _best(lambda: connected_components(g2).compute(), repeats)
    same_cc = a.sort_values("vertex").component.tolist() == b.sort_values("vertex").component.tolist()
    runs = {}
    for change, h in (("add_edges", g2), ("remove_edges", kept["remove_edges"])):
        for tol in (1e-6, 1e-10):
            pr = pagerank(g, tol=tol).compute()
            for label, options in (("", {}), (", nstart=pagerank(g)", {"nstart": pr})):
                took, _ = _best(lambda: pagerank(h, tol=tol, **options).compute(), repeats)  # noqa: B023
                runs[f"after {change}: pagerank(g2, tol={tol:g}{label})"] = (took, h.last_stats.info.get("iterations"))
    return g, rows, (inc_cc, full_cc, same_cc), runs


def _report(g, ranks, rows, cc, runs):
    out = [f"\n### {g.num_vertices:,} vertices, {g.num_edges:,} edges, {g.layout!r}\n"]
    out.append("| update | given | update s | rebuild s | update / rebuild | ranks rewritten | same counts |")
    out.append("|---|---:|---:|---:|---:|---:|---|")
    for name, given, took, rebuilt, same, stats in rows:
        note = " (rebuilt)" if stats.rebuilt else ""
        out.append(
            f"| {name}{note} | {given:,} | {took:.3f} | {rebuilt:.3f} | {took / rebuilt:.3f} | "
            f"{stats.ranks_rewritten} of {g.nranks} | {same} |"
        )
    inc, full, same = cc
    out.append("\n| result on the updated graph g2 | s | iterations | same result |")
    out.append("|---|---:|---:|---|")
    out.append(f"| after add_edges: connected_components(g2) | {full:.3f} | | |")
    out.append(f"| after add_edges: connected_components(g2, previous=cc(g)) | {inc:.3f} | | {same} |")
    for label, (took, iterations) in runs.items():
        out.append(f"| {label} | {took:.3f} | {iterations} | |")
    return "\n".join(out)


def main(argv=None):
    from distributed import Client, LocalCluster

    from dgraph.generators import kronecker
    from dgraph.provenance import header

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=17)
    ap.add_argument("--share", type=float, default=0.01)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--ranks", default="1,2")
    args = ap.parse_args(argv)
    print(header(None if argv is None else [sys.argv[0], *argv]))
    print(f"\nKronecker {args.scale}; a change is {args.share:.0%} of its edges (or vertices); best of {args.repeats}")
    local = dict(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address="127.0.0.1:0")
    with LocalCluster(**local) as cluster:
        with Client(cluster):
            df = kronecker(args.scale)[0].compute(scheduler="threads")
            for ranks in [int(r) for r in args.ranks.split(",")]:
                g, rows, cc, runs = _measure(df, args.scale, args.share, ranks, args.repeats)
                print(_report(g, ranks, rows, cc, runs), flush=True)


if __name__ == "__main__":
    main()
