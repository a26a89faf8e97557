"""Spanning forests, colourings, independent sets and trusses against networkx and scipy, on
random, skewed and high-diameter graphs and a layout of each kind (the quick tier: one layout)."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from graphs import EACH_KIND, LAYOUTS, er_edges, grid_edges, kron_edges, nx_graph
from scipy.sparse.csgraph import minimum_spanning_tree as scipy_mst

import dgraph
import dgraph.nx
from dgraph import streams
from dgraph.algorithms import greedy_color, k_truss, maximal_independent_set, minimum_spanning_tree
from dgraph.algorithms.greedy_color import coloring_kernel
from dgraph.algorithms.k_truss import truss_kernel
from dgraph.algorithms.minimum_spanning_tree import spanning_forest_kernel

GRAPHS = {
    "er": lambda: er_edges(300, 900, seed=41),
    "kronecker": lambda: kron_edges(8, seed=4),
    "grid": lambda: grid_edges(12, 15),
}
QUICK = [LAYOUTS[4]]  # hashed 1D over 4 ranks: ghosts on every side


def _weighted(kind):
    e = GRAPHS[kind]()
    return e.assign(w=np.random.default_rng(7).integers(1, 6, len(e)).astype(float))  # many ties


def _layouts(quick):
    return QUICK if quick else EACH_KIND


def _canonical(frame):
    return frame.sort_values(["src", "dst"]).reset_index(drop=True)


# ----------------------------------------------------------------------------- spanning forests
def _check_forest(G, forest, maximum):
    """A spanning forest of G (every edge G's, no cycle, G's components) of the optimal weight."""
    assert all(G.has_edge(u, v) for u, v in zip(forest.src, forest.dst))
    assert all(G[u][v]["weight"] == w for u, v, w in zip(forest.src, forest.dst, forest.weight))
    F = nx.Graph()
    F.add_nodes_from(G)
    F.add_edges_from(zip(forest.src, forest.dst))
    assert nx.is_forest(F)
    assert nx.number_connected_components(F) == nx.number_connected_components(G)
    nodes = list(G)
    index = {v: i for i, v in enumerate(nodes)}
    u, v, w = zip(*((index[a], index[b], d["weight"]) for a, b, d in G.edges(data=True) if a != b))
    sign = -1.0 if maximum else 1.0
    A = sp.coo_matrix((sign * np.asarray(w), (u, v)), shape=(len(nodes), len(nodes))).tocsr()
    assert sign * forest.weight.sum() == pytest.approx(scipy_mst(A).sum())


def _kruskal(G, maximum):
    """The spanning forest of G under dgraph's order of edges, (weight, smaller end, larger end)
    (the labels are the canonical ids' order): the unique one, whatever the ties."""
    sign = -1.0 if maximum else 1.0
    edges = sorted((sign * d["weight"], min(u, v), max(u, v)) for u, v, d in G.edges(data=True) if u != v)
    joined = nx.utils.UnionFind()
    forest = set()
    for _, a, b in edges:
        if joined[a] != joined[b]:
            joined.union(a, b)
            forest.add((a, b))
    return forest


SPANNING = [
    pytest.param(kind, weights, quick, marks=[] if quick else [pytest.mark.slow], id=f"{kind}-{weights}-{label}")
    for kind in GRAPHS
    for weights in ("tied", "random")
    for quick, label in ((True, "quick"), (False, "layouts"))
    if not (quick and weights == "random")
]


@pytest.mark.parametrize("kind, weights, quick", SPANNING)
def test_spanning_forest(client, kind, weights, quick):
    e = _weighted(kind)
    if weights == "random":
        e = e.assign(w=np.random.default_rng(8).random(len(e)))
    G = nx_graph(e, False, weight="w")
    want = {maximum: _kruskal(G, maximum) for maximum in (False, True)}
    for layout in _layouts(quick):
        g = dgraph.from_edgelist(e, weight="w", directed=False, layout=layout)
        for maximum in (False, True):
            forest = _canonical(minimum_spanning_tree(g, maximum=maximum).compute())
            _check_forest(G, forest, maximum)
            assert set(zip(forest.src, forest.dst)) == want[maximum]  # one forest on every layout
        # no arcs sent to one rank: Boruvka's rounds across ranks to the end
        rounds, _ = g.runner.run_to_rows(
            spanning_forest_kernel,
            label_columns=("src", "dst"),
            name="minimum_spanning_tree",
            weighted=True,
            maximum=False,
            ignore_nan=False,
            gather_arcs=0,
        )
        assert set(zip(*rounds.compute()[["src", "dst"]].to_numpy().T)) == want[False]


def test_spanning_forest_unit_weights_and_nan(client):
    e = _weighted("er")
    g = dgraph.from_edgelist(e, weight="w", directed=False, ranks=3)
    unit = minimum_spanning_tree(g, weight=None).compute()
    G = nx_graph(e, False)
    assert len(unit) == len(G) - nx.number_connected_components(G) and (unit.weight == 1.0).all()
    e.loc[3, "w"] = np.nan
    g = dgraph.from_edgelist(e, weight="w", directed=False, ranks=3)
    with pytest.raises(dgraph.DgraphInputError, match="NaN"):
        minimum_spanning_tree(g)
    kept = minimum_spanning_tree(g, ignore_nan=True).compute()
    a, b = e.loc[3, "src"], e.loc[3, "dst"]
    assert not ((kept.src == min(a, b)) & (kept.dst == max(a, b))).any()
    with pytest.raises(dgraph.DgraphInputError, match="undirected"):
        minimum_spanning_tree(dgraph.from_edgelist(e[["src", "dst"]]))


# ----------------------------------------------------------------------------- colourings and sets
def _graph(kind):
    e = GRAPHS[kind]()
    return e, nx_graph(e, False)


def _sequential_colouring(G, seed):
    """networkx's greedy colouring in dgraph's order: larger degree (self-loops left out), then
    larger draw of the seed's stream, then larger canonical id (the labels' order) first."""
    nodes = sorted(G)
    canonical = np.arange(len(nodes))
    degree = np.array([len(set(G[v]) - {v}) for v in nodes])
    order = np.lexsort((canonical, streams.words(seed, canonical), degree))[::-1]
    sequence = [nodes[i] for i in order]
    return nx.greedy_color(G, strategy=lambda G, colors: sequence)


@pytest.mark.parametrize("quick", [True, pytest.param(False, marks=pytest.mark.slow)], ids=["quick", "layouts"])
@pytest.mark.parametrize("kind", list(GRAPHS))
def test_colouring_is_the_sequential_one_on_every_layout(client, kind, quick):
    e, G = _graph(kind)
    want = _sequential_colouring(G, 3)
    for layout in _layouts(quick) + [LAYOUTS[0]]:
        g = dgraph.from_edgelist(e, directed=False, layout=layout)
        found = greedy_color(g, seed=3).compute().sort_values("vertex").reset_index(drop=True)
        assert dict(zip(found.vertex, found.color)) == want
        assert dgraph.algorithms.verify("color", g, found) == []
        # no vertex coloured first on one rank: every colour speculated and repaired across ranks
        alone = g.run_to_frame(coloring_kernel, name="greedy_color", seed=3, hubs=0).compute()
        assert dict(zip(alone.vertex, alone.color)) == want


@pytest.mark.parametrize("quick", [True, pytest.param(False, marks=pytest.mark.slow)], ids=["quick", "layouts"])
@pytest.mark.parametrize("kind", list(GRAPHS))
def test_independent_set_is_maximal_and_the_same_on_every_layout(client, kind, quick):
    e, G = _graph(kind)
    forced = [v for v in list(G)[:40:7] if not G.has_edge(v, v)]
    forced = list(nx.maximal_independent_set(G.subgraph(forced), seed=1))
    first = None
    for layout in _layouts(quick):
        g = dgraph.from_edgelist(e, directed=False, layout=layout)
        found = maximal_independent_set(g, forced, seed=5).compute().sort_values("vertex").reset_index(drop=True)
        members = set(found.vertex[found.in_set])
        assert set(forced) <= members
        assert not any(u in members and v in members for u, v in G.edges() if u != v)
        assert all(v in members or any(u in members for u in G[v] if u != v) for v in G)
        assert dgraph.algorithms.verify("mis", g, found, nodes=forced) == []
        first = found if first is None else first
        pd.testing.assert_frame_equal(found, first)


def test_independent_set_bad_nodes(client):
    e, G = _graph("grid")
    g = dgraph.from_edgelist(e, directed=False, ranks=3)
    u, v = next(iter(G.edges()))
    with pytest.raises(dgraph.DgraphInputError, match="not independent"):
        maximal_independent_set(g, [u, v])
    with pytest.raises(dgraph.DgraphInputError):
        maximal_independent_set(g, [-5])
    found = maximal_independent_set(g, seed=1).compute()
    wrong = found.assign(in_set=True)
    assert any("both in the set" in p for p in dgraph.algorithms.verify("mis", g, wrong))
    colours = greedy_color(g, seed=1).compute().assign(color=0)
    assert any("share a colour" in p for p in dgraph.algorithms.verify("color", g, colours))


# ----------------------------------------------------------------------------- trusses
@pytest.mark.parametrize("quick", [True, pytest.param(False, marks=pytest.mark.slow)], ids=["quick", "layouts"])
@pytest.mark.parametrize("kind", list(GRAPHS))
def test_k_truss_is_networkx(client, kind, quick):
    e, G = _graph(kind)
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    want = {k: {tuple(sorted(x)) for x in nx.k_truss(G, k).edges()} for k in (3, 4, 5)}
    for layout in _layouts(quick):
        g = dgraph.from_edgelist(e, directed=False, layout=layout)
        for k in (3, 4, 5) if not quick else (4,):
            found = k_truss(g, k).compute()
            assert (found.src < found.dst).all()
            assert set(zip(found.src, found.dst)) == want[k]
    # ghost rows fetched in many small batches: the same truss
    found = g.run_to_rows(truss_kernel, label_columns=("src", "dst"), name="k_truss", k=4, batch_arcs=40).compute()
    assert set(zip(found.src, found.dst)) == want[4]


# ----------------------------------------------------------------------------- through networkx
def test_networkx_functions_through_the_backend(client):
    G = nx.relabel_nodes(nx_graph(_weighted("er"), False, weight="w"), lambda v: f"v{v}")  # string nodes
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    nx.set_edge_attributes(G, "x", "tag")
    G.graph["name"] = "er"
    for name in ("minimum_spanning_tree", "maximum_spanning_tree"):
        T, want = getattr(nx, name)(G, backend="dgraph"), getattr(nx, name)(G)
        assert type(T) is nx.Graph and T.graph == G.graph and list(T) == list(G)
        assert T.size("weight") == want.size("weight") and nx.is_forest(T)
        assert all(d == {"weight": G[u][v]["weight"], "tag": "x"} for u, v, d in T.edges(data=True))
    converted = dgraph.nx.CONVERSIONS["from_networkx"]
    nx.minimum_spanning_tree(G, backend="dgraph")
    assert dgraph.nx.CONVERSIONS["from_networkx"] == converted  # the weighted copy is kept
    edges = nx.minimum_spanning_edges(G, algorithm="boruvka", data=False, backend="dgraph")
    assert not isinstance(edges, list) and len(list(edges)) == len(G) - nx.number_connected_components(G)
    colour = nx.greedy_color(G, strategy="smallest_last", backend="dgraph")
    assert set(colour) == set(G) and all(colour[u] != colour[v] for u, v in G.edges())
    members = nx.maximal_independent_set(G, ["v3"], seed=2, backend="dgraph")
    assert members[0] == "v3" and nx.is_dominating_set(G, members) and not G.subgraph(members).size()
    H = nx.k_truss(G, 3.5, backend="dgraph")
    want = nx.k_truss(G, 4)
    assert list(H.nodes) == list(want.nodes) and set(H.edges) == set(want.edges) and H.graph == G.graph
    u, v = next(iter(G.edges()))
    with pytest.raises(nx.NetworkXUnfeasible, match="not an independent set"):
        nx.maximal_independent_set(G, [u, v], backend="dgraph")
    G.add_edge(u, v, weight=float("nan"))
    with pytest.raises(ValueError, match="NaN"):
        list(nx.minimum_spanning_edges(G, backend="dgraph"))
    G.add_edge(u, u)  # networkx raises its own error: the backend declines, saying why
    assert "self-loops" in dgraph.nx.can_run("k_truss", (G, 3), {})
    assert "interchange" in dgraph.nx.can_run("greedy_color", (G,), {"interchange": True})
    assert "strategy" in dgraph.nx.can_run("greedy_color", (G, nx.coloring.strategy_largest_first), {})


def test_networkx_functions_on_a_frame_graph(client):
    e = _weighted("grid").rename(columns={"src": "source", "dst": "target"})
    D = dgraph.nx.from_pandas_edgelist(e, edge_attr="w")
    G = nx.from_pandas_edgelist(e, edge_attr="w")
    T = nx.minimum_spanning_tree(D, weight="w")
    assert T.size("w") == nx.minimum_spanning_tree(G, weight="w").size("w") and nx.is_tree(T)
    assert set(nx.k_truss(D, 3).edges) == set(nx.k_truss(G, 3).edges) == set()
