"""The rest of dgraph's algorithms beside the fastest peer that has each: one report, peers.py's way.

    python benchmarks/breadth.py --quick        # Kronecker 14 and luxembourg_osm
    python benchmarks/breadth.py                # Kronecker 18 and luxembourg_osm
    python benchmarks/breadth.py --algorithms hits,core_number --inputs luxembourg_osm

Inputs, child processes, timing and the table's columns are ``peers.py``'s: each input made
simple and undirected, weights uniform in [0, 1) where it has none; dgraph on a LocalCluster of
2 workers x 1 thread; each peer (scipy.sparse.csgraph, igraph, networkit) in its own process.
Kernel seconds are the best of 3 (dgraph: the ``kernel`` phase of its best call when the call
ran on the BSP runtime, else the whole call; a call slower than ``SLOW`` seconds runs once after
its warm-up), and the ratio is dgraph's kernel over the fastest peer's.

Algorithms and how answers are compared: HITS (hubs, scaled to sum 1; igraph's hub score),
Katz (alpha = 1 / (2 x the largest degree), beta 1; networkit; unit L2 norm), eigenvector
centrality (unit L2 norm; scipy's ``eigsh``, igraph, networkit) to 1e-6 of the largest value;
closeness (``wf_improved=False``, igraph's definition), harmonic centrality and eccentricity
(within a vertex's component: dgraph's ``distance_sums``) exactly at ``SAMPLE`` fixed vertices,
where igraph computes them from those vertices only: its time is extrapolated to every vertex
with an edge and marked so, as an exact all-sources run takes hours at Kronecker 18 (dgraph's
call is exact, from every vertex); the diameter (the largest eccentricity within a component;
networkit's exact bounding search); the Jaccard coefficient of ``PAIRS`` fixed pairs (half
random vertex pairs, half two hops apart; igraph, networkit) to 1e-9; the minimum spanning
forest (scipy, igraph) by its total weight and edge count; greedy colouring (igraph) and the
maximal independent set (networkit's Luby) by validity only, with colours used and the set's
size (different valid answers); the 4-truss (no peer has one: networkx, on inputs under
``peers.NX_MAX_EDGES``) by its edge count; Bellman-Ford from the largest-degree vertex (scipy
``method="BF"``, igraph ``algorithm="bellman_ford"``) exactly; core numbers (igraph,
networkit) exactly. Nothing is asserted: this is a measurement.

Left out, with the reason printed in the row: dgraph's exact all-sources calls (closeness,
harmonic, eccentricity, diameter) above ``ALL_SOURCES_UP_TO`` vertices x arcs and its k-truss
above ``TRUSS_ARCS_UP_TO`` arcs (both run at Kronecker 14: ``--quick --inputs kron14``), and
scipy's Bellman-Ford above ``BF_SCIPY_UP_TO`` (it makes n passes over the arcs).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402  (a sibling script: inputs, child processes, timing)

SAMPLE = 256  # vertices at which closeness, harmonic centrality and eccentricity are compared
PAIRS = 100_000
TRUSS_K = 4
BF_SCIPY_UP_TO = 1e9  # vertices x edges: scipy's Bellman-Ford makes n passes over the arcs
SLOW = 20.0  # seconds: a dgraph call slower than this (warm) is timed once more, not three times
ALL_SOURCES_UP_TO = 1e10  # vertices x arcs: dgraph's exact closeness is ~30 s at Kronecker 14 (7.0e9)
TRUSS_ARCS_UP_TO = 1e6  # dgraph's k-truss is ~60 s at Kronecker 14 (0.43 M arcs)
ALL = (
    "hits",
    "katz",
    "eigenvector",
    "closeness",
    "harmonic",
    "eccentricity",
    "diameter",
    "jaccard",
    "mst",
    "color",
    "mis",
    "k_truss",
    "bellman_ford",
    "core_number",
)
PEERS_OF = {
    "hits": ("igraph",),
    "katz": ("scipy", "networkit"),
    "eigenvector": ("scipy", "igraph", "networkit"),
    "closeness": ("igraph",),
    "harmonic": ("igraph",),
    "eccentricity": ("igraph",),
    "diameter": ("networkit",),
    "jaccard": ("igraph", "networkit"),
    "mst": ("scipy", "igraph"),
    "color": ("igraph",),
    "mis": ("networkit",),
    "k_truss": ("networkx",),
    "bellman_ford": ("scipy", "igraph"),
    "core_number": ("igraph", "networkit"),
}
SAMPLED = ("closeness", "harmonic", "eccentricity")  # peers run from SAMPLE sources, extrapolated


# ------------------------------------------------------------------------------- fixed inputs
def fixed(src, dst, n):
    """The sample vertices, the Jaccard pairs and Katz's alpha, from the edges alone (seeded)."""
    deg = np.bincount(np.r_[src, dst], minlength=n)
    live = np.flatnonzero(deg > 0)
    rng = np.random.default_rng(13)
    sample = np.sort(rng.choice(live, size=min(SAMPLE, live.size), replace=False))
    half = PAIRS  # twice what is kept: repeats and u == v are dropped, then PAIRS drawn from the rest
    u, v = rng.choice(live, size=half), rng.choice(live, size=half)
    # two hops: a random edge's end and a random neighbour of its other end
    order = np.argsort(np.r_[src, dst], kind="stable")
    heads, tails = np.r_[src, dst][order], np.r_[dst, src][order]
    starts = np.r_[0, np.cumsum(np.bincount(heads, minlength=n))]
    e = rng.integers(0, src.size, size=half)
    a, b = src[e], dst[e]
    c = tails[starts[b] + rng.integers(0, np.maximum(deg[b], 1))]
    pu, pv = np.r_[u, a], np.r_[v, c]
    keep = pu != pv
    pairs = np.unique(np.c_[np.minimum(pu, pv), np.maximum(pu, pv)][keep], axis=0)
    pairs = pairs[np.sort(rng.choice(len(pairs), size=min(PAIRS, len(pairs)), replace=False))]
    return {"sample": sample, "pairs": pairs, "alpha": 1.0 / (2 * deg.max()), "live": live.size}


# ------------------------------------------------------------------------------- peers
def _best(call):
    """``peers._best``, three calls, or one when the first takes more than ``SLOW`` / 4 seconds."""
    k, out = peers._best(call, 1)
    if k < SLOW / 4:
        k = min(k, peers._best(call, peers.REPEATS - 1)[0])
    return k, out


class Skipped(Exception):
    """A peer that has the algorithm but would take hours on this input."""


def _scipy(src, dst, w, n, algo, source, extra):
    import scipy.sparse as sp
    from scipy.sparse.csgraph import minimum_spanning_tree, shortest_path
    from scipy.sparse.linalg import eigsh

    t = time.perf_counter()
    A = sp.csr_matrix((np.r_[w, w], (np.r_[src, dst], np.r_[dst, src])), shape=(n, n))
    U = A.copy()
    U.data[:] = 1.0
    build = time.perf_counter() - t
    if algo == "bellman_ford" and n * src.size > BF_SCIPY_UP_TO:
        raise Skipped("a pass over every arc per vertex (n passes): 59 s at Kronecker 14")
    if algo == "eigenvector":
        k, (_, vec) = _best(lambda: eigsh(U, k=1, which="LA", tol=1e-10))
        return k, build, _unit(vec[:, 0])
    if algo == "katz":  # (I - alpha A) x = 1 is positive definite for alpha below 1 / the largest degree
        from scipy.sparse.linalg import cg

        M = sp.identity(n, format="csr") - extra["alpha"] * U
        k, (x, _) = _best(lambda: cg(M, np.ones(n), rtol=1e-12))
        return k, build, _unit(x)
    if algo == "mst":
        upper = sp.triu(A).tocsr()
        k, T = _best(lambda: minimum_spanning_tree(upper))
        return k, build, (int(T.nnz), float(T.sum()))
    if algo == "bellman_ford":
        k, d = _best(lambda: shortest_path(A, method="BF", directed=False, indices=source))
        return k, build, d
    raise NotImplementedError


def _igraph(src, dst, w, n, algo, source, extra):
    import warnings

    import igraph as ig

    warnings.simplefilter("ignore")  # "hubs of an undirected graph are eigenvector centralities", "disconnected"

    t = time.perf_counter()
    G = ig.Graph(n=n, edges=np.column_stack([src, dst]), directed=False, edge_attrs={"w": w})
    build = time.perf_counter() - t
    sample = extra["sample"].tolist()
    calls = {
        "hits": lambda: _sum1(np.array(G.hub_score(scale=False))),
        "eigenvector": lambda: _unit(np.array(G.eigenvector_centrality(scale=False))),
        "closeness": lambda: np.array(G.closeness(vertices=sample, normalized=True), np.float64),
        "harmonic": lambda: np.array(G.harmonic_centrality(vertices=sample, normalized=False), np.float64),
        "eccentricity": lambda: np.array(G.eccentricity(vertices=sample), np.float64),
        "jaccard": lambda: np.array(G.similarity_jaccard(pairs=extra["pairs"].tolist(), loops=False)),
        "mst": lambda: _forest(G.spanning_tree(weights="w", return_tree=False), w),
        "color": lambda: np.array(G.vertex_coloring_greedy(method="COLORED_NEIGHBORS")),
        "bellman_ford": lambda: np.array(
            G.distances(source=[source], weights="w", algorithm="bellman_ford")[0], np.float64
        ),
        "core_number": lambda: np.array(G.coreness(), np.int64),
    }
    if algo not in calls:
        raise NotImplementedError
    k, out = _best(calls[algo])
    if algo in SAMPLED:
        k *= extra["live"] / len(sample)
    return k, build, out


def _forest(edge_ids, w):
    return len(edge_ids), float(w[np.asarray(edge_ids, np.int64)].sum())


def _networkit(src, dst, w, n, algo, source, extra):
    import networkit as nk

    nk.setNumberOfThreads(2)  # the same two cores dgraph's workers have
    t = time.perf_counter()
    G = nk.GraphFromCoo(
        (np.ones(src.size), (src.astype(np.uint64), dst.astype(np.uint64))), n=n, directed=False, weighted=False
    )
    build = time.perf_counter() - t

    def run(a, result):
        a.run()
        return result(a)

    def jaccard():
        index = nk.linkprediction.JaccardIndex(G)
        return np.array([s for _, s in index.runOn([(int(a), int(b)) for a, b in extra["pairs"]])])

    def luby():
        return np.array(nk.independentset.Luby().run(G), bool)

    calls = {
        "katz": lambda: _unit(
            np.array(run(nk.centrality.KatzCentrality(G, extra["alpha"], 1.0, 1e-12), lambda a: a.scores()))
        ),
        "eigenvector": lambda: _unit(
            np.array(run(nk.centrality.EigenvectorCentrality(G, 1e-12), lambda a: a.scores()))
        ),
        "diameter": lambda: run(nk.distance.Diameter(G, nk.distance.DiameterAlgo.EXACT), lambda a: a.getDiameter()[0]),
        "jaccard": jaccard,
        "mis": luby,
        "core_number": lambda: np.array(
            run(nk.centrality.CoreDecomposition(G), lambda a: a.scores()), np.float64
        ).astype(np.int64),
    }
    if algo not in calls:
        raise NotImplementedError
    k, out = _best(calls[algo])
    return k, build, out


def _networkx(src, dst, w, n, algo, source, extra):
    import networkx as nx

    if algo != "k_truss" or src.size > peers.NX_MAX_EDGES:
        raise NotImplementedError
    t = time.perf_counter()
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    build = time.perf_counter() - t
    k, T = peers._best(lambda: nx.k_truss(G, TRUSS_K), 1)  # minutes: once
    return k, build, T.number_of_edges()


TABLE = {"scipy": _scipy, "igraph": _igraph, "networkit": _networkit, "networkx": _networkx}


def _unit(x):
    x = np.abs(np.asarray(x, np.float64))
    return x / max(np.linalg.norm(x), 1e-300)


def _sum1(x):
    x = np.abs(np.asarray(x, np.float64))
    return x / max(x.sum(), 1e-300)


# ------------------------------------------------------------------------------- dgraph
def dgraph_calls(g, source, extra):
    """Per algorithm: (cache key, the call, its answer from the pandas frame)."""
    import pandas as pd

    from dgraph import algorithms as A
    from dgraph.algorithms.distance_measures import distance_sums

    sample = extra["sample"]
    pairs = pd.DataFrame({"u": extra["pairs"][:, 0], "v": extra["pairs"][:, 1]})

    def col(name, f=np.float64):
        return lambda frame: frame.sort_values("vertex")[name].to_numpy(f)

    return {
        "hits": ("hits", lambda: A.hits(g, max_iter=1000, tol=1e-10), lambda f: _sum1(col("hubs")(f))),
        "katz": (
            "katz",
            lambda: A.katz_centrality(g, alpha=extra["alpha"], beta=1.0, tol=1e-12, weight=None),
            lambda f: _unit(col("katz_centrality")(f)),
        ),
        "eigenvector": (
            "eigenvector",
            lambda: A.eigenvector_centrality(g, max_iter=1000, tol=1e-10, weight=None),
            lambda f: _unit(col("eigenvector_centrality")(f)),
        ),
        "closeness": (
            "closeness",
            lambda: A.closeness_centrality(g, wf_improved=False),
            lambda f: col("closeness")(f)[sample],
        ),
        "harmonic": ("harmonic", lambda: A.harmonic_centrality(g), lambda f: col("harmonic")(f)[sample]),
        "eccentricity": ("sums", lambda: distance_sums(g), lambda f: col("eccentricity")(f)[sample]),
        "diameter": ("sums", lambda: distance_sums(g), lambda f: int(np.nanmax(col("eccentricity")(f)))),
        "jaccard": (
            "jaccard",
            lambda: A.jaccard_coefficient(g, pairs),
            lambda f: f.sort_values(["u", "v"]).jaccard_coefficient.to_numpy(np.float64),
        ),
        "mst": (
            "mst",
            lambda: A.minimum_spanning_tree(g, weight="w"),
            lambda f: (len(f), float(f.weight.sum())),
        ),
        "color": ("color", lambda: A.greedy_color(g, seed=1), col("color", np.int64)),
        "mis": ("mis", lambda: A.maximal_independent_set(g, seed=1), col("in_set", bool)),
        "k_truss": ("k_truss", lambda: A.k_truss(g, TRUSS_K), len),
        "bellman_ford": (
            "bellman_ford",
            lambda: A.bellman_ford(g, source, weight="w"),
            lambda f: f.sort_values("vertex").distance.astype("Float64").fillna(np.inf).to_numpy(np.float64),
        ),
        "core_number": ("core_number", lambda: A.core_number(g), col("core", np.int64)),
    }


def run_dgraph(g, call, cache, key):
    """(kernel s, call s, frame, stats) of the best call after a warm one; calls shared by
    algorithms (eccentricity and diameter) run once. The kernel is the run's ``kernel`` phase
    when the call went through the BSP runtime, else the whole call."""
    if key in cache:
        return cache[key]
    t = time.perf_counter()
    call().compute()  # warm: numba caches, in-blocks
    repeats = 1 if time.perf_counter() - t > SLOW else peers.REPEATS
    best = None
    for _ in range(repeats):
        before = g.last_stats
        t = time.perf_counter()
        frame = call().compute()
        total = time.perf_counter() - t
        stats = g.last_stats if g.last_stats is not before else None
        kernel = stats.phases.get("kernel", total) if stats is not None else total
        if best is None or kernel < best[0]:
            best = (kernel, total, frame, stats)
    cache[key] = best
    return best


# ------------------------------------------------------------------------------- answers
def _valid(algo, answer, src, dst):
    """A colouring's or an independent set's own check, and its size."""
    if algo == "color":
        ok = not np.any(answer[src] == answer[dst])
        return f"{'valid' if ok else 'NOT PROPER'}, {int(answer.max()) + 1} colours"
    hit = np.zeros(answer.size, bool)
    hit[src[answer[dst]]] = True
    hit[dst[answer[src]]] = True
    independent = not np.any(answer[src] & answer[dst])
    maximal = bool(np.all(answer | hit))
    word = "valid" if independent and maximal else ("NOT INDEPENDENT" if not independent else "NOT MAXIMAL")
    return f"{word}, {int(answer.sum()):,} vertices"


def same(algo, ours, theirs, src, dst):
    """'ok', a validity line, or 'DIFFERS (...)': does a peer's answer match dgraph's?"""
    if theirs is None or ours is None:
        return "-"
    if algo in ("color", "mis"):
        return _valid(algo, np.asarray(theirs), src, dst)
    if algo in ("diameter", "k_truss"):
        return "ok" if ours == theirs else f"DIFFERS ({ours} vs {theirs})"
    if algo == "mst":
        ok = ours[0] == theirs[0] and np.isclose(ours[1], theirs[1], rtol=1e-9)
        return f"ok ({ours[0]:,} edges, weight {ours[1]:.6f})" if ok else f"DIFFERS ({ours} vs {theirs})"
    a, b = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    if a.shape != b.shape:
        return f"DIFFERS (shapes {a.shape} vs {b.shape})"
    if algo in ("eccentricity", "core_number", "bellman_ford"):
        fa, fb = np.nan_to_num(a, posinf=-1), np.nan_to_num(b, posinf=-1)
        ok = np.array_equal(fa, fb) if algo != "bellman_ford" else np.allclose(fa, fb, rtol=1e-9, atol=1e-12)
    else:
        tol = 1e-6 if algo in ("hits", "katz", "eigenvector") else 1e-9
        ok = np.allclose(a, b, rtol=tol, atol=tol * max(float(np.abs(b).max()), 1e-300))
    return "ok" if ok else f"DIFFERS (max diff {np.nanmax(np.abs(a - b)):.2e})"


# ------------------------------------------------------------------------------- the report
def bench(client, name, algos, rows):
    import dask.dataframe as dd

    import dgraph

    title, src, dst, w, n = peers.load_input(name, False)
    w = w if w is not None else np.random.default_rng(7).random(src.size)
    src, dst, w = peers.simple(src, dst, w)
    deg = np.bincount(np.r_[src, dst], minlength=n)
    source = int(deg.argmax())
    extra = fixed(src, dst, n)
    print(
        f"\n### {title}: {n:,} vertices ({extra['live']:,} with an edge), {src.size:,} undirected edges "
        f"(simple); Bellman-Ford source {source}; Katz alpha {extra['alpha']:.3g}; "
        f"{len(extra['pairs']):,} Jaccard pairs\n",
        flush=True,
    )
    files, parquet = peers.write_inputs(src, dst, w)
    t = time.perf_counter()
    g = dgraph.from_edgelist(
        dd.read_parquet(parquet), directed=False, weight="w", vertices=np.arange(n), renumber=False
    )
    build = time.perf_counter() - t
    calls, cache = dgraph_calls(g, source, extra), {}
    print("| algorithm | system | kernel s | call s | end-to-end s | ratio to fastest peer | peak RSS MB | answer |")
    print("|---|---|---|---|---|---|---|---|")
    for algo in algos:
        key, call, read = calls[algo]
        found = {p: peers.run_peer(p, files, n, algo, source, extra, TABLE) for p in PEERS_OF[algo]}
        skip = _too_slow(algo, g)
        if skip:
            print(f"| {algo} | **dgraph** | not run: {skip} | | | | | |")
            _peer_rows(algo, found, extra, None, src, dst)
            timed = {p: r[0] for p, r in found.items() if isinstance(r, tuple)}
            fastest = min(timed, key=timed.get) if timed else None
            nan = float("nan")
            rows.append(
                dict(
                    input=title,
                    algorithm=algo,
                    dgraph=nan,
                    call=nan,
                    ratio=nan,
                    peer=fastest,
                    peer_s=timed.get(fastest, nan),
                    steps="not run (above)",
                    check="-",
                )
            )
            continue
        kernel, total, frame, stats = run_dgraph(g, call, cache, key)
        ours = read(frame)
        our_rss = sum(client.run(peers._rss_mb).values())
        timed = {p: r[0] for p, r in found.items() if isinstance(r, tuple)}
        fastest = min(timed, key=timed.get) if timed else None
        ratio = kernel / timed[fastest] if fastest else float("nan")
        mine = _valid(algo, ours, src, dst) if algo in ("color", "mis") else _describe(algo, ours)
        if stats is not None and stats.info.get("converged") is False:
            mine = f"not converged in {stats.info.get('iterations', 1000)} steps"
        steps = (
            f"{stats.nranks} rank{'s' * (stats.nranks > 1)} x {stats.threads} threads, {stats.supersteps} supersteps, "
            f"{stats.total_bytes / 2**20:.1f} MiB between ranks"
            if stats
            else "dask merges, no BSP run"
        )
        print(
            f"| {algo} | **dgraph** ({steps}) | {kernel:.3f} | {total:.3f} | {build + total:.3f} | {ratio:.2f} "
            f"| {our_rss:,.0f} | {mine} |"
        )
        _peer_rows(algo, found, extra, ours, src, dst)
        rows.append(
            {
                "input": title,
                "algorithm": algo,
                "dgraph": kernel,
                "call": total,
                "peer": fastest,
                "peer_s": timed.get(fastest, float("nan")),
                "ratio": ratio,
                "steps": steps,
                "check": same(algo, ours, found[fastest][3], src, dst) if fastest else "-",
            }
        )
        sys.stdout.flush()


def _too_slow(algo, g):
    """Why dgraph's call is left out on this input, or ''."""
    n, arcs = g.num_vertices, g.num_arcs
    if algo in SAMPLED + ("diameter",) and n * arcs > ALL_SOURCES_UP_TO:
        words = int(max(1, min(-(-n // 64), (64 << 20) // (8 * arcs))))
        return (
            f"every source, exactly: {-(-n // (64 * words)):,} batches of {64 * words:,} sources, "
            "a superstep per level of each, "
            f"every level gathering {words} word(s) per arc in numpy (n x arcs = {n * arcs:.1e}; "
            f"Kronecker 14's {16384 * 425920:.1e} takes ~30 s)"
        )
    if algo == "k_truss" and arcs > TRUSS_ARCS_UP_TO:
        return f"{arcs:,} arcs: every round recounts every kept arc's triangles in numpy (0.43 M arcs take ~60 s)"
    return ""


def _peer_rows(algo, found, extra, ours, src, dst):
    timed = {p: r[0] for p, r in found.items() if isinstance(r, tuple)}
    fastest = min(timed.values()) if timed else float("nan")
    for peer, r in found.items():
        if r is None:
            print(f"| | {peer} | not offered | | | | | |")
        elif isinstance(r, str):
            print(f"| | {peer} | {'' if r.startswith('Skipped') else 'failed: '}{r[:90]} | | | | | |")
        else:
            mark = f" (from {len(extra['sample'])} sources, x{extra['live'] / len(extra['sample']):.0f})" * (
                algo in SAMPLED
            )
            check = same(algo, ours, r[3], src, dst) if ours is not None or algo in ("color", "mis") else "-"
            print(
                f"| | {peer}{mark} | {r[0]:.3f} | {r[0]:.3f} | {r[1] + r[0]:.3f} | {r[0] / fastest:.2f} "
                f"| {r[2]:,.0f} | {check} |"
            )


def _describe(algo, answer):
    if algo == "diameter":
        return f"diameter {answer}"
    if algo == "k_truss":
        return f"{answer:,} edges"
    if algo == "mst":
        return f"{answer[0]:,} edges, weight {answer[1]:.6f}"
    return ""


def _num(x, places):
    return "-" if x != x else f"{x:.{places}f}"


def summary(rows):
    print("\n### Summary: dgraph's kernel over the fastest peer's (sampled peers extrapolated)\n")
    print(
        "| input | algorithm | dgraph kernel s | dgraph call s | fastest peer | peer s | ratio | dgraph run | answer |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['input']} | {r['algorithm']} | {_num(r['dgraph'], 3)} | {_num(r['call'], 3)} | {r['peer'] or '-'} "
            f"| {_num(r['peer_s'], 3)} | {_num(r['ratio'], 2)} | {r['steps']} | {r['check']} |"
        )


def main(argv=None):
    import warnings

    from distributed import Client, LocalCluster

    from dgraph.provenance import header

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="Kronecker 14 instead of 18")
    ap.add_argument("--inputs", help="comma-separated subset of the inputs (e.g. kron14,luxembourg_osm)")
    ap.add_argument("--algorithms", default=",".join(ALL))
    args = ap.parse_args(argv)
    algos = [a for a in args.algorithms.split(",") if a]
    if not set(algos) <= set(ALL):
        ap.error(f"--algorithms takes {', '.join(ALL)}")
    inputs = args.inputs.split(",") if args.inputs else ["luxembourg_osm", "kron14" if args.quick else "kron18"]
    print(header(None if argv is None else [sys.argv[0], *argv]) + "\n", flush=True)
    load = os.getloadavg()[0]
    if load > 2.5:
        print(f"Other work shared the machine during this run (load average {load:.1f} at the start).\n")
    warnings.simplefilter("ignore")  # power iterations that stop at max_iter say so in the table
    rows = []
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster) as client,
    ):
        print(f"dgraph on 2 workers x 1 thread; python {sys.version.split()[0]}; kernels best of {peers.REPEATS}")
        for name in inputs:
            bench(client, name, algos, rows)
    summary(rows)


if __name__ == "__main__":
    main()
