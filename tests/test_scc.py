"""Strongly connected components against networkx."""

import networkx as nx
import pandas as pd
import pytest
from graphs import LAYOUTS, er_edges, grid_edges, kron_edges, nx_graph

import dgraph
from dgraph.algorithms import strongly_connected_components


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["er", "kronecker", "grid", "strings"])
def test_scc_matches_networkx_on_every_layout(client, kind):
    if kind == "er":
        e = er_edges(300, 450, seed=21)
    elif kind == "kronecker":
        e = kron_edges(9, seed=2, edge_factor=2)
    elif kind == "grid":  # arcs right and down, plus a few back arcs that close cycles
        e = pd.concat([grid_edges(8, 8), pd.DataFrame({"src": [27, 45, 60], "dst": [9, 18, 52]})])
    else:
        e = er_edges(150, 260, seed=22)
        e = pd.DataFrame({"src": "v" + e.src.astype(str), "dst": "v" + e.dst.astype(str)})
    G = nx_graph(e, True)
    expected = {v: min(c) for c in nx.strongly_connected_components(G) for v in c}
    assert len(set(expected.values())) > 1
    for layout in LAYOUTS:
        g = dgraph.from_edgelist(e, directed=True, layout=layout)
        got = strongly_connected_components(g).compute().set_index("vertex").component.to_dict()
        assert got == expected, layout


def test_scc_needs_directed(client):
    with pytest.raises(dgraph.DgraphInputError, match="directed"):
        strongly_connected_components(dgraph.datasets.load("karate"))


def test_connected_components_of_a_directed_graph_asks_which(client):
    from dgraph.algorithms import connected_components, weakly_connected_components

    e = pd.DataFrame({"src": [1, 2, 3, 3, 4], "dst": [2, 3, 1, 4, 5]})
    g = dgraph.from_edgelist(e)
    with pytest.raises(dgraph.DgraphInputError, match='connection="weak"'):
        connected_components(g)
    with pytest.raises(dgraph.DgraphInputError, match="must be"):
        connected_components(g, connection="both")
    strong = connected_components(g, connection="strong").compute().sort_values("vertex")
    assert strong.component.tolist() == [1, 1, 1, 4, 5]
    weak = connected_components(g, connection="weak").compute().sort_values("vertex")
    assert weak.component.tolist() == [1] * 5
    pd.testing.assert_frame_equal(weakly_connected_components(g).compute().sort_values("vertex"), weak)
