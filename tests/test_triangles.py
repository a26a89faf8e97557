"""Triangles and LCC against networkx (undirected) and an LDBC reference (directed)."""

import networkx as nx
import pandas as pd
import pytest
from graphs import LAYOUTS, er_edges, grid_edges, kron_edges, ldbc_lcc, nx_graph

import dgraph
from dgraph import kernels
from dgraph.algorithms import local_clustering_coefficient, total_triangles, triangle_count


@pytest.mark.slow
@pytest.mark.parametrize("method", ["auto", "by degree", "by id"])
@pytest.mark.parametrize("kind", ["kronecker", "er", "grid"])
def test_undirected_matches_networkx(client, kind, method, monkeypatch):
    from dgraph.algorithms import triangles

    # auto orients the Kronecker graph (hubs) by degree and the others by id; force each way too
    monkeypatch.setattr(
        triangles, "ORIENT_ABOVE", {"auto": triangles.ORIENT_ABOVE, "by degree": -1, "by id": 10**9}[method]
    )
    e = {
        "kronecker": lambda: kron_edges(8, seed=5),
        "er": lambda: er_edges(150, 900, seed=2),
        "grid": lambda: grid_edges(6, 7),
    }[kind]()
    G = nx_graph(e, False)
    ref_c, ref_t = nx.clustering(G), nx.triangles(G)
    for layout in LAYOUTS if method == "auto" else LAYOUTS[1::4]:
        g = dgraph.from_edgelist(e, directed=False, layout=layout)
        c = local_clustering_coefficient(g).compute().set_index("vertex").lcc
        assert max(abs(c[v] - x) for v, x in ref_c.items()) < 1e-12
        t = triangle_count(g).compute().set_index("vertex").triangles
        assert t.to_dict() == ref_t
    assert total_triangles(g) == sum(ref_t.values()) // 3


@pytest.mark.parametrize("orient_above", [-1, 10**9], ids=["by degree", "by id"])
def test_ghost_rows_fetched_in_batches_count_the_same(client, monkeypatch, orient_above):
    from dgraph.algorithms import triangles

    monkeypatch.setattr(triangles, "ORIENT_ABOVE", orient_above)
    monkeypatch.setattr(triangles, "ROW_BATCH_ARCS", 40)  # dozens of batches per rank
    e = kron_edges(8, seed=6)
    ref_t = nx.triangles(nx_graph(e, False))
    g = dgraph.from_edgelist(e, directed=False, layout=LAYOUTS[2])
    assert triangle_count(g).compute().set_index("vertex").triangles.to_dict() == ref_t
    d = dgraph.from_edgelist(e, directed=True, layout=LAYOUTS[2])
    ref_lcc = ldbc_lcc(nx_graph(e, True))
    lcc = local_clustering_coefficient(d).compute().set_index("vertex").lcc
    assert max(abs(lcc[v] - x) for v, x in ref_lcc.items()) < 1e-12


def test_directed_lcc_follows_ldbc(client):
    # v=0 has neighbours {1, 2} (1 out, 2 in); arcs 1->2 and 2->1 among them: LCC = 2 / 2 = 1
    e = pd.DataFrame({"src": [0, 2, 1, 2, 3], "dst": [1, 0, 2, 1, 3]})
    g = dgraph.from_edgelist(e, directed=True, ranks=2)
    got = local_clustering_coefficient(g).compute().set_index("vertex").lcc.to_dict()
    assert got == ldbc_lcc(nx_graph(e, True)) and got[0] == 1.0 and got[3] == 0.0
    e = er_edges(120, 700, seed=9)
    G = nx_graph(e, True)
    ref = ldbc_lcc(G)
    for layout in LAYOUTS:
        g = dgraph.from_edgelist(e, directed=True, layout=layout)
        got = local_clustering_coefficient(g).compute().set_index("vertex").lcc
        assert max(abs(got[v] - x) for v, x in ref.items()) < 1e-12


def test_numpy_kernels_agree(client):
    e = kron_edges(8, seed=7)
    for directed in (False, True):
        g = dgraph.from_edgelist(e, directed=directed, ranks=3)
        kernels.set_engine("numpy")
        try:
            a = local_clustering_coefficient(g).compute().sort_values("vertex").reset_index(drop=True)
        finally:
            kernels.set_engine("numba")
        b = local_clustering_coefficient(g).compute().sort_values("vertex").reset_index(drop=True)
        pd.testing.assert_frame_equal(a, b)


def test_triangle_count_needs_undirected(client):
    g = dgraph.from_edgelist(pd.DataFrame({"src": [0], "dst": [1]}), directed=True)
    with pytest.raises(dgraph.DgraphInputError, match="undirected"):
        triangle_count(g)
