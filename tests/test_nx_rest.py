"""Weighted and edge betweenness, empty graphs, directed cores, conversions and the bounds for
large graphs, against networkx (directly and through the backend)."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from graphs import LAYOUTS, er_edges, grid_edges, kron_edges, nx_graph

import dgraph
from dgraph import algorithms as alg
from dgraph.errors import DgraphInputError

QUICK = [LAYOUTS[1]]  # one layout of several ranks in the quick tier; all of them in the slow one
ALL = [pytest.param(layout, marks=pytest.mark.slow, id=str(i)) for i, layout in enumerate(LAYOUTS)]


def _weighted(kind, seed=7):
    """(edges with a random weight column, directed): no self-loops, so both sides keep the same edges."""
    e, directed = {
        "er": (er_edges(70, 260, seed=3), True),
        "kronecker": (kron_edges(6, seed=1), False),
        "grid": (grid_edges(6, 7), False),
    }[kind]
    e = e[e["src"] != e["dst"]].reset_index(drop=True)
    rng = np.random.default_rng(seed)
    return e.assign(w=rng.random(len(e)) + 0.01), directed


def _close(got, ref, rel=1e-9):
    assert set(got) == set(ref)
    for key, x in ref.items():
        assert got[key] == pytest.approx(x, rel=rel, abs=1e-12), key


def _edges(found, directed):
    """An edge frame as {(u, v): score}, undirected edges with their smaller end first."""
    out = {}
    for u, v, x in zip(found["src"].tolist(), found["dst"].tolist(), found["betweenness"].tolist()):
        out[(u, v) if directed or u <= v else (v, u)] = x
    return out


def _nx_edges(ref, directed):
    return {(u, v) if directed or u <= v else (v, u): x for (u, v), x in ref.items()}


# --------------------------------------------------------------------------- 1. betweenness
@pytest.mark.parametrize("layout", QUICK + ALL)
@pytest.mark.parametrize("kind", ["er", "kronecker", "grid"])
def test_weighted_betweenness_matches_networkx(client, kind, layout):
    e, directed = _weighted(kind)
    G = nx_graph(e, directed, weight="w")
    g = dgraph.from_edgelist(e, directed=directed, weight="w", layout=layout)
    for normalized in (True, False):
        ref = nx.betweenness_centrality(G, weight="weight", normalized=normalized)
        got = alg.betweenness_centrality(g, normalized=normalized).compute().set_index("vertex").betweenness
        _close(got.to_dict(), ref)
    assert g.last_stats.info["method"] == "replicated"
    hops = alg.betweenness_centrality(g, weight=None).compute().set_index("vertex").betweenness
    _close(hops.to_dict(), nx.betweenness_centrality(G))


@pytest.mark.parametrize("layout", QUICK + ALL)
@pytest.mark.parametrize("kind", ["er", "kronecker", "grid"])
def test_edge_betweenness_matches_networkx(client, kind, layout):
    e, directed = _weighted(kind)
    G = nx_graph(e, directed, weight="w")
    g = dgraph.from_edgelist(e, directed=directed, weight="w", layout=layout)
    for weight, normalized in ((None, True), ("w", True), ("w", False)):
        ref = nx.edge_betweenness_centrality(G, weight=weight and "weight", normalized=normalized)
        got = alg.edge_betweenness_centrality(g, weight=weight, normalized=normalized).compute()
        _close(_edges(got, directed), _nx_edges(ref, directed))


def test_sampled_edge_betweenness_rescales_as_networkx(client):
    e, directed = _weighted("er")
    G = nx_graph(e, directed, weight="w")
    g = dgraph.from_edgelist(e, directed=directed, weight="w", layout=LAYOUTS[2])
    sources = sorted(G)[:9]
    # networkx's rescaling of a sample, applied to the sums from these sources
    sums = dict.fromkeys([*G, *G.edges()], 0.0)
    from networkx.algorithms.centrality.betweenness import _accumulate_edges, _single_source_dijkstra_path_basic

    for s in sources:
        S, P, sigma, _ = _single_source_dijkstra_path_basic(G, s, "weight")
        sums = _accumulate_edges(sums, S, P, sigma, s)
    n = len(G)
    ref = {edge: x / (len(sources) * (n - 1)) for edge, x in sums.items() if isinstance(edge, tuple)}
    got = alg.edge_betweenness_centrality(g, sources=sources).compute()
    _close(_edges(got, directed), _nx_edges(ref, directed))
    one = alg.edge_betweenness_centrality(g, k=5, seed=1).compute()
    other = dgraph.from_edgelist(e, directed=directed, weight="w", layout=LAYOUTS[5])
    assert _edges(one, directed) == pytest.approx(
        _edges(alg.edge_betweenness_centrality(other, k=5, seed=1).compute(), directed)
    )


def test_weighted_betweenness_refuses_what_it_cannot_do(client):
    e = pd.DataFrame({"src": [0, 1], "dst": [1, 2], "w": [1.0, -2.0]})
    g = dgraph.from_edgelist(e, weight="w", directed=False)
    with pytest.raises(DgraphInputError, match="non-negative"):
        alg.betweenness_centrality(g)
    with pytest.raises(DgraphInputError, match="non-negative"):
        alg.edge_betweenness_centrality(g)
    good = dgraph.from_edgelist(e.assign(w=[1.0, 2.0]), weight="w", directed=False)
    with pytest.raises(DgraphInputError, match="method='levels' counts hops"):
        alg.betweenness_centrality(good, method="levels")
    assert alg.verify("bc", good, alg.betweenness_centrality(good)) == []
    assert alg.verify("bc", good, alg.betweenness_centrality(good, weight=None), weight=None) == []
