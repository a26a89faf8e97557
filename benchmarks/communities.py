"""Community detection beside the peers: modularity, disconnected communities, time and NMI.

    python benchmarks/communities.py [--quick] [--scales 18,20]

Inputs: every shipped real graph, as an undirected simple graph (directions and weights
dropped, repeats merged, self-loops kept), a planted partition of 1.5 M edges (``planted``:
262,144 vertices in 1,024 blocks, five sixths of the edges inside blocks), and Kronecker graphs
of ``--scales`` (Graph 500 parameters). Methods, all at resolution 1 on the same edge list: dgraph's ``louvain`` and
``leiden`` (a LocalCluster of 2 workers x 1 thread, one rank each, seed 1; the call until the
pandas frame is on the client), networkx's ``louvain_communities`` (seed 1; on inputs below 20,000 vertices),
igraph's ``community_multilevel`` and ``community_leiden`` (modularity objective, its default
two iterations), networkit's PLM (2 threads; its defaults, refinement off, and with
refinement) and its ``ParallelLeiden`` (2 threads, its defaults); every method seeded with 1
(igraph draws from Python's ``random``, networkit from ``setSeed``), so a run repeats. dgraph's
methods, PLM (refinement off) and networkit's Leiden, whose times make the ratios, take the best
of ``REPEATS`` runs (each reseeded; the fastest run's partition is the one scored); the others
run once. Printed per input and method: the
modularity (computed once, by one function, for every method's partition), the number of
communities, how many of them are disconnected, seconds, and the normalised mutual information
against the ground truth where the input has one (football, polbooks, email-Eu-core, the planted
blocks). Then, for each dgraph method, its modularity minus the best peer's on every input, and
on the inputs above 1 M edges its time over PLM's (refinement off) and its modularity minus
PLM's; for Leiden the same against networkit's Leiden, the same method in the same library.
``--quick``: the small real graphs only. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

NETWORKX_UP_TO = 20_000  # vertices
LEIDEN_ITERATIONS = 2  # igraph's default (iterating to a fixpoint takes far longer on Kronecker 16)
DGRAPH = ("louvain", "leiden")
SEED = 1
REPEATS = 3  # dgraph's methods, PLM (refinement off) and networkit's Leiden: the best of this many runs
# the peer each dgraph method's time is set against, above BIG_EDGES: PLM for both, and Leiden's own
TIMED_AGAINST = {"louvain": ("networkit PLM",), "leiden": ("networkit PLM", "networkit Leiden")}
BIG_EDGES = 1_000_000  # inputs above this many edges get dgraph's time over PLM's
SMALL = ("karate", "dolphins", "polbooks", "football", "email-Eu-core")


def _csr(src, dst, n):
    a = sp.coo_matrix((np.ones(src.size), (src, dst)), shape=(n, n)).tocsr()
    a = ((a + a.T) > 0).astype(np.float64)  # undirected, simple; a loop stays one entry
    return a.tocsr()


def _modularity(a, membership):
    """Modularity at resolution 1, a loop counting twice in its degree (networkx's rule)."""
    loops = a.diagonal()
    k = np.asarray(a.sum(axis=1)).ravel() + loops
    two_m = k.sum()
    coo = a.tocoo()
    same = membership[coo.row] == membership[coo.col]
    inside = coo.data[same].sum() + loops.sum()  # a loop's entry counts once more, as in its degree
    tot = np.bincount(membership, weights=k)
    return float(inside / two_m - (tot**2).sum() / two_m**2)


def _disconnected(a, membership):
    """How many communities induce a disconnected subgraph."""
    coo = a.tocoo()
    keep = membership[coo.row] == membership[coo.col]
    inner = sp.coo_matrix((coo.data[keep], (coo.row[keep], coo.col[keep])), shape=a.shape)
    _, piece = connected_components(inner, directed=False)
    pieces = np.unique(np.stack([membership, piece]), axis=1)[0]  # one column per (community, piece)
    return int(np.count_nonzero(np.bincount(pieces) > 1))


def _peers(a, n, skip_networkx):
    import igraph as ig
    import networkit as nk
    import networkx as nx

    coo = sp.triu(a).tocoo()
    edges = np.stack([coo.row, coo.col], axis=1)
    out = {}
    if not skip_networkx:
        G = nx.Graph()
        G.add_nodes_from(range(n))
        G.add_edges_from(edges.tolist())
        t = time.perf_counter()
        parts = nx.community.louvain_communities(G, seed=SEED)
        out["networkx louvain"] = (_labels(parts, n), time.perf_counter() - t)
    g = ig.Graph(n=n, edges=edges.tolist())
    random.seed(SEED)
    t = time.perf_counter()
    out["igraph multilevel"] = (np.asarray(g.community_multilevel().membership), time.perf_counter() - t)
    random.seed(SEED)
    t = time.perf_counter()
    leiden = g.community_leiden(objective_function="modularity", n_iterations=LEIDEN_ITERATIONS)
    out["igraph leiden"] = (np.asarray(leiden.membership), time.perf_counter() - t)
    nk.setNumberOfThreads(2)
    nk.engineering.setSeed(SEED, True)
    h = nk.GraphFromCoo((coo.row.astype(np.uint64), coo.col.astype(np.uint64)), n=n, directed=False)

    def plm():
        nk.engineering.setSeed(SEED, True)
        found = nk.community.PLM(h)  # its defaults: refinement off
        found.run()
        return found.getPartition().getVector()

    partition, seconds = _best(plm)
    out["networkit PLM"] = (np.asarray(partition), seconds)

    def parallel_leiden():
        nk.engineering.setSeed(SEED, True)
        found = nk.community.ParallelLeiden(h)  # its defaults
        found.run()
        return found.getPartition().getVector()

    partition, seconds = _best(parallel_leiden)
    out["networkit Leiden"] = (np.asarray(partition), seconds)
    nk.engineering.setSeed(SEED, True)
    t = time.perf_counter()
    plm = nk.community.PLM(h, refine=True)
    plm.run()
    out["networkit PLM refine"] = (np.asarray(plm.getPartition().getVector()), time.perf_counter() - t)
    return out


def _best(run):
    """``run()``'s result and its best time of ``REPEATS`` runs (the pair whose ratio is
    reported is timed so on both sides, as GAP reports its best trial)."""
    best = None
    for _ in range(REPEATS):
        t = time.perf_counter()
        result = run()
        seconds = time.perf_counter() - t
        best = (result, seconds) if best is None or seconds < best[1] else best
    return best


def _labels(parts, n):
    membership = np.empty(n, dtype=np.int64)
    for i, group in enumerate(parts):
        membership[list(group)] = i
    return membership


def _nmi(truth, membership):
    from sklearn.metrics import normalized_mutual_info_score

    return normalized_mutual_info_score(truth, membership)


def _dgraph(client, src, dst, n):
    import pandas as pd

    import dgraph
    from dgraph import algorithms as alg

    frame = pd.DataFrame({"src": src, "dst": dst})
    g = dgraph.from_edgelist(frame, directed=False, vertices=np.arange(n), ranks=2)
    out = {}
    for method in DGRAPH:
        run = getattr(alg, method)
        run(g, seed=SEED).compute()  # compiled, warm
        found, seconds = _best(lambda: run(g, seed=SEED).compute())
        membership = np.empty(n, dtype=np.int64)
        membership[found.vertex.to_numpy()] = found.community.to_numpy()
        out[f"dgraph {method}"] = (membership, seconds)
    return out


def planted(n=1 << 18, blocks=1 << 10, inside=5, outside=1, seed=SEED):
    """A planted partition (stochastic block model) with communities to find: ``n`` vertices in
    ``blocks`` equal blocks, ``inside * n`` edges between two members of a random block and
    ``outside * n`` between two random vertices (repeats and loops merged later): the edge list
    and each vertex's block. The default is 1.5 M edges."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    size = n // blocks
    block = rng.integers(0, blocks, inside * n)
    a = np.concatenate([block * size + rng.integers(0, size, block.size), rng.integers(0, n, outside * n)])
    b = np.concatenate([block * size + rng.integers(0, size, block.size), rng.integers(0, n, outside * n)])
    return pd.DataFrame({"src": a, "dst": b}), pd.Series(np.arange(n) // size)


def _inputs(quick, scales):
    import dgraph
    from dgraph import generators

    names = SMALL if quick else sorted(dgraph.datasets._FILES)
    for name in names:
        g = dgraph.datasets.load(name, directed=False)
        edges = g.edges().compute()
        yield name, edges, g.ground_truth
    if not quick:
        yield "planted partition", *planted()
    for scale in () if quick else scales:
        edges, _ = generators.kronecker(scale, seed=1)
        yield f"kronecker {scale}", edges.compute(), None


def _listed(values, fmt):
    return ", ".join(f"{k} {fmt.format(v)}" for k, v in values.items())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--scales", default="18,20")
    args = p.parse_args(argv)

    import pandas as pd
    from distributed import Client, LocalCluster

    from dgraph.provenance import header

    print(header() + "\n")
    scales = [int(s) for s in args.scales.split(",") if s]
    gaps, ratios = {}, {}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0") as cluster:
        with Client(cluster) as client:
            for name, edges, truth in _inputs(args.quick, scales):
                codes, uniques = pd.factorize(pd.concat([edges.src, edges.dst], ignore_index=True))
                n, half = uniques.size, len(edges)
                src, dst = codes[:half].astype(np.int64), codes[half:].astype(np.int64)
                a = _csr(src, dst, n)
                results = _dgraph(client, src, dst, n)
                results.update(_peers(a, n, n > NETWORKX_UP_TO))
                known = None
                if truth is not None:
                    labels = pd.Series(truth)
                    known = labels.reindex(uniques).to_numpy()
                print(f"{name}: {n:,} vertices, {int(a.nnz // 2):,} edges")
                heads = ("modularity", "communities", "disconnected", "seconds", "NMI")
                print(f"  {'method':20s} " + " ".join(f"{h:>{max(len(h), 9)}s}" for h in heads))
                qs = {}
                for method, (membership, seconds) in results.items():
                    qs[method] = _modularity(a, membership)
                    nmi = (
                        ""
                        if known is None
                        else f"{_nmi(known[~pd.isna(known)].astype(str), membership[~pd.isna(known)]):6.3f}"
                    )
                    print(
                        f"  {method:20s} {qs[method]:10.4f} {np.unique(membership).size:11d} "
                        f"{_disconnected(a, membership):12d} {seconds:9.3f} {nmi}"
                    )
                best = max(q for m, q in qs.items() if not m.startswith("dgraph"))
                for method in DGRAPH:
                    ours = f"dgraph {method}"
                    gaps.setdefault(method, {})[name] = qs[ours] - best
                    for peer in TIMED_AGAINST[method] if a.nnz > 2 * BIG_EDGES else ():
                        ratios.setdefault((method, peer), {})[name] = (
                            results[ours][1] / results[peer][1],
                            qs[ours] - qs[peer],
                        )
                print()
    for method in DGRAPH:
        print(f"dgraph {method}'s modularity minus the best peer's: " + _listed(gaps[method], "{:+.4f}"))
        for peer in TIMED_AGAINST[method] if ratios else ():
            rows = {name: f"{r:.2f} (modularity {q:+.4f})" for name, (r, q) in ratios[method, peer].items()}
            which = "networkit PLM's (refinement off)" if peer == "networkit PLM" else f"{peer}'s"
            print(f"dgraph {method}'s time over {which}, above 1M edges: " + _listed(rows, "{}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
