"""Label propagation (LDBC CDLP semantics) against an exact reference."""

import pandas as pd
import pytest
from graphs import LAYOUTS, er_edges, grid_edges, kron_edges, ldbc_cdlp, nx_graph

import dgraph
from dgraph import kernels
from dgraph.algorithms import label_propagation


def test_two_way_neighbours_count_twice_and_isolated_vertices_keep_their_label(client):
    # 1 <-> 2 both ways, 3 -> 1 once, 4 -> 1 once: for vertex 1, label 2 counts twice and wins
    e = pd.DataFrame({"src": [1, 2, 3, 4], "dst": [2, 1, 1, 1]})
    g = dgraph.from_edgelist(e, directed=True, vertices=[1, 2, 3, 4, 9])
    got = label_propagation(g, max_iter=1).compute().set_index("vertex").label.to_dict()
    assert got == {1: 2, 2: 1, 3: 1, 4: 1, 9: 9}
    G = nx_graph(e, True, vertices=[1, 2, 3, 4, 9])
    assert got == ldbc_cdlp(G, 1)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["er-directed", "kronecker", "grid", "strings"])
def test_cdlp_matches_reference_on_every_layout(client, kind):
    if kind == "er-directed":
        e, directed = er_edges(200, 700, seed=12), True
    elif kind == "kronecker":
        e, directed = kron_edges(9, seed=6), False
    elif kind == "grid":
        e, directed = grid_edges(8, 9), False
    else:
        e = er_edges(150, 400, seed=13)
        e, directed = pd.DataFrame({"src": "v" + e.src.astype(str), "dst": "v" + e.dst.astype(str)}), True
    G = nx_graph(e, directed)
    ref = ldbc_cdlp(G, 6)
    for layout in LAYOUTS:
        g = dgraph.from_edgelist(e, directed=directed, layout=layout)
        got = label_propagation(g, max_iter=6).compute().set_index("vertex").label.to_dict()
        assert got == ref, layout


def test_cdlp_numpy_kernel_agrees(client):
    e = kron_edges(8, seed=3)
    g = dgraph.from_edgelist(e, directed=True, ranks=3)
    kernels.set_engine("numpy")
    try:
        a = label_propagation(g, max_iter=4).compute().sort_values("vertex").reset_index(drop=True)
    finally:
        kernels.set_engine("numba")
    b = label_propagation(g, max_iter=4).compute().sort_values("vertex").reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)


def test_cdlp_bad_input(client):
    g = dgraph.datasets.load("karate")
    with pytest.raises(dgraph.DgraphInputError, match="max_iter"):
        label_propagation(g, max_iter=-1)
    assert label_propagation(g, max_iter=0).compute().eval("vertex == label").all()
