"""Betweenness centrality against networkx."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from graphs import er_edges, grid_edges, kron_edges, nx_graph
from networkx.algorithms.centrality.betweenness import _accumulate_basic, _single_source_shortest_path_basic

import dgraph
from dgraph.algorithms import betweenness_centrality
from dgraph.partitioners import OneD, OnePointFiveD, TwoD

LAYOUTS = [
    OneD(ranks=1),
    OneD(ranks=3),
    OneD(ranks=4, balance="hashed"),
    TwoD(rows=2, cols=3),
    OnePointFiveD(rows=2, cols=2, e_threshold=10, h_threshold=4),
]


# the 1D layouts by replication in the quick tier; by levels, and 2D and 1.5D, where every
# source's levels take many supersteps, in the full suite (the layouts test runs sampled
# sources on them in both)
@pytest.mark.parametrize("layouts", ["1d", pytest.param("2d-1.5d", marks=pytest.mark.slow)])
@pytest.mark.parametrize("method", [pytest.param("levels", marks=pytest.mark.slow), "replicated"])
@pytest.mark.parametrize("kind", ["er-directed", "kronecker", "grid"])
def test_all_sources_match_networkx(client, kind, method, layouts):
    e, directed = {
        "er-directed": (er_edges(60, 180, seed=3), True),
        "kronecker": (kron_edges(6, seed=1), False),
        "grid": (grid_edges(5, 8), False),
    }[kind]
    G = nx_graph(e, directed)
    for normalized in (True, False):
        ref = nx.betweenness_centrality(G, normalized=normalized)
        if normalized:
            chosen = LAYOUTS[:3] if layouts == "1d" else LAYOUTS[3:]
        else:
            chosen = LAYOUTS[1:2] if layouts == "1d" else []
        for layout in chosen:
            g = dgraph.from_edgelist(e, directed=directed, layout=layout)
            got = (
                betweenness_centrality(g, normalized=normalized, method=method)
                .compute()
                .set_index("vertex")
                .betweenness
            )
            assert g.last_stats.info["method"] == method
            if kind == "kronecker" and method == "levels" and layout is LAYOUTS[1]:  # undirected, 1D
                assert g.last_stats.info.get("pulled_levels", 0) > 0  # middle levels pulled
            assert max(abs(got[v] - x) for v, x in ref.items()) < 1e-9


@pytest.mark.parametrize("method", ["levels", "replicated"])
def test_given_sources_follow_brandes_and_sampling_is_layout_independent(client, method):
    e = er_edges(80, 300, seed=5)
    G = nx_graph(e, False)
    sources = sorted(G.nodes())[:7]
    raw = dict.fromkeys(G, 0.0)
    for s in sources:
        S, P, sigma, _ = _single_source_shortest_path_basic(G, s)
        raw, _ = _accumulate_basic(raw, S, P, sigma, s)
    n, k = G.number_of_nodes(), len(sources)
    # networkx's estimate from k sources, endpoints excluded: a source's own sum lacks its pairs
    scale = {v: 1 / ((k - 1 if v in sources else k) * (n - 2)) for v in G}
    g = dgraph.from_edgelist(e, directed=False, ranks=3)
    got = betweenness_centrality(g, sources=sources, method=method).compute().set_index("vertex").betweenness
    assert max(abs(got[v] - raw[v] * scale[v]) for v in G) < 1e-9
    a = betweenness_centrality(g, k=10, seed=4, method=method).compute().sort_values("vertex").reset_index(drop=True)
    h = dgraph.from_edgelist(e, directed=False, layout=OneD(ranks=4, balance="hashed"))
    b = betweenness_centrality(h, k=10, seed=4, method=method).compute().sort_values("vertex").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12)


def test_bad_input(client):
    g = dgraph.datasets.load("karate")
    with pytest.raises(dgraph.DgraphInputError, match="k must be an integer"):
        betweenness_centrality(g, k=0)
    with pytest.raises(dgraph.DgraphInputError, match="betweenness source 99"):
        betweenness_centrality(g, sources=[99])
    with pytest.raises(dgraph.DgraphInputError, match="method must be one of"):
        betweenness_centrality(g, method="fast")


def test_auto_copies_the_graph_only_when_it_fits(client, monkeypatch):
    import importlib

    betweenness = importlib.import_module("dgraph.algorithms.betweenness_centrality")

    g = dgraph.datasets.load("karate", ranks=3)
    copied = betweenness_centrality(g).compute()
    assert g.last_stats.info["method"] == "replicated"
    monkeypatch.setattr(betweenness, "REPLICA_SHARE", 0.0)  # no copy fits
    levels = betweenness_centrality(g).compute()
    assert g.last_stats.info["method"] == "levels"
    np.testing.assert_allclose(levels.betweenness, copied.betweenness, rtol=1e-12)
    assert levels.betweenness.max() > 0.4  # karate's vertex 1


def test_auto_runs_fewer_sources_than_workers_level_by_level_on_small_world_graphs(client):
    g = dgraph.from_edgelist(kron_edges(8, seed=2), directed=False, ranks=2)
    assert g.num_arcs >= 8 * g.num_vertices
    source = int(g.degrees().compute().sort_values("degree").vertex.iloc[-1])
    one = betweenness_centrality(g, sources=[source]).compute().sort_values("vertex")
    assert g.last_stats.info["method"] == "levels"  # two workers, one source: both search it
    ref = betweenness_centrality(g, sources=[source], method="replicated").compute().sort_values("vertex")
    np.testing.assert_allclose(one.betweenness, ref.betweenness, rtol=1e-9, atol=1e-12)
    betweenness_centrality(g, sources=[source, source + 1]).compute()
    assert g.last_stats.info["method"] == "replicated"  # a source per worker
    alone = dgraph.from_edgelist(kron_edges(8, seed=2), directed=False)  # small: one rank
    assert alone.nranks == 1
    betweenness_centrality(alone, sources=[source]).compute()
    assert alone.last_stats.info["method"] == "levels"  # the other worker's core would idle
    road = dgraph.from_edgelist(grid_edges(10, 10), directed=False, ranks=2)
    betweenness_centrality(road, sources=[0]).compute()
    assert road.last_stats.info["method"] == "replicated"  # many levels: one worker alone is faster


@pytest.mark.parametrize("method", ["levels", "replicated"])
def test_path_counts_beyond_float64_do_not_overflow(client, method):
    # a chain of 210 hubs, each joined to the next by 32 two-arc paths: 32**210 = 2**1050 (about
    # 1e316) shortest paths from one end to the other, over 420 levels
    k, s = 210, 32
    hub = lambda i: (s + 1) * i  # noqa: E731  (the sides after hub i are hub(i) + 1 .. hub(i) + s)
    e = pd.DataFrame(
        [(hub(i), hub(i) + side) for i in range(k) for side in range(1, s + 1)]
        + [(hub(i) + side, hub(i + 1)) for i in range(k) for side in range(1, s + 1)],
        columns=["src", "dst"],
    )
    g = dgraph.from_edgelist(e, directed=False, layout=OneD(ranks=3))
    got = (
        betweenness_centrality(g, sources=[0], normalized=False, method=method)
        .compute()
        .set_index("vertex")
        .betweenness.sort_index()
    )
    # from hub 0, every path to a vertex beyond hub i passes hub i, and a side of its own share
    dependency = np.zeros((s + 1) * k + 1)
    beyond = (s + 1) * (k - np.arange(k + 1))  # vertices past hub i
    dependency[hub(np.arange(1, k + 1))] = beyond[1:]
    for side in range(1, s + 1):
        dependency[hub(np.arange(k)) + side] = (beyond[:-1] - s) / s
    n = (s + 1) * k + 1
    assert np.isnan(got[0])  # one source: its own estimate is 0 / 0, as networkx's
    assert not got.drop(0).isna().any()
    np.testing.assert_allclose(got.drop(0).to_numpy(), dependency[1:] * (n - 1) / 2, rtol=1e-9)
