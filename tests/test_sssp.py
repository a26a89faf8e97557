"""SSSP (delta-stepping on edge_map) against networkx Dijkstra."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from conftest import dataset
from graphs import LAYOUTS, er_edges, grid_edges, kron_edges, nx_graph

import dgraph
from dgraph.algorithms import sssp


def _weighted(kind):
    rng = np.random.default_rng(17)
    if kind == "er-directed":
        e, directed = er_edges(300, 1200, seed=8), True
    elif kind == "kronecker":
        e, directed = kron_edges(9, seed=4), False
    else:
        e, directed = grid_edges(15, 25), False
    e = e.assign(w=rng.integers(0, 20, len(e)).astype(float) / 4)  # zeros and ties included
    return e, directed


def _check_paths(result, G, source):
    ref = nx.single_source_dijkstra_path_length(G, source)
    got = result.set_index("vertex")
    dist = got.distance
    assert dist.isna().sum() == G.number_of_nodes() - len(ref)
    assert max(abs(dist[v] - d) for v, d in ref.items()) < 1e-9
    for v, p in got.predecessor.dropna().items():  # every predecessor ends a shortest path
        assert abs(dist[p] + G[p][v]["weight"] - dist[v]) < 1e-9
    assert pd.isna(got.predecessor[source])


@pytest.mark.parametrize("kind", ["er-directed", "kronecker", "grid"])
def test_sssp_matches_dijkstra_on_every_layout(client, kind):
    e, directed = _weighted(kind)
    G = nx_graph(e, directed, weight="w")
    source = int(e.src.iloc[0])
    first = None
    for layout in LAYOUTS:
        g = dgraph.from_edgelist(e, weight="w", directed=directed, layout=layout)
        r = sssp(g, source, weight="w").compute().sort_values("vertex").reset_index(drop=True)
        _check_paths(r, G, source)
        if kind == "kronecker" and layout is LAYOUTS[1]:  # 1D, undirected, delta-stepping: heavy arcs pulled
            info = g.last_stats.info  # each bucket's heavy arcs went one way, and the profile says which
            assert info.get("heavy_pulls", 0) > 0 and info["heavy_arcs_pulled"] > 0
            assert info["buckets"] == info["heavy_pulls"] + info.get("heavy_pushes", 0)
            assert info.get("heavy_arcs_pushed", 0) >= 0 and info["rounds"] > info["buckets"]
        if first is None:
            first = r
        pd.testing.assert_frame_equal(first, r)  # identical on every layout, predecessors included


def _light_width(block):
    return block.__dict__["_light"][0]


@pytest.mark.parametrize("layout", [LAYOUTS[2], LAYOUTS[-1]])
def test_searches_from_other_sources_reuse_the_light_arcs(client, layout):
    """A graph's blocks keep delta-stepping's light arcs for the last bucket width: the next
    search, from another source or with another width, is as right as the first."""
    e, _ = _weighted("kronecker")
    G = nx_graph(e, False, weight="w")
    g = dgraph.from_edgelist(e, weight="w", directed=False, layout=layout)
    for source, delta in [(int(e.src.iloc[0]), None), (int(e.dst.iloc[-1]), None), (int(e.dst.iloc[-1]), 0.75)]:
        _check_paths(sssp(g, source, weight="w", delta=delta).compute(), G, source)
        assert g.last_stats.info["method"] == "delta-stepping"
        widths = set(client.gather([client.submit(_light_width, b, pure=False) for b in g.store.blocks]))
        assert len(widths) == 1 and (delta is None or widths == {delta})


def test_sssp_unit_weights_and_delta(client):
    e = grid_edges(10, 10)
    g = dgraph.from_edgelist(e, directed=False, ranks=3)
    r = sssp(g, 0).compute().set_index("vertex").distance
    assert r.loc[99] == 18 and r.dtype == "Float64"
    r2 = sssp(g, 0, delta=100.0).compute().set_index("vertex").distance
    pd.testing.assert_series_equal(r.sort_index(), r2.sort_index())


def test_sssp_road_network_is_work_efficient(client):
    g = dgraph.read_edgelist(dataset("rome99", "rome99.gr.gz"), weight="weight", ranks=4)
    raw = pd.read_csv(dataset("rome99", "rome99.gr.gz"), sep=r"\s+", comment="c", header=None)
    raw = raw[raw[0] == "a"].drop(columns=0).astype(int)
    G = nx.DiGraph()
    for u, v, w in raw.itertuples(index=False):
        if not G.has_edge(u, v) or G[u][v]["weight"] > w:
            G.add_edge(u, v, weight=float(w))
    assert (g.directed, g.num_vertices) == (True, 3353)
    r = sssp(g, 1, weight="weight").compute()
    _check_paths(r, G, 1)
    assert g.last_stats.info["edges_examined"] < 4 * g.num_edges  # not O(n * diameter)


def test_sssp_bad_input(client):
    e = pd.DataFrame({"src": [0, 1], "dst": [1, 2], "w": [1.0, -2.0]})
    g = dgraph.from_edgelist(e, weight="w")
    with pytest.raises(dgraph.DgraphInputError, match="non-negative"):
        sssp(g, 0, weight="w")
    with pytest.raises(dgraph.DgraphInputError, match="non-negative"):
        sssp(g, 0)  # the graph's weight, left out
    assert sssp(g, 0, weight=None).compute().distance.tolist() == [0.0, 1.0, 2.0]  # hops
    with pytest.raises(dgraph.DgraphInputError, match="SSSP source 9"):
        sssp(dgraph.from_edgelist(e.assign(w=1.0), weight="w"), 9, weight="w")
    with pytest.raises(dgraph.DgraphInputError, match="delta"):
        sssp(dgraph.from_edgelist(e.assign(w=1.0), weight="w"), 0, weight="w", delta=0)


def test_sssp_on_one_rank_runs_on_the_idle_workers_threads(client):
    # enough arcs (2**19) for the rank-local search to take two threads (DELTA_GRAIN each): the
    # distances are Dijkstra's and the frame, predecessors included, is the two-rank run's
    from scipy.sparse import csgraph, csr_matrix

    e = grid_edges(370, 370)
    e = e.assign(w=np.random.default_rng(5).integers(1, 9, len(e)) / 4)  # many ties on a grid
    one, two = (dgraph.from_edgelist(e, weight="w", directed=False, ranks=r) for r in (1, 2))
    runs = []
    for g in (one, two):
        runs.append(
            (sssp(g, 0, weight="w").compute().sort_values("vertex").reset_index(drop=True), g.last_stats.threads)
        )
    if runs[0][1] == 1:
        pytest.skip("numba has no thread-safe threading layer (omp or tbb) on the workers")
    assert [t for _, t in runs] == [2, 1]
    pd.testing.assert_frame_equal(runs[0][0], runs[1][0])
    n = 370 * 370
    A = csr_matrix((np.r_[e.w, e.w], (np.r_[e.src, e.dst], np.r_[e.dst, e.src])), shape=(n, n))
    np.testing.assert_allclose(runs[0][0].distance.to_numpy(float), csgraph.dijkstra(A, indices=0))


def _delta_grain(grain):
    from dgraph import kernels
    from dgraph.kernels import paths

    old, paths.DELTA_GRAIN, kernels.DELTA_GRAIN = paths.DELTA_GRAIN, grain, grain
    return old


def test_one_rank_on_threads_searches_whole_number_weights_packed(client):
    # one rank with the idle worker's thread, the grain lowered so that a small graph's search
    # runs on two threads: whole-number weights go packed (the arcs with their weights kept with
    # the block), fractional ones on floats, and both give the two-rank answers
    from dgraph.block import has_kept, kept

    edges = kron_edges(10, seed=5).query("src != dst")
    source = int(edges.src.iloc[0])
    old = client.run(_delta_grain, 1)
    try:
        for w, packed in (((edges.src * 7 + edges.dst * 3) % 9 + 1.0, True), (edges.src % 5 + 0.5, False)):
            e = edges.assign(w=w)
            one = dgraph.from_edgelist(e, directed=False, weight="w")
            got = sssp(one, source, weight="w").compute().sort_values("vertex").reset_index(drop=True)
            if one.last_stats.threads < 2:
                pytest.skip("numba has no thread-safe threading layer (omp or tbb) on the workers")
            info = one.last_stats.info  # the search on threads reports its rounds (GAP's iterations)
            assert info["search_threads"] == 2 and 1 <= info["buckets"] <= got.distance.notna().sum()
            name = "weighted arcs"
            whole = client.submit(
                lambda b: has_kept(b, name) and type(kept(b, name, None)).__name__, one.store.blocks[0]
            )
            assert whole.result() == ("ndarray" if packed else "NoneType")
            two = dgraph.from_edgelist(e, directed=False, weight="w", ranks=2)
            pd.testing.assert_frame_equal(
                got, sssp(two, source, weight="w").compute().sort_values("vertex").reset_index(drop=True)
            )
            _check_paths(got, nx_graph(e, False, weight="w"), source)
    finally:
        client.run(_delta_grain, next(iter(old.values())))
