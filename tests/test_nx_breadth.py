"""The networkx functions the backend serves beyond its core: each call with backend="dgraph"
equals networkx's on a random, a skewed (Kronecker) and a grid graph, directed where networkx
allows it, with networkx's types and errors; and the algorithms behind them (power iterations,
the search from every vertex) agree with networkx on every kind of layout."""

import logging

import networkx as nx
import numpy as np
import pytest
from graphs import er_edges, kron_edges, nx_graph

import dgraph
from dgraph import algorithms as alg
from dgraph.partitioners import OneD, OnePointFiveD, TwoD


def _graphs():
    random = nx_graph(er_edges(40, 70, seed=5), directed=False)
    skewed = nx_graph(kron_edges(5, seed=2, edge_factor=3), directed=False)
    skewed.remove_edges_from(list(nx.selfloop_edges(skewed)))
    grid = nx.convert_node_labels_to_integers(nx.grid_2d_graph(4, 5), ordering="sorted")
    grid = nx.relabel_nodes(grid, {v: f"g{v}" for v in grid})  # string nodes
    return {"random": random, "skewed": skewed, "grid": grid}


def _digraph():
    D = nx.gnp_random_graph(30, 0.09, seed=7, directed=True)
    D.add_edges_from([(0, 1), (1, 0), (2, 2)])  # a reciprocal pair and a self-loop
    return D


def _close(got, want, tol=1e-6):
    assert set(got) == set(want)
    assert max((abs(got[k] - want[k]) for k in want), default=0) < tol, (got, want)


def _dgraph(name, *args, **kwargs):
    return getattr(nx, name)(*args, backend="dgraph", **kwargs)


def _same(name, *args, **kwargs):
    got, want = _dgraph(name, *args, **kwargs), getattr(nx, name)(*args, **kwargs)
    if not isinstance(want, (dict, set, list, int, float, bool, tuple)):  # generators
        got, want = list(got), list(want)
    assert type(got) is type(want) or isinstance(want, (int, float)), (name, type(got), type(want))
    assert got == want, name


@pytest.mark.parametrize("kind", ["random", "skewed", "grid"])
def test_compositions_equal_networkx(client, kind):
    G = _graphs()[kind]
    s, t = list(G)[0], list(G)[-1]
    for name in ("is_connected", "number_connected_components", "is_tree", "is_forest", "number_of_selfloops"):
        _same(name, G)
    for name in ("number_of_isolates", "degree_centrality"):
        _same(name, G)
    assert sorted(_dgraph("isolates", G), key=str) == sorted(nx.isolates(G), key=str)
    _same("is_isolate", G, s)
    _same("node_connected_component", G, s)
    _same("has_path", G, s, t)
    _same("descendants", G, s)
    _same("ancestors", G, t)
    _same("descendants_at_distance", G, s, 2)
    assert [set(x) for x in _dgraph("bfs_layers", G, s)] == [set(x) for x in nx.bfs_layers(G, s)]
    assert [set(x) for x in _dgraph("bfs_layers", G, [s, t])] == [set(x) for x in nx.bfs_layers(G, [s, t])]
    _same("shortest_path_length", G, s)
    _same("single_target_shortest_path_length", G, t)
    if kind == "grid":
        assert dict(_dgraph("all_pairs_shortest_path_length", G)) == dict(nx.all_pairs_shortest_path_length(G))
    assert dict(_dgraph("bfs_predecessors", G, s)).keys() == dict(nx.bfs_predecessors(G, s)).keys()
    if nx.has_path(G, s, t):
        _same("shortest_path_length", G, s, t)
    else:
        with pytest.raises(nx.NetworkXNoPath):
            _dgraph("shortest_path_length", G, s, t)


@pytest.mark.parametrize("kind", ["random", "skewed", "grid"])
def test_centralities_and_distances_equal_networkx(client, kind):
    G = _graphs()[kind]
    hubs, authorities = _dgraph("hits", G, tol=1e-10)
    want_hubs, want_authorities = nx.hits(G, tol=1e-10)
    if kind == "skewed":  # elsewhere the leading singular vector is not unique (the random graph is
        # disconnected, the grid bipartite) and networkx's ARPACK answer is one of many
        _close(hubs, want_hubs, 1e-5)
        _close(authorities, want_authorities, 1e-5)
    _close(_dgraph("katz_centrality", G, alpha=0.05), nx.katz_centrality(G, alpha=0.05))
    _close(_dgraph("eigenvector_centrality", G, max_iter=500), nx.eigenvector_centrality(G, max_iter=500), 1e-4)
    _close(_dgraph("closeness_centrality", G), nx.closeness_centrality(G), 1e-12)
    _close(_dgraph("harmonic_centrality", G), nx.harmonic_centrality(G), 1e-12)
    s = list(G)[3]
    assert _dgraph("closeness_centrality", G, s) == pytest.approx(nx.closeness_centrality(G, s), abs=1e-12)
    if nx.is_connected(G):
        for name in ("eccentricity", "diameter", "radius", "center", "periphery"):
            _same(name, G)
        assert _dgraph("average_shortest_path_length", G) == pytest.approx(nx.average_shortest_path_length(G))
    else:
        with pytest.raises(nx.NetworkXError, match="not connected"):
            _dgraph("diameter", G)
        with pytest.raises(nx.NetworkXError, match="not connected"):
            _dgraph("average_shortest_path_length", G)
    nodes = list(G)
    pairs = [(nodes[i], nodes[j]) for i, j in [(0, 1), (0, 5), (2, 9), (4, 4), (7, 3)]]
    for name in ("jaccard_coefficient", "adamic_adar_index", "resource_allocation_index", "preferential_attachment"):
        got, want = list(_dgraph(name, G, pairs)), list(getattr(nx, name)(G, pairs))
        assert [p[:2] for p in got] == [p[:2] for p in want]
        assert all(a[2] == pytest.approx(b[2], abs=1e-12) for a, b in zip(got, want)), name


def test_directed_functions_equal_networkx(client):
    D = _digraph()
    for name in (
        "is_weakly_connected",
        "number_weakly_connected_components",
        "is_strongly_connected",
        "number_strongly_connected_components",
        "in_degree_centrality",
        "out_degree_centrality",
        "overall_reciprocity",
        "is_forest",
        "is_branching",
        "is_arborescence",
        "number_of_selfloops",
    ):
        _same(name, D)
    _same("reciprocity", D, [0, 1, 2, 3])
    _same("reciprocity", D, 0)
    _same("ancestors", D, 4)
    _same("descendants", D, 4)
    _same("single_target_shortest_path_length", D, 4)
    _close(_dgraph("closeness_centrality", D), nx.closeness_centrality(D), 1e-12)
    _close(_dgraph("harmonic_centrality", D), nx.harmonic_centrality(D), 1e-12)
    _close(_dgraph("katz_centrality", D), nx.katz_centrality(D))
    with pytest.raises(nx.NetworkXError, match="strongly connected"):
        _dgraph("eccentricity", D)
    T = nx.DiGraph([(0, 1), (0, 2), (2, 3)])
    assert _dgraph("is_arborescence", T) and _dgraph("is_branching", T) and _dgraph("is_tree", T)


def test_errors_and_declines_are_networkx(client):
    G = nx.path_graph(4)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        _dgraph("katz_centrality", nx.complete_graph(6), alpha=1.0, max_iter=5)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        _dgraph("eigenvector_centrality", G, max_iter=1)
    with pytest.raises(nx.NetworkXError, match="beta"):
        _dgraph("katz_centrality", G, beta={0: 1.0})
    with pytest.raises(nx.NodeNotFound):
        list(_dgraph("jaccard_coefficient", G, [(0, 9)]))
    _close(
        _dgraph("katz_centrality", G, beta={v: v + 1.0 for v in G}), nx.katz_centrality(G, beta={v: v + 1.0 for v in G})
    )
    assert list(_dgraph("jaccard_coefficient", G)) == list(nx.jaccard_coefficient(G))  # every non-edge
    from dgraph.nx import can_run

    assert "directed" in can_run("is_connected", (nx.DiGraph([(0, 1)]),), {})
    assert "undirected" in can_run("reciprocity", (G,), {})
    assert "not a node" in can_run("has_path", (G, 0, 9), {})
    assert "distance" in can_run("closeness_centrality", (G,), {"distance": "weight"})
    assert "weight" in can_run("hits", (nx.karate_club_graph(),), {})
    assert "all pairs" in can_run("shortest_path_length", (nx.karate_club_graph(),), {"weight": "weight"})


@pytest.mark.parametrize(
    "layout", [OneD(ranks=4, balance="hashed"), TwoD(rows=2, cols=2), OnePointFiveD(rows=2, cols=2)]
)
def test_the_algorithms_on_every_layout(client, layout):
    edges = kron_edges(5, seed=4, edge_factor=3)
    edges = edges[edges.src != edges.dst]
    for directed in (False, True):
        g = dgraph.from_edgelist(edges, directed=directed, layout=layout)
        G = nx_graph(edges, directed, vertices=np.unique(edges[["src", "dst"]].to_numpy()))
        found = alg.katz_centrality(g, alpha=0.02).compute()
        _close(dict(zip(found.vertex, found.katz_centrality)), nx.katz_centrality(G, alpha=0.02))
        found = alg.closeness_centrality(g).compute()
        _close(dict(zip(found.vertex, found.closeness)), nx.closeness_centrality(G), 1e-12)
        found = alg.harmonic_centrality(g).compute()
        _close(dict(zip(found.vertex, found.harmonic)), nx.harmonic_centrality(G), 1e-12)
        if not directed:
            found = alg.eigenvector_centrality(g, max_iter=500).compute()
            want = nx.eigenvector_centrality(G, max_iter=500)
            _close(dict(zip(found.vertex, found.eigenvector_centrality)), want, 1e-4)
            found = alg.hits(g, tol=1e-10).compute()
            _close(dict(zip(found.vertex, found.hubs)), nx.hits(G, tol=1e-10)[0], 1e-5)


def test_joins_log_no_shuffle_warnings(client):
    """dgraph's dask joins shuffle by tasks: distributed logs a warning for every peer-to-peer
    shuffle (on the scheduler, here in this process), which a clean run must not show."""
    logged: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: logged.append(record.getMessage())  # type: ignore[method-assign]
    shuffles = logging.getLogger("distributed.shuffle")
    shuffles.addHandler(handler)
    try:
        edges = er_edges(3000, 40000, seed=9)
        g = dgraph.from_edgelist(edges, directed=True, ranks=3)
        pairs = [(int(u), int(v)) for u, v in edges[["src", "dst"]].head(500).to_numpy()]
        scores = alg.jaccard_coefficient(dgraph.from_edgelist(edges, directed=False, ranks=3), pairs).compute()
        assert len(scores) == len(pairs)
        assert len(alg.reciprocity(g).compute()) == g.num_vertices
        assert g.edge_subgraph(edges.head(30000)).num_edges > 0
    finally:
        shuffles.removeHandler(handler)
    assert logged == []
