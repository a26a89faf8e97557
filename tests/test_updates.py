"""Updates: a changed graph answers as the graph built from its final edge list, on every layout.

Each layout takes a chain of the four updates (edges added, with new vertices, repeats lighter
and heavier than the graph's arcs and a self-loop; edges removed, some not there; vertices added;
vertices removed), directed and undirected, weighted with an edge attribute; the result's edges
and a sample of algorithms are compared with a graph built from the edge list the chain ends
with (pandas, here). Ties broken by id may differ where ids differ: an update's new vertices come
after the others, where a build sorts them in; the comparisons are of values that do not.
"""

import numpy as np
import pandas as pd
import pytest

import dgraph
from dgraph.algorithms import (
    bfs,
    connected_components,
    modularity,
    pagerank,
    sssp,
    triangle_count,
    verify,
)
from dgraph.errors import DgraphInputError
from dgraph.partitioners import OneD, OnePointFiveD, TDOrch, TwoD
from dgraph.updates import versions
from dgraph.updates.versions import UpdateStats

LAYOUTS = [
    OneD(ranks=3),
    OneD(ranks=2, balance="striped"),
    TwoD(rows=2, cols=2),
    OnePointFiveD(rows=2, cols=2, e_threshold=10, h_threshold=4),
    TDOrch(ranks=3, chunk=3),
]


@pytest.fixture(autouse=True)
def incremental(monkeypatch):
    """Updates stay incremental (the threshold's rebuild has a test of its own)."""
    monkeypatch.setattr(versions, "REPLAN_SHARE", 1e9)


def _edges(seed=5, n=30, m=90):
    rng = np.random.default_rng(seed)
    labels = 3 * np.arange(n)  # not 0..n-1: the labels have an index
    e = pd.DataFrame({"src": labels[rng.integers(0, n, m)], "dst": labels[rng.integers(0, n, m)]})
    e["src"] = np.where(rng.random(m) < 0.4, labels[rng.integers(0, 4, m)], e.src)  # a few hubs
    e["w"] = rng.permutation(m) + 1.0  # distinct weights: which repeat stays is never a tie
    e["t"] = rng.random(m)
    return e


def _change(base, directed):
    rng = np.random.default_rng(9)
    old = base.iloc[[0, 1, 2, 3]]
    added = pd.DataFrame(
        {
            "src": [1000, 5, 6, 6] + old.src.tolist() + [old.src.iloc[0]] + rng.choice(base.src, 6).tolist(),
            "dst": [5, 1003, 6, 0] + old.dst.tolist() + [old.dst.iloc[0]] + rng.choice(base.dst, 6).tolist(),
        }
    )
    added["w"] = (
        [1.5, 2.5, 3.5, 4.5]
        + (old.w - 0.25).tolist()[:2]
        + (old.w + 200).tolist()[2:]
        + [0.125]
        + list(500.0 + np.arange(6))
    )
    added["t"] = rng.random(len(added))
    named = base.iloc[[5, 6, 7]][["src", "dst"]]
    if not directed:  # an undirected edge named the other way round
        named.iloc[2] = named.iloc[2][::-1].to_numpy()
    # (0, 1): 1 is no label; 77777 neither; 1003 and 1000 are new vertices with no edge between them
    removed = pd.concat([named, pd.DataFrame({"src": [0, 77777, 1003], "dst": [1, 3, 1000]})], ignore_index=True)
    return added, removed, [3, 2000, 1003], [3 * 7, 1000, 424242]


def _final(base, added, removed, gone, directed):
    """The edge list and vertices the chain ends with (networkx's view of the same changes)."""
    e = pd.concat([base, added], ignore_index=True)
    names = set(zip(removed.src, removed.dst))
    if not directed:
        names |= {(b, a) for a, b in names}
    e = e[[(a, b) not in names for a, b in zip(e.src, e.dst)]]
    e = e[~e.src.isin(gone) & ~e.dst.isin(gone)]
    vertices = set(base.src) | set(base.dst) | set(added.src) | set(added.dst) | {3, 2000, 1003}
    return e.reset_index(drop=True), sorted(vertices - set(gone))


def _frame(df, key="vertex"):
    return df.compute().sort_values(key).reset_index(drop=True)


def _partition(cc):
    return sorted(sorted(group) for group in cc.groupby("component").vertex.apply(list))


def _sorted(edges):
    return edges.sort_values(list(edges.columns), ignore_index=True)


def _same_answers(g, h, directed):
    """Edges, vertices and a sample of algorithms' values agree on g and h."""
    cols = ["src", "dst", "w", "t"]
    ge, he = (x.edges().compute()[cols].sort_values(cols).reset_index(drop=True) for x in (g, h))
    pd.testing.assert_frame_equal(ge, he, check_dtype=False)
    assert sorted(g.vertices().compute().vertex) == sorted(h.vertices().compute().vertex)
    source = 6
    for algorithm in (bfs, sssp):
        a, b = _frame(algorithm(g, source)), _frame(algorithm(h, source))
        np.testing.assert_allclose(a.distance.to_numpy(float), b.distance.to_numpy(float))
        verify(algorithm.__name__, g, a, source=source)
    a, b = _frame(pagerank(g, tol=1e-12)), _frame(pagerank(h, tol=1e-12))
    np.testing.assert_allclose(a.pagerank, b.pagerank, atol=1e-9)
    kind = {"connection": "weak"} if directed else {}
    assert _partition(_frame(connected_components(g, **kind))) == _partition(_frame(connected_components(h, **kind)))
    if not directed:
        for algorithm in (triangle_count,):
            a, b = _frame(algorithm(g)), _frame(algorithm(h))
            pd.testing.assert_frame_equal(a, b, check_dtype=False)
        groups = {v: v % 4 for v in a.vertex}
        assert modularity(g, groups) == pytest.approx(modularity(h, groups))


SLOW = pytest.mark.slow
# the quick tier keeps the layouts with plans (1.5D, TD-Orch); the whole suite runs every one
CHAINS = [pytest.param(layout, False, marks=() if i >= 3 else SLOW) for i, layout in enumerate(LAYOUTS)] + [
    (LAYOUTS[3], True),  # 1.5D: subgraphs, in-blocks changed beside the blocks
    pytest.param(LAYOUTS[0], True, marks=SLOW),
    pytest.param(LAYOUTS[2], True, marks=SLOW),
    pytest.param(LAYOUTS[4], True, marks=SLOW),
]


@pytest.mark.parametrize("layout, directed", CHAINS, ids=lambda v: repr(v) if not isinstance(v, bool) else str(v))
def test_a_chain_of_updates_answers_as_a_rebuild(client, layout, directed):
    base = _edges()
    added, removed, new_vertices, gone = _change(base, directed)
    options = dict(weight="w", edge_attrs=["t"], directed=directed, layout=layout)
    g = dgraph.from_edgelist(base, **options)
    before = g.edges().compute()
    g1 = g.add_edges(added)
    assert g1.update_stats.vertices_added == 3 and g1.update_stats.repeated >= 1  # 1000, 5 and 1003
    g2 = g1.remove_edges(removed)
    assert g2.update_stats.missing == 3
    g3 = g2.add_vertices(new_vertices)  # 3 and 1003 are vertices already
    assert (g3.update_stats.vertices_added, g3.update_stats.missing) == (1, 2)
    g4 = g3.remove_vertices(gone)
    assert (g4.update_stats.vertices_removed, g4.update_stats.missing) == (2, 1)
    final, vertices = _final(base, added, removed, gone, directed)
    rebuilt = dgraph.from_edgelist(final, vertices=vertices, **options)
    _same_answers(g4, rebuilt, directed)
    # the original is unchanged, and every version stays usable
    # the same arcs; their rows may come in another order, for the blocks the versions share may
    # have moved between workers since
    pd.testing.assert_frame_equal(_sorted(g.edges().compute()), _sorted(before))
    assert g1.num_edges >= g.num_edges and g2.num_vertices == g1.num_vertices


def _karate_frame():
    g = dgraph.datasets.load("karate")
    e = g.edges().compute()
    return e[e.src < e.dst].reset_index(drop=True)


def test_components_carried_across_additions(client):
    e = _karate_frame()
    g = dgraph.from_edgelist(e[e.src % 5 != 0], directed=False, layout=TwoD(rows=1, cols=2))
    cc = connected_components(g)
    g2 = g.add_edges(pd.DataFrame({"src": [5, 10, 100, 101], "dst": [1, 15, 101, 102]}))
    g3 = g2.add_vertices([200, 3]).add_edges(e[e.src % 5 == 0].iloc[:3])
    for h in (g2, g3):
        carried = _frame(connected_components(h, previous=cc))
        assert carried.equals(_frame(connected_components(h)))  # the same labels, not only the same groups
    later = _frame(connected_components(g3, previous=connected_components(g2)))
    assert later.equals(_frame(connected_components(g3)))
    with pytest.raises(DgraphInputError, match="removal"):
        connected_components(g3.remove_edges([(1, 2)]), previous=cc)
    with pytest.raises(DgraphInputError, match="previous= has"):
        connected_components(g2, previous=_frame(connected_components(g2)).iloc[:5])


def test_pagerank_warm_start_converges_to_the_same_vector(client):
    g = dgraph.datasets.load("karate", ranks=2)
    pr = pagerank(g).compute()
    g2 = g.add_edges(pd.DataFrame({"src": [1, 12, 40], "dst": [34, 40, 41]}))
    cold, cold_iterations = _frame(pagerank(g2, tol=1e-10)), g2.last_stats.info["iterations"]
    warm = _frame(pagerank(g2, tol=1e-10, nstart=pr))
    assert g2.last_stats.info["iterations"] < cold_iterations
    np.testing.assert_allclose(warm.pagerank, cold.pagerank, atol=1e-8)
    with pytest.raises(DgraphInputError, match="nstart"):
        pagerank(g2, nstart={999: 1.0})


def test_vertex_attributes_and_policies_follow_updates(client, tmp_path):
    people = pd.DataFrame({"vertex": ["a", "b", "c"], "age": [30, 40, 50]})
    e = pd.DataFrame({"src": ["a", "b"], "dst": ["b", "c"], "w": [1.0, 2.0]})
    g = dgraph.from_edgelist(e, weight="w", vertices=people, self_loops="drop", directed=False, ranks=2)
    h = g.add_edges(pd.DataFrame({"src": ["c", "d", "d"], "dst": ["d", "d", "a"], "w": [1.0, 9.0, 3.0]}))
    assert h.update_stats.arcs_added == 4  # the loop dropped, as the build drops them
    h = h.add_vertices(pd.DataFrame({"vertex": ["e"], "age": [60]})).remove_vertices(["b"])
    got = h.vertices().compute().set_index("vertex").age
    assert (got["a"], got["c"], got["e"]) == (30, 50, 60) and pd.isna(got["d"]) and "b" not in got.index
    assert set(_frame(sssp(h, "a")).vertex) == {"a", "c", "d", "e"}
    h.save(tmp_path / "h")
    back = dgraph.load(tmp_path / "h")
    cols = ["src", "dst", "w"]
    pd.testing.assert_frame_equal(
        back.edges().compute()[cols].sort_values(cols, ignore_index=True),
        h.edges().compute()[cols].sort_values(cols, ignore_index=True),
    )
    assert back.add_edges(pd.DataFrame({"src": ["e"], "dst": ["e"], "w": [1.0]})).update_stats.arcs_added == 0
    with pytest.raises(DgraphInputError, match="lacks the graph's edge attributes"):
        g.add_edges(pd.DataFrame({"src": ["a"], "dst": ["c"]}))
    with pytest.raises(DgraphInputError, match="not vertex attributes"):
        g.add_vertices(pd.DataFrame({"vertex": ["z"], "height": [2]}))
    with pytest.raises(DgraphInputError, match="labels"):
        g.add_edges(pd.DataFrame({"src": [1], "dst": [2], "w": [1.0]}))


def test_past_the_share_an_update_rebuilds(client, monkeypatch):
    monkeypatch.setattr(versions, "REPLAN_SHARE", 0.25)
    g = dgraph.datasets.load("karate", ranks=2)
    small = g.add_edges(pd.DataFrame({"src": [1], "dst": [34]}))
    assert not small.update_stats.rebuilt and 0 < small.update_stats.changed_share < 0.25
    e = _karate_frame()
    big = small.remove_edges(e.iloc[:30])
    assert isinstance(big.update_stats, UpdateStats) and big.update_stats.rebuilt
    assert big.num_edges == 78 + 1 - 30 and big.update_stats.arcs_removed == 60
    again = dgraph.from_edgelist(big.edges().compute(), vertices=big.vertices().compute().vertex, directed=False)
    assert big.num_vertices == 34 and again.num_vertices == 34
    assert _partition(_frame(connected_components(big))) == _partition(_frame(connected_components(again)))
