"""Shortest paths themselves through the networkx backend, and Bellman-Ford as a dgraph
algorithm: every path dgraph returns is a path of the graph from the source to the target whose
length is networkx's (paths may differ among equal ones), on random, skewed (Kronecker) and grid
graphs, directed and undirected; Bellman-Ford's distances equal networkx's with negative
weights, its predecessors end shortest paths and are identical on every layout, and negative
cycles are found (and the one found is negative)."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from graphs import EACH_KIND, er_edges, grid_edges, kron_edges, nx_graph

import dgraph
import dgraph.nx
from dgraph.algorithms import bellman_ford
from dgraph.errors import DgraphInputError
from dgraph.partitioners import OneD


def _potential_weights(e, seed):
    """Weights with negative ones but no negative cycle: w + p(u) - p(v) for w >= 0 (every
    cycle keeps its non-negative weight), quarters so sums are exact."""
    rng = np.random.default_rng(seed)
    n = int(max(e.src.max(), e.dst.max())) + 1
    p = rng.integers(0, 24, n) / 4
    w = rng.integers(0, 12, len(e)) / 4
    return e.assign(w=w + p[e.src.to_numpy()] - p[e.dst.to_numpy()])


def _graph(kind):
    """(edges with a weight column w, directed): negative weights where directed."""
    if kind == "er-directed":
        return _potential_weights(er_edges(120, 480, seed=3), 5), True
    if kind == "grid-directed":
        return _potential_weights(grid_edges(8, 12), 6), True
    e = kron_edges(7, seed=4, edge_factor=4)  # undirected: a negative edge would be a cycle
    e = e[e.src != e.dst]
    return e.assign(w=np.random.default_rng(7).integers(0, 12, len(e)) / 4), False


def _check_bellman_ford(found, G, source):
    want = nx.single_source_bellman_ford_path_length(G, source)
    got = found.set_index("vertex")
    assert got.distance.notna().sum() == len(want)
    assert all(got.distance[v] == d for v, d in want.items())
    for v, p in got.predecessor.dropna().items():  # each predecessor ends a shortest path
        assert got.distance[p] + G[p][v]["weight"] == got.distance[v]
    assert pd.isna(got.predecessor[source])


def _run(e, directed, layout, source):
    g = dgraph.from_edgelist(e, weight="w", directed=directed, layout=layout)
    found = bellman_ford(g, source).compute().sort_values("vertex").reset_index(drop=True)
    assert dgraph.algorithms.verify("bellman_ford", g, found, source=source) == []
    return found


def test_bellman_ford_with_negative_weights_matches_networkx(client):
    e, directed = _graph("er-directed")
    assert (e.w < 0).any()
    source = int(e.src.iloc[0])
    found = _run(e, directed, OneD(ranks=3), source)
    _check_bellman_ford(found, nx_graph(e, directed, weight="w"), source)
    g = dgraph.from_edgelist(e, weight="w", directed=directed)
    far = found.distance.idxmax()
    longer = found.assign(distance=found.distance.where(found.index != far, found.distance[far] + 1))
    assert dgraph.algorithms.verify("bellman_ford", g, longer, source=source)  # a distance an arc could lower
    orphan = found.assign(predecessor=found.predecessor.where(found.index != far, source))
    assert dgraph.algorithms.verify("bellman_ford", g, orphan, source=source)  # a predecessor arc that is none


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["er-directed", "kronecker", "grid-directed"])
def test_bellman_ford_is_the_same_on_every_layout(client, kind):
    e, directed = _graph(kind)
    G = nx_graph(e, directed, weight="w")
    source = int(e.src.iloc[0])
    first = None
    for layout in EACH_KIND:
        found = _run(e, directed, layout, source)
        _check_bellman_ford(found, G, source)
        if first is None:
            first = found
        pd.testing.assert_frame_equal(first, found)  # predecessors included


def _with_cycle():
    """A directed graph whose cycle 3 -> 4 -> 5 -> 3 weighs -1, reachable from 0, not from 6."""
    e = pd.DataFrame(
        {"src": [0, 1, 3, 4, 5, 5, 6], "dst": [1, 3, 4, 5, 3, 2, 0], "w": [1.0, 2.0, 1.0, -3.0, 1.0, 1.0, 1.0]}
    )
    return e, nx_graph(e, True, weight="w")


def test_negative_cycles_are_found(client):
    e, G = _with_cycle()
    g = dgraph.from_edgelist(e, weight="w", directed=True, layout=OneD(ranks=2))
    with pytest.raises(DgraphInputError, match="negative cycle"):
        bellman_ford(g, 0)
    assert bellman_ford(g, 2).compute().distance.notna().sum() == 1  # the cycle lies beyond 2's reach
    hops = bellman_ford(g, 0, weight=None).compute().set_index("vertex").distance  # unit weights: no cycle
    assert hops.dropna().to_dict() == {0: 0, 1: 1, 2: 5, 3: 2, 4: 3, 5: 4}
    u = dgraph.from_edgelist(e.iloc[:2].assign(w=[1.0, -1.0]), weight="w", directed=False, layout=OneD(ranks=2))
    with pytest.raises(DgraphInputError, match="undirected"):  # an undirected negative edge: u, v, u
        bellman_ford(u, 0)
    assert nx.negative_edge_cycle(G, backend="dgraph")
    cycle = nx.find_negative_cycle(G, 0, backend="dgraph")
    assert cycle[0] == cycle[-1] and sorted(cycle[:-1]) == [3, 4, 5]
    assert sum(G[u][v]["weight"] for u, v in zip(cycle, cycle[1:])) < 0
    with pytest.raises(nx.NetworkXUnbounded):
        nx.bellman_ford_path(G, 0, 2, backend="dgraph")
    G.remove_edge(5, 3)
    assert not nx.negative_edge_cycle(G, backend="dgraph")
    with pytest.raises(nx.NetworkXError, match="No negative cycles"):
        nx.find_negative_cycle(G, 0, backend="dgraph")


def _nx_graphs():
    random = nx_graph(_potential_weights(er_edges(40, 120, seed=9), 2), True, weight="w")
    skewed = nx_graph(_graph("kronecker")[0], False, weight="w")
    grid = nx_graph(_potential_weights(grid_edges(5, 6), 4), True, weight="w")
    return {"random": random, "skewed": skewed, "grid": grid}


def _valid(G, path, source, target, length, weight):
    assert path[0] == source and path[-1] == target
    assert all(G.has_edge(u, v) for u, v in zip(path, path[1:]))
    cost = sum(G[u][v][weight] for u, v in zip(path, path[1:])) if weight else len(path) - 1
    assert cost == length, (path, cost, length)


def _check_paths(G, source, paths, lengths, weight):
    assert set(paths) == set(lengths)
    for t, path in paths.items():
        _valid(G, path, source, t, lengths[t], weight)


def _unweighted_and_dijkstra(G):
    source = next(iter(G))
    target = max(nx.single_source_shortest_path_length(G, source).items(), key=lambda x: x[1])[0]
    hops = nx.single_source_shortest_path_length(G, source)
    _check_paths(G, source, nx.single_source_shortest_path(G, source, backend="dgraph"), hops, None)
    _check_paths(G, source, nx.shortest_path(G, source, backend="dgraph"), hops, None)
    _valid(G, nx.bidirectional_shortest_path(G, source, target, backend="dgraph"), source, target, hops[target], None)
    to = nx.single_target_shortest_path(G, target, backend="dgraph")
    into = nx.single_target_shortest_path_length(G, target)
    assert set(to) == set(into) and all(to[v][0] == v and len(to[v]) - 1 == d for v, d in into.items())
    every = dict(nx.all_pairs_shortest_path(G, backend="dgraph"))
    for s, lengths in nx.all_pairs_shortest_path_length(G):
        _check_paths(G, s, every[s], lengths, None)
    H = G.copy()
    for _, _, d in H.edges(data=True):
        d["weight"] = abs(d["weight"])  # Dijkstra: non-negative weights
    dist = nx.single_source_dijkstra_path_length(H, source, weight="weight")
    _check_paths(
        H, source, nx.single_source_dijkstra_path(H, source, weight="weight", backend="dgraph"), dist, "weight"
    )
    _valid(
        H,
        nx.dijkstra_path(H, source, target, weight="weight", backend="dgraph"),
        source,
        target,
        dist[target],
        "weight",
    )
    assert nx.dijkstra_path_length(H, source, target, weight="weight", backend="dgraph") == dist[target]
    sources = list(G)[:3]
    near, paths = nx.multi_source_dijkstra(H, sources, weight="weight", backend="dgraph")
    assert near == nx.multi_source_dijkstra_path_length(H, sources, weight="weight")
    assert all(paths[t][0] in sources for t in paths)
    for s, (lengths, paths) in nx.all_pairs_dijkstra(H, weight="weight", backend="dgraph"):
        _check_paths(H, s, paths, dict(nx.single_source_dijkstra_path_length(H, s, weight="weight")), "weight")


def _bellman_ford_family(G):
    source = next(iter(G))
    want = nx.single_source_bellman_ford_path_length(G, source, weight="weight")
    dist, paths = nx.single_source_bellman_ford(G, source, weight="weight", backend="dgraph")
    assert dist == want
    _check_paths(G, source, paths, want, "weight")
    pred, d = nx.bellman_ford_predecessor_and_distance(G, source, weight="weight", backend="dgraph")
    ref = nx.bellman_ford_predecessor_and_distance(G, source, weight="weight")[0]
    assert d == want and {v: set(p) for v, p in pred.items()} == {v: set(p) for v, p in ref.items()}
    far = max(want, key=want.get)
    path = nx.shortest_path(G, source, far, weight="weight", method="bellman-ford", backend="dgraph")
    _valid(G, path, source, far, want[far], "weight")
    assert nx.is_negatively_weighted(G, weight="weight", backend="dgraph") == nx.is_negatively_weighted(
        G, weight="weight"
    )
    assert not nx.negative_edge_cycle(G, weight="weight", backend="dgraph")


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["random", "skewed", "grid"])
def test_paths_are_shortest_paths_of_networkx_lengths(client, kind):
    G = _nx_graphs()[kind]
    _unweighted_and_dijkstra(G)
    _bellman_ford_family(G)


def test_paths_through_the_backend_quick(client):
    G = _nx_graphs()["grid"]
    _bellman_ford_family(G)
    source, target = (0, 0), (4, 5)
    G = nx.grid_2d_graph(5, 6)
    _valid(G, nx.shortest_path(G, source, target, backend="dgraph"), source, target, 9, None)
    for limit in (None, 3):  # a breadth-first tree: each edge one level down, every node within reach once
        edges = list(nx.generic_bfs_edges(G, source, depth_limit=limit, backend="dgraph"))
        level = nx.single_source_shortest_path_length(G, source, cutoff=limit)
        assert sorted(c for _, c in edges) == sorted(v for v in level if v != source)
        assert all(level[c] == level[p] + 1 and G.has_edge(p, c) for p, c in edges)
    G.add_node("alone")
    with pytest.raises(nx.NetworkXNoPath):
        nx.shortest_path(G, source, "alone", backend="dgraph")


def _check_lca(G, pairs, found):
    for (u, v), a in found.items():
        common = (nx.ancestors(G, u) | {u}) & (nx.ancestors(G, v) | {v})
        assert a in common and not any(c in common for c in G.successors(a)), (u, v, a)
    want = dict(nx.all_pairs_lowest_common_ancestor(G, pairs))
    assert set(found) == set(want)


@pytest.mark.slow
def test_lowest_common_ancestors_and_ego_graphs(client):
    D = nx.gnp_random_graph(30, 0.12, seed=3, directed=True)
    D = nx.DiGraph([(u, v) for u, v in D.edges() if u < v])  # a DAG
    pairs = [(u, v) for u in list(D)[::3] for v in list(D)[1::4]]
    _check_lca(D, pairs, dict(nx.all_pairs_lowest_common_ancestor(D, pairs, backend="dgraph")))
    a = nx.lowest_common_ancestor(D, *pairs[5], backend="dgraph")
    assert a == dict(nx.all_pairs_lowest_common_ancestor(D, [pairs[5]], backend="dgraph")).get(pairs[5])
    u, v = next(iter(D.edges()))
    D.add_edge(v, u)  # a cycle
    with pytest.raises(nx.NetworkXError, match="directed acyclic"):
        nx.lowest_common_ancestor(D, 0, 1, backend="dgraph")
    G = nx_graph(kron_edges(6, seed=2, edge_factor=3), False)
    for radius in (1, 2):
        ego = nx.ego_graph(G, 0, radius=radius, backend="dgraph")
        want = nx.ego_graph(G, 0, radius=radius)
        assert set(ego) == set(want) and set(map(frozenset, ego.edges())) == set(map(frozenset, want.edges()))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["random", "skewed", "grid"])
def test_every_shortest_path_and_johnson(client, kind):
    G = _nx_graphs()[kind]
    source = next(iter(G))
    want = nx.predecessor(G, source)
    got = nx.predecessor(G, source, backend="dgraph")
    assert {v: set(p) for v, p in got.items()} == {v: set(p) for v, p in want.items()}
    target = max(nx.single_source_shortest_path_length(G, source).items(), key=lambda x: x[1])[0]
    paths = sorted(nx.all_shortest_paths(G, source, target, backend="dgraph"))
    assert paths == sorted(nx.all_shortest_paths(G, source, target))
    for method in ("dijkstra", "bellman-ford"):
        H = G if method == "bellman-ford" else nx.Graph(G) if not G.is_directed() else G.copy()
        if method == "dijkstra":
            for _, _, d in H.edges(data=True):
                d["weight"] = abs(d["weight"])
        got = dict(nx.single_source_all_shortest_paths(H, source, weight="weight", method=method, backend="dgraph"))
        want = dict(nx.single_source_all_shortest_paths(H, source, weight="weight", method=method))
        assert {v: sorted(p) for v, p in got.items()} == {v: sorted(p) for v, p in want.items()}
    every = nx.johnson(G, backend="dgraph")
    for s, lengths in nx.all_pairs_bellman_ford_path_length(G):
        _check_paths(G, s, every[s], lengths, "weight")


@pytest.mark.slow
def test_floyd_warshall_with_negative_weights_on_a_dgraph_graph(client):
    """networkx keeps its own Floyd-Warshall for a networkx graph with negative weights; a
    ``dgraph.nx.Graph`` gets Johnson's reweighting on the cluster, and its negative cycles raise."""
    G = _nx_graphs()["grid"]
    D = dgraph.nx.from_pandas_edgelist(nx.to_pandas_edgelist(G), edge_attr="weight", create_using=nx.DiGraph)
    pred, dist = nx.floyd_warshall_predecessor_and_distance(D)
    want = nx.floyd_warshall(G)
    assert all(dist[u][v] == want[u][v] for u in G for v in G)
    for u in pred:
        for v, p in pred[u].items():
            assert dist[u][p] + G[p][v]["weight"] == dist[u][v]
    e, _ = _with_cycle()
    cyclic = dgraph.nx.from_pandas_edgelist(e, "src", "dst", edge_attr="w", create_using=nx.DiGraph)
    with pytest.raises(nx.NetworkXUnbounded):
        nx.floyd_warshall(cyclic, weight="w")
