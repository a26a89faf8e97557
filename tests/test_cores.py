"""Core numbers against networkx: the rank-local peel kernel, then whole runs on every kind of
layout, undirected and directed (in- plus out-degree, as networkx), and the inputs refused."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from graphs import EACH_KIND, er_edges, grid_edges, kron_edges, nx_graph

import dgraph
from dgraph import kernels
from dgraph.algorithms import core_number, k_core
from dgraph.kernels.csr import build_csr
from dgraph.partitioners import OneD

EDGES = {
    "kronecker": lambda: kron_edges(9, seed=2),
    "er": lambda: er_edges(300, 1500, seed=4),
    "grid": lambda: grid_edges(17, 19),
}


def _loopless(kind):
    e = EDGES[kind]()
    return e[e.src != e.dst]


@pytest.mark.parametrize("engine", ["numba", "numpy"])
@pytest.mark.parametrize("kind", sorted(EDGES))
def test_one_peel_of_a_whole_graph_is_its_core_numbers(kind, engine):
    # every vertex own, no ghosts, bounds at the degrees: the classic peel (no cluster needed)
    e = _loopless(kind)
    n = int(max(e.src.max(), e.dst.max())) + 1
    indptr, indices, _ = build_csr(np.r_[e.src, e.dst], np.r_[e.dst, e.src], n)
    block = type("Rows", (), {"indptr": indptr, "indices": indices})()
    with kernels.using(engine):
        got = kernels.peel_cores(block, 0, np.diff(indptr), np.zeros(n + 1, np.int64), np.zeros(0, np.int64))
    want = nx.core_number(nx_graph(e, False, vertices=range(n)))
    assert got.tolist() == [want[v] for v in range(n)]


def _check(e, directed, layout):
    G = nx_graph(e, directed)
    g = dgraph.from_edgelist(e, directed=directed, layout=layout)
    assert core_number(g).compute().set_index("vertex").core.to_dict() == nx.core_number(G)
    return g, G


@pytest.mark.parametrize("kind", sorted(EDGES))
def test_core_numbers_match_networkx(client, kind):
    g, G = _check(_loopless(kind), False, OneD(ranks=3))
    assert g.last_stats.info["rounds"] < 20  # each rank settles its own vertices: a few exchanges
    assert set(k_core(g).compute().vertex) == set(nx.k_core(G).nodes())


def test_directed_core_numbers_match_networkx(client):
    _check(_loopless("kronecker"), True, OneD(ranks=3, balance="striped"))


def test_one_rank_peels_once(client):
    g, _ = _check(_loopless("kronecker"), False, OneD(ranks=1))
    assert g.last_stats.info["rounds"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("layout", EACH_KIND, ids=repr)
@pytest.mark.parametrize("kind", sorted(EDGES))
def test_core_numbers_on_every_kind_of_layout(client, kind, layout, directed):
    _check(_loopless(kind), directed, layout)


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
    # networkx's core_number refuses self-loops; so does dgraph, saying how to drop them
    with pytest.raises(dgraph.DgraphInputError, match="self-loops"):
        core_number(dgraph.from_edgelist(pd.DataFrame({"src": [0, 1], "dst": [0, 2]}), directed=False))
    with pytest.raises(dgraph.DgraphInputError, match="self-loops"):
        core_number(dgraph.from_edgelist(pd.DataFrame({"src": [0, 1], "dst": [0, 2]}), directed=True))


def test_k_corona_through_the_networkx_backend(client):
    import dgraph.nx as dnx

    K = nx_graph(kron_edges(7, seed=3, edge_factor=4), directed=False)
    K.remove_edges_from(list(nx.selfloop_edges(K)))
    D = nx.gnp_random_graph(60, 0.08, seed=4, directed=True)  # counts G[v]: the successors
    for H in (K, D):
        cores = nx.core_number(H)
        top = max(cores.values())
        for k in (0, 2, top, top + 1):
            assert nx.utils.graphs_equal(nx.k_corona(H, k, backend="dgraph"), nx.k_corona(H, k))
        given = {v: min(c, 3) for v, c in cores.items()}  # the caller's core numbers are what counts
        assert nx.utils.graphs_equal(
            nx.k_corona(H, 3, core_number=given, backend="dgraph"), nx.k_corona(H, 3, core_number=given)
        )
    assert "self-loops" in dnx.can_run("k_corona", (nx.Graph([(0, 0), (0, 1)]), 1), {})
