"""Layouts: every algorithm gives the same answer on every layout and rank count, the partition
report predicts what the runtime counts, and bad meshes are named."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from graphs import er_edges, grid_edges, kron_edges

import dgraph
from dgraph import algorithms as alg
from dgraph.cli import main
from dgraph.partitioners import OneD, OnePointFiveD, TDOrch, TwoD
from dgraph.partitioners.twod import near_square

# ranks 1, 4 (2 x 2), 6 (2 x 3), 16 and 64, on 2 workers (64 in 1D only: 1.5D and 2D at 64
# ranks, whose supersteps are many and small, cost more suite time than they found)
LAYOUTS = [
    OneD(ranks=1),
    OneD(ranks=6),
    OneD(ranks=64),
    TwoD(rows=2, cols=3),
    TwoD(rows=4, cols=4),
    OnePointFiveD(rows=2, cols=2, e_threshold=20, h_threshold=6),
    OnePointFiveD(rows=2, cols=3, e_threshold=20, h_threshold=6),
    OnePointFiveD(rows=4, cols=4, e_threshold=12, h_threshold=4),
    # classes forced empty: no H; no E; no L (every vertex with an arc heavy)
    OnePointFiveD(rows=2, cols=3, e_threshold=10, h_threshold=10),
    OnePointFiveD(rows=2, cols=3, e_threshold=10**9, h_threshold=5),
    OnePointFiveD(rows=2, cols=3, e_threshold=10**9, h_threshold=1),
    # TD-Orch ingestion: a star (hot sources spread, the rest home); a tree of height 4 (F = 2)
    TDOrch(ranks=4, chunk=2),
    TDOrch(ranks=16, fanout=2, chunk=1),
    # by name with no rank count: these small graphs go on one rank of each kind
    "2d",
    "1.5d",
    "tdorch",
]
# each group is checked against OneD(ranks=1)'s answers (LAYOUTS[0], computed once per process):
# the quick tier runs one layout of each kind, the full suite the rest too, in groups that
# pytest-xdist can run side by side
LAYOUT_GROUPS = {
    "each-kind": [LAYOUTS[i] for i in (1, 3, 6, 11)],
    "many-ranks": [LAYOUTS[i] for i in (2, 4, 7, 12)],
    "classes-and-names": [LAYOUTS[i] for i in (5, 8, 9, 10, 13, 14, 15)],
}
assert sorted(map(repr, sum(LAYOUT_GROUPS.values(), LAYOUTS[:1]))) == sorted(map(repr, LAYOUTS))
REFERENCE = {}  # kind -> every algorithm's answers on LAYOUTS[0]
# the neighbourhood algorithms read 1D owner blocks whatever the layout: one layout of each
# kind shows those are rebuilt right, the edge-map algorithms run on all
NEIGHBOURHOOD_ON = {
    repr(x)
    for x in (
        OneD(ranks=1),
        OneD(ranks=64),
        TwoD(rows=2, cols=3),
        TwoD(rows=4, cols=4),
        OnePointFiveD(rows=2, cols=3, e_threshold=20, h_threshold=6),
        OnePointFiveD(rows=4, cols=4, e_threshold=12, h_threshold=4),
        TDOrch(ranks=16, fanout=2, chunk=1),
    )
}


def _all_algorithms(g, source):
    """Every algorithm's result, sorted by vertex."""
    out = {
        "bfs": alg.bfs(g, source),
        "sssp": alg.sssp(g, source, weight=g.weight),
        "pagerank": alg.pagerank(g, tol=0, max_iter=30),
        # hop counts, by levels: the copy ignores layouts
        "bc": alg.betweenness_centrality(g, k=3, seed=2, method="levels", weight=None),
    }
    if g.directed:
        out["scc"] = alg.strongly_connected_components(g)
    if repr(g.layout) in NEIGHBOURHOOD_ON:
        out.update(
            wcc=alg.connected_components(g, connection="weak"),
            cdlp=alg.label_propagation(g, max_iter=5),
            lcc=alg.local_clustering_coefficient(g),
        )
        if not g.directed:
            out.update(
                triangles=alg.triangle_count(g),
                core=alg.core_number(g),
                mwm=alg.max_weight_matching(g, weight=g.weight),
            )
    return {k: v.compute().sort_values("vertex").reset_index(drop=True) for k, v in out.items()}


def _case(kind):
    if kind == "kronecker":
        e = kron_edges(8, seed=7)
        return e[e.src != e.dst], False, None
    if kind == "erdos-renyi-directed":
        e = er_edges(200, 700, seed=8)
        return e[e.src != e.dst], True, None
    e = grid_edges(8, 20)
    e["w"] = (e.src * 7 + e.dst * 3) % 5 + 1.0
    return e, False, "w"


@pytest.mark.parametrize(
    "group", [pytest.param(name, marks=[pytest.mark.slow] if name != "each-kind" else []) for name in LAYOUT_GROUPS]
)
# the skewed graph's blocks streamed on each kind of layout are in the whole suite
@pytest.mark.parametrize(
    "kind", [pytest.param("kronecker", marks=pytest.mark.slow), "erdos-renyi-directed", "grid-weighted"]
)
def test_every_algorithm_agrees_on_every_layout(client, request, kind, group):
    if kind == "kronecker":  # blocks streamed, owner blocks too; else built at once from the client
        request.getfixturevalue("streamed")
    edges, directed, weight = _case(kind)
    source = int(edges.src.iloc[0])
    if kind not in REFERENCE:
        g = dgraph.from_edgelist(edges, directed=directed, weight=weight, layout=LAYOUTS[0])
        REFERENCE[kind] = _all_algorithms(g, source)
    first = REFERENCE[kind]
    for layout in LAYOUT_GROUPS[group]:
        g = dgraph.from_edgelist(edges, directed=directed, weight=weight, layout=layout)
        assert g.nranks == 1 or not isinstance(layout, str)
        got = _all_algorithms(g, source)
        for name, frame in got.items():
            if name not in first:
                continue
            floats = [c for c in frame.columns if frame[c].dtype.kind == "f" or str(frame[c].dtype) == "Float64"]
            ints = [c for c in frame.columns if c not in floats]
            pd.testing.assert_frame_equal(frame[ints], first[name][ints], obj=f"{name} on {layout!r}")
            for c in floats:  # float sums may associate differently across layouts
                np.testing.assert_allclose(
                    frame[c].astype(float),
                    first[name][c].astype(float),
                    rtol=1e-9,
                    atol=1e-15,
                    err_msg=f"{name}.{c} on {layout!r}",
                )


@pytest.mark.slow
@pytest.mark.parametrize(
    "layout",
    [
        OneD(ranks=4),
        OneD(ranks=5, balance="hashed"),
        TwoD(rows=2, cols=3),
        TwoD(rows=4, cols=4),
        TwoD(rows=3, cols=2),
        OnePointFiveD(rows=4, cols=4),
        OnePointFiveD(rows=2, cols=3, e_threshold=50, h_threshold=12),
        TDOrch(ranks=4, chunk=2),
        TDOrch(ranks=16, fanout=2, chunk=1),
    ],
    ids=repr,
)
def test_report_predicts_the_counted_dense_superstep(client, layout):
    g = dgraph.from_edgelist(kron_edges(11, seed=3), directed=False, layout=layout)
    rep = g.layout_report(measure=True)
    assert rep.arcs.sum() == g.num_arcs
    assert rep.owned.sum() == g.num_vertices
    assert (rep.dense_messages == rep.measured_messages).all()
    assert (rep.dense_bytes == rep.measured_bytes).all()
    s = rep.attrs["summary"]
    if isinstance(layout, TwoD):  # a mesh row and a mesh column: R + C - 2 peers per dense superstep
        assert s["dense_messages_per_rank_max"] == layout.rows + layout.cols - 2
        assert s["sparse_peers_per_rank_max"] == layout.rows + layout.cols - 2
    assert s["arcs_max_over_mean"] >= 1 and s["owned_max_over_mean"] >= 1


@pytest.mark.slow
def test_one_point_five_d_degenerates_to_1d_and_2d(client):
    """No heavy vertex: every arc at its source's owner, as in 1D. No H:
    1D with E delegated everywhere. No L (every vertex with an arc heavy, none E): all arcs in
    EH2EH at their 2D mesh positions."""
    edges = kron_edges(10, seed=9)
    edges = edges[edges.src != edges.dst]

    def report(layout):
        return dgraph.from_edgelist(edges, directed=False, layout=layout).layout_report(measure=True)

    none = report(OnePointFiveD(rows=2, cols=3, e_threshold=10**9, h_threshold=10**9))
    assert (none.arcs == none.arcs_L2L).all()  # 1D: every arc at its source's owner
    assert none.attrs["summary"]["dense_messages_per_rank_max"] <= 6 - 1
    no_h = report(OnePointFiveD(rows=2, cols=3, e_threshold=30, h_threshold=30))
    assert no_h.arcs_H2L.sum() == no_h.arcs_L2H.sum() == 0 and no_h.arcs_E2L.sum() > 0
    no_l = report(OnePointFiveD(rows=2, cols=3, e_threshold=10**9, h_threshold=1))
    assert (no_l.arcs == no_l.arcs_EH2EH).all()
    # the row gather and column reduction of 2D, plus the column gather H always gets (for H2L)
    assert no_l.attrs["summary"]["dense_messages_per_rank_max"] == (3 - 1) + 2 * (2 - 1)
    for rep in (none, no_h, no_l):
        assert (rep.dense_bytes == rep.measured_bytes).all()


@pytest.mark.slow
@pytest.mark.parametrize("placed", ["streamed", "from the client"])
@pytest.mark.parametrize("directed", [False, True])
def test_degrees_on_every_layout_come_from_its_own_blocks(client, request, directed, placed):
    """Degrees equal networkx's on every layout, read off the layout's blocks: no 1D owner blocks
    are built for them. Blocks streamed keep self-loops and repeated edges; blocks built at once
    from a small pandas edge list (whose whole degrees the client counts) drop the repeats."""
    if placed == "streamed":
        request.getfixturevalue("streamed")
    edges = kron_edges(8, seed=3)  # self-loops and repeats
    duplicates = "keep" if placed == "streamed" else "drop"
    kind = {(False, "keep"): nx.MultiGraph, (True, "keep"): nx.MultiDiGraph, (False, "drop"): nx.Graph}
    G = kind.get((directed, duplicates), nx.DiGraph)(list(zip(edges.src, edges.dst)))
    for layout in [OneD(ranks=3), TwoD(rows=2, cols=2), LAYOUTS[5], LAYOUTS[10], TDOrch(ranks=4, chunk=2)]:
        g = dgraph.from_edgelist(edges, directed=directed, layout=layout, duplicates=duplicates, self_loops="keep")
        got = g.degrees().compute().set_index("vertex").sort_index()
        if directed:
            assert got.in_degree.to_dict() == dict(G.in_degree()), layout
            assert got.out_degree.to_dict() == dict(G.out_degree()), layout
        else:
            assert got.degree.to_dict() == dict(G.degree()), layout
        assert not g.store.owned, f"{layout!r} built owner blocks for its degrees"


def test_one_point_five_d_classes_and_thresholds(client):
    g = dgraph.generators.kronecker_graph(12, layout=OnePointFiveD(rows=2, cols=2))
    x = g.store.extra.result()
    e, h, heavy, ne, classes = x["e_threshold"], x["h_threshold"], x["heavy"], x["n_extreme"], x["classes"]
    assert e >= 2 * 4 and 2 + 2 <= h <= e  # automatic: above the rank count / the row-and-column peers
    assert 0 < ne < heavy.size < g.num_vertices // 4  # all three classes present, heavy ones a small tail
    assert (
        (classes[heavy[:ne]] == 2).all()
        and (classes[heavy[ne:]] == 1).all()
        and np.count_nonzero(classes) == heavy.size
    )
    degree = g.degrees().compute().set_index("vertex")["degree"]
    order = g.store.order.result()
    assert degree.loc[order[heavy]].min() > degree.median()  # heavy really means high degree
    summary = g.layout_report().attrs["summary"]
    assert (summary["e_threshold"], summary["h_threshold"]) == (e, h)
    assert (summary["vertices_E"], summary["vertices_H"]) == (ne, heavy.size - ne)
    given = dgraph.generators.kronecker_graph(10, layout=OnePointFiveD(rows=2, cols=2, e_threshold=40, h_threshold=9))
    assert (given.store.extra.result()["e_threshold"], given.store.extra.result()["h_threshold"]) == (40, 9)
    with pytest.raises(dgraph.DgraphInputError, match="h_threshold=9 is above e_threshold=5"):
        OnePointFiveD(e_threshold=5, h_threshold=9)


def test_tdorch_places_light_sources_home_and_spreads_hot_ones(client):
    """TD-Orch's rule on expected gathering: a source stays at the first tree level where more
    than C of its arcs gather; level 0 (hot) arcs spread evenly over every rank."""
    degree = np.arange(100)
    order, bounds, x = TDOrch(ranks=8, fanout=2, chunk=3).plan(degree)
    assert order is None and (x["fanout"], x["chunk"], x["height"]) == (2, 3, 3)
    levels = x["levels"]
    for lv in range(4):
        assert (degree[levels == lv] * min(2**lv, 8) / 8 > 3).all() or lv == 3  # more than C gather at its level
        if lv:  # but not one level lower
            assert (degree[levels == lv] * 2 ** (lv - 1) / 8 <= 3).all()
    assert (x["classes"][levels == 0] == 2).all() and (x["classes"][levels == 3] == 0).all()
    assert x["heavy"].tolist() == sorted(np.flatnonzero(levels < 3), key=lambda v: (levels[v], v))

    edges = kron_edges(11, seed=4)
    g = dgraph.from_edgelist(edges, directed=False, layout=TDOrch(ranks=8, fanout=2, chunk=3))
    rep = g.layout_report(measure=True)
    s = rep.attrs["summary"]
    assert s["arcs_SPREAD_max_over_mean"] < 1.1 and (rep.dense_bytes == rep.measured_bytes).all()
    assert sum(s[f"vertices_level_{lv}"] for lv in range(4)) == g.num_vertices
    spread = alg.pagerank(g, tol=0, max_iter=5).compute().sort_values("vertex")
    home = alg.pagerank(dgraph.from_edgelist(edges, directed=False, layout="1d", ranks=8), tol=0, max_iter=5)
    np.testing.assert_allclose(spread.pagerank, home.compute().sort_values("vertex").pagerank, rtol=1e-12)
    assert repr(dgraph.from_edgelist(edges, directed=False, layout="tdorch", ranks=4).layout).startswith(
        "TDOrch(ranks=4, fanout="
    )


@pytest.mark.parametrize(
    "layout", [OnePointFiveD(rows=2, cols=3), OnePointFiveD(rows=4, cols=4, e_threshold=40, h_threshold=6)], ids=repr
)
def test_sub_iteration_bfs_on_1_5d_gives_bfs_distances_and_a_valid_tree(client, layout):
    edges = kron_edges(11, seed=5)
    g = dgraph.from_edgelist(edges, directed=False, layout=layout)
    source = int(edges.src.iloc[0])
    plain = alg.bfs(g, source).compute().sort_values("vertex").reset_index(drop=True)
    plain_examined = g.last_stats.info["edges_examined"]
    sub = alg.bfs(g, source, sub_iterations=True).compute().sort_values("vertex").reset_index(drop=True)
    info = g.last_stats.info
    pd.testing.assert_series_equal(sub.distance, plain.distance)
    assert alg.verify("bfs", g, sub, source=source) == []
    assert 0 < info["edges_examined"] and plain_examined > 0
    assert {m.split(":")[0] for m in info["sub_iterations"]} <= {"EH2EH", "E2L", "H2L", "L2E", "L2H", "L2L"}
    assert any(m.endswith(":pull") for m in info["sub_iterations"]) and any(
        m.endswith(":push") for m in info["sub_iterations"]
    )
    with pytest.raises(dgraph.DgraphInputError, match="sub_iterations=True needs a layout with subgraphs"):
        alg.bfs(dgraph.from_edgelist(edges, directed=False, layout="2d"), source, sub_iterations=True)


@pytest.mark.parametrize("n, ranks", [(0, 1), (1, 3), (17, 3), (100, 8)])
def test_oned_placements_deal_vertices_in_id_order_as_int32(n, ranks):
    # striped deals vertex v to rank v % ranks without a sort; both keep each rank's ids in order
    degree = np.zeros(n, np.int64)
    for balance, owner in (("striped", np.arange(n) % ranks), ("hashed", None)):
        order, bounds = OneD(ranks, balance).plan(degree)
        assert order.dtype == np.int32 and sorted(order.tolist()) == list(range(n))
        assert bounds[0] == 0 and bounds[-1] == n and np.all(np.diff(bounds) >= 0)
        for r in range(ranks):
            mine = order[bounds[r] : bounds[r + 1]]
            assert np.all(np.diff(mine) > 0)
            if owner is not None:
                assert np.array_equal(mine, np.flatnonzero(owner == r))


def test_near_square_meshes():
    assert [near_square(P) for P in (1, 2, 4, 6, 7, 12, 16, 64)] == [
        (1, 1),
        (1, 2),
        (2, 2),
        (2, 3),
        (1, 7),
        (3, 4),
        (4, 4),
        (8, 8),
    ]
    assert repr(TwoD(ranks=6)) == "TwoD(rows=2, cols=3)"


def test_a_mesh_that_does_not_factor_the_ranks_says_which_would(client):
    with pytest.raises(
        dgraph.DgraphInputError, match=r"2 x 3 mesh has 6 ranks, not 8; meshes for 8 ranks: 1 x 8, 2 x 4, 4 x 2, 8 x 1"
    ):
        TwoD(rows=2, cols=3, ranks=8)
    with pytest.raises(dgraph.DgraphInputError, match=r"meshes for 8 ranks: 1 x 8, 2 x 4"):
        dgraph.from_edgelist(kron_edges(5, seed=1), layout=TwoD(rows=2, cols=3), ranks=8)
    with pytest.raises(dgraph.DgraphInputError, match="give both rows and cols"):
        TwoD(rows=2)
    with pytest.raises(dgraph.DgraphInputError, match="unknown layout '3d'"):
        dgraph.from_edgelist(kron_edges(5, seed=1), layout="3d")


def test_partition_command_prints_the_report(client, capsys):
    addr = client.scheduler.address
    assert (
        main(["partition", "--kronecker", "9", "--layout", "2d", "--ranks", "6", "--measure", "--scheduler", addr]) == 0
    )
    out = capsys.readouterr().out
    assert "TwoD(rows=2, cols=3)" in out and "measured_bytes" in out and "dense_messages_per_rank_max    3" in out
