"""Locally dominant matching against the greedy matching it must equal, and networkx's optimum."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from graphs import LAYOUTS, er_edges, grid_edges, kron_edges, nx_graph

import dgraph
from dgraph import kernels
from dgraph.algorithms import max_weight_matching


def greedy(G, weighted):
    """Edges in decreasing (weight, larger id, smaller id); take each whose ends are free."""
    order = sorted(
        ((d["weight"] if weighted else 1.0, max(u, v), min(u, v)) for u, v, d in G.edges(data=True) if u != v),
        reverse=True,
    )
    mate = {}
    for _, a, b in order:
        if a not in mate and b not in mate:
            mate[a], mate[b] = b, a
    return mate


@pytest.mark.parametrize("kind", ["er", "kronecker", "grid"])
def test_matching_is_the_greedy_one_and_half_optimal(client, kind):
    e = {
        "er": lambda: er_edges(200, 600, seed=31),
        "kronecker": lambda: kron_edges(8, seed=3),
        "grid": lambda: grid_edges(9, 11),
    }[kind]()
    e = e.assign(w=np.random.default_rng(5).integers(1, 9, len(e)).astype(float))  # many ties
    G = nx_graph(e, False, weight="w")
    ref = greedy(G, True)
    best = sum(G[u][v]["weight"] for u, v in nx.max_weight_matching(G))
    for layout in LAYOUTS:
        g = dgraph.from_edgelist(e, weight="w", directed=False, layout=layout)
        got = max_weight_matching(g, weight="w").compute().set_index("vertex").mate.dropna().astype(int).to_dict()
        assert got == ref
    assert sum(G[u][v]["weight"] for u, v in got.items() if u < v) >= best / 2


def test_unit_weights_and_numpy_kernel(client):
    e = kron_edges(8, seed=8).assign(w=2.0)
    G = nx_graph(e, False, weight="w")
    g = dgraph.from_edgelist(e, weight="w", directed=False, ranks=3)
    unit = max_weight_matching(g, weight=None).compute().sort_values("vertex").reset_index(drop=True)
    assert unit.set_index("vertex").mate.dropna().astype(int).to_dict() == greedy(G, False)
    kernels.set_engine("numpy")
    try:
        again = max_weight_matching(g, weight=None).compute().sort_values("vertex").reset_index(drop=True)
    finally:
        kernels.set_engine("numba")
    pd.testing.assert_frame_equal(unit, again)


def test_matching_bad_input(client):
    with pytest.raises(dgraph.DgraphInputError, match="undirected"):
        max_weight_matching(dgraph.from_edgelist(pd.DataFrame({"src": [0], "dst": [1]})))
    g = dgraph.from_edgelist(pd.DataFrame({"src": [0], "dst": [1], "w": [1.0]}), weight="w", directed=False)
    with pytest.raises(dgraph.DgraphInputError, match="weight='x'"):
        max_weight_matching(g, weight="x")
