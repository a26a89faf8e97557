"""Link prediction for given pairs (Jaccard, Adamic-Adar, resource allocation, preferential
attachment) equals networkx's on random, skewed (Kronecker, with a self-loop) and grid graphs
(string labels), on one layout of each kind: pairs of strangers, neighbours, a hub with a leaf
(the kernel's binary search), a vertex with itself, repeated pairs; a graph that keeps repeated
arcs counts each neighbour once; unknown vertices and directed graphs raise."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from graphs import EACH_KIND, er_edges, grid_edges, kron_edges, nx_graph

import dgraph
from dgraph import algorithms as alg
from dgraph.errors import DgraphInputError
from dgraph.partitioners import OneD

SCORES = ("jaccard_coefficient", "adamic_adar_index", "resource_allocation_index", "preferential_attachment")


def _edges(kind):
    if kind == "random":
        return er_edges(60, 240, seed=11)
    if kind == "skewed":
        e = kron_edges(7, seed=3, edge_factor=4)
        return pd.concat([e, pd.DataFrame({"src": [5], "dst": [5]})], ignore_index=True)  # a self-loop
    e = grid_edges(6, 7)
    return pd.DataFrame({"src": "g" + e.src.astype(str), "dst": "g" + e.dst.astype(str)})


def _pairs(G, seed=0):
    """Random pairs, every edge's ends, the hub with each vertex, each vertex with itself once."""
    nodes = sorted(G, key=str)
    rng = np.random.default_rng(seed)
    pairs = [(nodes[i], nodes[j]) for i, j in rng.integers(0, len(nodes), (150, 2))]
    pairs += list(G.edges())[:60]
    hub = max(G, key=G.degree)
    pairs += [(hub, v) for v in nodes[:40]] + [(v, hub) for v in nodes[40:60]]
    pairs += [(v, v) for v in nodes[:10]] + pairs[:5]  # repeats
    return pairs


def _reference(G, name, pairs):
    """networkx's score of each pair (None where networkx divides by log(1): a leaf shared by
    a vertex with itself)."""
    out = []
    for u, v in pairs:
        try:
            out.append(next(iter(getattr(nx, name)(G, [(u, v)])))[2])
        except ZeroDivisionError:
            out.append(None)
    return out


def _check(g, G, pairs):
    for name in SCORES:
        got = getattr(alg, name)(g, pairs).compute()
        assert sorted(zip(got.u, got.v), key=str) == sorted(pairs, key=str), name  # one row per pair given
        want = dict(zip(pairs, _reference(G, name, pairs)))
        for u, v, score in got.itertuples(index=False):
            if want[(u, v)] is not None:
                assert score == pytest.approx(want[(u, v)], rel=1e-12, abs=1e-12), (name, u, v)
        if name == "preferential_attachment":
            assert got[name].dtype == np.int64


@pytest.mark.parametrize("kind", ["random", "skewed", "grid"])
def test_scores_equal_networkx(client, kind):
    e = _edges(kind)
    G = nx_graph(e, False)
    _check(dgraph.from_edgelist(e, directed=False, layout=OneD(ranks=3)), G, _pairs(G))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["random", "skewed", "grid"])
def test_scores_are_the_same_on_every_layout(client, kind):
    e = _edges(kind)
    G = nx_graph(e, False)
    pairs = _pairs(G, seed=1)
    for layout in EACH_KIND:
        _check(dgraph.from_edgelist(e, directed=False, layout=layout), G, pairs)


def test_inputs_repeats_and_errors(client):
    e = _edges("random")
    G = nx_graph(e, False)
    twice = pd.concat([e, e.iloc[:50]], ignore_index=True)
    g = dgraph.from_edgelist(twice, directed=False, duplicates="keep", layout=OneD(ranks=2))
    pairs = _pairs(G, seed=2)
    frame = pd.DataFrame(pairs, columns=["u", "v"])
    got = alg.jaccard_coefficient(g, dd_frame(frame)).compute()  # a dask frame of pairs
    want = dict(zip(pairs, _reference(G, "jaccard_coefficient", pairs)))
    assert all(s == pytest.approx(want[(u, v)], abs=1e-12) for u, v, s in got.itertuples(index=False))
    assert len(alg.adamic_adar_index(g, []).compute()) == 0
    with pytest.raises(DgraphInputError, match="not a vertex"):
        alg.jaccard_coefficient(g, [(0, 1), (0, 999)])
    with pytest.raises(DgraphInputError, match="columns"):
        alg.jaccard_coefficient(g, frame.rename(columns={"u": "a"}))
    with pytest.raises(DgraphInputError, match="undirected"):
        alg.resource_allocation_index(dgraph.from_edgelist(e, directed=True), [(0, 1)])


def dd_frame(frame):
    import dask.dataframe as dd

    return dd.from_pandas(frame, npartitions=3)
