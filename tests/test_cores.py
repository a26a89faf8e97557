"""Core numbers against networkx."""

import networkx as nx
import pandas as pd
import pytest
from graphs import er_edges, grid_edges, kron_edges, nx_graph

import dgraph
from dgraph import kernels
from dgraph.algorithms import core_number, k_core
from dgraph.partitioners import OneD, OnePointFiveD, TwoD


@pytest.mark.parametrize("kind", ["kronecker", "er", "grid"])
def test_core_numbers_match_networkx(client, kind):
    e = {
        "kronecker": lambda: kron_edges(9, seed=2),
        "er": lambda: er_edges(300, 1500, seed=4),
        "grid": lambda: grid_edges(7, 9),
    }[kind]()
    e = e[e.src != e.dst]
    G = nx_graph(e, False)
    ref = nx.core_number(G)
    for layout in (
        OneD(ranks=1),
        OneD(ranks=3),
        OneD(ranks=8, balance="striped"),
        TwoD(rows=2, cols=3),
        OnePointFiveD(rows=2, cols=3, e_threshold=12, h_threshold=5),
    ):
        g = dgraph.from_edgelist(e, directed=False, layout=layout)
        assert core_number(g).compute().set_index("vertex").core.to_dict() == ref
    top = k_core(g).compute()
    assert set(top.vertex) == set(nx.k_core(G).nodes())


def test_numpy_kernel_agrees(client):
    e = kron_edges(8, seed=9)
    g = dgraph.from_edgelist(e, directed=False, self_loops="drop", ranks=3)
    kernels.set_engine("numpy")
    try:
        a = core_number(g).compute().sort_values("vertex").reset_index(drop=True)
    finally:
        kernels.set_engine("numba")
    pd.testing.assert_frame_equal(a, core_number(g).compute().sort_values("vertex").reset_index(drop=True))


def test_core_number_bad_input(client):
    with pytest.raises(dgraph.DgraphInputError, match="self-loops"):
        core_number(dgraph.from_edgelist(pd.DataFrame({"src": [0, 1], "dst": [0, 2]}), directed=False))
    with pytest.raises(dgraph.DgraphInputError, match="self-loops"):
        core_number(dgraph.from_edgelist(pd.DataFrame({"src": [0, 1], "dst": [0, 2]}), directed=True))
