"""Betweenness centrality against networkx."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from networkx.algorithms.centrality.betweenness import _accumulate_basic, _single_source_shortest_path_basic

import dgraph
from dgraph.algorithms import betweenness_centrality
from dgraph.partitioners import OneD, OnePointFiveD, TwoD

from graphs import er_edges, grid_edges, kron_edges, nx_graph

LAYOUTS = [OneD(ranks=1), OneD(ranks=3), OneD(ranks=4, balance="hashed"), TwoD(rows=2, cols=3),
           OnePointFiveD(rows=2, cols=2, e_threshold=10, h_threshold=4)]


@pytest.mark.parametrize("kind", ["er-directed", "kronecker", "grid"])
def test_all_sources_match_networkx(client, kind):
    e, directed = {"er-directed": (er_edges(60, 180, seed=3), True), "kronecker": (kron_edges(6, seed=1), False),
                   "grid": (grid_edges(5, 8), False)}[kind]
    G = nx_graph(e, directed)
    for normalized in (True, False):
        ref = nx.betweenness_centrality(G, normalized=normalized)
        for layout in LAYOUTS if normalized else LAYOUTS[1:2]:
            g = dgraph.from_edgelist(e, directed=directed, layout=layout)
            got = betweenness_centrality(g, normalized=normalized).compute().set_index("vertex").betweenness
            assert max(abs(got[v] - x) for v, x in ref.items()) < 1e-9


def test_given_sources_follow_brandes_and_sampling_is_layout_independent(client):
    e = er_edges(80, 300, seed=5)
    G = nx_graph(e, False)
    sources = sorted(G.nodes())[:7]
    raw = dict.fromkeys(G, 0.0)
    for s in sources:
        S, P, sigma, _ = _single_source_shortest_path_basic(G, s)
        raw, _ = _accumulate_basic(raw, S, P, sigma, s)
    n = G.number_of_nodes()
    scale = 1 / ((n - 1) * (n - 2)) * n / len(sources)
    g = dgraph.from_edgelist(e, directed=False, ranks=3)
    got = betweenness_centrality(g, sources=sources).compute().set_index("vertex").betweenness
    assert max(abs(got[v] - raw[v] * scale) for v in G) < 1e-9
    a = betweenness_centrality(g, k=10, seed=4).compute().sort_values("vertex").reset_index(drop=True)
    h = dgraph.from_edgelist(e, directed=False, layout=OneD(ranks=4, balance="hashed"))
    b = betweenness_centrality(h, k=10, seed=4).compute().sort_values("vertex").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12)


def test_bad_input(client):
    g = dgraph.datasets.load("karate")
    with pytest.raises(dgraph.DgraphInputError, match="k must be an integer"):
        betweenness_centrality(g, k=0)
    with pytest.raises(dgraph.DgraphInputError, match="betweenness source 99"):
        betweenness_centrality(g, sources=[99])
