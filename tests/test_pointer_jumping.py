"""Pointer jumping against the roots found by walking the pointers."""

import numpy as np
import pandas as pd
import pytest

import dgraph
from dgraph.algorithms import pointer_jumping
from dgraph.partitioners import OneD, OnePointFiveD, TwoD


def _forest(n, seed):
    rng = np.random.default_rng(seed)
    parent = np.array([rng.integers(0, v) if v and rng.random() > 0.05 else v for v in range(n)])
    perm = rng.permutation(n)  # scatter the tree over the id space
    child, par = perm[np.arange(n)], perm[parent]
    keep = child != par
    return pd.DataFrame({"src": child[keep], "dst": par[keep]}), dict(zip(child.tolist(), par.tolist()))


def _roots(pointers):
    out = {}
    for v in pointers:
        u = v
        while pointers[u] != u:
            u = pointers[u]
        out[v] = u
    return out


@pytest.mark.parametrize(
    "layout",
    [
        OneD(ranks=1),
        OneD(ranks=3),
        OneD(ranks=8, balance="hashed"),
        TwoD(rows=2, cols=3),
        OnePointFiveD(rows=2, cols=2, e_threshold=3, h_threshold=2),
    ],
)
def test_roots_of_a_random_forest(client, layout):
    e, pointers = _forest(500, seed=3)
    g = dgraph.from_edgelist(e, vertices=list(pointers), layout=layout)
    got = pointer_jumping(g).compute().set_index("vertex").root.to_dict()
    assert got == _roots(pointers)
    assert g.last_stats.info["rounds"] <= 12


def test_a_long_path_takes_logarithmic_rounds(client):
    n = 1000
    e = pd.DataFrame({"src": np.arange(1, n), "dst": np.arange(n - 1)})
    g = dgraph.from_edgelist(e, ranks=4)
    assert (pointer_jumping(g).compute().root == 0).all()
    assert g.last_stats.info["rounds"] == 11  # ceil(log2 999) + 1


def test_cycles_and_two_parents_are_errors(client):
    for cycle in ([0, 1], [0, 1, 2]):
        e = pd.DataFrame({"src": cycle, "dst": cycle[1:] + cycle[:1]})
        with pytest.raises(dgraph.DgraphInputError, match="cycle"):
            pointer_jumping(dgraph.from_edgelist(e, ranks=2))
    with pytest.raises(dgraph.DgraphInputError, match="more than one out-arc"):
        pointer_jumping(dgraph.from_edgelist(pd.DataFrame({"src": [0, 0], "dst": [1, 2]})))
    with pytest.raises(dgraph.DgraphInputError, match="directed"):
        pointer_jumping(dgraph.from_edgelist(pd.DataFrame({"src": [0], "dst": [1]}), directed=False))
