"""Rank-local relaxation (dgraph.relax): BFS and SSSP give the level-synchronous answers, to the
predecessor, on every layout and transport, in fewer supersteps on high-diameter graphs."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from conftest import dataset
from graphs import er_edges, grid_edges, kron_edges, nx_graph
from scipy.sparse import csgraph

import dgraph
from dgraph import kernels
from dgraph.algorithms import bfs, sssp, verify
from dgraph.errors import DgraphInputError
from dgraph.partitioners import OneD, OnePointFiveD, TDOrch, TwoD

LAYOUTS = [
    OneD(ranks=1),
    OneD(ranks=4),
    OneD(ranks=3, balance="hashed"),
    TwoD(rows=2, cols=2),
    OnePointFiveD(rows=2, cols=2, e_threshold=12, h_threshold=5),
    TDOrch(ranks=4, chunk=2),
]


def _graph(kind, zeros=True):
    """(edges with a weight column w holding ties, and zeros unless told not to, directed,
    source)."""
    rng = np.random.default_rng(5)
    if kind == "grid":
        e, directed = grid_edges(20, 45), False
    elif kind == "kronecker":
        e, directed = kron_edges(9, seed=6), False
    else:
        e, directed = er_edges(400, 900, seed=2), True
    return e.assign(w=rng.integers(0 if zeros else 1, 12, len(e)) / 4), directed, int(e.src.iloc[0])


def _frame(result):
    return result.compute().sort_values("vertex").reset_index(drop=True)


def _is_tree(result, source):
    """Every reached vertex reaches the source by predecessors (no cycle, no dangling)."""
    pred = result.set_index("vertex").predecessor.dropna().astype(np.int64).to_dict()
    for v in pred:
        seen = set()
        while v != source:
            assert v not in seen and v in pred, f"predecessors of {v} do not lead to the source"
            seen.add(v)
            v = pred[v]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["grid", "kronecker", "er-directed"])
def test_bfs_methods_agree_on_every_layout_and_transport(client, kind):
    e, directed, source = _graph(kind)
    G = nx_graph(e, directed)
    ref = nx.single_source_shortest_path_length(G, source)
    first = None
    for layout in LAYOUTS:
        g = dgraph.from_edgelist(e[["src", "dst"]], directed=directed, layout=layout)
        for transport in ("direct", "grouped") if layout.ranks == 4 else ("direct",):
            h = g if transport == "direct" else g.with_transport("grouped", domains=2)
            for method in ("levels", "relax", "auto"):
                r = _frame(bfs(h, source, method=method))
                assert {v: int(d) for v, d in r.set_index("vertex").distance.dropna().items()} == ref
                assert verify("bfs", h, r, source=source) == []
                if first is None:
                    first = r
                pd.testing.assert_frame_equal(first, r)  # parents included


def test_bfs_switches_to_relaxation_on_a_grid_and_keeps_the_depth_limit(client):
    e = grid_edges(30, 30)
    g = dgraph.from_edgelist(e, directed=False, ranks=4)
    full = _frame(bfs(g, 0, method="levels"))
    auto = _frame(bfs(g, 0))
    info = g.last_stats.info
    assert info["relaxed_from_level"] == 16 and info["levels"] == 58
    assert info["relax_rounds"] < 58 - 16  # supersteps follow crossings, not levels
    pd.testing.assert_frame_equal(full, auto)
    for method in ("levels", "relax", "auto"):
        r = _frame(bfs(g, 0, depth_limit=40, method=method))
        expect = full.assign(
            distance=full.distance.where(full.distance <= 40), predecessor=full.predecessor.where(full.distance <= 40)
        )
        pd.testing.assert_frame_equal(expect, r)
    g2 = dgraph.from_edgelist(e, directed=False, layout="2d", ranks=4)
    _frame(bfs(g2, 0))
    assert "relaxed_from_level" not in g2.last_stats.info  # 2D: ranks own both ends of few arcs


@pytest.mark.slow
@pytest.mark.parametrize(
    "kind,zeros", [("grid", True), ("grid", False), ("kronecker", True), ("kronecker", False), ("er-directed", True)]
)
def test_sssp_methods_agree_on_every_layout(client, kind, zeros):
    # without zero weights predecessors follow equal offers as they come; with them, one pass
    # at the end picks them (and a breadth-first pass over the zero-weight ties)
    e, directed, source = _graph(kind, zeros)
    G = nx_graph(e, directed, weight="w")
    ref = nx.single_source_dijkstra_path_length(G, source)
    first = None
    for layout in LAYOUTS:
        g = dgraph.from_edgelist(e, directed=directed, weight="w", layout=layout)
        for method in ("delta-stepping", "relax", "auto"):
            r = _frame(sssp(g, source, weight="w", method=method))
            got = r.set_index("vertex").distance.dropna()
            assert len(got) == len(ref) and max(abs(got[v] - d) for v, d in ref.items()) < 1e-12
            _is_tree(r, source)
            if first is None:
                first = r
            pd.testing.assert_frame_equal(first, r)


@pytest.mark.parametrize("zeros", [True, False])
def test_numpy_and_numba_relaxation_give_identical_results(client, zeros):
    e, directed, source = _graph("grid", zeros)
    g = dgraph.from_edgelist(e, directed=directed, weight="w", ranks=3)
    h = dgraph.from_edgelist(e[["src", "dst"]], directed=directed, ranks=3)
    out = {}
    for engine in ("numba", "numpy"):
        kernels.set_engine(engine)
        try:
            out[engine] = (_frame(sssp(g, source, weight="w", method="relax")), _frame(bfs(h, source, method="relax")))
        finally:
            kernels.set_engine("numba")
    for a, b in zip(out["numba"], out["numpy"]):
        pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize(
    "engine, weighted, queue",
    [
        ("numba", True, "heap"),
        ("numba", True, "buckets"),  # of the default width
        ("numba", True, "wide buckets"),  # as wide as the largest weight, in the fewest slots
        ("numpy", True, "heap"),
        ("numba", False, "heap"),  # the unit-cost path (numba: a FIFO, not a heap)
        ("numpy", False, "heap"),
    ],
)
def test_relax_local_kernel_matches_dijkstra_inside_its_range(engine, weighted, queue):
    rng = np.random.default_rng(3)
    n, lo, hi = 500, 100, 400
    pairs = np.unique(np.c_[rng.integers(lo, hi, 3000), rng.integers(0, n, 3000)], axis=0)
    rows, cols = pairs[:, 0], pairs[:, 1]
    w = rng.integers(0, 5, rows.size) / 2 if weighted else np.ones(rows.size)
    indptr, indices, weights = kernels.build_csr(rows - lo, cols, hi - lo, weights=w)
    weights = weights if weighted else None
    buckets = {"heap": None, "buckets": kernels.bucket_queue(weights), "wide buckets": (2.0, 3, 4.0)}[queue]
    inside = (cols >= lo) & (cols < hi)
    A = sp.csr_matrix((w[inside] + 1e-300, (rows[inside] - lo, cols[inside] - lo)), shape=(hi - lo, hi - lo))
    seeds = np.array([3, 50, 70])
    start = np.array([0.0, 2.5, 2.0])  # out of order: the seeds are taken by distance
    dist = np.full(hi - lo, np.inf)
    dist[seeds] = start
    pred, changed = np.full(hi - lo, -1, np.int64), np.zeros(hi - lo, bool)
    bound = 4.0 if weighted else 5.0
    with kernels.using(engine):
        kernels.relax_local(
            kernels.LocalCSR(indptr, indices, weights),
            lo,
            hi,
            dist,
            pred,
            seeds,
            bound,
            changed,
            ties=not weighted,
            buckets=buckets,
        )
    ref = np.min([s + csgraph.dijkstra(A, indices=int(v)) for v, s in zip(seeds, start)], axis=0)
    reached = ref < bound  # expanded below the bound; their out-neighbours hold exact offers
    assert np.allclose(dist[reached], ref[reached])
    assert (dist >= ref - 1e-12).all()
    improved = np.flatnonzero(changed)
    assert set(improved) >= set(np.flatnonzero(reached)) - set(seeds)
    assert (pred[improved] >= lo).all() and (pred[improved] < hi).all()
    if not weighted:  # ties: the smallest tail one hop closer among those expanded
        final = np.flatnonzero(changed & (dist <= bound))
        assert final.size > 100
        tails, heads = rows[inside] - lo, cols[inside] - lo
        for v in final:
            one_closer = tails[(heads == v) & (dist[tails] == dist[v] - 1) & (dist[tails] < bound)]
            assert pred[v] == one_closer.min() + lo


def _split_search(monkeypatch, kind, scale=1):
    """A small graph's rows from 5 on, for ``relax_local`` on two threads (the grain lowered so
    that it splits; skipped without a thread-safe threading layer): rows, cols and weights of
    every arc (weights times ``scale``), lo, hi, which arcs are the rows', and their CSR."""
    from dgraph.kernels import paths

    with kernels.using("numba", threads=2):
        if kernels.threads() < 2:
            pytest.skip("numba has no thread-safe threading layer (omp or tbb) on this machine")
    monkeypatch.setattr(paths, "DELTA_GRAIN", 1)
    e, directed, _ = _graph(kind, zeros=False)
    rows, cols = (e.src.to_numpy(), e.dst.to_numpy()) if directed else (np.r_[e.src, e.dst], np.r_[e.dst, e.src])
    w = scale * (e.w.to_numpy() if directed else np.r_[e.w, e.w])
    lo, hi = 5, int(max(rows.max(), cols.max())) + 1
    mine = rows >= lo
    return rows, cols, w, lo, hi, mine, *kernels.build_csr(rows[mine] - lo, cols[mine], hi - lo, weights=w[mine])


@pytest.mark.parametrize("kind", ["grid", "kronecker", "er-directed"])
def test_relax_local_on_two_threads_gives_the_serial_results(monkeypatch, kind):
    # delta-stepping on two threads against the serial bucket queue: the same distances, the same
    # improved vertices and, with ties, the same predecessors (keyed tails, a bound, seeds at
    # several distances, heads outside the range); the grain is lowered so small graphs split
    from dgraph.kernels import paths

    rows, cols, w, lo, hi, mine, indptr, indices, weights = _split_search(monkeypatch, kind)
    threaded, search = [], paths._relax_threads
    monkeypatch.setattr(paths, "_relax_threads", lambda *a: threaded.append(search(*a)) or threaded[-1])
    key = np.random.default_rng(4).permutation(hi - lo).astype(np.int64)
    seeds = np.array([0, 7, 30])
    for bound, ties, start in [
        (np.inf, True, [0.0, 0.0, 0.0]),
        (12.0, True, [0.0, 0.5, 1.25]),
        (np.inf, False, [0, 1, 2]),
    ]:
        out = []
        for threads in (1, 2):
            dist = np.full(hi - lo, np.inf)
            dist[seeds] = start
            pred, changed = np.full(hi - lo, -1, np.int64), np.zeros(hi - lo, bool)
            with kernels.using("numba", threads=threads):
                scanned = kernels.relax_local(
                    kernels.LocalCSR(indptr, indices, weights),
                    lo,
                    hi,
                    dist,
                    pred,
                    seeds,
                    bound,
                    changed,
                    key,
                    ties,
                    0,
                    kernels.bucket_queue(weights),
                )
            out.append((dist, pred, changed, scanned))
        (dist, pred, changed, scanned), (dist2, pred2, changed2, scanned2) = out
        assert threaded.pop() is not None  # the two threads ran (their seeds fit the ring)
        np.testing.assert_array_equal(dist2, dist)
        np.testing.assert_array_equal(changed2, changed)
        if ties:
            np.testing.assert_array_equal(pred2, pred)
        improved = changed & (dist > 0)
        heads = cols[mine] - lo
        inside = cols[mine] >= lo
        for v in np.flatnonzero(improved)[:200]:  # every predecessor offers the distance
            u = pred2[v] & 0xFFFFFFFF
            arcs = np.flatnonzero((rows[mine][inside] - lo == u) & (heads[inside] == v))
            assert np.isclose(dist2[u] + w[mine][inside][arcs].min(), dist2[v]) and key[u] == pred2[v] >> 32
        assert scanned2 >= scanned * 0.9
        arcs = pd.DataFrame({"u": rows[mine][inside] - lo, "v": heads[inside], "w": w[mine][inside]})
        arcs = arcs.groupby(["u", "v"], as_index=False).w.min()  # scipy would add parallel arcs' weights
        A = sp.csr_matrix((arcs.w, (arcs.u, arcs.v)), shape=(hi - lo, hi - lo))
        ref = np.min([s + csgraph.dijkstra(A, indices=int(v)) for v, s in zip(seeds, start)], axis=0)
        reached = ref < bound
        np.testing.assert_allclose(dist2[reached], ref[reached])
        assert reached.sum() > 100


@pytest.mark.parametrize("kind", ["grid", "kronecker", "er-directed"])
def test_relax_local_on_two_threads_packs_whole_number_weights(monkeypatch, kind):
    # weighted arcs on two threads search on packed cells, with the serial float search's
    # distances, improved vertices and, with ties, predecessors; distances that are not whole
    # numbers, or sums that outgrow int32, search on the floats instead, with the same results
    from dgraph.kernels import delta_threads

    rows, cols, w, lo, hi, mine, indptr, indices, weights = _split_search(monkeypatch, kind, scale=4)  # 1..11
    searched, search = [], delta_threads._search
    monkeypatch.setattr(
        delta_threads, "_search", lambda graph, state, *a: searched.append(len(state)) or search(graph, state, *a)
    )
    seeds = np.array([0, 7, 30])
    arcs = kernels.weighted_arcs(indices, weights)
    assert arcs.dtype == np.int64 and (arcs >> 32 == weights).all() and (arcs & 0xFFFFFFFF == indices).all()
    far = 2**31 - 2  # every offer from here outgrows int32
    for start, bound, ties, states in [
        ([0, 0, 0], np.inf, True, [2]),
        ([0, 4, 9], 40.0, True, [2]),
        ([0, 1, 2], np.inf, False, [2]),
        ([0, 0.5, 1.25], np.inf, True, [3]),  # distances that are not whole numbers
        ([far, far, far], np.inf, True, [2, 3]),  # packed, then again on the floats
    ]:
        out = []
        for threads, packed in ((1, None), (2, arcs)):
            dist = np.full(hi - lo, np.inf)
            dist[seeds] = start
            pred, changed = np.full(hi - lo, -1, np.int64), np.zeros(hi - lo, bool)
            searched.clear()
            with kernels.using("numba", threads=threads):
                kernels.relax_local(
                    kernels.LocalCSR(indptr, indices, weights),
                    lo,
                    hi,
                    dist,
                    pred,
                    seeds,
                    bound,
                    changed,
                    ties=ties,
                    buckets=kernels.bucket_queue(weights),
                    arcs=packed,
                )
            out.append((dist, pred, changed))
        assert searched == states
        (dist, pred, changed), (dist2, pred2, changed2) = out
        assert np.isfinite(dist).sum() > 100
        np.testing.assert_array_equal(dist2, dist)
        np.testing.assert_array_equal(changed2, changed)
        if ties:
            np.testing.assert_array_equal(pred2, pred)
        else:  # every predecessor offers the distance
            heads, tails, arc_w = cols[mine] - lo, rows[mine] - lo, w[mine]
            for v in np.flatnonzero(changed2)[:200]:
                offers = dist2[tails] + arc_w
                assert ((tails == pred2[v] - lo) & (heads == v) & (offers == dist2[v])).any()


def test_relax_local_on_two_threads_counts_its_rounds(monkeypatch):
    # the search on two threads reports its rounds (GAP's iterations: a barrier each) and threads:
    # at least one round for every bucket a final distance lies in; from a root in a component of
    # two vertices, one round for the root and one for its neighbour (a bucket above it); one
    # thread reports nothing
    rows, cols, w, lo, hi, mine, indptr, indices, weights = _split_search(monkeypatch, "kronecker", scale=4)
    n = hi - lo
    arcs = kernels.weighted_arcs(indices, weights)
    queue = kernels.bucket_queue(weights, lightest=1.0)  # buckets 2 wide, as on a skewed graph
    pair_indptr = np.r_[indptr, indptr[-1] + 1, indptr[-1] + 2]  # vertices n and n + 1 joined by weight 9
    pair = kernels.LocalCSR(pair_indptr, np.r_[indices, n + 1, n], np.r_[weights, 9.0, 9.0])
    for threads, csr, seed in ((2, kernels.LocalCSR(indptr, indices, weights), 0), (2, pair, n), (1, pair, n)):
        size = csr.indptr.size - 1
        dist, pred, changed = np.full(size, np.inf), np.full(size, -1, np.int64), np.zeros(size, bool)
        dist[seed] = 0.0
        counts = np.zeros(2, np.int64)
        with kernels.using("numba", threads=threads):
            scanned = kernels.relax_local(
                csr,
                0,
                size,
                dist,
                pred,
                np.array([seed]),
                np.inf,
                changed,
                ties=True,
                buckets=queue,
                arcs=kernels.weighted_arcs(csr.indices, csr.weights),
                counts=counts,
            )
        if threads == 1:
            assert counts.tolist() == [0, 0]
        elif seed == n:
            assert counts.tolist() == [2, 2] and scanned == 2 and dist[n + 1] == 9.0
        else:
            reached = np.isfinite(dist)
            assert reached.sum() > 100 and counts[1] == 2
            assert counts[0] >= np.unique(np.floor(dist[reached] / queue[2])).size
    assert arcs is not None


def test_full_bins_grow_in_place_or_into_a_new_pool_keeping_their_entries():
    from dgraph.kernels import delta_threads

    room = delta_threads.BIN_ROOM
    pool, start, rooms, fill = delta_threads._new_bins(3)
    assert pool.size == 6 * room and start.tolist() == [0, room, 2 * room] and fill.tolist() == [0, 0, 0]
    pool[start[1] : start[1] + room] = np.arange(room)
    pool[start[2] : start[2] + 5] = -np.arange(1, 6)
    fill[1], fill[2] = room, 5  # bin 1 is full
    bins = delta_threads._grown((pool, start, rooms, fill))
    assert bins[0] is pool  # moved to the free end
    assert start.tolist() == [0, 3 * room, 2 * room] and rooms.tolist() == [room, 2 * room, room]
    fill[0] = room  # full too, with no room at the end for it: every bin moves into a new pool
    pool[:room] = 7
    grown, start, rooms, fill = delta_threads._grown(bins)
    assert grown.size == 2 * rooms.sum() and grown is not pool
    assert rooms.tolist() == [2 * room, 2 * room, room] and fill.tolist() == [room, room, 5]
    assert start.tolist() == [0, 2 * room, 4 * room]
    assert (grown[:room] == 7).all() and grown[2 * room : 3 * room].tolist() == list(range(room))
    assert grown[4 * room : 4 * room + 5].tolist() == [-1, -2, -3, -4, -5]


@pytest.mark.parametrize("packed", [False, True])
def test_relax_local_on_two_threads_grows_bins_past_their_first_room(monkeypatch, packed):
    # hubs whose leaves all join a few bins, each many times the room a bin starts with, and a
    # chain from every leaf: the threads' results are the serial search's
    from dgraph.kernels import delta_threads, paths

    with kernels.using("numba", threads=2):
        if kernels.threads() < 2:
            pytest.skip("numba has no thread-safe threading layer (omp or tbb) on this machine")
    monkeypatch.setattr(paths, "DELTA_GRAIN", 1)
    threaded, search = [], paths._relax_threads
    monkeypatch.setattr(paths, "_relax_threads", lambda *a: threaded.append(search(*a)) or threaded[-1])
    states, state_search = [], delta_threads._search
    monkeypatch.setattr(
        delta_threads, "_search", lambda graph, state, *a: states.append(len(state)) or state_search(graph, state, *a)
    )
    rng = np.random.default_rng(9)
    leaves = 40 * delta_threads.BIN_ROOM
    hubs = np.repeat([0, 1], leaves // 2)
    src = np.r_[0, hubs, np.arange(2, leaves + 1)]
    dst = np.r_[1, np.arange(2, leaves + 2), np.arange(3, leaves + 2)]
    w = np.r_[1, rng.integers(1, 4, leaves), rng.integers(1, 40, leaves - 1)].astype(float)
    n = leaves + 2
    indptr, indices, weights = kernels.build_csr(np.r_[src, dst], np.r_[dst, src], n, weights=np.r_[w, w])
    out = []
    for threads in (1, 2):
        dist, pred, changed = np.full(n, np.inf), np.full(n, -1, np.int64), np.zeros(n, bool)
        dist[0] = 0
        with kernels.using("numba", threads=threads):
            kernels.relax_local(
                kernels.LocalCSR(indptr, indices, weights),
                0,
                n,
                dist,
                pred,
                np.array([0]),
                np.inf,
                changed,
                ties=True,
                buckets=kernels.bucket_queue(weights),
                arcs=kernels.weighted_arcs(indices, weights) if packed else None,
            )
        out.append((dist, pred))
    assert len(threaded) == 1 and threaded[0] is not None  # the two threads ran the search
    assert states == [2 if packed else 3]  # on packed cells, or on the floats
    np.testing.assert_array_equal(out[1][0], out[0][0])
    np.testing.assert_array_equal(out[1][1], out[0][1])
    A = sp.csr_matrix((weights, indices, indptr), shape=(n, n))
    np.testing.assert_array_equal(out[1][0], csgraph.dijkstra(A, indices=0))


def test_weighted_arcs_pack_whole_number_weights_that_int32_holds_with_their_heads():
    heads = np.array([5, 0, 2**32 - 1], dtype=np.int64)
    packed = kernels.weighted_arcs(heads, np.array([0.0, 3.0, 2**31 - 2]))
    assert packed.tolist() == [5, (3 << 32), ((2**31 - 2) << 32) | (2**32 - 1)]
    assert kernels.weighted_arcs(heads[:2].astype(np.int32), np.array([1.0, 2.0])).tolist() == [(1 << 32) | 5, 2 << 32]
    for weights in ([1.0, 2.5], [1.0, -1.0], [1.0, 2.0**31 - 1], [1.0, np.nan], [1.0, np.inf], []):
        assert kernels.weighted_arcs(heads[: len(weights)], np.array(weights, dtype=float)) is None
    for bad in ([-1, 0], [0, 2**32]):  # heads that the low 32 bits cannot hold
        assert kernels.weighted_arcs(np.array(bad, dtype=np.int64), np.array([1.0, 1.0])) is None
    assert kernels.weighted_arcs(heads, None) is None


def test_road_network_rounds_follow_crossings(client):
    g = dgraph.read_edgelist(dataset("luxembourg_osm", "road-luxembourg-osm.mtx.gz"), ranks=4)
    levels = _frame(bfs(g, 1, method="levels"))
    depth = int(levels.distance.max())
    relaxed = _frame(bfs(g, 1, method="relax"))
    assert g.last_stats.info["relax_rounds"] * 10 < depth  # 1034 levels
    # label-correcting: a rank re-closes what a shorter path from another rank improves later
    # (2.7 arcs per arc here), far from Bellman-Ford's rounds x arcs
    assert g.last_stats.info["local_arcs_examined"] < 4 * g.num_arcs
    pd.testing.assert_frame_equal(levels, relaxed)


def test_bad_methods_name_the_choices(client):
    g = dgraph.from_edgelist(grid_edges(3, 3), directed=False)
    with pytest.raises(DgraphInputError, match="method must be one of"):
        bfs(g, 0, method="fast")
    with pytest.raises(DgraphInputError, match="method must be one of"):
        sssp(g, 0, method="dijkstra")
    with pytest.raises(DgraphInputError, match="sub_iterations"):
        bfs(
            dgraph.from_edgelist(grid_edges(3, 3), directed=False, layout="1.5d"),
            0,
            sub_iterations=True,
            method="relax",
        )
