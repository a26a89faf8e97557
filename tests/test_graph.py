"""Graph construction, renumbering, policies, readers and bad input."""

import gzip

import dask.dataframe as dd
import networkx as nx
import numpy as np
import pandas as pd
import pytest
from conftest import dataset
from graphs import kron_edges, nx_graph

import dgraph
from dgraph.algorithms import bfs, connected_components
from dgraph.cluster import workers
from dgraph.generators import erdos_renyi, grid_2d, kronecker
from dgraph.partitioners import OneD, OnePointFiveD, TDOrch, TwoD


def test_from_dask_frame_counts_and_degrees(client):
    edges = pd.DataFrame({"src": [0, 0, 1, 2, 2, 3, 3], "dst": [1, 1, 2, 0, 2, 4, 0]})  # a repeat and a loop
    ddf = dd.from_pandas(edges, npartitions=3)
    g = dgraph.from_edgelist(ddf, directed=False, ranks=3)
    G = nx_graph(edges, False)
    assert (g.num_vertices, g.num_edges) == (G.number_of_nodes(), G.number_of_edges())
    deg = g.degrees().compute().set_index("vertex").degree
    assert deg.to_dict() == dict(G.degree())
    d = dgraph.from_edgelist(ddf, directed=True, ranks=2)
    D = nx_graph(edges, True)
    assert d.num_edges == D.number_of_edges()
    dd_ = d.degrees().compute().set_index("vertex")
    assert dd_.in_degree.to_dict() == dict(D.in_degree()) and dd_.out_degree.to_dict() == dict(D.out_degree())


def test_policies(client):
    edges = pd.DataFrame({"src": [0, 0, 1, 1], "dst": [1, 1, 1, 2]})
    assert dgraph.from_edgelist(edges).num_edges == 3
    assert dgraph.from_edgelist(edges, duplicates="keep").num_edges == 4
    assert dgraph.from_edgelist(edges, self_loops="drop").num_edges == 2
    und = dgraph.from_edgelist(edges, directed=False, self_loops="keep")
    assert und.num_edges == 3 and und.num_arcs == 5  # the loop is stored once
    weighted = pd.DataFrame({"a": ["x", "x"], "b": ["y", "y"], "w": [3.0, 1.0]})
    e = dgraph.from_edgelist(weighted, source="a", destination="b", weight="w").edges().compute()
    assert e.w.tolist() == [1.0]  # repeats keep the smallest weight; the column keeps its name


def test_small_graphs_go_on_one_rank_unless_ranks_are_given(client, monkeypatch):
    from dgraph.partitioners import OneD

    edges = pd.DataFrame({"src": [0, 1, 2, 3], "dst": [1, 2, 3, 0]})
    w = len(workers(client))
    assert w > 1
    assert dgraph.from_edgelist(edges).nranks == 1
    assert dgraph.from_edgelist(edges, layout=OneD()).nranks == 1
    assert dgraph.from_edgelist(edges, ranks=3).nranks == 3
    assert dgraph.from_edgelist(edges, layout=OneD(ranks=4)).nranks == 4
    monkeypatch.setattr(dgraph.build, "ONE_RANK_ARCS", 4)  # 4 arcs is no longer small
    g = dgraph.from_edgelist(edges)
    assert g.nranks == w
    assert bfs(g, 0).compute().sort_values("vertex").distance.tolist() == [0, 1, 2, 3]


def test_a_graph_on_one_rank_counts_on_the_idle_workers_threads(client):
    # Kronecker scale 13: ~100 K edges, enough arcs for a second thread in the counting kernels
    # (COUNT_GRAIN each); PageRank's SpMV stays serial at this size
    from graphs import kron_edges

    from dgraph.algorithms import label_propagation, local_clustering_coefficient, pagerank

    edges = kron_edges(13, seed=3, edge_factor=16).query("src != dst")
    one, two = dgraph.from_edgelist(edges, directed=False), dgraph.from_edgelist(edges, directed=False, ranks=2)
    assert (one.nranks, two.nranks) == (1, 2)
    runs = {}
    for g in (one, two):
        runs[g.nranks] = [
            (f(g).compute().sort_values("vertex").reset_index(drop=True), g.last_stats.threads)
            for f in (label_propagation, local_clustering_coefficient, pagerank)
        ]
    if runs[1][0][1] == 1:
        pytest.skip("numba has no thread-safe threading layer (omp or tbb) on the workers")
    assert [t for _, t in runs[1]] == [2, 2, 2] and [t for _, t in runs[2]] == [1, 1, 1]
    for (a, _), (b, _) in zip(runs[1][:2], runs[2][:2]):
        pd.testing.assert_frame_equal(a, b)  # labels and clustering: identical
    np.testing.assert_allclose(runs[1][2][0].pagerank, runs[2][2][0].pagerank, rtol=1e-9)


def test_labels_strings_bigints_isolated(client):
    big = 2**63 - 5
    edges = pd.DataFrame({"src": [big, 2**33, 7], "dst": [2**33, 7, big]})
    g = dgraph.from_edgelist(edges, vertices=[big, 2**33, 7, 12345], directed=False)
    assert g.num_vertices == 4
    cc = connected_components(g, connection="weak").compute().set_index("vertex").component
    assert cc.loc[12345] == 12345 and cc.loc[big] == 7
    s = pd.DataFrame({"src": ["é", "b"], "dst": ["b", "c"]})
    gs = dgraph.from_edgelist(s, vertices=pd.Series(["é", "b", "c", "lonely"]))
    r = bfs(gs, "é").compute().set_index("vertex")
    assert r.distance.loc["c"] == 2 and r.predecessor.loc["c"] == "b" and pd.isna(r.distance.loc["lonely"])
    assert sorted(gs.to_networkx().nodes()) == sorted(["é", "b", "c", "lonely"])


@pytest.mark.parametrize("shift, spread", [(-5, 1), (2**40, 1), (0, 2**33)])
def test_integer_labels_encode_alike_by_table_and_by_hash(client, streamed, shift, spread):
    """Integer labels of a dask edge list are looked up in a table when they span a range not
    much wider than their count (negative or far from 0 too) and hashed otherwise: the same
    graph either way."""
    from dgraph.labels import DenseCodes

    rng = np.random.default_rng(3)
    ids = rng.integers(0, 300, (2, 900))
    labels = ids * spread + shift
    edges = pd.DataFrame({"src": labels[0], "dst": labels[1]})
    assert DenseCodes.fits(pd.Index(np.unique(labels))) == (spread == 1)
    g = dgraph.from_edgelist(edges, directed=False)
    got = g.edges().compute()
    expected = {tuple(sorted(p)) for p in labels.T.tolist()}
    assert {tuple(sorted(p)) for p in got[["src", "dst"]].itertuples(index=False)} == expected
    assert g.num_vertices == np.unique(labels).size


def _inline_bytes(limit):
    from dgraph.runtime import driver

    old, driver.INLINE_BYTES = driver.INLINE_BYTES, limit
    return old


def test_results_come_back_with_the_run_or_from_the_workers_never_through_the_scheduler(client):
    import functools

    g = dgraph.from_edgelist(pd.DataFrame({"src": [0, 1, 2, 3], "dst": [1, 2, 3, 0]}), directed=False, ranks=2)
    bfs(g, 0)  # the first run asks where the blocks are; later ones remember
    scheduler = client.cluster.scheduler
    calls = {op: [] for op in ("gather", "who_has")}
    handlers = {op: scheduler.handlers[op] for op in calls}

    def counted(op):
        @functools.wraps(handlers[op])
        def handler(*args, **kwargs):  # the scheduler's own handler, counted
            calls[op].append(kwargs.get("keys"))
            return handlers[op](*args, **kwargs)

        return handler

    scheduler.handlers.update({op: counted(op) for op in calls})
    try:
        frame = bfs(g, 0)
        got = frame.compute().sort_values("vertex")
        assert got.distance.tolist() == [0, 1, 2, 1]
        assert calls == {"gather": [], "who_has": []}  # small: the run brought the frame back
        got["distance"] = -1  # the caller's copy
        assert frame.compute().sort_values("vertex").distance.tolist() == [0, 1, 2, 1]
        old = client.run(_inline_bytes, 0)
        try:
            assert bfs(g, 0).compute().sort_values("vertex").distance.tolist() == [0, 1, 2, 1]
        finally:
            client.run(_inline_bytes, next(iter(old.values())))
        assert calls == {"gather": [], "who_has": []}  # fetched from the workers that stored it
    finally:
        scheduler.handlers.update(handlers)


def test_a_reordered_graphs_vertex_params_are_asked_of_the_table_worker_not_run_as_tasks(client, monkeypatch):
    import functools

    from dgraph.runtime.launch import client_state, lookup_held

    edges = kron_edges(8, seed=3)
    G = nx_graph(edges, False)
    g = dgraph.from_edgelist(edges, directed=False, vertex_order="degree", ranks=2)
    sources = sorted(G.nodes())[:4]
    bfs(g, sources[0])  # the first call makes the table of placed ids (a task); later ones read it
    scheduler = client.cluster.scheduler
    own = scheduler.stream_handlers["update-graph"]
    submitted = []

    @functools.wraps(own)
    async def counted(*args, **kwargs):  # the scheduler's own (coroutine) handler, counted
        submitted.append(1)
        return await own(*args, **kwargs)

    scheduler.stream_handlers["update-graph"] = counted
    try:
        for v in sources:
            got = bfs(g, v).compute().set_index("vertex").distance.dropna()
            assert {int(u): int(d) for u, d in got.items()} == nx.single_source_shortest_path_length(G, v)
        assert submitted == []  # each source looked up by the tables' workers, not by a task
        asked = []
        monkeypatch.setattr(dgraph.codec, "lookup_held", lambda *args: asked.append(args) or lookup_held(*args))
        again = bfs(g, sources[1]).compute().set_index("vertex").distance.dropna()
        assert asked == [] and again.equals(bfs(g, sources[1]).compute().set_index("vertex").distance.dropna())
        with pytest.raises(dgraph.DgraphInputError, match="not a vertex"):
            bfs(g, -5)
        assert len(asked) == 1  # an unknown label is asked again each time, and refused
        # string labels on a 2D mesh, which places vertices in its own order
        named = pd.DataFrame({"src": "v" + edges.src.astype(str), "dst": "v" + edges.dst.astype(str)})
        gs = dgraph.from_edgelist(named, directed=False, layout="2d", ranks=4)
        bfs(gs, f"v{sources[0]}")
        submitted.clear()
        got = bfs(gs, f"v{sources[2]}").compute().set_index("vertex").distance.dropna()
        want = nx.single_source_shortest_path_length(G, sources[2])
        assert {u: int(d) for u, d in got.items()} == {f"v{u}": d for u, d in want.items()}
        with pytest.raises(dgraph.DgraphInputError, match="'zz' is not a vertex"):
            bfs(gs, "zz")
        assert submitted == []
    finally:
        scheduler.stream_handlers["update-graph"] = own
    # tables on one worker answer there; tables on two answer in two steps, each where its table is
    a, b = workers(client)
    table = client.scatter(np.array([7, 5, 6]), workers=[a])
    names = [client.scatter(pd.Index(["x", "y", "z"]), workers=[w], hash=False) for w in (a, b)]
    assert lookup_held(client, names[0], table, ["z", "x"], "vertex", "str").tolist() == [6, 7]
    assert lookup_held(client, names[1], table, ["z"], "vertex", "str").tolist() == [6]
    assert client_state(client).holders[(names[1].key, table.key)] == [b, a]
    with pytest.raises(dgraph.DgraphInputError, match="'w' is not a vertex"):
        lookup_held(client, names[1], table, ["w"], "vertex", "str")
    # tables that moved (the worker remembered no longer holds them) are looked for again
    client_state(client).holders[(names[0].key, table.key)] = [b, b]
    assert lookup_held(client, names[0], table, ["y"], "vertex", "str").tolist() == [5]
    assert client_state(client).holders[(names[0].key, table.key)] == [a, a]


@pytest.mark.parametrize("layout", [TwoD(rows=4, cols=4), OnePointFiveD(rows=4, cols=4, e_threshold=12, h_threshold=4)])
def test_a_small_edge_list_is_placed_in_a_task_per_rank_on_every_layout(client, layout):
    """A small pandas edge list is planned and cut on the client whatever the layout: one task
    builds each rank's block, whole degrees included, and the facts and label pieces the first
    run needs, and the owner blocks rebuilt for components, cost a task per worker or per rank,
    not one per (rank, rank) or (rank, worker) pair."""
    from distributed import get_task_stream

    edges = kron_edges(8, seed=3).astype(str)  # string labels: every rank gets a piece of them
    G = nx_graph(edges, False)
    with get_task_stream(client) as ts:
        g = dgraph.from_edgelist(edges, directed=False, layout=layout)
        got = bfs(g, edges.src.iloc[0]).compute().set_index("vertex").distance.dropna()
        parts = connected_components(g).compute().groupby("component").vertex.apply(frozenset)
    assert {u: int(d) for u, d in got.items()} == nx.single_source_shortest_path_length(G, edges.src.iloc[0])
    assert set(parts) == {frozenset(c) for c in nx.connected_components(G)}
    assert g.degrees().compute().set_index("vertex").degree.to_dict() == dict(G.degree())
    names = [str(t["key"]).split("-")[0].strip("('") for t in ts.data]
    P, W = g.nranks, len(workers(client))
    assert names.count("_small_block") == 2 * P  # the layout's blocks, then the owner blocks
    assert names.count("_value") <= 4  # the tables: labels, order, inverse, extra (cluster.tasks_of)
    assert len(names) <= 2 * P + P + 4 * W + 4 + 4, sorted(set(names))  # + label pieces, facts, cuts, lookups


def test_a_pandas_edge_list_is_scattered_not_embedded(client):
    import pickle

    from dgraph.build import SCATTER_ROWS, _to_dask

    rng = np.random.default_rng(3)
    edges = pd.DataFrame(
        {"src": rng.integers(-50, 10**12, 3 * SCATTER_ROWS), "dst": rng.integers(0, 99, 3 * SCATTER_ROWS)}
    )
    ddf = _to_dask(edges, "df", client=client)
    assert len(pickle.dumps(dict(ddf.__dask_graph__()))) < edges.memory_usage().sum() / 100  # keys, not data
    pd.testing.assert_frame_equal(ddf.compute(), edges)
    g = dgraph.from_edgelist(edges, directed=False)
    G = nx_graph(edges, False)
    assert (g.num_vertices, g.num_edges) == (G.number_of_nodes(), G.number_of_edges())


def _random_part(i):
    rng = np.random.default_rng()  # unseeded: another edge list each time it is computed
    return pd.DataFrame({"src": rng.integers(0, 50, 400), "dst": rng.integers(0, 50, 400)})


@pytest.mark.parametrize(
    "layout",
    [
        OneD(ranks=2),
        TwoD(rows=2, cols=2),
        OnePointFiveD(rows=2, cols=2, e_threshold=52, h_threshold=45),
        TDOrch(fanout=2, chunk=11, ranks=4),
    ],
)  # blocks sized by the degrees; by a count: of one CSR, of subgraphs with heavy rows
@pytest.mark.slow
def test_an_edge_list_that_changes_between_reads_is_read_once(client, streamed, layout):
    """Its partitions are held from the degree pass to the last piece placed, so the graph is
    one reading's, whole (sized by its own degrees; a second reading would not fit them)."""
    import dask

    from dgraph import placement

    meta = pd.DataFrame({"src": pd.Series([], dtype="int64"), "dst": pd.Series([], dtype="int64")})
    edges = dd.from_delayed([dask.delayed(_random_part, pure=False)(i) for i in range(6)], meta=meta)
    g = dgraph.from_edgelist(edges, vertices=np.arange(50), renumber=False, layout=layout)
    got = g.degrees().compute()
    assert g.num_vertices == 50 and got["out_degree"].sum() == got["in_degree"].sum() == g.num_arcs > 0
    assert set(client.run(lambda: len(placement._FILLING)).values()) == {0}  # no half-built block stays behind
    edges = edges.persist()
    g = dgraph.from_edgelist(edges, vertices=np.arange(50), renumber=False, layout=layout)
    G = nx.DiGraph(list(edges.compute().itertuples(index=False)))
    assert g.num_vertices == 50 and g.num_arcs == G.number_of_edges()
    got = g.degrees().compute().set_index("vertex")
    assert got["out_degree"].to_dict() == {v: G.out_degree(v) if v in G else 0 for v in range(50)}


@pytest.mark.parametrize(
    "src, vertices",
    [
        (pd.Series([5, None, 2], dtype="Int64"), None),  # nulls are refused, as before
        (pd.Series([-3, 2**40, 0], dtype="int64"), np.array([7], dtype=np.int32)),  # sparse ids, two dtypes
        (pd.Series([2**63 + 1, 4, 9], dtype="uint64"), None),
        (pd.Series([3, 1, 3], dtype="int16"), pd.Series([0, 2], dtype="int64")),  # dense ids: a table
    ],
)
def test_numeric_labels_of_every_kind_are_found_once_and_in_order(client, src, vertices):
    dst = src.iloc[::-1].reset_index(drop=True).fillna(1)
    edges = pd.DataFrame({"src": src, "dst": dst})
    if src.isna().any():
        with pytest.raises(dgraph.DgraphInputError, match="null vertex id"):
            dgraph.from_edgelist(edges)
        return
    g = dgraph.from_edgelist(edges, vertices=vertices)
    expect = sorted(
        {int(v) for v in src} | {int(v) for v in dst} | {int(v) for v in (vertices if vertices is not None else [])}
    )
    assert g.num_vertices == len(expect)
    got = g.degrees().compute().vertex.astype(object).map(int).tolist()
    assert sorted(got) == expect


def test_only_isolated_vertices(client):
    empty = pd.DataFrame({"src": pd.Series([], dtype="int64"), "dst": pd.Series([], dtype="int64")})
    g = dgraph.from_edgelist(empty, vertices=[5, 6, 7])
    assert (g.num_vertices, g.num_edges) == (3, 0)
    assert connected_components(g, connection="weak").compute().component.nunique() == 3


def test_networkx_roundtrip(client):
    G = nx.les_miserables_graph()
    g = dgraph.from_networkx(G, weight="weight")
    assert g.weight == "weight" and not g.directed
    H = g.to_networkx()
    assert set(H.nodes()) == set(G.nodes())
    assert {frozenset(e) for e in H.edges()} == {frozenset(e) for e in G.edges()}
    assert all(H[u][v]["weight"] == G[u][v]["weight"] for u, v in G.edges())


def test_bad_input_names_the_problem(client):
    edges = pd.DataFrame({"src": [0, 1], "dst": [1, 2]})
    with pytest.raises(dgraph.DgraphInputError, match="source column 'from' is not in the edge list"):
        dgraph.from_edgelist(edges, source="from")
    with pytest.raises(dgraph.DgraphInputError, match="weight column 'w'"):
        dgraph.from_edgelist(edges, weight="w")
    with pytest.raises(dgraph.DgraphInputError, match="null vertex id"):
        dgraph.from_edgelist(pd.DataFrame({"src": [0, None], "dst": [1, 2]}, dtype="Int64")).num_edges
    assert dgraph.from_edgelist(edges.iloc[:0]).num_vertices == 0  # no edges, no vertices: the null graph
    with pytest.raises(dgraph.DgraphInputError, match="ranks must be an integer at least 1"):
        dgraph.from_edgelist(edges, ranks=-2)
    with pytest.raises(dgraph.DgraphInputError, match="unknown layout"):
        dgraph.from_edgelist(edges, layout="3d")
    with pytest.raises(dgraph.DgraphInputError, match="different types"):
        dgraph.from_edgelist(pd.DataFrame({"src": [0, 1], "dst": ["a", "b"]}))
    with pytest.raises(dgraph.DgraphInputError, match="floating point"):
        dgraph.from_edgelist(pd.DataFrame({"src": [0.5, 1.0], "dst": [1.0, 2.0]}))
    with pytest.raises(dgraph.DgraphInputError, match="pandas or dask DataFrame"):
        dgraph.from_edgelist([(0, 1)])
    with pytest.raises(dgraph.DgraphInputError, match="duplicates"):
        dgraph.from_edgelist(edges, duplicates="sum")
    with pytest.raises(dgraph.DgraphInputError, match="vertex id -1 is outside 0..2"):
        dgraph.from_edgelist(pd.DataFrame({"src": [-1], "dst": [0]}), renumber=False, vertices=np.arange(3)).num_edges
    with pytest.raises(dgraph.DgraphInputError, match="vertex id 5 is outside 0..2"):
        dgraph.from_edgelist(
            pd.DataFrame({"src": [5], "dst": [0]}), renumber=False, vertices=np.arange(3), vertex_order="degree"
        )
    with pytest.raises(
        dgraph.DgraphInputError, match=r"vertex_order must be one of \('labels', 'degree'\), got 'random'"
    ):
        dgraph.from_edgelist(edges, vertex_order="random")


def test_readers(client, tmp_path):
    edges = pd.DataFrame({"src": [1, 2, 3, 3], "dst": [2, 3, 1, 4]})
    (tmp_path / "e.csv").write_text("a,b\n" + "\n".join(f"{s},{d}" for s, d in zip(edges.src, edges.dst)) + "\n")
    g = dgraph.read_edgelist(str(tmp_path / "e.csv"), header=0, source="a", destination="b")
    assert (g.num_vertices, g.num_edges, g.directed) == (4, 4, True)
    snap = "# comment\r\n# Nodes: 4\r\n" + "".join(f"{s}\t{d}\r\n" for s, d in zip(edges.src, edges.dst))
    with gzip.open(tmp_path / "e.txt.gz", "wt", newline="") as f:
        f.write(snap)
    assert dgraph.read_edgelist(str(tmp_path / "e.txt.gz")).num_edges == 4
    mtx = "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n4 4 3\n2 1\n3 2\n4 3\n"
    (tmp_path / "m.mtx").write_text(mtx)
    m = dgraph.read_edgelist(str(tmp_path / "m.mtx"))
    assert (m.directed, m.num_edges) == (False, 3)
    edges.to_parquet(tmp_path / "e.parquet")
    assert dgraph.read_edgelist(str(tmp_path / "e.parquet"), source="src", destination="dst").num_edges == 4
    for i in range(2):
        edges.iloc[2 * i : 2 * i + 2].to_csv(tmp_path / f"part{i}.tsv", sep="\t", header=False, index=False)
    assert dgraph.read_edgelist(str(tmp_path / "part*.tsv")).num_edges == 4
    with pytest.raises(dgraph.DgraphInputError, match="does not exist"):
        dgraph.read_edgelist(str(tmp_path / "nope.txt"))
    with pytest.raises(dgraph.DgraphInputError, match="no file matches"):
        dgraph.read_edgelist(str(tmp_path / "none*.txt"))


@pytest.mark.parametrize(
    "parts, directed, nodes, edges",
    [
        (("wiki-Vote", "wiki-Vote.txt.gz"), True, 7115, 103689),
        (("luxembourg_osm", "road-luxembourg-osm.mtx.gz"), False, 114599, 119666),
        (("email-Eu-core", "email-Eu-core.txt.gz"), True, 1005, 25571),
    ],
)
def test_real_datasets_read_as_published(client, parts, directed, nodes, edges):
    g = dgraph.read_edgelist(dataset(*parts), ranks=3)
    assert (g.directed, g.num_vertices, g.num_edges) == (directed, nodes, edges)


def test_embedded_datasets(client):
    k = dgraph.datasets.load("karate")
    assert (k.num_vertices, k.num_edges, k.directed) == (34, 78, False)
    assert dgraph.datasets.load("ca-GrQc").num_vertices == 5242
    with pytest.raises(dgraph.DgraphInputError, match="unknown dataset"):
        dgraph.datasets.load("nope")


def test_generators(client):
    e, n = kronecker(6, seed=3)
    a = e.compute()
    assert n == 64 and len(a) == 16 * 64 and a.src.between(0, 63).all()
    pd.testing.assert_frame_equal(a, kronecker(6, seed=3)[0].compute())  # same seed, same graph
    deg = np.bincount(np.r_[a.src, a.dst], minlength=64)
    assert deg.max() > 8 * np.median(deg)  # skewed, as R-MAT is
    ge, gn = grid_2d(5, 7)
    G = nx.grid_2d_graph(5, 7)
    assert gn == 35 and len(ge.compute()) == G.number_of_edges()
    er, _ = erdos_renyi(100, 500, seed=1)
    assert len(er.compute()) == 500
    with pytest.raises(dgraph.DgraphInputError, match="scale"):
        kronecker(-1)


@pytest.mark.parametrize("labels", ["int", "str"])
def test_result_frames_are_described_without_fetching_and_correctly(client, labels):
    """Frames of rank results take their meta from the dtypes the run reported: it must be
    exactly what the partitions hold."""
    from dgraph import algorithms as alg

    e = pd.DataFrame({"src": [0, 1, 2, 3, 3, 5], "dst": [1, 2, 0, 4, 5, 4], "w": [1.0, 2.0, 1.5, 1.0, 3.0, 0.5]})
    if labels == "str":
        e[["src", "dst"]] = e[["src", "dst"]].astype(str)
    g = dgraph.from_edgelist(e, weight="w", directed=False, ranks=3)
    source = e.src.iloc[0]
    frames = [
        alg.bfs(g, source),
        alg.sssp(g, source, weight="w"),
        alg.pagerank(g),
        alg.connected_components(g, connection="weak"),
        alg.label_propagation(g),
        alg.local_clustering_coefficient(g),
        alg.triangle_count(g),
        alg.core_number(g),
        alg.betweenness_centrality(g),
        alg.max_weight_matching(g, weight="w"),
    ]
    for f in frames:
        got = f.compute()
        assert list(f._meta.columns) == list(got.columns)
        assert f._meta.dtypes.to_dict() == got.dtypes.to_dict(), (f._meta.dtypes, got.dtypes)


@pytest.mark.parametrize("labels", ["int", "str"])
def test_result_frames_are_the_held_partitions(client, labels, tmp_path):
    """A result frame's keys are its partitions' futures: computing it runs no task of its own
    (no alias, no string conversion), and it still works as any dask DataFrame."""
    import dask.dataframe as dd
    from distributed import Future

    from dgraph import algorithms as alg
    from dgraph.results import part_name, to_dask

    e = pd.DataFrame({"src": [0, 1, 2, 2, 3, 3, 5], "dst": [1, 2, 0, 3, 4, 5, 4]})
    if labels == "str":
        e = e.astype(str)
    g = dgraph.from_edgelist(e, directed=False, ranks=3)
    for f in (alg.bfs(g, e.src.iloc[0]), g.degrees(), g.edges()):
        graph = dict(f.optimize().__dask_graph__())
        assert graph and all(isinstance(v, Future) and v.key == k for k, v in graph.items()), graph
    d = alg.bfs(g, e.src.iloc[0])
    want = d.compute().sort_values("vertex", ignore_index=True)
    assert len(want) == 6 and want.distance.tolist() == [0, 1, 1, 2, 3, 3]
    assert len(d) == 6 and d.distance.max().compute() == 3
    assert d.persist().compute().sort_values("vertex", ignore_index=True).equals(want)
    assert len(d.head(10, npartitions=-1)) == 6
    merged = dd.merge(d, g.degrees(), on="vertex").compute()
    assert sorted(merged.vertex) == sorted(want.vertex)
    d.to_parquet(tmp_path / "bfs")
    assert dd.read_parquet(tmp_path / "bfs").compute().sort_values("vertex", ignore_index=True).equals(want)
    with pytest.raises(ValueError, match="name, 0"):
        to_dask(client, [client.submit(pd.DataFrame, {"a": [1]})])
    name = part_name("t")
    parts = [client.submit(pd.DataFrame, {"a": [i]}, key=(name, i)) for i in range(2)]
    assert to_dask(client, parts).compute().a.tolist() == [0, 1]
