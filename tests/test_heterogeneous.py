"""Unequal workers take unequal shares: a 1D layout cut in proportion to given weights or to the
workers' measured speeds, with the same answers as an equal split."""

import networkx as nx
import numpy as np
import pytest
from graphs import kron_edges, nx_graph

import dgraph
from dgraph import algorithms as alg
from dgraph.errors import DgraphInputError
from dgraph.partitioners import OneD


def _arcs_per_rank(client, g):
    return np.array(client.gather([client.submit(lambda b: int(b.indices.size), b) for b in g.store.blocks]))


def test_weights_give_ranks_shares_in_proportion_and_the_same_answers(client):
    edges = kron_edges(9, seed=3)
    G = nx_graph(edges, directed=False)
    g = dgraph.from_edgelist(edges, directed=False, layout=OneD(ranks=2, weights=[3, 1]))
    arcs = _arcs_per_rank(client, g)
    assert 2.5 < arcs[0] / arcs[1] < 3.5  # (arcs plus vertices) split 3 : 1
    source = int(edges.src.iloc[0])
    got = alg.bfs(g, source).compute().dropna(subset=["distance"]).set_index("vertex").distance.astype(int)
    assert got.to_dict() == nx.single_source_shortest_path_length(G, source)


def test_measured_balance_weighs_ranks_by_their_workers_speed(client):
    edges = kron_edges(9, seed=4)
    G = nx_graph(edges, directed=False)
    g = dgraph.from_edgelist(edges, directed=False, layout=OneD(ranks=2, balance="measured"))
    assert g.layout.weights.size == 2 and np.all(g.layout.weights > 0)  # arcs a second on each worker
    assert "weights=" in repr(g.layout)
    pr = alg.pagerank(g, tol=1e-10).compute().set_index("vertex").pagerank
    ref = nx.pagerank(G, tol=1e-10)
    np.testing.assert_allclose(pr.loc[list(ref)].to_numpy(), list(ref.values()), rtol=1e-6)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: OneD(ranks=2, weights=[1, -1]), "positive"),
        (lambda: OneD(ranks=3, weights=[1, 2]), "one per rank"),
        (lambda: OneD(balance="striped", weights=[1, 2]), "balance='degree'"),
        (lambda: OneD(ranks=2, balance="measured").plan(np.ones(4, np.int64)), "weights="),
    ],
)
def test_bad_weights_are_named(make, message):
    with pytest.raises(DgraphInputError, match=message):
        make()
