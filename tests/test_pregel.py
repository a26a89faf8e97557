"""Vertex programs (dgraph.pregel, dgraph.aggregate_messages) against the built-in algorithms,
networkx and scipy, on every layout kind and on more than one transport."""

import networkx as nx
import numba
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from graphs import er_edges, grid_edges, kron_edges, nx_graph
from scipy.sparse.csgraph import dijkstra

import dgraph
from dgraph import algorithms as alg
from dgraph.errors import DgraphInputError
from dgraph.partitioners import OneD, OnePointFiveD, TDOrch, TwoD
from dgraph.pregel import _probe

# one layout of each kind, each on several ranks
LAYOUTS = [
    OneD(ranks=3),
    TwoD(rows=2, cols=3),
    OnePointFiveD(rows=2, cols=3, e_threshold=20, h_threshold=6),
    TDOrch(ranks=4, chunk=2),
]
GRAPHS = {
    "random": lambda: er_edges(300, 1200, seed=3),
    "kronecker": lambda: kron_edges(8, seed=2),
    "grid": lambda: grid_edges(12, 15),
}


def pagerank_program(g, iterations):
    n = g.num_vertices
    return dgraph.pregel(
        g,
        {"pagerank": 1.0 / n},
        lambda src, dst, edge: src["pagerank"] / src["out_degree"],
        "sum",
        lambda state, msg, step: {"pagerank": 0.15 / n + 0.85 * msg},
        max_iter=iterations,
    )


def _close_to_pagerank(g, got, iterations=20):
    ref = alg.pagerank(g, tol=0, max_iter=iterations).compute()
    both = ref.merge(got.compute(), on="vertex", suffixes=("", "_pregel"))
    assert len(both) == g.num_vertices
    assert np.abs(both["pagerank"] - both["pagerank_pregel"]).max() < 1e-9


def _min_label(g, max_iter=100):
    """Each vertex's smallest canonical id in its component, spread until nothing changes."""
    return dgraph.pregel(
        g,
        {"label": lambda v: v["id"].to_numpy()},
        lambda src, dst, edge: src["label"],
        "min",
        lambda state, msg, step: {"label": np.minimum(state["label"], msg), "active": msg < state["label"]},
        max_iter=max_iter,
    )


def _partition(frame, column):
    return sorted(sorted(group) for group in frame.groupby(column).vertex.apply(list))


# Kronecker on every layout, the others on one each
PAGERANK_CASES = [("kronecker", layout) for layout in LAYOUTS] + [("random", LAYOUTS[2]), ("grid", LAYOUTS[1])]


@pytest.mark.parametrize(
    ("kind", "layout"), PAGERANK_CASES, ids=lambda x: x if isinstance(x, str) else type(x).__name__
)
def test_pagerank_program_equals_pagerank(client, kind, layout):
    g = dgraph.from_edgelist(GRAPHS[kind](), directed=False, layout=layout)
    _close_to_pagerank(g, pagerank_program(g, 20))
    assert g.last_stats.info["iterations"] == 20


@pytest.mark.parametrize("layout", LAYOUTS, ids=repr)
def test_min_labels_are_the_connected_components(client, layout):
    e = pd.concat([er_edges(200, 150, seed=5), grid_edges(6, 9) + 300], ignore_index=True)  # many components
    g = dgraph.from_edgelist(e, directed=False, layout=layout)
    got = _min_label(g).compute()
    rounds = g.last_stats.info["iterations"]
    assert rounds < 100  # stopped when no label moved
    assert _partition(got, "label") == _partition(alg.connected_components(g).compute(), "component")
    assert got.groupby("label").vertex.min().index.size == got.label.nunique()


def _relaxed(state, msg):
    return {"distance": np.minimum(state["distance"], msg), "active": msg < state["distance"]}


def test_shortest_paths_by_pregel_equal_dijkstra(client):
    rng = np.random.default_rng(4)
    e = er_edges(250, 900, seed=6).assign(w=rng.integers(1, 20, 900) / 4)
    source = int(e.src.iloc[0])
    labels = np.unique(np.r_[e.src, e.dst])
    at = {v: i for i, v in enumerate(labels)}
    arcs = e.groupby(["src", "dst"]).w.min().reset_index()
    A = sp.csr_matrix((arcs.w, (arcs.src.map(at), arcs.dst.map(at))), shape=(labels.size,) * 2)
    ref = dijkstra(A, indices=at[source])
    for layout in LAYOUTS:
        g = dgraph.from_edgelist(e, directed=True, weight="w", layout=layout)
        got = dgraph.pregel(
            g,
            {"distance": lambda v: np.where(v["vertex"] == source, 0.0, np.inf)},
            lambda src, dst, edge: (src["distance"] + edge["weight"], np.isfinite(src["distance"])),
            "min",
            lambda state, msg, step: _relaxed(state, msg),
            max_iter=1000,
        ).compute()
        assert np.array_equal(got.set_index("vertex").distance.reindex(labels).to_numpy(), ref)


def test_max_combine_and_stopping_when_nothing_is_active(client):
    """The largest id spreads through each component; BFS levels stop one update past the last."""
    e = pd.concat([kron_edges(7, seed=3), grid_edges(5, 7) + 1000], ignore_index=True)
    G = nx_graph(e, directed=False)
    for layout in LAYOUTS[:2]:
        g = dgraph.from_edgelist(e, directed=False, layout=layout)
        top = dgraph.pregel(
            g,
            {"top": lambda v: v["vertex"].to_numpy()},
            lambda src, dst, edge: src["top"],
            "max",
            lambda state, msg, step: {"top": np.maximum(state["top"], msg), "active": msg > state["top"]},
        ).compute()
        expect = {v: max(c) for c in nx.connected_components(G) for v in c}
        assert dict(zip(top.vertex, top.top)) == expect
        source = int(e.src.iloc[0])
        levels = dgraph.pregel(
            g,
            {"level": lambda v: np.where(v["vertex"] == source, 0, -1)},
            lambda src, dst, edge: (src["level"] + 1, src["level"] >= 0),
            "max",
            lambda state, msg, step: {
                "level": np.where(state["level"] < 0, np.maximum(msg, -1), state["level"]),
                "active": (state["level"] < 0) & (msg >= 0),
            },
            max_iter=1000,
        ).compute()
        ref = nx.single_source_shortest_path_length(G, source)
        got = levels[levels.level >= 0]
        assert dict(zip(got.vertex, got.level)) == ref
        # the source is active first, each level activates the next; the last level activates none
        assert g.last_stats.info["iterations"] == max(ref.values()) + 1


@numba.njit
def _jitted_min(src, dst, edge):
    return np.minimum(src["label"], dst["label"])


@numba.njit
def _jitted_update(state, msg, step):
    return np.minimum(state["label"], msg), msg < state["label"]


def test_numba_compiled_functions(client):
    """A compiled message reading dst (the columns as named tuples) and an update returning a tuple."""
    g = dgraph.from_edgelist(kron_edges(8, seed=2), directed=False, layout=LAYOUTS[1])
    got = dgraph.pregel(g, {"label": lambda v: v["id"].to_numpy()}, _jitted_min, "min", _jitted_update).compute()
    assert _partition(got, "label") == _partition(alg.connected_components(g).compute(), "component")


@pytest.mark.parametrize("transport", ["grouped", "pipelined"])
def test_other_transports_give_the_same_states(client, transport):
    e = pd.concat([kron_edges(8, seed=2), grid_edges(4, 4) + 1000], ignore_index=True)
    for layout in (LAYOUTS[1], LAYOUTS[2]):
        g = dgraph.from_edgelist(e, directed=False, layout=layout)
        h = g.with_transport(transport, domains=2) if transport == "grouped" else g.with_transport(transport)
        _close_to_pagerank(g, pagerank_program(h, 20))
        a, b = _min_label(g).compute(), _min_label(h).compute()
        pd.testing.assert_frame_equal(*(x.sort_values("vertex", ignore_index=True) for x in (a, b)))


def test_aggregate_messages_and_vertex_labels(client):
    e = pd.DataFrame({"src": ["a", "b", "c", "c", "d"], "dst": ["b", "c", "a", "b", "b"]})
    g = dgraph.from_edgelist(e, directed=True, layout=TwoD(rows=2, cols=2))
    # the largest in-neighbour's out-degree; "a" receives from "c" only, "d" from nobody
    got = dgraph.aggregate_messages(g, lambda src, dst, edge: src["out_degree"], "max").compute()
    assert dict(zip(got.vertex, got.msg)) == {"a": 2, "b": 2, "c": 1}
    # init reads the user's labels; dst columns reach the heads' ranks
    same = dgraph.aggregate_messages(
        g,
        lambda src, dst, edge: (src["initial"] == dst["initial"]).astype(np.int64),
        "sum",
        init={"initial": lambda v: v["vertex"].str.get(0).to_numpy() == "c"},
    ).compute()
    assert dict(zip(same.vertex, same.msg)) == {"a": 0, "b": 2, "c": 0}  # b: from a and d, not c


def test_reads_are_found_by_calling_message_on_no_arcs():
    dtypes = {"x": np.dtype(float), "y": np.dtype(np.int64), "id": np.dtype(np.int64)}
    reads, dtype = _probe(lambda s, d, e: s["x"] * d["y"] + e["weight"], dtypes, {"weight": np.dtype(float)})
    assert (reads.src, reads.dst, reads.edge, dtype) == (("x",), ("y",), ("weight",), np.float64)
    reads, dtype = _probe(lambda s, d, e: s["y"] > 0, dtypes, {})
    assert (reads.src, reads.dst, reads.edge, dtype) == (("y",), (), (), np.bool_)
    reads, _ = _probe(lambda s, d, e: s["x"][0] + d["y"], dtypes, {})  # fails on no arcs: all fetched
    assert reads.src == reads.dst == tuple(dtypes)


def test_bad_programs_are_named(client):
    g = dgraph.from_edgelist(er_edges(50, 120, seed=1), directed=False, layout=OneD(ranks=2))
    ok_msg = lambda src, dst, edge: src["x"]  # noqa: E731
    ok_update = lambda state, msg, step: {"x": msg}  # noqa: E731
    with pytest.raises(DgraphInputError, match="combine must be one of .* got 'mean'"):
        dgraph.pregel(g, {"x": 1.0}, ok_msg, "mean", ok_update)
    with pytest.raises(DgraphInputError, match=r"message reads dst\['nope'\], which is not a column"):
        dgraph.pregel(g, {"x": 1.0}, lambda src, dst, edge: dst["nope"], "sum", ok_update)
    with pytest.raises(DgraphInputError, match="update returned column 'y', which is not a state column"):
        dgraph.pregel(g, {"x": 1.0}, ok_msg, "sum", lambda state, msg, step: {"y": msg})
    with pytest.raises(DgraphInputError, match=r"message returned \d+ values for \d+; return one per arc"):
        dgraph.pregel(g, {"x": 1.0}, lambda src, dst, edge: dst["x"][1:], "sum", ok_update, max_iter=2)
    with pytest.raises(DgraphInputError, match=r"update's 'x' returned 3 values for \d+"):
        dgraph.pregel(g, {"x": 1.0}, ok_msg, "sum", lambda state, msg, step: {"x": msg[:3]}, max_iter=2)
    with pytest.raises(DgraphInputError, match=r"init\['x'\] must be a number"):
        dgraph.pregel(g, {"x": "one"}, ok_msg, "sum", ok_update)
    with pytest.raises(DgraphInputError, match=r"init\['x'\] made values of type object"):
        dgraph.pregel(g, {"x": lambda v: v["vertex"].astype(str).astype(object)}, ok_msg, "sum", ok_update)
    with pytest.raises(DgraphInputError, match="init column 'id'"):
        dgraph.pregel(g, {"id": 1}, ok_msg, "sum", ok_update)
    with pytest.raises(DgraphInputError, match=r"reads names src\['z'\]"):
        dgraph.pregel(g, {"x": 1.0}, ok_msg, "sum", ok_update, reads={"src": ["z"]})
    with pytest.raises(DgraphInputError, match="max_iter must be an integer"):
        dgraph.pregel(g, {"x": 1.0}, ok_msg, "sum", ok_update, max_iter=2.5)
    with pytest.raises(DgraphInputError, match="aggregates name 'x'"):
        dgraph.pregel(g, {"x": 1.0}, ok_msg, "sum", ok_update, aggregates={"x": lambda s: s["x"]})
    with pytest.raises(DgraphInputError, match=r"aggregates\['total'\] must be a function"):
        dgraph.pregel(g, {"x": 1.0}, ok_msg, "sum", ok_update, aggregates={"total": 3})
    with pytest.raises(DgraphInputError, match=r"message reads edge\['t'\], which is not a column"):
        dgraph.pregel(g, {"x": 1.0}, lambda src, dst, edge: edge["t"], "sum", ok_update)


def dangling_pagerank_program(g, iterations, alpha=0.85):
    """PageRank as the built-in computes it on a directed graph: the sinks' rank (an aggregate)
    spread over every vertex."""
    n = g.num_vertices
    return dgraph.pregel(
        g,
        {"pagerank": 1.0 / n},
        lambda src, dst, edge: src["pagerank"] / src["out_degree"],
        "sum",
        lambda state, msg, step: {"pagerank": (1 - alpha) / n + alpha * (msg + state["dangling"] / n)},
        max_iter=iterations,
        aggregates={"dangling": lambda state: np.where(state["out_degree"] == 0, state["pagerank"], 0.0)},
    )


QUICK_FIRST = [x if i == 0 else pytest.param(x, marks=pytest.mark.slow) for i, x in enumerate(LAYOUTS)]


@pytest.mark.parametrize("layout", QUICK_FIRST, ids=repr)
def test_aggregates_give_pagerank_with_sinks(client, layout):
    e = kron_edges(8, seed=4)
    g = dgraph.from_edgelist(e, directed=True, layout=layout)
    assert (g.degrees().compute().out_degree == 0).any()  # sinks, whose rank only the aggregate spreads
    _close_to_pagerank(g, dangling_pagerank_program(g, 20))
    ref = nx.pagerank(nx_graph(e, directed=True), tol=1e-13, max_iter=1000)
    got = dangling_pagerank_program(g, 200).compute()
    assert max(abs(ref[v] - p) for v, p in zip(got.vertex, got.pagerank)) < 1e-9


@pytest.mark.parametrize("layout", [LAYOUTS[0], pytest.param(LAYOUTS[2], marks=pytest.mark.slow)], ids=repr)
def test_messages_read_edge_attributes(client, layout):
    """Every edge attribute reaches message (in-blocks keep them), also after an update, and
    weight= names which one is edge["weight"]."""
    rng = np.random.default_rng(7)
    e = er_edges(120, 500, seed=8).drop_duplicates(["src", "dst"])
    e = e.assign(w=rng.random(len(e)), t=rng.integers(0, 50, len(e)), kind=rng.integers(0, 3, len(e)).astype(bool))
    g = dgraph.from_edgelist(e, directed=True, weight="w", edge_attrs=["t", "kind"], layout=layout)

    def heaviest_kind_arc(graph, frame, weight=dgraph.GRAPH_WEIGHT):
        got = dgraph.aggregate_messages(
            graph, lambda src, dst, edge: np.where(edge["kind"], edge["t"] + edge["weight"], -1.0), "max", weight=weight
        ).compute()
        ref = frame.assign(x=np.where(frame.kind, frame.t + frame[weight if isinstance(weight, str) else "w"], -1.0))
        ref = ref.groupby("dst").x.max()
        assert dict(zip(got.vertex, got.msg)) == pytest.approx(ref.to_dict(), rel=1e-12)

    heaviest_kind_arc(g, e)
    heaviest_kind_arc(g, e, weight="t")  # edge["weight"] holds t; every attribute is still there
    more = pd.DataFrame({"src": [0, 1, 500], "dst": [500, 2, 3], "w": 2.0, "t": [7, 8, 9], "kind": True})
    heaviest_kind_arc(g.add_edges(more), pd.concat([e, more]).drop_duplicates(["src", "dst"]))
