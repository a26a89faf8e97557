"""Many-seed neighbourhood queries against networkx, exactly: k-hop balls, ego graphs, shortest
paths (lengths, and paths that are shortest and follow the trees ``sssp`` builds), personalized
PageRank (to networkx's tolerance), and subgraphs; on random, Kronecker and grid graphs, on
every layout, the same rows on each."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from graphs import LAYOUTS, er_edges, grid_edges, kron_edges, nx_graph

import dgraph
from dgraph import algorithms as alg
from dgraph.errors import DgraphInputError


def _graph(kind):
    rng = np.random.default_rng(5)
    if kind == "er-directed":
        e, directed = er_edges(200, 700, seed=3), True
    elif kind == "kronecker":
        e, directed = kron_edges(8, seed=2, edge_factor=4), False
    else:
        e, directed = grid_edges(12, 14), False
    return e.assign(w=rng.integers(0, 9, len(e)).astype(float) / 2), directed  # zeros and ties


def _seeds(G, count=70):
    nodes = sorted(G)
    return [nodes[i] for i in np.random.default_rng(1).choice(len(nodes), count, replace=False)]


def _sorted(frame, by):
    return frame.sort_values(by).reset_index(drop=True)


@pytest.mark.parametrize("kind", ["er-directed", "kronecker", "grid"])
def test_k_hop_and_ego_graphs_equal_networkx_on_every_layout(client, kind):
    e, directed = _graph(kind)
    G = nx_graph(e, directed, weight="w")
    seeds = _seeds(G)  # more than 64: two words of seeds
    want = pd.DataFrame(
        [(s, v, h) for s in seeds for v, h in nx.single_source_shortest_path_length(G, s, cutoff=3).items()],
        columns=["seed", "vertex", "hops"],
    )
    ego_want = set()
    for s in seeds[:6]:
        ego = nx.ego_graph(G, s, radius=2)
        ego_want |= {(s, u, v) if directed else (s, *sorted((u, v))) for u, v in ego.edges()}
    for layout in LAYOUTS[::2]:
        g = dgraph.from_edgelist(e, weight="w", directed=directed, layout=layout)
        got = alg.k_hop(g, seeds + seeds[:3], 3).compute()  # repeats count once
        pd.testing.assert_frame_equal(
            _sorted(got, ["seed", "vertex"]), _sorted(want, ["seed", "vertex"]), check_dtype=False
        )
        ego = alg.ego_graph(g, seeds[:6], radius=2).compute()
        pairs = [(s, u, v) if directed else (s, *sorted((u, v))) for s, u, v in zip(ego.seed, ego.src, ego.dst)]
        assert len(pairs) == len(ego_want) and set(pairs) == ego_want
        assert "w" in ego.columns


@pytest.mark.parametrize("kind", ["er-directed", "kronecker", "grid"])
def test_shortest_paths_are_shortest_and_follow_sssp_trees(client, kind):
    e, directed = _graph(kind)
    G = nx_graph(e, directed, weight="w")
    sources = _seeds(G, 4)
    targets = sorted(G)[::7]
    first = None
    for layout in LAYOUTS[::3]:
        g = dgraph.from_edgelist(e, weight="w", directed=directed, layout=layout)
        for weight in (None, "w"):
            found = alg.shortest_paths(g, sources, targets=targets, weight=weight).compute()
            assert len(found) == len(sources) * len(targets)
            for s in sources:
                lengths = nx.single_source_dijkstra_path_length(G, s, weight="weight" if weight else lambda *_: 1)
                check_tree = weight and first is None  # the paths are the same on every layout (below)
                tree = alg.sssp(g, s, weight=weight).compute().set_index("vertex").predecessor if check_tree else None
                for t, d, path in found[found.source == s][["target", "distance", "path"]].itertuples(index=False):
                    if t not in lengths:
                        assert pd.isna(d) and pd.isna(path)
                        continue
                    assert d == lengths[t] and path[0] == s and path[-1] == t
                    cost = sum(G[a][b]["weight"] if weight else 1 for a, b in zip(path[:-1], path[1:]))
                    assert cost == pytest.approx(lengths[t], abs=1e-9)
                    if check_tree and len(path) > 1:
                        assert tree[t] == path[-2]  # the tree sssp builds, ties included
        rows = _sorted(found, ["source", "target"])
        if first is None:
            first = rows
        pd.testing.assert_frame_equal(first, rows)  # the same paths on every layout
    everything = alg.shortest_paths(g, sources[0], weight=None).compute()  # targets=None: every vertex reached
    assert set(everything.target) == set(nx.single_source_shortest_path_length(G, sources[0]))
    assert everything.distance.dtype == "Int64"
    assert alg.shortest_paths(g, sources[0]).compute().distance.dtype == "Float64"  # the graph's weight


@pytest.mark.parametrize("kind", ["er-directed", "kronecker"])
def test_personalized_pagerank_matches_networkx_per_query(client, kind):
    e, directed = _graph(kind)
    e = e.assign(w=e.w + 0.5)
    G = nx_graph(e, directed, weight="w")
    nodes = sorted(G)
    seeds = [nodes[0], nodes[9], nodes[4], nodes[4]]
    asks = pd.DataFrame({"query": ["x", "x", "y", "z"], "seed": seeds, "weight": [1.0, 3.0, 2.0, 1.0]})
    for layout in LAYOUTS[::3]:
        g = dgraph.from_edgelist(e, weight="w", directed=directed, layout=layout)
        for weight in (None, "w"):
            got = alg.personalized_pagerank(g, asks, weight=weight, tol=1e-10).compute()
            top = alg.personalized_pagerank(g, asks, weight=weight, top=4).compute()
            for q, part in asks.groupby("query"):
                pers = part.groupby("seed").weight.sum().to_dict()
                want = nx.pagerank(G, personalization=pers, weight="weight" if weight else None, tol=1e-10)
                mine = got[got["query"] == q].set_index("vertex").pagerank
                assert len(mine) == len(G)
                assert max(abs(mine[v] - p) for v, p in want.items()) < 1e-9
                best = sorted(want, key=lambda v: (-want[v], v))[:4]
                assert set(top[top["query"] == q].vertex) == set(best)


def _same(graph, G):
    H = graph.to_networkx()
    edges = {frozenset(e): w for *e, w in H.edges(data="w")}
    return set(H) == set(G) and edges == {frozenset(e): w for *e, w in G.edges(data="weight")}


def test_subgraphs_equal_networkx(client):
    e, directed = _graph("kronecker")
    G = nx_graph(e, directed, weight="w")
    keep = sorted(G)[::3]
    for layout in (LAYOUTS[1], LAYOUTS[5]):
        g = dgraph.from_edgelist(e, weight="w", directed=directed, layout=layout, vertices=sorted(G))
        h = g.subgraph(keep)
        assert (h.num_vertices, h.num_edges) == (len(keep), G.subgraph(keep).number_of_edges())
        assert h.layout.ranks == g.nranks
        assert _same(h, G.subgraph(keep))
        chosen = list(G.edges())[::5]
        flipped = [(v, u) for u, v in chosen] + [(-1, -2)]  # either order; a pair that is no edge is left out
        k = g.edge_subgraph(pd.DataFrame(flipped, columns=["src", "dst"]))
        assert _same(k, G.edge_subgraph(chosen))
        assert alg.connected_components(k).compute().vertex.nunique() == k.num_vertices


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda g: alg.k_hop(g, [0], -1), "at least 0"),
        (lambda g: alg.k_hop(g, [], 2), "at least one"),
        (lambda g: alg.k_hop(g, [99], 2), "99"),
        (lambda g: alg.ego_graph(g, [0], radius=1.5), "radius"),
        (lambda g: alg.shortest_paths(g, [0], weight="cost"), "weight"),
        (lambda g: alg.shortest_paths(g, [0], targets=[77], weight=None), "77"),
        (lambda g: alg.personalized_pagerank(g, pd.DataFrame({"q": [1], "seed": [0]})), "'query' and 'seed'"),
        (lambda g: alg.personalized_pagerank(g, pd.DataFrame({"query": [1], "seed": [0], "weight": [0]})), "positive"),
        (lambda g: alg.personalized_pagerank(g, pd.DataFrame({"query": [1], "seed": [0]}), top=0), "top"),
        (lambda g: g.subgraph([0, 55]), "55"),
        (lambda g: g.edge_subgraph(pd.DataFrame({"a": [0]})), "'src' and 'dst'"),
    ],
)
def test_bad_queries_are_named(client, call, message):
    g = dgraph.from_edgelist(pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 0], "w": [1.0, 2.0, -1.0]}), weight="w")
    with pytest.raises(DgraphInputError, match=message):
        call(g)


def test_negative_weights_are_refused_for_paths(client):
    g = dgraph.from_edgelist(pd.DataFrame({"src": [0, 1], "dst": [1, 2], "w": [1.0, -2.0]}), weight="w")
    with pytest.raises(DgraphInputError, match="non-negative"):
        alg.shortest_paths(g, [0], weight="w")
