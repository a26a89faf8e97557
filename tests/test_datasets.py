"""Every embedded dataset loads offline, with the counts its README gives and its ground truth."""

import pytest

import dgraph
from dgraph.errors import DgraphInputError

# name -> (vertices, edges as the graph counts them, directed, weight column, ground-truth groups)
EXPECTED = {
    "karate": (34, 78, False, None, None),
    "dolphins": (62, 159, False, None, None),
    "football": (115, 613, False, None, 12),
    "polbooks": (105, 441, False, None, 3),
    "polblogs": (1490, 19025, True, None, 2),  # 19,090 records, 19,025 distinct arcs
    "email-Eu-core": (1005, 25571, True, None, 42),
    "ca-GrQc": (5242, 14496, False, None, None),
    "facebook_combined": (4039, 88234, False, None, None),
    "wiki-Vote": (7115, 103689, True, None, None),
    "soc-Slashdot0902": (82168, 948464, True, None, None),
    "luxembourg_osm": (114599, 119666, False, None, None),
    "rome99": (3353, 8859, True, "weight", None),  # 8,870 arcs, 8,859 distinct ordered pairs
    "cal_road": (21048, 21693, False, "distance", None),
    "cora": (2708, 5429, True, None, None),
    "wikispeedia": (4604, 119882, True, None, None),  # 12 articles without links are vertices too
    "wb-cs-stanford": (9914, 36854, True, None, None),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_dataset_loads_with_its_published_counts(client, name):
    n, m, directed, weight, groups = EXPECTED[name]
    g = dgraph.datasets.load(name)
    assert (g.num_vertices, g.num_edges, g.directed, g.weight) == (n, m, directed, weight)
    if groups is None:
        assert g.ground_truth is None
    else:
        assert g.ground_truth.nunique() == groups and len(g.ground_truth) == n


def test_ground_truth_is_indexed_by_vertex_label_and_names_are_kept(client):
    g = dgraph.datasets.load("polbooks")
    assert set(g.ground_truth.unique()) == {"l", "n", "c"} and g.ground_truth.index.min() == 0
    w = dgraph.datasets.load("wikispeedia")
    bfs = dgraph.algorithms.bfs(w, "Zulu").compute()
    assert bfs.vertex.dtype.kind in "OU" or str(bfs.vertex.dtype).startswith("string")  # article names as labels
    assert dgraph.datasets.load("cora").directed


def test_unknown_dataset_lists_the_known_ones():
    with pytest.raises(DgraphInputError, match=r"unknown dataset 'nope'.*karate"):
        dgraph.datasets.load("nope")
