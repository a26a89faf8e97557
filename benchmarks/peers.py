"""dgraph against what you would use instead: one report, the same inputs, one process tree.

    python benchmarks/peers.py --quick                 # minutes: Kronecker 16, a 300x300 grid, the real graphs
    python benchmarks/peers.py                         # Kronecker 18 and 20, the 1000x1000 grid, the real graphs
    python benchmarks/peers.py --plot peers.png --json peers.json
    python benchmarks/peers.py --vertex-order labels,degree   # dgraph both ways: labels' order and hubs first

Inputs: Graph 500 Kronecker graphs, a 2-D grid, and real graphs shipped in ``dgraph.datasets``
(luxembourg_osm and cal_road roads, cal_road with its weights; soc-Slashdot0902, wiki-Vote and
facebook_combined social graphs), all made simple and undirected (self-loops and repeats
dropped, the lightest weight kept; unweighted inputs get weights uniform in [0, 1) for SSSP).
Algorithms: BFS, SSSP, WCC, PageRank (20 iterations), CDLP (label propagation), triangles,
LCC and betweenness from 16 fixed sources, each where a peer has it. Peers: scipy.sparse.csgraph,
igraph, networkit and networkx (networkx only on inputs under 1.5M edges; on bigger ones its time
is extrapolated from its time per edge on the biggest input it ran, and marked so); with
``--spark``, Spark GraphX too (BFS as ShortestPaths to one landmark, WCC, PageRank; it ships
inside pyspark and runs on local[2] through py4j; its peak RSS includes the JVM's).

dgraph runs on a LocalCluster of 2 workers x 1 thread; each peer runs in its own child process,
so its peak RSS is its own. For every input and algorithm the table gives kernel seconds (the
algorithm alone, best of 3; networkx once), dgraph's whole call until its result is a pandas
frame, end-to-end seconds (construction + call), the ratio to the fastest peer's kernel, peak
RSS, and whether the answer matches dgraph's: distances, component sizes, triangle counts and
LCC exactly, PageRank and betweenness to 1e-6 (relative), label propagation by its number of
communities only (every library runs a different variant: marked "variant"). A different answer
is flagged "DIFFERS", never hidden. Nothing is asserted: this is a measurement.

``benchmarks/breadth.py`` measures the rest of ``dgraph.algorithms`` (HITS, Katz, eigenvector,
closeness, harmonic, eccentricity, Jaccard, MST, colouring, MIS, k-truss, Bellman-Ford, cores)
the same way, with this script's inputs, child processes and timing.
"""

from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing as mp
import os
import queue
import resource
import sys
import tempfile
import time

import numpy as np

PR_ITERS = 20
REPEATS = 3
BC_SOURCES = 16
NX_MAX_EDGES = 1_500_000
PEER_MEMORY_SHARE = 0.6  # of physical memory: a peer process may use at most this much address space
ALL = ("bfs", "sssp", "wcc", "pagerank", "cdlp", "triangles", "lcc", "bc")


def _rss_mb():
    """Peak resident memory of this process (VmHWM is not inherited over exec, unlike ru_maxrss)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _best(call, repeats=REPEATS):
    out, best = None, float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        out = call()
        best = min(best, time.perf_counter() - t)
    return best, out


# ------------------------------------------------------------------------------- inputs
def _lines(path):
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.strip() and not line.startswith(("#", "%", "c ")):
                yield line.split()


def _text_edges(path, skip_header=False, cols=(0, 1), weight_col=None):
    rows = list(_lines(path))
    if skip_header:
        rows = rows[1:]
    src = np.array([int(r[cols[0]]) for r in rows], np.int64)
    dst = np.array([int(r[cols[1]]) for r in rows], np.int64)
    w = np.array([float(r[weight_col]) for r in rows]) if weight_col is not None else None
    return src, dst, w


def load_input(name, quick):
    """``(title, src, dst, weights or None, n)`` with labels 0..n-1."""
    from dgraph.generators import _grid_part, kronecker

    if name.startswith("kron"):
        scale = int(name[4:])
        e = kronecker(scale, seed=1)[0].compute(scheduler="sync")
        return f"Kronecker scale {scale}", e.src.to_numpy(), e.dst.to_numpy(), None, 1 << scale
    if name.startswith("grid"):
        k = int(name[4:])
        e = _grid_part(k, k, 0, k)
        return f"grid {k}x{k}", e.src.to_numpy(), e.dst.to_numpy(), None, k * k
    files = {
        "luxembourg_osm": ("road-luxembourg-osm.mtx.gz", dict(skip_header=True)),
        "cal_road": ("cal.cedge.gz", dict(cols=(1, 2), weight_col=3)),
        "soc-Slashdot0902": ("soc-Slashdot0902.txt.gz", {}),
        "wiki-Vote": ("wiki-Vote.txt.gz", {}),
        "facebook_combined": ("facebook_combined.txt.gz", {}),
    }
    from dgraph.datasets import path

    _, kw = files[name]
    src, dst, w = _text_edges(path(name), **kw)
    ids, inverse = np.unique(np.r_[src, dst], return_inverse=True)  # SNAP ids have gaps; 1-based mtx
    src, dst = inverse[: src.size], inverse[src.size :]
    return name + (" (weighted)" if w is not None else ""), src, dst, w, ids.size


def simple(src, dst, w):
    """Undirected simple graph: self-loops and repeats (either direction) dropped, lightest kept."""
    keep = src != dst
    src, dst, w = src[keep], dst[keep], w[keep]
    a, b = np.minimum(src, dst), np.maximum(src, dst)
    order = np.lexsort((w, b, a))
    a, b, w = a[order], b[order], w[order]
    first = np.r_[True, (a[1:] != a[:-1]) | (b[1:] != b[:-1])]
    return a[first], b[first], w[first]


# ------------------------------------------------------------------------------- answers
def _components(labels):
    return sorted(np.unique(labels, return_counts=True)[1].tolist())


def same(algo, ours, theirs):
    """'ok', 'variant' or 'DIFFERS (...)': does a peer's answer match dgraph's?"""
    if theirs is None or ours is None:
        return "-"
    if algo == "cdlp":
        return "variant"
    if algo in ("wcc", "triangles"):
        return "ok" if ours == theirs else f"DIFFERS ({str(ours)[:30]} vs {str(theirs)[:30]})"
    a, b = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    if a.shape != b.shape:
        return f"DIFFERS (shapes {a.shape} vs {b.shape})"
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        return f"DIFFERS (NaN: {int(np.isnan(a).sum()):,} in dgraph's answer, {int(np.isnan(b).sum()):,} in the peer's)"
    if algo in ("bfs", "lcc"):
        ok = (
            np.array_equal(np.nan_to_num(a, posinf=-1), np.nan_to_num(b, posinf=-1))
            if algo == "bfs"
            else np.allclose(a, b, atol=1e-12)
        )
    elif algo == "sssp":
        ok = np.allclose(np.nan_to_num(a, posinf=-1), np.nan_to_num(b, posinf=-1), rtol=1e-9, atol=1e-12)
    else:  # pagerank, bc
        scale = max(float(np.abs(b).max()), 1e-300)
        ok = np.allclose(a, b, rtol=1e-6, atol=1e-6 * scale)
        if not ok and algo == "pagerank" and np.allclose(a, b, rtol=0, atol=1e-2 * scale):
            # igraph solves exactly (PRPACK), networkit iterates its own way: near, not equal
            return f"close, not equal (max diff {np.nanmax(np.abs(a - b)):.1e})"
    return "ok" if ok else f"DIFFERS (max diff {np.nanmax(np.abs(a - b)):.2e})"


# ------------------------------------------------------------------------------- peers
def _scipy(src, dst, w, n, algo, source, sources):
    import scipy.sparse as sp
    from scipy.sparse.csgraph import breadth_first_order, connected_components, dijkstra, shortest_path

    t = time.perf_counter()
    A = sp.csr_matrix((np.r_[w, w], (np.r_[src, dst], np.r_[dst, src])), shape=(n, n))
    U = A.copy()
    U.data[:] = 1.0
    build = time.perf_counter() - t
    if algo == "bfs":
        k, _ = _best(lambda: breadth_first_order(U, source, directed=False, return_predecessors=True))
        return k, build, shortest_path(U, unweighted=True, indices=source)  # levels for the check, not timed
    if algo == "sssp":
        k, d = _best(lambda: dijkstra(A, indices=source))
        return k, build, d
    if algo == "wcc":
        k, (_, lab) = _best(lambda: connected_components(U, directed=False))
        return k, build, _components(lab)
    if algo == "pagerank":

        def pr():
            deg = np.asarray(U.sum(axis=1)).ravel()
            inv = np.divide(1.0, deg, out=np.zeros(n), where=deg > 0)
            x = np.full(n, 1.0 / n)
            for _ in range(PR_ITERS):
                x = 0.85 * (U @ (x * inv) + x[deg == 0].sum() / n) + 0.15 / n
            return x

        k, x = _best(pr)
        return k, build, x
    raise NotImplementedError


def _igraph(src, dst, w, n, algo, source, sources):
    import igraph as ig

    t = time.perf_counter()
    G = ig.Graph(n=n, edges=np.column_stack([src, dst]), directed=False, edge_attrs={"w": w})
    build = time.perf_counter() - t
    calls = {
        "bfs": lambda: np.array(G.distances(source=[source])[0], np.float64),
        "sssp": lambda: np.array(G.distances(source=[source], weights="w")[0], np.float64),
        "wcc": lambda: _components(np.array(G.connected_components().membership)),
        "pagerank": lambda: np.array(G.pagerank(damping=0.85)),  # PRPACK solves exactly: no iteration count
        "cdlp": lambda: len(set(G.community_label_propagation().membership)),
        "triangles": lambda: len(G.list_triangles()),
        "lcc": lambda: np.nan_to_num(np.array(G.transitivity_local_undirected(mode="zero"), np.float64)),
        "bc": lambda: np.array(G.betweenness(sources=sources, directed=False)),
    }
    if algo not in calls:
        raise NotImplementedError
    k, out = _best(calls[algo])
    return k, build, out


def _networkit(src, dst, w, n, algo, source, sources):
    import networkit as nk

    nk.setNumberOfThreads(2)  # the same two cores dgraph's workers have
    t = time.perf_counter()
    G = nk.GraphFromCoo((w, (src.astype(np.uint64), dst.astype(np.uint64))), n=n, directed=False, weighted=True)
    build = time.perf_counter() - t

    def run(algo_obj, result):
        algo_obj.run()
        return result(algo_obj)

    calls = {
        "bfs": lambda: np.array(
            run(nk.distance.BFS(G, source, storePaths=False), lambda a: a.getDistances()), np.float64
        ),
        "sssp": lambda: np.array(
            run(nk.distance.Dijkstra(G, source, storePaths=False), lambda a: a.getDistances()), np.float64
        ),
        "wcc": lambda: _components(
            np.array(run(nk.components.ConnectedComponents(G), lambda a: a.getPartition().getVector()))
        ),
        "pagerank": lambda: _nk_pagerank(nk, G),
        "cdlp": lambda: run(nk.community.PLP(G), lambda a: a.getPartition().numberOfSubsets()),
        "triangles": lambda: _nk_triangles(nk, G),
        "lcc": lambda: np.array(run(nk.centrality.LocalClusteringCoefficient(G, turbo=True), lambda a: a.scores())),
    }
    if algo not in calls:
        raise NotImplementedError
    k, out = _best(calls[algo])
    if algo in ("bfs", "sssp"):
        out[out > 1e300] = np.inf
    return k, build, out


def _nk_triangles(nk, G):
    G.indexEdges()
    return int(round(sum(run_scores(nk.sparsification.TriangleEdgeScore(G))) / 3))


def run_scores(algo):
    algo.run()
    return algo.scores()


def _nk_pagerank(nk, G):
    pr = nk.centrality.PageRank(G, damp=0.85, tol=1e-30)
    pr.maxIterations = PR_ITERS
    pr.norm = nk.centrality.Norm.L1_NORM
    pr.run()
    return np.array(pr.scores())


def _networkx(src, dst, w, n, algo, source, sources):
    import networkx as nx
    from networkx.algorithms.community import label_propagation_communities

    t = time.perf_counter()
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.tolist()))
    build = time.perf_counter() - t

    def dense(d, fill):
        out = np.full(n, fill, np.float64)
        out[list(d)] = list(d.values())
        return out

    def pagerank():
        try:
            return dense(nx.pagerank(G, max_iter=PR_ITERS, tol=0, weight=None), 0)
        except nx.PowerIterationFailedConvergence:
            return None

    calls = {
        "bfs": lambda: dense(nx.single_source_shortest_path_length(G, source), np.inf),
        "sssp": lambda: dense(nx.single_source_dijkstra_path_length(G, source), np.inf),
        "wcc": lambda: sorted(len(c) for c in nx.connected_components(G)),
        "pagerank": pagerank,
        "cdlp": lambda: len(list(label_propagation_communities(G))),
        "triangles": lambda: sum(nx.triangles(G).values()) // 3,
        "lcc": lambda: dense(nx.clustering(G), 0),
        "bc": lambda: dense(nx.betweenness_centrality_subset(G, sources, list(range(n)), normalized=False), 0),
    }
    k, out = _best(calls[algo], 1)
    return k, build, out


def _spark(src, dst, w, n, algo, source, sources):
    """Spark GraphX (it ships inside pyspark) through py4j: GraphLoader, lib.PageRank,
    lib.ConnectedComponents and lib.ShortestPaths (BFS hops to one landmark), on local[2]."""
    if algo not in ("bfs", "wcc", "pagerank"):
        raise NotImplementedError
    from pyspark import SparkConf, SparkContext

    conf = (
        SparkConf()
        .setMaster("local[2]")
        .setAppName("dgraph-peers")
        .set("spark.ui.enabled", "false")
        .set("spark.driver.memory", "8g")
    )
    sc = SparkContext(conf=conf)
    sc.setLogLevel("ERROR")
    try:
        jvm, tmp = sc._jvm, tempfile.mkdtemp()
        path = os.path.join(tmp, "edges.txt")
        np.savetxt(path, np.c_[np.r_[src, dst], np.r_[dst, src]], fmt="%d")  # both arcs: GraphX graphs are directed
        mem = jvm.org.apache.spark.storage.StorageLevel.MEMORY_ONLY()
        lib = jvm.org.apache.spark.graphx.lib
        tag = jvm.scala.reflect.ClassTag.apply(jvm.java.lang.Object().getClass())
        t = time.perf_counter()
        G = jvm.org.apache.spark.graphx.GraphLoader.edgeListFile(sc._jsc.sc(), path, False, 2, mem, mem).cache()
        G.edges().count()
        build = time.perf_counter() - t
        if algo == "pagerank":
            call = lambda: lib.PageRank.run(G, PR_ITERS, 0.15, tag, tag)  # noqa: E731
        elif algo == "wcc":
            call = lambda: lib.ConnectedComponents.run(G, tag, tag)  # noqa: E731
        else:
            marks = jvm.scala.jdk.javaapi.CollectionConverters.asScala(
                jvm.java.util.ArrayList([jvm.java.lang.Long(source)])
            ).toSeq()
            call = lambda: lib.ShortestPaths.run(G, marks, tag)  # noqa: E731

        def kernel():
            out = call()
            out.vertices().count()  # GraphX is lazy: this runs it
            return out

        k, out = _best(kernel, 2)
        where = os.path.join(tmp, "out")
        out.vertices().saveAsTextFile(where)
        answer = _spark_answer(algo, where, n, source)
        jvm_rss = _jvm_rss_mb(sc)
    finally:
        sc.stop()
    return k, build, answer, jvm_rss


def _spark_answer(algo, where, n, source):
    values = np.full(n, np.inf if algo == "bfs" else 0.0)
    for name in os.listdir(where):
        if not name.startswith("part-"):
            continue
        with open(os.path.join(where, name)) as f:
            for line in f:
                vid, rest = line.strip()[1:-1].split(",", 1)
                if algo == "bfs":
                    values[int(vid)] = float(rest.split("->")[1].rstrip(")")) if "->" in rest else np.inf
                else:
                    values[int(vid)] = float(rest)
    if algo == "wcc":
        seen = values.astype(np.int64)
        return _components(seen)
    if algo == "pagerank":
        return values / values.sum()
    return values


def _jvm_rss_mb(sc):
    """Peak RSS of the JVM behind the SparkContext (a separate process from this one)."""
    import psutil

    here = psutil.Process()
    peaks = []
    for child in here.children(recursive=True):
        try:
            with open(f"/proc/{child.pid}/status") as f:
                peaks += [int(line.split()[1]) / 1024 for line in f if line.startswith("VmHWM:")]
        except OSError:
            pass
    return max(peaks, default=float("nan"))


PEERS = {"scipy": _scipy, "igraph": _igraph, "networkit": _networkit, "networkx": _networkx, "spark": _spark}


def _child(name, files, n, algo, source, sources, answer, table=None):
    if name != "spark":  # a peer that outgrows the machine fails here, instead of the OOM killer choosing a victim
        cap = int(PEER_MEMORY_SHARE * os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    src, dst, w = (np.load(f) for f in files)
    try:
        kernel, build, out, *jvm = (table or PEERS)[name](src, dst, w, n, algo, source, sources)
        answer.put((kernel, build, _rss_mb() + (jvm[0] if jvm else 0.0), out))
    except NotImplementedError:
        answer.put(None)
    except Exception as exc:  # a failing peer is reported, not fatal
        answer.put(f"{type(exc).__name__}: {exc}")


def run_peer(name, files, n, algo, source, sources, table=None):
    """One peer's (kernel, build, RSS, answer) in a child process; ``table`` maps peer names to
    module-level functions (a sibling script's own, such as ``breadth.py``'s), by default ``PEERS``."""
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(name, files, n, algo, source, sources, q, table))
    p.start()
    while True:  # a peer killed for memory never answers: report it instead of waiting forever
        try:
            out = q.get(timeout=1)
            break
        except queue.Empty:
            if not p.is_alive():
                out = f"died (exit code {p.exitcode}{', killed: out of memory?' if p.exitcode == -9 else ''})"
                break
    p.join()
    return out


# ------------------------------------------------------------------------------- dgraph
def run_dgraph(client, path, n, algo, source, sources, vertex_order="labels"):
    """Kernel and call seconds (best of 3), the answer, and the run's stats."""
    import dask.dataframe as dd

    import dgraph
    from dgraph import algorithms as A

    if not hasattr(run_dgraph, "graph") or run_dgraph.graph[0] != (path, vertex_order):
        t = time.perf_counter()
        g = dgraph.from_edgelist(
            dd.read_parquet(path),
            directed=False,
            weight="w",
            vertices=np.arange(n),
            renumber=False,
            vertex_order=vertex_order,
        )
        run_dgraph.graph = ((path, vertex_order), g, time.perf_counter() - t)
    _, g, build = run_dgraph.graph
    calls = {
        "bfs": (lambda: A.bfs(g, source), "distance"),
        "sssp": (lambda: A.sssp(g, source, weight="w"), "distance"),
        "wcc": (lambda: A.connected_components(g, connection="weak"), "component"),
        "pagerank": (lambda: A.pagerank(g, max_iter=PR_ITERS, tol=0, weight=None), "pagerank"),
        "cdlp": (lambda: A.label_propagation(g, max_iter=10), "label"),
        "triangles": (lambda: A.triangle_count(g), "triangles"),
        "lcc": (lambda: A.local_clustering_coefficient(g), "lcc"),
        "bc": (lambda: A.betweenness_centrality(g, sources=sources, normalized=False, weight=None), "betweenness"),
    }
    call, column = calls[algo]
    call().compute()  # warm: numba caches, in-blocks
    best = None
    for _ in range(REPEATS):
        t = time.perf_counter()
        frame = call().compute()
        total = time.perf_counter() - t
        kernel = g.last_stats.phases.get("kernel", total)
        if best is None or kernel < best[0]:
            best = (kernel, total, frame)
    kernel, total, frame = best
    values = frame.sort_values("vertex")[column]
    if algo in ("bfs", "sssp"):
        answer = values.astype("Float64").fillna(np.inf).to_numpy(np.float64)
    elif algo == "wcc":
        answer = _components(values.to_numpy())
    elif algo == "cdlp":
        answer = int(values.nunique())
    elif algo == "triangles":
        answer = int(values.sum()) // 3
    elif algo == "bc":
        answer = values.to_numpy(np.float64) * len(sources) / n  # undo the n / len(sources) estimate scaling
    else:
        answer = values.to_numpy(np.float64)
    return kernel, total, build, answer, g.last_stats


# ------------------------------------------------------------------------------- the report
def write_inputs(src, dst, w):
    """The edges as .npy files (the peers' children load them) and as parquet (dgraph reads it)."""
    import pandas as pd

    tmp = tempfile.mkdtemp()
    files = tuple(os.path.join(tmp, f"{c}.npy") for c in ("src", "dst", "w"))
    for f, a in zip(files, (src, dst, w)):
        np.save(f, a)
    parquet = os.path.join(tmp, "edges.parquet")
    os.makedirs(parquet)
    for i, part in enumerate(np.array_split(np.arange(src.size), 8)):
        pd.DataFrame({"src": src[part], "dst": dst[part], "w": w[part]}).to_parquet(
            os.path.join(parquet, f"part.{i}.parquet")
        )
    return files, parquet


def bench(client, name, quick, algos, rows, nx_rate, spark=False, vertex_orders=("labels",)):

    title, src, dst, w, n = load_input(name, quick)
    weighted = w is not None
    w = w if weighted else np.random.default_rng(7).random(src.size)
    src, dst, w = simple(src, dst, w)
    deg = np.bincount(np.r_[src, dst], minlength=n)
    source = int(deg.argmax())
    sources = np.random.default_rng(11).choice(np.flatnonzero(deg > 0), size=min(BC_SOURCES, n), replace=False).tolist()
    print(
        f"\n### {title}: {n:,} vertices, {src.size:,} undirected edges (simple); BFS/SSSP source {source}\n", flush=True
    )
    files, parquet = write_inputs(src, dst, w)
    print("| algorithm | system | kernel s | call s | end-to-end s | ratio to fastest peer | peak RSS MB | answer |")
    print("|---|---|---|---|---|---|---|---|")
    for algo in algos:
        if algo == "bc" and n > 2_000_000:
            continue
        ours = {}
        for order in vertex_orders:
            ours[order] = run_dgraph(client, parquet, n, algo, source, sources, order)
            ours[order] += (sum(client.run(_rss_mb).values()),)
        answer = ours[vertex_orders[0]][3]
        peers = {}
        for peer in ("scipy", "igraph", "networkit", "networkx") + (("spark",) if spark else ()):
            if peer == "networkx" and src.size > NX_MAX_EDGES:
                rate = nx_rate.get(algo)
                peers[peer] = ("extrapolated", rate * src.size) if rate else None
                continue
            peers[peer] = run_peer(peer, files, n, algo, source, sources)
            if peer == "networkx" and isinstance(peers[peer], tuple):
                nx_rate[algo] = peers[peer][0] / src.size
        timed = {p: r[0] for p, r in peers.items() if isinstance(r, tuple) and r[0] != "extrapolated"}
        fastest = min(timed.values()) if timed else float("nan")
        checks = {}
        for peer, r in peers.items():
            if isinstance(r, tuple) and r[0] != "extrapolated":
                checks[peer] = same(algo, answer, r[3])
        for order, (k, call, build, mine, stats, our_rss) in ours.items():
            ratio = k / fastest if timed else float("nan")
            rows.append(
                {
                    "input": title,
                    "algorithm": algo,
                    "vertex_order": order,
                    "dgraph": k,
                    "dgraph_call": call,
                    "ratio": ratio,
                    "ranks": stats.nranks,
                    "threads": stats.threads,
                    "peers": {},
                }
            )
            agree = "" if order == vertex_orders[0] else f"{same(algo, answer, mine)} vs {vertex_orders[0]}"
            print(
                f"| {algo} | **dgraph** {order} ({stats.nranks} rank{'s' * (stats.nranks > 1)}, {stats.threads} "
                f"thread{'s' * (stats.threads > 1)} each) | {k:.3f} | {call:.3f} | {build + call:.3f} | {ratio:.2f} "
                f"| {our_rss:,.0f} | {agree} |"
            )
        for peer, r in peers.items():
            if r is None:
                continue
            if isinstance(r, str):
                print(f"| | {peer} | failed: {r[:60]} | | | | | |")
                continue
            if r[0] == "extrapolated":
                print(f"| | {peer} | ~{r[1]:.1f} (extrapolated) | | | {r[1] / fastest:.1f} | | |")
                facts = {"kernel": r[1], "extrapolated": True}
            else:
                print(
                    f"| | {peer} | {r[0]:.3f} | {r[0]:.3f} | {r[1] + r[0]:.3f} | {r[0] / fastest:.2f} "
                    f"| {r[2]:,.0f} | {checks[peer]} |"
                )
                facts = {"kernel": r[0], "rss": r[2], "check": checks[peer]}
            for row in rows[-len(ours) :]:
                row["peers"][peer] = facts
        sys.stdout.flush()
    del run_dgraph.graph


def summary(rows):
    print("\n### Summary: dgraph kernel / fastest peer, and speed-up over networkx\n")
    print("| input | algorithm | vertex order | dgraph s | fastest peer | ratio | x networkx |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        timed = {p: v["kernel"] for p, v in r["peers"].items() if not v.get("extrapolated")}
        best = min(timed, key=timed.get) if timed else "-"
        nx = r["peers"].get("networkx", {}).get("kernel")
        mark = "~" if r["peers"].get("networkx", {}).get("extrapolated") else ""
        print(
            f"| {r['input']} | {r['algorithm']} | {r['vertex_order']} | {r['dgraph']:.3f} | {best} "
            f"| {r['ratio']:.2f} | " + (f"{mark}{nx / r['dgraph']:.1f}x |" if nx else "- |")
        )


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    inputs = list(dict.fromkeys(r["input"] for r in rows))
    fig, axes = plt.subplots(len(inputs), 1, figsize=(10, 2.6 * len(inputs)), squeeze=False)
    systems = ["dgraph", "scipy", "igraph", "networkit", "networkx", "spark"]
    for ax, name in zip(axes[:, 0], inputs):
        mine = [r for r in rows if r["input"] == name and r["vertex_order"] == rows[0]["vertex_order"]]
        x = np.arange(len(mine))
        for i, s in enumerate(systems):
            vals = [r["dgraph"] if s == "dgraph" else r["peers"].get(s, {}).get("kernel", np.nan) for r in mine]
            hatch = ["//" if r["peers"].get(s, {}).get("extrapolated") else "" for r in mine]
            bars = ax.bar(x + (i - 2.5) * 0.14, vals, 0.14, label=s)
            for b, h in zip(bars, hatch):
                b.set_hatch(h)
        ax.set_yscale("log")
        ax.set_xticks(x, [r["algorithm"] for r in mine])
        ax.set_ylabel("seconds")
        ax.set_title(name, fontsize=10)
    axes[0, 0].legend(ncol=6, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"\nwrote {path}")


def main(argv=None):
    from distributed import Client, LocalCluster

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--quick", action="store_true", help="Kronecker 16 and a 300x300 grid instead of 18, 20 and 1000x1000"
    )
    ap.add_argument("--inputs", help="comma-separated subset of the inputs (e.g. kron18,wiki-Vote)")
    ap.add_argument("--algorithms", default=",".join(ALL))
    ap.add_argument("--plot", metavar="PNG", help="also draw the table (time per algorithm per system, log scale)")
    ap.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    ap.add_argument(
        "--vertex-order",
        default="labels",
        help="dgraph's vertex orders, comma-separated (from_edgelist's vertex_order: labels, degree = hubs first); "
        "each gets its own dgraph rows, beside the same peers",
    )
    ap.add_argument(
        "--spark", action="store_true", help="add Spark GraphX (BFS, WCC, PageRank; pip install '.[spark]', needs Java)"
    )
    args = ap.parse_args(argv)
    orders = tuple(args.vertex_order.split(","))
    if not set(orders) <= {"labels", "degree"}:
        ap.error(f"--vertex-order takes labels and/or degree, got {args.vertex_order!r}")
    from dgraph.provenance import header

    print(header(None if argv is None else [sys.argv[0], *argv]) + "\n", flush=True)
    inputs = (["kron16", "grid300"] if args.quick else ["kron18", "kron20", "grid1000"]) + [
        "facebook_combined",
        "wiki-Vote",
        "soc-Slashdot0902",
        "luxembourg_osm",
        "cal_road",
    ]
    if args.inputs:
        inputs = args.inputs.split(",")
    algos = [a for a in args.algorithms.split(",") if a]
    rows, nx_rate = [], {}
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster) as client,
    ):
        print(
            f"dgraph on 2 workers x 1 thread, vertex orders {', '.join(orders)}; python {sys.version.split()[0]}; "
            f"kernels best of {REPEATS} (networkx once)"
        )
        for name in sorted(
            inputs, key=lambda s: ("kron" in s or "grid" in s, s)
        ):  # small real graphs first: networkx rates
            bench(client, name, args.quick, algos, rows, nx_rate, args.spark, orders)
    summary(rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1, default=float)
    if args.plot:
        plot(rows, args.plot)


if __name__ == "__main__":
    main()
