"""dgraph as a networkx backend: calls dispatched with backend="dgraph" give networkx's answers
(types included) on the LocalCluster, a graph converts once, a dgraph.nx.Graph built from a
frame never exists in networkx, and can_run / should_run decline what they should."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from graphs import kron_edges, nx_graph

import dgraph.nx as dnx
from _dgraph_nx import NOTES, get_info


def _graphs():
    G = nx.karate_club_graph()  # weighted ("weight"), node 0..33
    K = nx_graph(kron_edges(7, seed=3, edge_factor=4), directed=False)
    K = nx.relabel_nodes(K, {v: f"v{v}" for v in K})  # string nodes
    K.remove_edges_from(list(nx.selfloop_edges(K)))  # core_number refuses loops
    D = nx.gnp_random_graph(60, 0.06, seed=4, directed=True)
    nx.set_edge_attributes(D, {e: float(i % 5 + 1) for i, e in enumerate(D.edges())}, "cost")
    return G, K, D


def _close(a, b):
    assert set(a) == set(b)
    assert max(abs(a[k] - b[k]) for k in a) < 1e-9


def test_functions_equal_networkx(client):
    G, K, D = _graphs()
    for H in (G, K):
        s = next(iter(H))
        assert nx.single_source_shortest_path_length(H, s, backend="dgraph") == nx.single_source_shortest_path_length(
            H, s
        )
        assert nx.single_source_dijkstra_path_length(H, s, backend="dgraph") == nx.single_source_dijkstra_path_length(
            H, s
        )
        dist, paths = nx.single_source_dijkstra(H, s, backend="dgraph")
        assert dist == nx.single_source_dijkstra_path_length(H, s)
        for t, path in paths.items():  # a shortest path, maybe another among equal ones
            cost = sum(H[a][b].get("weight", 1) for a, b in zip(path[:-1], path[1:]))
            assert path[0] == s and path[-1] == t and cost == dist[t]
        pred, dist = nx.dijkstra_predecessor_and_distance(H, s, backend="dgraph")
        want_pred, want_dist = nx.dijkstra_predecessor_and_distance(H, s)
        assert dist == want_dist and {v: sorted(p) for v, p in pred.items()} == {
            v: sorted(p) for v, p in want_pred.items()
        }
        tree = list(nx.bfs_edges(H, s, backend="dgraph"))
        assert len(tree) == len(H) - 1 and all(H.has_edge(u, v) for u, v in tree)
        assert nx.bfs_tree(H, s, backend="dgraph").number_of_edges() == len(H) - 1
        _close(nx.pagerank(H, tol=1e-10, backend="dgraph"), nx.pagerank(H, tol=1e-10))
        assert sorted(map(sorted, nx.connected_components(H, backend="dgraph"))) == sorted(
            map(sorted, nx.connected_components(H))
        )
        assert nx.number_connected_components(H, backend="dgraph") == nx.number_connected_components(H)
        assert nx.triangles(H, backend="dgraph") == nx.triangles(H)
        assert nx.triangles(H, s, backend="dgraph") == nx.triangles(H, s)
        assert nx.transitivity(H, backend="dgraph") == pytest.approx(nx.transitivity(H), abs=1e-12)
        _close(nx.clustering(H, backend="dgraph"), nx.clustering(H))
        assert nx.average_clustering(H, backend="dgraph") == pytest.approx(nx.average_clustering(H), abs=1e-12)
        _close(nx.betweenness_centrality(H, backend="dgraph"), nx.betweenness_centrality(H))
        sampled = nx.betweenness_centrality(H, k=7, seed=5, backend="dgraph")
        _close(sampled, nx.betweenness_centrality(H, k=7, seed=5))  # the same sources sampled
        assert nx.core_number(H, backend="dgraph") == nx.core_number(H)
        assert nx.utils.graphs_equal(nx.k_core(H, backend="dgraph"), nx.k_core(H))
        for method in (nx.community.louvain_communities, nx.community.leiden_communities):
            parts = method(H, seed=2, backend="dgraph")
            assert sorted(v for p in parts for v in p) == sorted(H) and isinstance(parts[0], set)
            best = nx.community.modularity(H, nx.community.louvain_communities(H, seed=2))
            assert nx.community.modularity(H, parts) > best - 0.03
            assert parts == method(H, seed=2, backend="dgraph")  # a seed gives one answer
    s = next(iter(D))
    assert nx.single_source_dijkstra_path_length(
        D, s, weight="cost", backend="dgraph"
    ) == nx.single_source_dijkstra_path_length(D, s, weight="cost")
    assert sorted(map(sorted, nx.strongly_connected_components(D, backend="dgraph"))) == sorted(
        map(sorted, nx.strongly_connected_components(D))
    )
    assert sorted(map(sorted, nx.weakly_connected_components(D, backend="dgraph"))) == sorted(
        map(sorted, nx.weakly_connected_components(D))
    )
    _close(nx.pagerank(D, weight="cost", tol=1e-10, backend="dgraph"), nx.pagerank(D, weight="cost", tol=1e-10))
    star = nx.star_graph(5)
    nx.set_edge_attributes(star, {e: i + 1.0 for i, e in enumerate(star.edges())}, "weight")
    matched = {frozenset(e) for e in nx.max_weight_matching(star, backend="dgraph")}
    assert matched == {frozenset(e) for e in nx.max_weight_matching(star)} == {frozenset((0, 5))}


def test_a_graph_converts_once_and_a_frame_never_becomes_networkx(client):
    G = nx.les_miserables_graph()
    before = dict(dnx.CONVERSIONS)
    nx.pagerank(G, backend="dgraph")
    nx.pagerank(G, backend="dgraph", alpha=0.9)  # the same weights: the cached graph
    assert dnx.CONVERSIONS["from_networkx"] == before["from_networkx"] + 1
    G.add_edge("Napoleon", "Valjean", weight=2)  # networkx clears its cache on a change
    nx.pagerank(G, backend="dgraph")
    assert dnx.CONVERSIONS["from_networkx"] == before["from_networkx"] + 2

    edges = pd.DataFrame({"source": ["a", "b", "c", "d"], "target": ["b", "c", "a", "e"], "w": [1.0, 2.0, 3.0, 4.0]})
    calls = dnx.CALLS["from_pandas_edgelist"]
    H = nx.from_pandas_edgelist(edges, edge_attr="w", backend="dgraph")
    assert isinstance(H, dnx.Graph) and dnx.CALLS["from_pandas_edgelist"] == calls + 1
    assert not H.is_directed() and not H.is_multigraph() and H.number_of_nodes() == 5
    assert nx.single_source_dijkstra_path_length(H, "a", weight="w") == {"a": 0, "b": 1, "c": 3}
    assert nx.number_connected_components(H) == 2
    with pytest.raises(nx.NetworkXNotImplemented):  # networkx's own decorator asks the graph
        nx.strongly_connected_components(H)
    assert dnx.CONVERSIONS["from_networkx"] == before["from_networkx"] + 2  # never converted
    D = dnx.from_pandas_edgelist(edges, create_using=nx.DiGraph)
    assert D.is_directed() and sorted(map(sorted, nx.strongly_connected_components(D))) == [
        ["a", "b", "c"],
        ["d"],
        ["e"],
    ]
    back = dnx.convert_to_nx(H)
    assert nx.utils.graphs_equal(back, nx.from_pandas_edgelist(edges, edge_attr="w"))


def test_can_run_and_should_run_say_why(client):
    G, _, D = _graphs()
    assert "sort_neighbors" in dnx.can_run("bfs_edges", (G, 0), {"sort_neighbors": sorted})
    assert "function" in dnx.can_run("single_source_dijkstra_path_length", (G, 0), {"weight": lambda u, v, d: 1})
    assert "multigraph" in dnx.can_run("pagerank", (nx.MultiGraph([(0, 1)]),), {})
    assert "star" in dnx.can_run("max_weight_matching", (G,), {})
    assert "directed" in dnx.can_run("clustering", (D,), {})
    assert "self-loops" in dnx.can_run("core_number", (nx.Graph([(0, 0), (0, 1)]),), {})
    assert dnx.can_run("pagerank", (G,), {}) is True
    assert "faster in networkx" in dnx.should_run("pagerank", (G,), {})
    big = nx.gnm_random_graph(20_000, 60_000, seed=1)
    assert dnx.should_run("pagerank", (big,), {}) is True
    assert "faster" in dnx.should_run("from_pandas_edgelist", (pd.DataFrame({"source": [1], "target": [2]}),), {})
    with nx.config.backend_priority(algos=["dgraph"]):  # by priority: declined for the small graph
        calls = dnx.CALLS["pagerank"]
        nx.pagerank(G)
        assert dnx.CALLS["pagerank"] == calls
        nx.pagerank(G, backend="dgraph")  # asked for by name: runs anyway
        assert dnx.CALLS["pagerank"] == calls + 1


def test_backend_info_lists_every_function_with_its_notes():
    info = get_info()
    assert info["backend_name"] == "dgraph"
    assert set(info["functions"]) == set(dnx.IMPLEMENTED) == set(NOTES)
    assert "dgraph" in nx.pagerank.backends and "dgraph" in nx.community.leiden_communities.backends
    assert np.all([hasattr(dnx.BackendInterface, name) for name in dnx.IMPLEMENTED])
