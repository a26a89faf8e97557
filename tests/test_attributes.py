"""Edge and vertex attributes: kept on the workers beside the blocks through every layout and
construction path, returned by ``edges()`` and ``vertices()`` in their own dtypes, any numeric
edge attribute weighing a call (against networkx), kept by subgraphs and ``to_networkx``, and
bad input named."""

import dask.dataframe as dd
import networkx as nx
import numpy as np
import pandas as pd
import pytest

import dgraph
from dgraph import algorithms as alg
from dgraph.block import BlockBuilder
from dgraph.errors import DgraphInputError
from dgraph.partitioners import OneD, OnePointFiveD, TwoD

SLOW = pytest.mark.slow  # the quick tier keeps 1.5D (subgraphs, classes); the whole suite runs every layout
LAYOUTS = [
    pytest.param(OneD(ranks=4, balance="striped"), id="1d", marks=SLOW),
    pytest.param(TwoD(rows=2, cols=2), id="2d", marks=SLOW),
    pytest.param(OnePointFiveD(rows=2, cols=2, e_threshold=12, h_threshold=5), id="1.5d"),
    pytest.param("tdorch", id="tdorch", marks=SLOW),
]
ATTRS = ["w", "t", "c", "label", "flag"]


def _edges(seed=3, n=40, m=150):
    """A simple graph (each unordered pair once, one self-loop) with a hub, string labels and
    attributes of several dtypes."""
    rng = np.random.default_rng(seed)
    src = np.r_[rng.integers(0, n, m), np.zeros(20, np.int64), 7]
    dst = np.r_[rng.integers(0, n, m), np.arange(1, 21), 7]
    keep = (src != dst) | (np.arange(src.size) == src.size - 1)
    src, dst = src[keep], dst[keep]
    pair = pd.DataFrame({"a": np.minimum(src, dst), "b": np.maximum(src, dst)})
    first = ~pair.duplicated().to_numpy()
    src, dst = src[first], dst[first]
    k = src.size
    return pd.DataFrame(
        {
            "src": [f"v{i:02d}" for i in src],
            "dst": [f"v{i:02d}" for i in dst],
            "w": rng.random(k),
            "t": rng.integers(1, 9, k),
            "c": rng.random(k) + 0.1,
            "label": [f"e{i}" for i in range(k)],
            "flag": rng.random(k) < 0.5,
        }
    )


def _people(edges):
    """A row for every vertex but v39, and one for "zz", a vertex without edges."""
    names = sorted((set(edges.src) | set(edges.dst) | {"zz"}) - {"v39"})
    return pd.DataFrame({"vertex": names, "age": np.arange(len(names)) * 3, "nick": [n.upper() for n in names]})


def _expected_arcs(edges, directed):
    if directed:
        return edges
    back = edges[edges.src != edges.dst].rename(columns={"src": "dst", "dst": "src"})
    return pd.concat([edges, back[edges.columns]], ignore_index=True)


def _by_arc(frame):
    return frame.sort_values(["src", "dst"]).reset_index(drop=True)


def _check_edges(g, edges, directed):
    got = g.edges().compute()
    assert list(got.columns) == ["src", "dst", *ATTRS] and g.edge_attrs == tuple(ATTRS)
    want = _expected_arcs(edges, directed)
    pd.testing.assert_frame_equal(_by_arc(got), _by_arc(want), check_dtype=False)
    for name in ("w", "t", "c", "flag"):
        assert got[name].dtype == edges[name].dtype, name


def _check_vertices(g, people):
    got = g.vertices().compute().sort_values("vertex").set_index("vertex")
    assert g.vertex_attrs == ("age", "nick") and str(got.age.dtype) == "Int64"  # v39 has no row
    assert pd.isna(got.loc["v39", "age"]) and pd.isna(got.loc["v39", "nick"])
    known = got.drop(index="v39")
    assert known.age.astype("int64").tolist() == people.sort_values("vertex").age.tolist()
    assert known.nick.tolist() == people.sort_values("vertex").nick.tolist()
    assert "zz" in got.index and g.num_vertices == len(people) + 1


def _nx_graph(edges, directed, people):
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(people.vertex)
    G.add_nodes_from(["v39"])
    G.add_edges_from((s, d, {"t": t, "c": c}) for s, d, t, c in zip(edges.src, edges.dst, edges.t, edges.c))
    return G


@pytest.mark.parametrize("layout", LAYOUTS)
def test_attributes_round_trip_and_weigh_calls_on_every_layout(client, layout):
    edges = _edges()
    people = _people(edges)
    for directed in (True, False):
        g = dgraph.from_edgelist(
            edges, weight="w", edge_attrs=ATTRS, vertices=people, directed=directed, layout=layout, ranks=4
        )
        _check_edges(g, edges, directed)
        _check_vertices(g, people)
        G = _nx_graph(edges, directed, people)
        want = nx.single_source_dijkstra_path_length(G, "v00", weight="t")
        got = alg.sssp(g, "v00", weight="t").compute().dropna(subset=["distance"])
        assert dict(zip(got.vertex, got.distance)) == pytest.approx(want)
        assert g.last_stats.info["edges_examined"] > 0  # the call's stats are the graph's
        ranks = alg.pagerank(g, weight="c", tol=1e-10, max_iter=500).compute()
        want = nx.pagerank(G, weight="c", tol=1e-12, max_iter=1000)
        assert dict(zip(ranks.vertex, ranks.pagerank)) == pytest.approx(want, abs=1e-8)
    assert alg.verify("sssp", g, alg.sssp(g, "v00", weight="t"), source="v00", weight="t") == []
    # the build-time weight is still the default
    default = alg.sssp(g, "v00").compute().dropna(subset=["distance"])
    G_w = nx.Graph()
    G_w.add_weighted_edges_from(zip(edges.src, edges.dst, edges.w))
    want = nx.single_source_dijkstra_path_length(G_w, "v00")
    assert dict(zip(default.vertex, default.distance)) == pytest.approx(want) and g.weight == "w"


@pytest.mark.slow  # a streamed build on two layouts
def test_streamed_from_dask_in_degree_order(client, streamed):
    """The streamed construction (counted, allocated, filled a part at a time) from dask frames,
    vertices reordered by degree (rows sorted by a key) and a layout of subgraphs."""
    edges = _edges(seed=5)
    people = _people(edges)
    for layout in (OneD(ranks=3), OnePointFiveD(rows=2, cols=2, e_threshold=12, h_threshold=5)):
        g = dgraph.from_edgelist(
            dd.from_pandas(edges, npartitions=3),
            weight="w",
            edge_attrs=True,
            vertices=dd.from_pandas(people.rename(columns={"vertex": "id"}), npartitions=2),
            vertex_column="id",
            directed=False,
            layout=layout,
            vertex_order="degree",
        )
        _check_edges(g, edges, False)
        _check_vertices(g, people)
        got = alg.sssp(g, "v03", weight="t").compute().dropna(subset=["distance"])
        want = nx.single_source_dijkstra_path_length(_nx_graph(edges, False, people), "v03", weight="t")
        assert dict(zip(got.vertex, got.distance)) == pytest.approx(want)


def test_vertex_attributes_of_integer_ids_placed_out_of_order(client):
    """Labels that are the ids 0..n-1 (with renumber=False too) on layouts that place vertices in
    another order: each rank's table is in placed order, its rows the right vertices'."""
    rng = np.random.default_rng(2)
    edges = pd.DataFrame({"src": rng.integers(0, 30, 90), "dst": rng.integers(0, 30, 90)})
    table = pd.DataFrame({"vertex": np.arange(32)[::-1], "x": rng.random(32), "ok": rng.random(32) < 0.5})
    for layout, renumber in ((TwoD(rows=2, cols=2), False), (OneD(ranks=3, balance="striped"), True)):
        g = dgraph.from_edgelist(edges, vertices=table, layout=layout, renumber=renumber)
        got = g.vertices().compute().sort_values("vertex").reset_index(drop=True)
        pd.testing.assert_frame_equal(got, table.sort_values("vertex").reset_index(drop=True))
    with pytest.raises(DgraphInputError, match="vertex id 40, outside 0..31"):
        dgraph.from_edgelist(edges, vertices=table.assign(vertex=np.r_[40, np.arange(31)]), renumber=False)


def test_duplicates_keep_the_lightest_arcs_attributes(client):
    edges = pd.DataFrame(
        {"src": [0, 0, 0, 1], "dst": [1, 1, 1, 2], "w": [3.0, 1.0, 2.0, 5.0], "tag": ["c", "a", "b", "d"]}
    )
    for layout in ("1d", "2d"):
        dropped = dgraph.from_edgelist(edges, weight="w", edge_attrs=["tag"], layout=layout, ranks=2)
        assert _by_arc(dropped.edges().compute()).tag.tolist() == ["a", "d"]
        kept = dgraph.from_edgelist(edges, weight="w", edge_attrs=["tag"], duplicates="keep", layout=layout, ranks=2)
        assert sorted(kept.edges().compute().tag) == ["a", "b", "c", "d"]


def test_every_weighted_algorithm_takes_an_attribute_at_call_time(client):
    edges = _edges(seed=7)
    g = dgraph.from_edgelist(edges, edge_attrs=["t", "c", "label"], directed=False, ranks=2)
    by_c = dgraph.from_edgelist(edges, weight="c", directed=False, ranks=2)
    assert g.weight is None and by_c.weight == "c"
    frames = {
        "pagerank": lambda h, w: alg.pagerank(h, weight=w),
        "personalized_pagerank": lambda h, w: alg.personalized_pagerank(
            h, pd.DataFrame({"query": [0], "seed": ["v00"]}), weight=w
        ),
        "max_weight_matching": lambda h, w: alg.max_weight_matching(h, weight=w),
        "louvain": lambda h, w: alg.louvain(h, weight=w, seed=1),
        "leiden": lambda h, w: alg.leiden(h, weight=w, seed=1),
        "shortest_paths": lambda h, w: alg.shortest_paths(h, ["v00"], weight=w),
    }
    for name, call in frames.items():
        got, want = call(g, "c").compute(), call(by_c, "c").compute()
        sort = [c for c in got.columns if c in ("vertex", "source", "target", "query")]
        pd.testing.assert_frame_equal(
            got.sort_values(sort).reset_index(drop=True), want.sort_values(sort).reset_index(drop=True), obj=name
        )
    halves = [set(edges.src) | set(edges.dst)]
    assert alg.modularity(g, halves, weight="c") == pytest.approx(alg.modularity(by_c, halves))
    # the weighed blocks are made once and kept
    assert g.store.weighed_by("c") is g.store.weighed_by("c")


def test_bad_attributes_are_named(client):
    edges = _edges()[["src", "dst", "w", "label", "flag"]]
    with pytest.raises(DgraphInputError, match="edge_attrs column 'nope' is not in the edge list"):
        dgraph.from_edgelist(edges, edge_attrs=["nope"])
    with pytest.raises(DgraphInputError, match="'src' would clash"):
        dgraph.from_edgelist(edges.rename(columns={"src": "a", "label": "src"}), "a", edge_attrs=["src"])
    g = dgraph.from_edgelist(edges, weight="w", edge_attrs=["label", "flag"])
    with pytest.raises(DgraphInputError, match=r"attribute 'label' has dtype .*numeric edge attributes are \['w'\]"):
        alg.sssp(g, "v00", weight="label")
    with pytest.raises(DgraphInputError, match=r"attribute 'flag' has dtype bool"):
        alg.pagerank(g, weight="flag")
    with pytest.raises(DgraphInputError, match=r"weight='x' is not an edge attribute .*are \['w'\]"):
        alg.pagerank(g, weight="x")
    people = pd.DataFrame({"vertex": ["v00", "v01", "v00"], "age": [1, 2, 3]})
    with pytest.raises(DgraphInputError, match="holds vertex 'v00' in more than one row"):
        dgraph.from_edgelist(edges, vertices=people)
    with pytest.raises(DgraphInputError, match="holds vertex 'v00' in more than one row"):
        dgraph.from_edgelist(edges, vertices=dd.from_pandas(people, npartitions=2))
    with pytest.raises(DgraphInputError, match="null vertex id"):
        dgraph.from_edgelist(edges, vertices=pd.DataFrame({"vertex": ["v00", None], "age": [1, 2]}))
    with pytest.raises(DgraphInputError, match="no column 'vertex'.*vertex_column="):
        dgraph.from_edgelist(edges, vertices=people.rename(columns={"vertex": "id"}))


def test_subgraphs_and_networkx_keep_attributes(client):
    edges = _edges()
    people = _people(edges)
    g = dgraph.from_edgelist(edges, weight="w", edge_attrs=ATTRS, vertices=people, directed=False, ranks=2)
    chosen = ["v00", "v01", "v02", "v03", "v39", "zz"]
    h = g.subgraph(chosen)
    assert h.edge_attrs == g.edge_attrs and h.vertex_attrs == g.vertex_attrs and h.weight == "w"
    arcs = g.edges().compute()
    inside = arcs[arcs.src.isin(chosen) & arcs.dst.isin(chosen)]
    pd.testing.assert_frame_equal(_by_arc(h.edges().compute()), _by_arc(inside), check_dtype=False)
    table = g.vertices().compute()
    got = h.vertices().compute().sort_values("vertex").reset_index(drop=True)
    want = table[table.vertex.isin(chosen)].sort_values("vertex").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want, check_dtype=False)

    pairs = [("v00", "v01"), ("v05", "v00"), ("v38", "v37")]
    e = g.edge_subgraph(pairs)
    kept = e.edges().compute()
    assert set(e.vertices().compute().vertex) == set(kept.src) | set(kept.dst)
    assert set(e.vertices().compute().columns) == {"vertex", "age", "nick"}
    for s, d, label in zip(kept.src, kept.dst, kept.label):
        assert label == arcs[(arcs.src == s) & (arcs.dst == d)].label.item()

    G = g.to_networkx()
    row = edges.iloc[4]
    assert G.edges[row.src, row.dst] == {name: row[name] for name in ATTRS}
    assert G.nodes["zz"] == {"age": int(people.set_index("vertex").age["zz"]), "nick": "ZZ"} and G.nodes["v39"] == {}


@pytest.mark.parametrize("dedup", [True, False])
@pytest.mark.parametrize("keyed", [True, False])
def test_block_columns_follow_their_arcs(dedup, keyed):
    """A block built with a per-arc column is the block built without one, and the column is
    each kept arc's own: through the fill, the sort by key and weight, and the dedup."""
    rng = np.random.default_rng(0)
    n, m = 30, 400
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    weights = rng.integers(0, 4, m).astype(np.float64)
    key = rng.permutation(n) if keyed else None
    ids = np.arange(m)
    pieces = [(rows[a:b], cols[a:b], weights[a:b], {"id": ids[a:b]}) for a, b in ((0, 150), (150, 400))]
    with_id = BlockBuilder(0, n, [("", 0, n, None)], (0, n)).build(pieces, "out", key, dedup, attrs=(("id", "int64"),))
    plain = BlockBuilder(0, n, [("", 0, n, None)], (0, n)).build([p[:3] for p in pieces], "out", key, dedup)
    assert np.array_equal(with_id.indptr, plain.indptr) and np.array_equal(with_id.columns(), plain.columns())
    assert np.array_equal(with_id.weights, plain.weights)
    kept = with_id.attrs["id"]
    assert np.array_equal(rows[kept], np.repeat(np.arange(n), with_id.degree()))
    assert np.array_equal(cols[kept], with_id.columns()) and np.array_equal(weights[kept], with_id.weights)


def test_cli_weighs_by_a_named_column(client, capsys, tmp_path):
    from dgraph.cli import main

    path = tmp_path / "roads.csv"
    path.write_text("a,b,km,minutes\n1,2,0.5,10\n2,3,0.25,10\n1,3,2.0,15\n")
    argv = ["run", "sssp", "--input", str(path), "--directed", "--source", "1", "--scheduler", client.scheduler.address]
    assert main([*argv, "--weight", "minutes", "--verify"]) == 0
    out = capsys.readouterr().out
    assert "weights 'minutes'" in out and "verified   valid" in out and "15" in out
