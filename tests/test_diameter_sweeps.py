"""iFUB's diameter started from a 4-sweep's centre: exact against networkx (scipy's all-pairs
search on the road graph, where networkx takes a minute) on a grid, a road graph and Kronecker,
on every kind of layout; and on a grid a handful of single-source searches, not half of them."""

import networkx as nx
import pytest
import scipy.sparse as sp
from graphs import EACH_KIND, grid_edges, kron_edges, nx_graph
from scipy.sparse.csgraph import shortest_path

import dgraph
from dgraph import algorithms as alg
from dgraph.partitioners import OneD

QUICK = [OneD(ranks=3)]
ALL = [pytest.param(layout, marks=pytest.mark.slow, id=repr(layout)) for layout in EACH_KIND]


@pytest.mark.parametrize("layout", QUICK + ALL)
def test_a_grid_takes_a_handful_of_searches(client, layout):
    e = grid_edges(100, 100)
    g = dgraph.from_edgelist(e, directed=False, layout=layout)
    assert alg.diameter(g, method="ifub") == nx.diameter(nx_graph(e, False), usebounds=True) == 198
    # the centre of the grid: its deepest level alone decides; from the middle of one search
    # tree's path (a corner: parents the first in label order make the path an L) half the
    # grid's vertices were searched from
    assert g.last_stats.info["searches"] <= 10


@pytest.mark.slow
@pytest.mark.parametrize("layout", EACH_KIND, ids=repr)
def test_a_road_graph(client, layout):
    g = dgraph.datasets.load("rome99", directed=False, layout=layout)
    arcs = g.edges().compute()
    ids = {v: i for i, v in enumerate(sorted(set(arcs["src"])))}
    n = len(ids)
    a = sp.csr_array(([1] * len(arcs), (arcs["src"].map(ids), arcs["dst"].map(ids))), shape=(n, n))
    want = int(shortest_path(a, unweighted=True, directed=False).max())  # networkx's: 54
    assert alg.diameter(g, method="ifub") == want
    assert g.last_stats.info["searches"] < n // 4


@pytest.mark.parametrize("layout", QUICK + ALL)
def test_kronecker(client, layout):
    e = kron_edges(10, seed=2)
    G = nx_graph(e[e.src != e.dst], False)
    part = max(nx.connected_components(G), key=len)  # a connected graph
    e = e[e["src"].isin(part) & e["dst"].isin(part)]
    g = dgraph.from_edgelist(e, directed=False, self_loops="drop", layout=layout)
    assert alg.diameter(g, method="ifub") == nx.diameter(G.subgraph(part), usebounds=True)
    assert g.last_stats.info["searches"] < len(part) // 10
