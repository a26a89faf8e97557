"""Saving and loading a graph: the loaded graph is the saved one (its blocks array for array, its
labels, its answers) on every layout and on another number of workers; a damaged copy is named
and leaves nothing on the cluster; a save never replaces what it was not asked to."""

import dataclasses
import json
import os
import shutil

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from conftest import wait_until
from graphs import kron_edges, nx_graph

import dgraph
from dgraph import algorithms as alg
from dgraph.cli import main
from dgraph.errors import DgraphInputError
from dgraph.partitioners import OneD, OnePointFiveD, TDOrch, TwoD

# every kind of layout, with 1.5D's and TD-Orch's thresholds low enough that a small graph has
# heavy vertices (several subgraphs, spread arcs), and a 1D that reorders vertices
LAYOUTS = [
    OneD(ranks=3),
    OneD(ranks=4, balance="striped"),
    TwoD(rows=2, cols=2),
    OnePointFiveD(rows=2, cols=2, e_threshold=12, h_threshold=4),
    TDOrch(ranks=4, chunk=2),
]


def _weighted_edges():
    e = kron_edges(7, seed=3).astype("int64")
    e["w"] = np.random.default_rng(0).integers(1, 9, len(e)).astype(np.float64)
    e["src"], e["dst"] = e["src"] * 1000 + 7, e["dst"] * 1000 + 7  # labels that are not 0..n-1
    return e


def _same(a, b, at="block"):
    """``a`` and ``b`` are the same value: arrays of the same dtype and contents, dataclasses field
    by field."""
    assert type(a) is type(b), f"{at}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b), f"{at}: arrays differ"
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            _same(getattr(a, f.name), getattr(b, f.name), f"{at}.{f.name}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), at
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{at}[{i}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), at
        for k in a:
            _same(a[k], b[k], f"{at}[{k!r}]")
    else:
        assert a == b, f"{at}: {a!r} vs {b!r}"


def _answers(g, source):
    """A sample of algorithms, each result sorted by vertex."""
    out = {
        "bfs": alg.bfs(g, source),
        "sssp": alg.sssp(g, source),
        "pagerank": alg.pagerank(g, tol=1e-12, max_iter=500),
        "components": alg.weakly_connected_components(g) if g.directed else alg.connected_components(g),
    }
    return {k: v.compute().sort_values("vertex").reset_index(drop=True) for k, v in out.items()}


def _load_keys(client):
    """The keys of loaded graphs' futures the scheduler knows."""
    return set(
        client.run_on_scheduler(lambda dask_scheduler: [k for k in dask_scheduler.tasks if "dgraph-load-" in str(k)])
    )


@pytest.mark.parametrize("layout", LAYOUTS, ids=repr)
@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
def test_a_loaded_graph_is_the_saved_one(client, tmp_path, layout, directed):
    edges = _weighted_edges()
    g = dgraph.from_edgelist(edges, weight="w", directed=directed, layout=layout)
    g.save(tmp_path / "g")
    h = dgraph.load(tmp_path / "g")
    assert (h.num_vertices, h.num_edges, h.directed, h.weight, repr(h.layout)) == (
        g.num_vertices,
        g.num_edges,
        directed,
        "w",
        repr(g.layout),
    )
    _same(client.gather(g.store.blocks), client.gather(h.store.blocks))
    np.testing.assert_array_equal(h.bounds, g.bounds)
    if isinstance(layout, OnePointFiveD):  # a rank's subgraphs share one vertex space again
        assert all(len({id(p.space) for p in b.parts}) == 1 for b in client.gather(h.store.blocks))
    _right(h, edges, directed, int(edges.src.iloc[0]))


def _right(g, edges, directed, source):
    """The sample of algorithms on ``g`` gives networkx's answers."""
    got = _answers(g, source)
    G, W = nx_graph(edges, directed), nx_graph(edges, directed, weight="w")
    for name, want in (
        ("bfs", nx.single_source_shortest_path_length(G, source)),
        ("sssp", nx.single_source_dijkstra_path_length(W, source)),
    ):
        reached = got[name].dropna(subset=["distance"])
        assert dict(zip(reached.vertex, reached.distance.astype(float))) == pytest.approx(want), name
    pr = got["pagerank"].set_index("vertex").pagerank
    want = nx.pagerank(W, tol=1e-12, max_iter=500)  # the graph's weight, as dgraph's default
    assert max(abs(pr[v] - want[v]) for v in want) < 1e-8
    parts = got["components"].groupby("component").vertex.apply(frozenset)
    components = nx.weakly_connected_components(G) if directed else nx.connected_components(G)
    assert set(parts) == {frozenset(c) for c in components}


@pytest.mark.parametrize("vertex_order", ["labels", "degree"])
def test_string_labels_and_isolated_vertices_come_back(client, tmp_path, vertex_order):
    e = kron_edges(6, seed=5)
    edges = pd.DataFrame({"src": "v" + e.src.astype(str), "dst": "v" + e.dst.astype(str)})
    vertices = pd.concat([edges.src, edges.dst, pd.Series(["lonely", "alone"])]).unique()
    g = dgraph.from_edgelist(edges, directed=False, vertices=vertices, vertex_order=vertex_order, ranks=3)
    g.save(tmp_path / "g", overwrite=False)
    h = dgraph.load(tmp_path / "g")
    assert h.labels.dtype == g.labels.dtype and h.num_vertices == g.num_vertices
    assert list(h.encode_vertices(["v1", "lonely"])) == list(g.encode_vertices(["v1", "lonely"]))
    degrees = h.degrees().compute().set_index("vertex").degree
    assert degrees["lonely"] == 0 and degrees.equals(
        g.degrees().compute().set_index("vertex").degree.loc[degrees.index]
    )
    expected, got = _answers(g, "v1"), _answers(h, "v1")
    for name in expected:
        pd.testing.assert_frame_equal(got[name], expected[name], obj=name)
    with pytest.raises(DgraphInputError, match="'nobody' is not a vertex"):
        alg.bfs(h, "nobody")
    h.save(tmp_path / "again")  # a loaded graph saves as the one it was loaded from
    again = dgraph.load(tmp_path / "again")
    _same(client.gather(g.store.blocks), client.gather(again.store.blocks))
    pd.testing.assert_frame_equal(_answers(again, "v1")["bfs"], expected["bfs"])


def test_labels_that_are_their_ids_and_file_urls(client, tmp_path):
    g = dgraph.from_edgelist(kron_edges(6), directed=False, vertices=np.arange(64), ranks=2)
    assert g.codec.ids_are_labels
    g.save(f"file://{tmp_path}/g")
    h = dgraph.load(f"file://{tmp_path}/g")
    assert h.codec.ids_are_labels
    pd.testing.assert_frame_equal(_answers(h, 0)["bfs"], _answers(g, 0)["bfs"])


@pytest.fixture(scope="module")
def saved(client, tmp_path_factory):
    """Karate on 2 ranks, saved once: the tests damage copies of it."""
    path = tmp_path_factory.mktemp("saved") / "karate"
    dgraph.datasets.load("karate", ranks=2).save(path)
    return path


def _truncate(path):
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)


def _flip_last_byte(path):
    with open(path, "r+b") as f:
        f.seek(-1, os.SEEK_END)
        last = f.read(1)
        f.seek(-1, os.SEEK_END)
        f.write(bytes([last[0] ^ 1]))


def _newer(path):
    manifest = json.loads(path.read_text())
    path.write_text(json.dumps({**manifest, "version": manifest["version"] + 1}))


DAMAGES = {
    "truncated": ("ranks/00001/block.indices.npy", _truncate, r"ranks/00001/block\.indices\.npy is truncated"),
    "missing": ("tables/labels.npy", os.remove, r"tables/labels\.npy is missing"),
    "checksum": ("ranks/00000/block.indptr.npy", _flip_last_byte, r"ranks/00000/block\.indptr\.npy fails its checksum"),
    "newer": ("manifest.json", _newer, r"manifest\.json is of format version 2, written by a newer dgraph"),
    "not json": ("manifest.json", _truncate, r"manifest\.json is not JSON"),
    "unfinished": ("manifest.json", os.remove, r"is an unfinished save \(no manifest\.json"),
}


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_copy_is_named_and_leaves_nothing_loaded(client, saved, tmp_path, damage):
    rel, spoil, message = DAMAGES[damage]
    copy = tmp_path / "copy"
    shutil.copytree(saved, copy)
    spoil(copy / rel)
    before = _load_keys(client)
    with pytest.raises(DgraphInputError, match=message):
        dgraph.load(copy)
    wait_until(lambda: _load_keys(client) <= before, 5, "the failed load's futures to be released")


def test_what_is_not_a_saved_graph_is_named(client, tmp_path):
    with pytest.raises(DgraphInputError, match="does not exist"):
        dgraph.load(tmp_path / "nothing")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(DgraphInputError, match="is not a saved dgraph graph: it has no manifest.json"):
        dgraph.load(tmp_path / "other")


def test_save_refuses_to_replace_unless_asked(client, saved, tmp_path):
    g = dgraph.datasets.load("karate", ranks=2)
    copy = tmp_path / "copy"
    shutil.copytree(saved, copy)
    with pytest.raises(DgraphInputError, match="exists and is not empty; give overwrite=True"):
        g.save(copy)
    small = g.subgraph([1, 2, 3, 4])
    small.save(copy, overwrite=True)
    assert dgraph.load(copy).num_vertices == 4
    listed = json.loads((copy / "manifest.json").read_text())["files"]
    on_disk = {str(p.relative_to(copy)) for p in copy.rglob("*") if p.is_file()}
    assert on_disk == {*listed, "DGRAPH", "manifest.json"}  # nothing of the graph replaced is left
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(DgraphInputError, match="holds files that are not a saved dgraph graph"):
        g.save(other, overwrite=True)
    assert os.listdir(other) == ["notes.txt"]
    with pytest.raises(DgraphInputError, match="it is a file"):
        g.save(other / "notes.txt", overwrite=True)


def test_another_layout_is_refused_and_the_same_one_accepted(client, saved):
    assert repr(dgraph.load(saved, layout="1d").layout) == "OneD(ranks=2, balance='degree')"
    assert dgraph.load(saved, layout=OneD(ranks=2)).nranks == 2
    for other in ("2d", OneD(ranks=3), OneD(balance="striped")):
        with pytest.raises(DgraphInputError, match="places no arcs: load it with layout=None"):
            dgraph.load(saved, layout=other)


def test_cli_saves_and_loads(client, capsys, tmp_path):
    addr, path = client.scheduler.address, str(tmp_path / "kron")
    assert main(["run", "wcc", "--kronecker", "8", "--ranks", "3", "--scheduler", addr, "--save", path]) == 0
    built = capsys.readouterr()
    assert f"saved the graph to {path}" in built.err
    assert main(["run", "wcc", "--load", path, "--scheduler", addr]) == 0
    loaded = capsys.readouterr().out
    assert f"saved graph {path}:" in loaded and "3 ranks" in loaded
    assert loaded.split("component groups")[1] == built.out.split("component groups")[1]
    assert main(["run", "wcc", "--kronecker", "8", "--scheduler", addr, "--save", path]) == 2
    assert "give overwrite=True" in capsys.readouterr().err
    assert main(["run", "wcc", "--load", path, "--ranks", "4", "--scheduler", addr]) == 2
    assert "--ranks says how to build a graph" in capsys.readouterr().err


@pytest.mark.slow  # a cluster of its own: 3 worker processes
def test_loading_onto_another_number_of_workers(client, tmp_path):
    from distributed import Client, LocalCluster

    edges = _weighted_edges()
    g = dgraph.from_edgelist(edges, weight="w", directed=False, layout=TwoD(rows=2, cols=3))
    g.save(tmp_path / "g")
    expected = _answers(g, int(edges.src.iloc[0]))
    with (
        LocalCluster(n_workers=3, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0") as cluster,
        Client(cluster, set_as_default=False) as other,
    ):
        h = dgraph.load(tmp_path / "g", client=other)
        assert h.client is other and len(set(h.store.where(h.store.blocks))) == 3
        got = _answers(h, int(edges.src.iloc[0]))
        for name in expected:
            pd.testing.assert_frame_equal(got[name], expected[name], obj=name)
        del h


def test_columns_of_objects_frames_and_dtypes_keep_their_types(tmp_path):
    """What attributes are kept as: object columns (strings, nullable values) and per-rank frames
    go through Arrow files, their dtypes through the manifest, and back unchanged."""
    from dgraph.persist.files import Reader, Writer, dtype_of, dtype_text

    writer = Writer(str(tmp_path), "ranks/00000")
    frame = pd.DataFrame(
        {"n": pd.array([1, None, 3], dtype="Int64"), "s": pd.array(["x", None, "z"], dtype="string"), "b": [1, 0, 1]}
    )
    strings, nullable = np.array(["a", None, "c"], dtype=object), np.array([1, pd.NA, 3], dtype=object)
    tree = writer.encode({"strings": strings, "nullable": nullable, "frame": frame, "ids": np.arange(3)}, "v")
    back = Reader(str(tmp_path), writer.files).decode(tree)
    assert back["strings"].tolist() == ["a", None, "c"] and back["nullable"].tolist() == [1, None, 3]
    pd.testing.assert_frame_equal(back["frame"], frame)
    assert back["ids"].tolist() == [0, 1, 2]
    dtypes = [np.dtype("int32"), pd.Int64Dtype(), pd.BooleanDtype(), pd.StringDtype("pyarrow"), np.dtype(object)]
    dtypes += [pd.CategoricalDtype(["a", "b"], ordered=True), pd.DatetimeTZDtype("ns", "UTC")]
    assert [dtype_of(json.loads(json.dumps(dtype_text(d)))) for d in dtypes] == dtypes
    with pytest.raises(TypeError, match="mixed Python types"):
        writer.encode(np.array([1, "a"], dtype=object), "mixed")
