"""BFS, PageRank and connected components against networkx, on every layout and rank count."""

import importlib
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from graphs import er_edges, grid_edges, kron_edges, ldbc_pagerank, nx_graph

import dgraph
from dgraph import kernels
from dgraph.algorithms import bfs, connected_components, pagerank, verify
from dgraph.partitioners import OneD, OnePointFiveD, TwoD

LAYOUTS = [
    pytest.param(OneD(ranks=1), id="1rank"),
    pytest.param(OneD(ranks=3), id="3ranks"),
    pytest.param(OneD(ranks=8), id="8ranks"),
    pytest.param(OneD(ranks=3, balance="striped"), id="striped3"),
    pytest.param(OneD(ranks=4, balance="hashed"), id="hashed4"),
    pytest.param(TwoD(rows=2, cols=3), id="2d-2x3"),
    pytest.param(TwoD(rows=4, cols=4), id="2d-4x4"),
    pytest.param(OnePointFiveD(rows=2, cols=3, e_threshold=14, h_threshold=6), id="1.5d-2x3"),
]


def _case(kind):
    """(edges, directed, vertices or None, source) of one test graph, in user labels."""
    if kind == "er-directed":
        return er_edges(300, 900, seed=3), True, None, 0
    if kind == "er-undirected":
        return er_edges(400, 700, seed=4), False, None, 5
    if kind == "kronecker":
        e = kron_edges(10, seed=2)
        return e, False, None, int(e.src.iloc[0])
    if kind == "grid":
        return grid_edges(12, 40), False, None, 0
    if kind == "strings":
        e = er_edges(200, 500, seed=5)
        e = pd.DataFrame({"src": "v" + e.src.astype(str), "dst": "v" + e.dst.astype(str)})
        return e, True, None, e.src.iloc[0]
    if kind == "isolated-bigint":
        e = er_edges(150, 200, seed=6) * 7_919 + 2**40
        verts = np.concatenate([np.unique(np.r_[e.src, e.dst]), 2**40 + np.arange(5) * 13 + 1])
        return e, False, verts, int(e.src.iloc[0])
    raise KeyError(kind)


KINDS = ["er-directed", "er-undirected", "kronecker", "grid", "strings", "isolated-bigint"]
_first = {}  # (kind, algorithm) -> result of the first layout, to check identity across layouts


@pytest.fixture(scope="module", params=KINDS)
def case(request):
    edges, directed, vertices, source = _case(request.param)
    G = nx_graph(edges, directed, vertices)
    return request.param, edges, directed, vertices, source, G


@pytest.mark.parametrize("layout", LAYOUTS)
def test_algorithms_match_networkx(client, case, layout):
    kind, edges, directed, vertices, source, G = case
    g = dgraph.from_edgelist(edges, directed=directed, vertices=vertices, layout=layout)
    assert g.num_vertices == G.number_of_nodes()
    assert g.num_edges == G.number_of_edges()

    # BFS: distances equal networkx's, the tree passes the Graph 500 rules
    r = bfs(g, source).compute()
    ref = nx.single_source_shortest_path_length(G, source)
    got = r.set_index("vertex").distance
    assert len(got) == G.number_of_nodes()
    assert {v: int(d) for v, d in got.dropna().items()} == ref
    assert got.isna().sum() == G.number_of_nodes() - len(ref)
    assert verify("bfs", g, r, source=source) == []

    # PageRank within 1e-8 of networkx at a tight tolerance
    pr = pagerank(g, tol=1e-12, max_iter=500).compute().set_index("vertex").pagerank
    ref_pr = nx.pagerank(G, tol=1e-12, max_iter=500)
    assert max(abs(pr[v] - ref_pr[v]) for v in ref_pr) < 1e-8
    assert abs(pr.sum() - 1) < 1e-9

    # components: same partition as networkx, represented by the smallest label
    cc = connected_components(g, connection="weak").compute().set_index("vertex").component
    comps = nx.weakly_connected_components(G) if directed else nx.connected_components(G)
    for comp in comps:
        rep = min(comp)
        assert (cc.loc[list(comp)] == rep).all()

    # integer outputs are identical on every layout and rank count
    current = {
        "bfs": r.sort_values("vertex").reset_index(drop=True),
        "cc": cc.sort_index(),
    }
    for name, value in current.items():
        first = _first.setdefault((kind, name), value)
        if name == "bfs":
            pd.testing.assert_frame_equal(first, value)
        else:
            pd.testing.assert_series_equal(first, value)


def _degree_order(edges, directed, vertices):
    """The documented vertex_order="degree": descending count of arc ends (the undirected edge
    list symmetrized, repeats counted), ties by sorted label. Returns label -> place."""
    arcs = (
        edges
        if directed
        else pd.concat([edges, edges[edges.src != edges.dst].rename(columns={"src": "dst", "dst": "src"})])
    )
    labels = np.unique(np.concatenate([arcs.src, arcs.dst] + ([np.asarray(vertices)] if vertices is not None else [])))
    ends = pd.concat([arcs.src, arcs.dst]).value_counts().reindex(labels, fill_value=0).to_numpy()
    return dict(zip(labels[np.lexsort((np.arange(labels.size), -ends))].tolist(), range(labels.size)))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["kronecker", "strings", "isolated-bigint"])
def test_vertex_order_by_degree_breaks_ties_hubs_first_on_every_layout(client, kind):
    edges, directed, vertices, source = _case(kind)
    G = nx_graph(edges, directed, vertices)
    place = _degree_order(edges, directed, vertices)
    ref = nx.single_source_shortest_path_length(G, source)
    into = G.predecessors if directed else G.neighbors
    first = None
    for layout in (
        "1d",
        OneD(ranks=1),
        TwoD(rows=2, cols=2),
        OnePointFiveD(rows=2, cols=2, e_threshold=14, h_threshold=6),
    ):
        g = dgraph.from_edgelist(edges, directed=directed, vertices=vertices, layout=layout, vertex_order="degree")
        if layout == "1d":
            assert g.layout.balance == "striped"  # contiguous ranges of a degree order would put every hub on rank 0
        r = bfs(g, source).compute().set_index("vertex").sort_index()
        assert {v: int(d) for v, d in r.distance.dropna().items()} == ref
        for v, d in ref.items():  # the parent: of the in-neighbours one level up, the first in the degree order
            if d:
                assert r.predecessor.loc[v] == min((u for u in into(v) if ref.get(u) == d - 1), key=place.__getitem__)
        cc = connected_components(g, connection="weak").compute().set_index("vertex").component.sort_index()
        for comp in nx.weakly_connected_components(G) if directed else nx.connected_components(G):
            assert (cc.loc[list(comp)] == min(comp, key=place.__getitem__)).all()
        if first is None:
            first = (r, cc)
        pd.testing.assert_frame_equal(first[0], r)
        pd.testing.assert_series_equal(first[1], cc)


@pytest.mark.parametrize("kind", ["kronecker", "grid", "er-directed"])
def test_numpy_kernels_give_identical_results(client, kind):
    edges, directed, vertices, source = _case(kind)
    g = dgraph.from_edgelist(edges, directed=directed, vertices=vertices, ranks=3)
    outputs = {}
    for engine in ("numba", "numpy"):
        kernels.set_engine(engine)
        try:
            outputs[engine] = (
                bfs(g, source).compute().sort_values("vertex").reset_index(drop=True),
                connected_components(g, connection="weak").compute().sort_values("vertex").reset_index(drop=True),
                pagerank(g, tol=0, max_iter=30).compute().sort_values("vertex").reset_index(drop=True),
            )
        finally:
            kernels.set_engine("numba")
    for a, b in zip(outputs["numba"][:2], outputs["numpy"][:2]):
        pd.testing.assert_frame_equal(a, b)
    np.testing.assert_allclose(outputs["numba"][2].pagerank, outputs["numpy"][2].pagerank, rtol=1e-12)


class _Sunway(OnePointFiveD):
    """1.5D by another name: what a layout offers, not its name, lets BFS sub-iterate."""

    name = "sunway"


def test_bfs_sub_iterates_on_any_layout_with_a_subgraph_schedule(client):
    edges, _, _, source = _case("kronecker")
    plain = bfs(dgraph.from_edgelist(edges, directed=False), source).compute()
    g = dgraph.from_edgelist(edges, directed=False, layout=_Sunway(rows=2, cols=2))
    sub = bfs(g, source, sub_iterations=True).compute()
    assert g.last_stats.info["sub_iterations"]
    assert verify("bfs", g, sub, source=source) == []
    pd.testing.assert_series_equal(
        sub.set_index("vertex").distance.sort_index(), plain.set_index("vertex").distance.sort_index()
    )


def test_bfs_depth_limit_and_unreachable(client):
    edges = pd.DataFrame({"src": [0, 1, 2, 10], "dst": [1, 2, 3, 11]})
    g = dgraph.from_edgelist(edges, directed=True, ranks=2)
    r = bfs(g, 0, depth_limit=2).compute().set_index("vertex").sort_index()
    assert r.distance.tolist()[:3] == [0, 1, 2]
    assert r.distance.isna().tolist() == [False, False, False, True, True, True]
    assert pd.isna(r.predecessor.loc[0]) and r.predecessor.loc[2] == 1
    assert r.distance.dtype == "Int64"


@pytest.mark.parametrize("kind", ["kronecker", "er-directed"])
def test_bfs_levels_take_at_most_a_reduction_and_an_exchange_each_in_1d(client, kind):
    """A level is one exchange, plus a reduction of its frontier's figures when a switch may come;
    nothing is reduced before the first level, and a bottom-up level reduces nothing after."""
    edges, directed, vertices, source = _case(kind)
    g = dgraph.from_edgelist(edges, directed=directed, vertices=vertices, ranks=2)
    bfs(g, source, method="levels").compute()
    info = g.last_stats.info
    assert info["bottom_up_levels"] >= 2  # the figures of both directions are exercised
    # one more reduction finds the last frontier empty
    assert g.last_stats.supersteps <= 2 * info["levels"] + 1


def test_pagerank_options_match_networkx(client):
    edges = er_edges(120, 400, seed=11)
    edges["w"] = np.random.default_rng(1).uniform(0.5, 3.0, len(edges))
    G = nx_graph(edges, True, weight="w")
    g = dgraph.from_edgelist(edges, weight="w", directed=True, ranks=3)
    pers = {int(v): float(i + 1) for i, v in enumerate(sorted(G.nodes())[:10])}
    got = pagerank(g, alpha=0.7, weight="w", personalization=pers, tol=1e-12, max_iter=300).compute()
    ref = nx.pagerank(G, alpha=0.7, weight="weight", personalization=pers, tol=1e-12, max_iter=300)
    got = got.set_index("vertex").pagerank
    assert max(abs(got[v] - ref[v]) for v in ref) < 1e-8
    # tol=0 runs exactly max_iter iterations, and warns on no convergence otherwise
    pagerank(g, tol=0, max_iter=7)
    assert g.last_stats.info["iterations"] == 7
    with pytest.warns(dgraph.ConvergenceWarning):
        pagerank(g, tol=1e-15, max_iter=2)


# one rank iterates in one call, or by segments one superstep an iteration where they pay
@pytest.mark.parametrize("layout, ranks", [("1d", 4), ("2d", 4), ("1d", 1)])
def test_pagerank_reads_hubs_first_to_the_same_bits_and_by_segments_to_rounding(client, monkeypatch, layout, ranks):
    module = importlib.import_module("dgraph.algorithms.pagerank")  # dgraph.algorithms.pagerank names the function
    edges = kron_edges(9, seed=4)
    g = dgraph.from_edgelist(edges, directed=False, layout=layout, ranks=ranks)
    got = {}
    # none relabels its gather; every rank does; every rank does and reads 64 slots at a time
    for reads, width in ((10**9, 10**9), (-1, 10**9), (-1, 64)):
        monkeypatch.setattr(module, "HUB_READS", reads)
        monkeypatch.setattr(module, "SEGMENT", width)
        pr = pagerank(g, tol=1e-12, max_iter=500).compute().set_index("vertex").pagerank.sort_index()
        got[reads, width] = pr.to_numpy()
        if ranks == 1:  # segments are read one superstep an iteration; the rest is one call
            assert (g.last_stats.supersteps > 0) == (width == 64)
    np.testing.assert_array_equal(got[-1, 10**9], got[10**9, 10**9])
    np.testing.assert_allclose(got[-1, 64], got[10**9, 10**9], rtol=1e-12)
    ref = nx.pagerank(nx_graph(edges, False), tol=1e-12, max_iter=500)
    assert np.abs(got[-1, 64] - np.array([ref[v] for v in pr.index])).max() < 1e-8


def _power_iterations(snap, alpha, iterations):
    """``iterations`` float64 power iterations from 1/n, dangling mass spread uniformly (as
    networkx and LDBC do), on the gathered graph; by placed id."""
    n = snap.n
    A = sp.csr_matrix((np.ones(snap.src.size), (snap.src, snap.dst)), shape=(n, n))
    out = np.asarray(A.sum(axis=1)).ravel()
    x = np.full(n, 1.0 / n)
    for _ in range(iterations):
        contrib = np.divide(x, out, out=np.zeros(n), where=out > 0)
        x = alpha * (A.T @ contrib) + (alpha * x[out == 0].sum() + 1 - alpha) / n
    return x


def test_pagerank_with_tol_0_runs_exactly_the_float64_iterations(client):
    """tol=0 asks for the iterations themselves (LDBC's PageRank is float64): no float32."""
    g = dgraph.datasets.load("karate")
    got = pagerank(g, tol=0, max_iter=30).compute()
    snap = g.snapshot()
    ref = _power_iterations(snap, 0.85, 30)[snap.labels.get_indexer(got["vertex"])]
    assert np.abs(got["pagerank"].to_numpy() - ref).max() < 1e-12


@pytest.mark.parametrize("kind, ranks", [("kronecker", 3), ("kronecker", 1), ("grid", 2), ("er-directed", 3)])
def test_pagerank_gathers_float32_only_as_far_as_the_run_asks(client, kind, ranks):
    """A run to n * tol of twenty times float32's drift (alpha / (1 - alpha) * 2**-24) gathers
    float32 contributions: its iterations stay within that drift of the float64 iteration's,
    relatively. tol=0 asks for the iterations: float64, to rounding. A run to tol=1e-12 asks for
    more: float64, and networkx's to its tolerance."""
    edges, directed, vertices, _ = _case(kind)
    G = nx_graph(edges, directed)
    g = dgraph.from_edgelist(edges, directed=directed, vertices=vertices, ranks=ranks)
    drift = 0.85 / 0.15 * 2.0**-24
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dgraph.ConvergenceWarning)
        coarse = pagerank(g, tol=20 * drift / G.number_of_nodes(), max_iter=30).compute().set_index("vertex").pagerank
    ref = ldbc_pagerank(G, 0.85, g.last_stats.info["iterations"])
    gap = np.array([abs(coarse[v] - ref[v]) / ref[v] for v in G.nodes()])
    assert 0 < gap.max() <= drift
    ref = ldbc_pagerank(G, 0.85, 30)
    exact = pagerank(g, tol=0, max_iter=30).compute().set_index("vertex").pagerank
    assert max(abs(exact[v] - ref[v]) / ref[v] for v in G.nodes()) < 1e-12
    fine = pagerank(g, tol=1e-12, max_iter=500).compute().set_index("vertex").pagerank
    truth = nx.pagerank(G, tol=1e-12, max_iter=500)
    assert max(abs(fine[v] - truth[v]) / truth[v] for v in G.nodes()) < 1e-9


def test_algorithms_on_real_dataset(client):
    g = dgraph.datasets.load("ca-GrQc", ranks=4)
    G = nx.Graph()
    e = g.edges().compute()
    G.add_edges_from(zip(e.src, e.dst))
    cc = connected_components(g, connection="weak").compute()
    assert cc.component.nunique() == nx.number_connected_components(G) == 355
    r = bfs(g, 3466).compute().set_index("vertex").distance.dropna()
    assert {v: int(d) for v, d in r.items()} == nx.single_source_shortest_path_length(G, 3466)


def test_bad_algorithm_input(client):
    g = dgraph.datasets.load("karate")
    with pytest.raises(dgraph.DgraphInputError, match="BFS source 0 is not a vertex"):
        bfs(g, 0)
    with pytest.raises(dgraph.DgraphInputError, match="BFS source 'x'"):
        bfs(g, "x")
    with pytest.raises(dgraph.DgraphInputError, match="depth_limit"):
        bfs(g, 1, depth_limit=-1)
    with pytest.raises(dgraph.DgraphInputError, match="alpha"):
        pagerank(g, alpha=1.5)
    with pytest.raises(dgraph.DgraphInputError, match="max_iter"):
        pagerank(g, max_iter=0)
    with pytest.raises(dgraph.DgraphInputError, match="weight='w'"):
        pagerank(g, weight="w")
    with pytest.raises(dgraph.DgraphInputError, match="personalization vertex 99"):
        pagerank(g, personalization={99: 1.0})
