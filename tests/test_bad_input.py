"""What careless or unusual input does: the correct answer, or a DgraphInputError naming the input
and the fix. Never a silent wrong answer, a bare pandas/numpy error or a traceback from the CLI.

Each case is ``(name, run, expected)``: ``run(tmp_path)`` does the call; ``expected`` is either
``(ErrorType, "phrase of its message")`` or a function that checks the result.
"""

import gzip

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import dgraph
from dgraph import algorithms as alg
from dgraph.cli import main
from dgraph.errors import DgraphError, DgraphInputError
from dgraph.partitioners import OneD, OnePointFiveD, TDOrch, TwoD

E = pd.DataFrame({"src": [0, 1, 2, 3], "dst": [1, 2, 3, 0]})
W = E.assign(w=[1.0, 2.0, 3.0, 4.0])


def graph(**kw):
    return dgraph.from_edgelist(E, **kw)


def weighted(w=(1.0, 2.0, 3.0, 4.0), directed=True):
    return dgraph.from_edgelist(E.assign(w=list(w)), weight="w", directed=directed)


def write(tmp_path, name, text):
    path = tmp_path / name
    if name.endswith(".gz"):
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)
    return str(path)


def frame(result):
    return result.compute().sort_values("vertex").reset_index(drop=True)


def same_as_networkx(G):
    """The graph read has G's vertices and edges."""

    def check(g):
        H = g.to_networkx()
        assert set(H.nodes()) == set(G.nodes()), (sorted(H.nodes()), sorted(G.nodes()))
        assert set(map(frozenset, H.edges())) == set(map(frozenset, G.edges())) or set(H.edges()) == set(G.edges())

    return check


def read_mtx(text):
    """A case reading ``text`` as the Matrix Market file m.mtx."""
    return lambda t: dgraph.read_edgelist(write(t, "m.mtx", text))


def equals(expected):
    def check(value):
        assert value == expected, (value, expected)

    return check


CASES = [
    # ------------------------------------------------------------------ from_edgelist
    ("missing source column", lambda t: dgraph.from_edgelist(E, source="a"), (DgraphInputError, "source column 'a'")),
    (
        "missing destination",
        lambda t: dgraph.from_edgelist(E, destination="b"),
        (DgraphInputError, "destination column 'b'"),
    ),
    ("missing weight column", lambda t: dgraph.from_edgelist(E, weight="w"), (DgraphInputError, "weight column 'w'")),
    (
        "same source and destination",
        lambda t: dgraph.from_edgelist(E, destination="src"),
        (DgraphInputError, "the same column"),
    ),
    (
        "string weights",
        lambda t: dgraph.from_edgelist(E.assign(w=["a"] * 4), weight="w"),
        (DgraphInputError, "must be numeric"),
    ),
    ("bad duplicates policy", lambda t: graph(duplicates="merge"), (DgraphInputError, "duplicates must be one of")),
    ("bad self-loop policy", lambda t: graph(self_loops="no"), (DgraphInputError, "self_loops must be one of")),
    ("bad vertex order", lambda t: graph(vertex_order="random"), (DgraphInputError, "vertex_order must be one of")),
    ("unknown layout name", lambda t: graph(layout="3d"), (DgraphInputError, "unknown layout '3d'")),
    ("layout of another type", lambda t: graph(layout=42), (DgraphInputError, "layout must be a name")),
    ("zero ranks", lambda t: graph(ranks=0), (DgraphInputError, "ranks must be an integer at least 1")),
    ("boolean ranks", lambda t: graph(ranks=True), (DgraphInputError, "ranks must be an integer")),
    ("numpy ranks", lambda t: graph(ranks=np.int64(2)).nranks, equals(2)),
    ("ranks disagree with the layout", lambda t: graph(layout=OneD(3), ranks=2), (DgraphInputError, "disagrees with")),
    (
        "2D mesh of the wrong size",
        lambda t: graph(layout=TwoD(rows=2, cols=2), ranks=6),
        (DgraphInputError, "meshes for 6 ranks"),
    ),
    ("half a mesh", lambda t: TwoD(rows=2), (DgraphInputError, "give both rows and cols")),
    (
        "1.5D thresholds upside down",
        lambda t: OnePointFiveD(e_threshold=2, h_threshold=9),
        (DgraphInputError, "H must be lighter"),
    ),
    ("TD-Orch fan-out too small", lambda t: TDOrch(fanout=1), (DgraphInputError, "fanout must be an integer")),
    ("bad 1D balance", lambda t: OneD(balance="random"), (DgraphInputError, "balance must be one of")),
    ("bad transport", lambda t: graph(transport="udp"), (DgraphInputError, "transport must be one of")),
    (
        "empty edge list",  # the null graph, as networkx's
        lambda t: dgraph.from_edgelist(E.iloc[:0]).num_vertices,
        equals(0),
    ),
    (
        "empty edge list with vertices",
        lambda t: dgraph.from_edgelist(E.iloc[:0], vertices=[5, 7]).num_vertices,
        equals(2),
    ),
    (
        "null vertex id",
        lambda t: dgraph.from_edgelist(pd.DataFrame({"src": ["a", None], "dst": ["b", "c"]})),
        (DgraphInputError, "null vertex id"),
    ),
    (
        "id out of range without renumbering",
        lambda t: dgraph.from_edgelist(E, renumber=False, vertices=[0, 1, 2]),
        (DgraphInputError, "outside 0..2"),
    ),
    (
        "a list instead of a frame",
        lambda t: dgraph.from_edgelist([(0, 1)]),
        (DgraphInputError, "must be a pandas or dask DataFrame"),
    ),
    (
        "vertices as a DataFrame without its label column",
        lambda t: graph(vertices=pd.DataFrame({"v": [0]})),
        (DgraphInputError, "has no column 'vertex' of vertex labels"),
    ),
    (
        "mixed int and str labels",
        lambda t: dgraph.from_edgelist(pd.DataFrame({"src": [1, "1"], "dst": ["a", 2]}, dtype=object)),
        (DgraphInputError, "mixes label types"),
    ),
    (
        "int and str across columns",
        lambda t: dgraph.from_edgelist(pd.DataFrame({"src": [1, 2], "dst": ["1", "2"]})),
        (DgraphInputError, "different types"),
    ),
    ("mixed types in vertices=", lambda t: graph(vertices=[0, 1, 2, 3, "4"]), (DgraphInputError, "mixes label types")),
    (
        "tuple labels",
        lambda t: dgraph.from_edgelist(pd.DataFrame({"src": [(0, 0)], "dst": [(0, 1)]})),
        (DgraphInputError, "tuple labels"),
    ),
    (
        "networkx grid graph",
        lambda t: dgraph.from_networkx(nx.grid_2d_graph(2, 2)),
        (DgraphInputError, "convert_node_labels_to_integers"),
    ),
    (
        "integers beyond int64",
        lambda t: dgraph.from_edgelist(pd.DataFrame({"src": [2**70], "dst": [1]}, dtype=object)),
        (DgraphInputError, "beyond int64"),
    ),
    (
        "big integers as strings",
        lambda t: dgraph.from_edgelist(pd.DataFrame({"src": [str(2**70)], "dst": ["1"]})).num_vertices,
        equals(2),
    ),
    (
        "object column of ints",
        lambda t: frame(
            alg.bfs(dgraph.from_edgelist(pd.DataFrame({"src": [10, 11], "dst": [11, 12]}, dtype=object)), 10)
        ).distance.tolist(),
        equals([0, 1, 2]),
    ),
    # ------------------------------------------------------------------ files
    ("missing file", lambda t: dgraph.read_edgelist(str(t / "nope.tsv")), (DgraphInputError, "does not exist")),
    (
        "glob matching nothing",
        lambda t: dgraph.read_edgelist(str(t / "*.nothing")),
        (DgraphInputError, "no file matches"),
    ),
    (
        "unknown format",
        lambda t: dgraph.read_edgelist(write(t, "e.txt", "1 2\n"), format="xls"),
        (DgraphInputError, "format must be one of"),
    ),
    (
        "csv header detected",
        lambda t: dgraph.read_edgelist(write(t, "e.csv", "src,dst\n1,2\n2,3\n")).num_vertices,
        equals(3),
    ),
    (
        "csv header by name",
        lambda t: (
            dgraph.read_edgelist(
                write(t, "e.csv", "a,b,w\n1,2,0.5\n2,3,1\n"), source="a", destination="b", weight="w"
            ).weight
        ),
        equals("w"),
    ),
    ("csv without header", lambda t: dgraph.read_edgelist(write(t, "e.csv", "1,2\n2,3\n")).num_edges, equals(2)),
    (
        "string labels need header=True",
        lambda t: dgraph.read_edgelist(write(t, "e.csv", "src,dst\nann,bob\n"), header=True).num_vertices,
        equals(2),
    ),
    (
        "header=False keeps the first line",
        lambda t: dgraph.read_edgelist(write(t, "e.csv", "x,y\nann,bob\n"), header=False).num_vertices,
        equals(4),
    ),
    (
        "names without a header",
        lambda t: dgraph.read_edgelist(write(t, "e.csv", "1,2\n"), source="a", destination="b", header=False),
        (DgraphInputError, "header=False"),
    ),
    (
        "a column that is not there",
        lambda t: dgraph.read_edgelist(write(t, "e.csv", "1,2\n"), weight=2),
        (DgraphInputError, "has no weight column"),
    ),
    (
        "bad header argument",
        lambda t: dgraph.read_edgelist(write(t, "e.csv", "1,2\n"), header="yes"),
        (DgraphInputError, "header must be"),
    ),
    ("tsv header detected", lambda t: dgraph.read_edgelist(write(t, "e.tsv", "from\tto\n1\t2\n")).num_edges, equals(1)),
    (
        "SNAP comments and blank lines",
        lambda t: dgraph.read_edgelist(write(t, "e.txt", "# c\n\n1 2\r\n2 3\r\n")).num_edges,
        equals(2),
    ),
    (
        "ragged csv",
        lambda t: dgraph.read_edgelist(write(t, "e.csv", "1,2,0.5\n2,3\n3,4,1,9\n"), weight=2).num_edges,
        (DgraphInputError, "could not read"),
    ),
    ("gzipped tsv", lambda t: dgraph.read_edgelist(write(t, "e.tsv.gz", "1\t2\n2\t3\n")).num_edges, equals(2)),
    (
        "mtx keeps isolated vertices",
        lambda t: (
            dgraph.read_edgelist(
                write(t, "m.mtx", "%%MatrixMarket matrix coordinate pattern general\n5 5 2\n1 2\n2 3\n")
            ).num_vertices
        ),
        equals(5),
    ),
    (
        "mtx symmetric is undirected",
        lambda t: (
            dgraph.read_edgelist(
                write(t, "m.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n")
            ).directed
        ),
        equals(False),
    ),
    (
        "mtx with too few entries",
        read_mtx("%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n2 3\n"),
        (DgraphInputError, "declares 3 entries but holds 2"),
    ),
    (
        "mtx entry outside the size",
        read_mtx("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 9\n"),
        (DgraphInputError, "outside 1..3"),
    ),
    (
        "mtx malformed entry",
        read_mtx("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 x\n"),
        (DgraphInputError, "not an integer"),
    ),
    (
        "mtx not square",
        read_mtx("%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n"),
        (DgraphInputError, "is square"),
    ),
    (
        "mtx bad size line",
        read_mtx("%%MatrixMarket matrix coordinate pattern general\n3 3\n1 2\n"),
        (DgraphInputError, "size line"),
    ),
    (
        "mtx without banner",
        lambda t: dgraph.read_edgelist(write(t, "m.mtx", "3 3 1\n1 2\n")),
        (DgraphInputError, "no %%MatrixMarket banner"),
    ),
    (
        "mtx dense array",
        read_mtx("%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n1\n"),
        (DgraphInputError, "only Matrix Market coordinate"),
    ),
    (
        "mtx weight of a pattern",
        lambda t: dgraph.read_edgelist(
            write(t, "m.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n"), weight=2
        ),
        (DgraphInputError, "pattern matrix"),
    ),
    (
        "gml without source",
        lambda t: dgraph.read_edgelist(write(t, "g.gml", "graph [ node [ id 1 ] edge [ target 1 ] ]")),
        (DgraphInputError, "without source/target"),
    ),
    # ------------------------------------------------------------------ algorithm parameters
    ("unknown source", lambda t: frame(alg.bfs(graph(), 9)), (DgraphInputError, "source 9 is not a vertex")),
    ("source of the wrong type", lambda t: frame(alg.bfs(graph(), "0")), (DgraphInputError, "not a vertex")),
    # labels the client cannot place by itself: looked up on the cluster before the run starts
    (
        "unknown source among string labels",
        lambda t: frame(alg.bfs(dgraph.from_edgelist(E.astype(str)), "9")),
        (DgraphInputError, "source '9' is not a vertex"),
    ),
    (
        "unknown SSSP source of a reordered graph",
        lambda t: frame(alg.sssp(graph(vertex_order="degree"), 9)),
        (DgraphInputError, "source 9 is not a vertex"),
    ),
    (
        "a known string source",
        lambda t: int(frame(alg.bfs(dgraph.from_edgelist(E.astype(str)), "2")).distance.max()),
        equals(3),
    ),
    (
        "negative depth limit",
        lambda t: alg.bfs(graph(), 0, depth_limit=-1),
        (DgraphInputError, "depth_limit must be an integer at least 0"),
    ),
    (
        "numpy depth limit",
        lambda t: frame(alg.bfs(graph(), 0, depth_limit=np.int32(1))).distance.notna().sum(),
        equals(2),
    ),
    ("bad bfs method", lambda t: alg.bfs(graph(), 0, method="dfs"), (DgraphInputError, "method must be one of")),
    (
        "alpha out of range",
        lambda t: alg.pagerank(graph(), alpha=1.5),
        (DgraphInputError, "alpha must be a number in (0, 1]"),
    ),
    (
        "alpha as a string",
        lambda t: alg.pagerank(graph(), alpha="0.85"),
        (DgraphInputError, "alpha must be a finite number"),
    ),
    (
        "numpy alpha",
        lambda t: round(float(frame(alg.pagerank(graph(), alpha=np.float32(0.85))).pagerank.sum()), 9),
        equals(1.0),
    ),
    ("negative tol", lambda t: alg.pagerank(graph(), tol=-1), (DgraphInputError, "tol must be a number in [0")),
    (
        "zero max_iter",
        lambda t: alg.pagerank(graph(), max_iter=0),
        (DgraphInputError, "max_iter must be an integer at least 1"),
    ),
    (
        "pagerank negative weights",
        lambda t: alg.pagerank(weighted(w=(1.0, -2.0, 3.0, 4.0)), weight="w"),
        (DgraphInputError, "non-negative weights"),
    ),
    (
        "pagerank weight not built",
        lambda t: alg.pagerank(graph(), weight="w"),
        (DgraphInputError, "it has no numeric edge attributes"),
    ),
    (
        "personalization unknown vertex",
        lambda t: alg.pagerank(graph(), personalization={9: 1.0}),
        (DgraphInputError, "not a vertex"),
    ),
    (
        "personalization all zero",
        lambda t: alg.pagerank(graph(), personalization={0: 0.0}),
        (DgraphInputError, "not all zero"),
    ),
    (
        "sssp negative weights",
        lambda t: alg.sssp(weighted(w=(1.0, -2.0, 3.0, 4.0)), 0, weight="w"),
        (DgraphInputError, "non-negative weights"),
    ),
    (
        "sssp uses the graph's weight",
        lambda t: frame(alg.sssp(weighted(), 0)).distance.tolist(),
        equals([0.0, 1.0, 3.0, 6.0]),
    ),
    ("sssp weight not the graph's", lambda t: alg.sssp(weighted(), 0, weight="x"), (DgraphInputError, "are ['w']")),
    (
        "sssp non-positive delta",
        lambda t: alg.sssp(weighted(), 0, weight="w", delta=0),
        (DgraphInputError, "delta must be a number in (0"),
    ),
    (
        "numpy delta",
        lambda t: frame(alg.sssp(weighted(), 0, weight="w", delta=np.float64(2))).distance.tolist(),
        equals([0.0, 1.0, 3.0, 6.0]),
    ),
    (
        "cdlp negative rounds",
        lambda t: alg.label_propagation(graph(), max_iter=-1),
        (DgraphInputError, "max_iter must be an integer at least 0"),
    ),
    ("bc k too large", lambda t: alg.betweenness_centrality(graph(), k=9), (DgraphInputError, "in 1..4")),
    ("bc numpy k", lambda t: len(frame(alg.betweenness_centrality(graph(), k=np.int64(2), seed=1))), equals(4)),
    (
        "bc unknown source",
        lambda t: alg.betweenness_centrality(graph(), sources=[9]),
        (DgraphInputError, "not a vertex"),
    ),
    (
        "triangles of a directed graph",
        lambda t: alg.triangle_count(graph()),
        (DgraphInputError, "needs an undirected graph"),
    ),
    (
        "cores with self-loops",
        lambda t: alg.core_number(dgraph.from_edgelist(pd.DataFrame({"src": [0, 1], "dst": [0, 2]}), directed=False)),
        (DgraphInputError, "self_loops='drop'"),
    ),
    (
        "scc of an undirected graph",
        lambda t: alg.strongly_connected_components(graph(directed=False)),
        (DgraphInputError, "needs a directed graph"),
    ),
    (
        "components of a directed graph",
        lambda t: alg.connected_components(graph()),
        (DgraphInputError, 'connection="weak"'),
    ),
    (
        "components, bad connection",
        lambda t: alg.connected_components(graph(), connection="both"),
        (DgraphInputError, "must be"),
    ),
    (
        "matching of a directed graph",
        lambda t: alg.max_weight_matching(graph()),
        (DgraphInputError, "needs an undirected graph"),
    ),
    (
        "matching weight not built",
        lambda t: alg.max_weight_matching(graph(directed=False), weight="w"),
        (DgraphInputError, "has no numeric edge attributes"),
    ),
    (
        "matching negative weights",
        lambda t: (
            frame(alg.max_weight_matching(weighted(w=(-1.0, -2.0, -3.0, -4.0), directed=False), weight="w"))
            .mate.isna()
            .all()
        ),
        equals(True),
    ),
    (
        "matching keeps positive edges only",
        lambda t: (
            frame(alg.max_weight_matching(weighted(w=(5.0, -2.0, 0.0, -4.0), directed=False), weight="w"))
            .mate.fillna(-1)
            .tolist()
        ),
        equals([1, 0, -1, -1]),
    ),
    (
        "pointer jumping on undirected",
        lambda t: alg.pointer_jumping(graph(directed=False)),
        (DgraphInputError, "needs a directed graph"),
    ),
    (
        "unknown verifier",
        lambda t: alg.verify("apsp", graph(), pd.DataFrame({"vertex": []})),
        (DgraphInputError, "no verifier named"),
    ),
    ("kernel engine", lambda t: dgraph.kernels.set_engine("gpu"), (DgraphInputError, "kernel engine must be one of")),
    (
        "scheduler that is not there",
        lambda t: dgraph.cluster.connect("tcp://127.0.0.1:9", timeout=2),
        (DgraphError, "tcp://127.0.0.1:9"),
    ),
    (
        "both scheduler and file",
        lambda t: dgraph.cluster.connect("tcp://127.0.0.1:9", "f.json"),
        (DgraphInputError, "exactly one of"),
    ),
]


def _matching_networkx_negative():
    """networkx's own negative-weights test graph: the best matching weighs 2, and takes no
    negative edge."""
    G = nx.Graph()
    G.add_edge(1, 2, weight=2)
    G.add_edge(1, 3, weight=-2)
    G.add_edge(2, 3, weight=1)
    G.add_edge(2, 4, weight=-1)
    G.add_edge(3, 4, weight=-6)
    g = dgraph.from_networkx(G, weight="weight")
    mates = frame(alg.max_weight_matching(g, weight="weight")).set_index("vertex").mate.dropna().astype(int)
    return sum(G[u][v]["weight"] for u, v in mates.items() if u < v)


CASES.append(("networkx's negative-weight matching", lambda t: _matching_networkx_negative(), equals(2)))


def _sampled_directed_bc():
    """Sampled betweenness of a directed graph, unnormalized, is scaled as networkx scales it."""
    e = pd.DataFrame({"src": [0, 1, 2, 3, 1], "dst": [1, 2, 3, 0, 3]})
    g = dgraph.from_edgelist(e)
    got = frame(alg.betweenness_centrality(g, sources=[0, 1], normalized=False)).betweenness.to_numpy()
    G = nx.DiGraph(list(zip(e.src, e.dst)))
    raw = nx.betweenness_centrality_subset(G, [0, 1], list(G), normalized=False)
    n, k = 4, 2
    expect = [raw[v] * (n - 1) / ((k - 1) if v in (0, 1) else k) for v in range(4)]
    return bool(np.allclose(got, expect))


CASES.append(("sampled directed betweenness scale", lambda t: _sampled_directed_bc(), equals(True)))


@pytest.mark.parametrize("name, run, expected", CASES, ids=[c[0] for c in CASES])
def test_bad_input(client, tmp_path, name, run, expected):
    if isinstance(expected, tuple):
        error, phrase = expected
        with pytest.raises(error) as caught:
            run(tmp_path)
        assert phrase in str(caught.value), str(caught.value)
    else:
        expected(run(tmp_path))


def test_catalogue_is_large_enough():
    assert len(CASES) >= 60


CLI = [
    (["run", "bfs", "--dataset", "karate", "--source", "bob"], "is not a vertex"),
    (["run", "sssp", "--input", "{ragged}", "--weight"], "could not read"),
    (["run", "bfs", "--input", "{missing}"], "does not exist"),
    (["run", "pagerank", "--input", "{csv}", "--directed", "--undirected"], None),
]


@pytest.mark.parametrize("argv, phrase", CLI, ids=["unknown source", "ragged csv", "missing file", "both ways"])
def test_cli_reports_input_errors_without_a_traceback(client, capsys, tmp_path, argv, phrase):
    files = {
        "ragged": write(tmp_path, "r.csv", "1,2,0.5\n2,3\n3,4,1,9\n"),
        "missing": str(tmp_path / "missing.tsv"),
        "csv": write(tmp_path, "e.csv", "src,dst\n1,2\n"),
    }
    argv = [a.format(**files) for a in argv] + ["--scheduler", client.scheduler.address]
    if phrase is None:  # argparse refuses contradictory flags itself
        with pytest.raises(SystemExit):
            main(argv)
        return
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert phrase in err and "Traceback" not in err, err


def test_cli_directedness_and_header_flags(client, capsys, tmp_path):
    path = write(tmp_path, "e.csv", "src,dst\n1,2\n2,3\n")
    addr = client.scheduler.address
    assert main(["run", "wcc", "--input", path, "--scheduler", addr]) == 0
    assert "(directed)" in capsys.readouterr().out  # read_edgelist's default
    assert main(["run", "wcc", "--input", path, "--undirected", "--scheduler", addr]) == 0
    assert "(undirected)" in capsys.readouterr().out
    assert main(["run", "wcc", "--input", path, "--no-header", "--scheduler", addr]) == 0
    assert "3 vertices" not in capsys.readouterr().out  # 'src' and 'dst' are vertices then
