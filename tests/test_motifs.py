"""Motif finding (``g.find``): the pattern parser's errors and their positions, the plan's
refusals, and match counts against networkx adjacency (closed walks, paths, reciprocal pairs,
negations, self-loops, networkx's triangles) on random, skewed and grid graphs, directed and
undirected, on every layout; rows against a pandas join, ``e.<attribute>`` columns, string
labels and ``limit``."""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from graphs import EACH_KIND, LAYOUTS, er_edges, grid_edges, kron_edges, nx_graph

import dgraph
from dgraph.errors import DgraphInputError
from dgraph.motifs import parse, plan, sizing
from dgraph.motifs.plan import Need

TRIANGLE = "(a)-[]->(b); (b)-[]->(c); (c)-[]->(a)"
RECIPROCAL = "(a)-[]->(b); (b)-[]->(a)"
TWO_PATH = "(a)-[]->(b); (b)-[]->(c)"
OPEN_TWO_PATH = "(a)-[]->(b); (b)-[]->(c); !(a)-[]->(c)"
SELF_LOOP = "(a)-[]->(a)"


def _adjacency(e, directed):
    """networkx's 0/1 adjacency matrix of the graph dgraph builds (duplicates dropped, an
    undirected edge both ways, a self-loop once)."""
    G = nx_graph(e, directed)
    return G, nx.to_numpy_array(G, dtype=np.int64, weight=None)


def _expected(G, A):
    """Each pattern's number of matches: GraphFrames' semantics (names may share a vertex) are
    closed walks and walks of the adjacency; ``distinct`` ones drop the loops and the walks that
    come back."""
    B = A - np.diag(np.diag(A))
    A2, B2 = A @ A, B @ B
    counts = {
        TRIANGLE: int(np.trace(A2 @ A)),
        RECIPROCAL: int((A * A.T).sum()),
        TWO_PATH: int(A2.sum()),
        OPEN_TWO_PATH: int((A2 * (1 - A)).sum()),
        SELF_LOOP: nx.number_of_selfloops(G),
        ("distinct", TRIANGLE): int(np.trace(B2 @ B)),
        ("distinct", TWO_PATH): int(B2.sum() - np.trace(B2)),
    }
    if not G.is_directed():  # networkx's triangles: each one found 3! ways round
        H = nx.Graph(G)
        H.remove_edges_from(nx.selfloop_edges(H))
        assert counts["distinct", TRIANGLE] == 2 * sum(nx.triangles(H).values())
    return counts


def _count(g, pattern):
    if isinstance(pattern, tuple):
        return len(g.find(pattern[1], distinct=True))
    return len(g.find(pattern))


def _spread(monkeypatch, how):
    """Make ``find`` join as it does on graphs of another size (``dgraph.motifs.sizing``)."""
    small, broadcast = {"one task": (1 << 30, 1 << 30), "broadcast": (0, 1 << 30), "shuffled": (0, 0)}[how]
    monkeypatch.setattr(sizing, "SMALL_ARCS", small)
    monkeypatch.setattr(sizing, "BROADCAST_ARCS", broadcast)
    monkeypatch.setattr(sizing, "CHUNK_ARCS", 160)  # several chunks of partial matches


GRAPHS = {
    "er": lambda: er_edges(70, 320, seed=4),
    "kronecker": lambda: kron_edges(7, seed=3),
    "grid": lambda: pd.concat([grid_edges(6, 7), pd.DataFrame({"src": [8, 20, 3], "dst": [1, 13, 3]})]),
}


@pytest.mark.slow
@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@pytest.mark.parametrize("kind", list(GRAPHS))
def test_counts_match_networkx_on_every_layout(client, kind, directed, monkeypatch):
    e = GRAPHS[kind]()
    expected = _expected(*_adjacency(e, directed))
    patterns = list(expected)
    for i, layout in enumerate(EACH_KIND):
        # the joins in one task, as for small graphs; broadcast to chunks; or hash-shuffled
        _spread(monkeypatch, ["one task", "broadcast", "shuffled"][i % 3])
        g = dgraph.from_edgelist(e, directed=directed, layout=layout)
        # the triangle on every layout, the other patterns on two layouts each
        for pattern in [TRIANGLE, *patterns[1 + i % 3 :: 3]]:
            assert _count(g, pattern) == expected[pattern], (layout, pattern)


@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
def test_counts_match_networkx(client, directed):
    e = er_edges(40, 160, seed=5)
    expected = _expected(*_adjacency(e, directed))
    g = dgraph.from_edgelist(e, directed=directed, layout=LAYOUTS[5 if directed else 1])
    for pattern in (TRIANGLE, OPEN_TWO_PATH, SELF_LOOP) if directed else (RECIPROCAL, ("distinct", TRIANGLE)):
        assert _count(g, pattern) == expected[pattern], pattern


def _pandas_matches(arcs, pattern_terms):
    """A reference evaluation: pandas joins of ``arcs`` [src, dst] for terms (x, y), names
    shared by a join."""
    found = None
    for x, y in pattern_terms:
        frame = arcs.rename(columns={"src": x, "dst": y})
        found = frame if found is None else found.merge(frame, on=[c for c in (x, y) if c in found.columns])
    return found


def test_rows_in_string_labels_match_a_pandas_join(client, monkeypatch):
    e = er_edges(30, 120, seed=6)
    e = e.assign(src="v" + e.src.astype(str), dst="v" + e.dst.astype(str))
    g = dgraph.from_edgelist(e, directed=True, layout=LAYOUTS[4])
    arcs = e.drop_duplicates()
    ref = _pandas_matches(arcs, [("a", "b"), ("b", "c"), ("c", "a")])
    key = ["a", "b", "c"]
    with monkeypatch.context() as m:
        _spread(m, "broadcast")
        got = g.find(TRIANGLE).compute()
    with monkeypatch.context() as m:
        _spread(m, "shuffled")
        assert got.sort_values(key).values.tolist() == g.find(TRIANGLE).compute().sort_values(key).values.tolist()
    assert list(got.columns) == ["a", "b", "c"] and isinstance(got.a.iloc[0], str)
    assert got.sort_values(key).values.tolist() == ref[key].sort_values(key).values.tolist()
    # the same vertex may stand for two names, as in GraphFrames; distinct=True forbids it
    paths = g.find(TWO_PATH).compute()
    ref_paths = _pandas_matches(arcs, [("a", "b"), ("b", "c")])
    assert len(paths) == len(ref_paths) and (paths.a == paths.c).any()
    a, b, c = ref_paths.a, ref_paths.b, ref_paths.c
    assert len(g.find(TWO_PATH, distinct=True)) == int(((a != b) & (b != c) & (a != c)).sum())


def test_edge_attribute_columns(client):
    rng = np.random.default_rng(7)
    e = er_edges(25, 90, seed=7).drop_duplicates(["src", "dst"]).reset_index(drop=True)
    e = e.assign(weight=rng.random(len(e)), t=rng.integers(0, 100, len(e)), kind=rng.choice(["x", "y"], len(e)))
    g = dgraph.from_edgelist(e, weight="weight", edge_attrs=["t", "kind"], layout=LAYOUTS[1])
    got = g.find("(a)-[e]->(b); (b)-[]->(c); (c)-[f]->(a)").compute()
    assert list(got.columns) == ["a", "e.weight", "e.t", "e.kind", "b", "c", "f.weight", "f.t", "f.kind"]
    assert got["e.t"].dtype == e.t.dtype and got["e.weight"].dtype == np.float64
    by_arc = e.set_index(["src", "dst"])
    for _, row in got.iterrows():
        assert by_arc.loc[(row.a, row.b)].tolist() == [row["e.weight"], row["e.t"], row["e.kind"]]
        assert by_arc.loc[(row.c, row.a)].tolist() == [row["f.weight"], row["f.t"], row["f.kind"]]
    ref = _pandas_matches(e[["src", "dst"]], [("a", "b"), ("b", "c"), ("c", "a")])
    assert len(got) == len(ref) > 0
    # a graph without attributes: a named edge adds no column
    h = dgraph.from_edgelist(e[["src", "dst"]], directed=False)
    assert list(h.find("(a)-[e]->(b)").columns) == ["a", "b"]
    assert len(h.find("(a)-[e]->(b)")) == h.num_arcs


def test_unbounded_patterns_need_a_limit(client):
    e = pd.DataFrame({"src": [0, 1, 2, 2], "dst": [1, 2, 0, 3]})
    g = dgraph.from_edgelist(e, ranks=2)
    with pytest.raises(DgraphInputError, match="cross product") as err:
        g.find("(a)-[]->(b); (c)-[]->(d)")
    assert "\n    (a)-[]->(b); (c)-[]->(d)\n                 ^\n" in str(err.value)
    assert len(g.find("(a)-[]->(b); (c)-[]->(d)", limit=10**6)) == 16
    few = g.find("(a)-[]->(b); (c)-[]->(d)", limit=5).compute()
    assert len(few) == 5 and list(few.columns) == ["a", "b", "c", "d"]
    three = g.find("(a)-[]->(b); (b)-[]->(c)", limit=3).compute()
    paths = set(_pandas_matches(e, [("a", "b"), ("b", "c")]).itertuples(index=False, name=None))
    assert len(three) == 3 and set(three.itertuples(index=False, name=None)) <= paths
    assert len(g.find("(a)-[]->()")) == 4
    swapped = g.find("(dst)-[]->(src)").compute()  # names that are also the arcs' own columns
    assert sorted(zip(swapped.dst, swapped.src)) == sorted(zip(e.src, e.dst))
    assert g.find("(a)-[]->(b); !(b)-[]->()").compute().values.tolist() == [[2, 3]]  # 3 has no out-arc
    with pytest.raises(DgraphInputError, match="limit must be a positive integer"):
        g.find("(a)-[]->(b)", limit=0)


@pytest.mark.parametrize(
    "pattern, position, says",
    [
        ("(a)-[e]>(b)", 7, "expected '->', found '>'"),
        ("(a)-[]->(b);", 12, "expected '(', found the end of the pattern"),
        ("(a)-[]->(b) (b)-[]->(c)", 12, "expected ';'"),
        ("(a)-[e]->(b); (b)-[e]->(c)", 19, "the edge name 'e' is used twice"),
        ("(a)-[1x]->(b)", 5, "'1' cannot start a name"),
        ("(a)-[]->(b); !(a)-[e]->(b)", 19, "negated term names its edge"),
        ("(a)-[a]->(b)", 5, "names a vertex and an edge"),
        ("()-[]->()", 0, "names nothing"),
        ("()-[e]->()", 0, "names no vertex"),
        ("!(a)-[]->(b)", 0, "negated terms alone"),
        ("(a)-[]->(b); !(b)-[]->(c)", 23, "vertex 'c' is not named by any positive term"),
        ("(a) - [e] -> (b) ; ( b )-[ ]->(c) ;  (c)--(a)", 41, "expected '['"),
    ],
)
def test_bad_patterns_point_at_their_position(pattern, position, says):
    with pytest.raises(DgraphInputError) as err:
        plan(parse(pattern), directed=True)
    message = str(err.value)
    assert says in message and f"at position {position}\n" in message
    assert f"\n    {pattern}\n    {' ' * position}^\n" in message


def test_plan_orders_joins_and_prunes_by_degree():
    p = plan(parse("(a)-[]->(b); (c)-[]->(d); (b)-[]->(c); (a)-[]->(a); (a)-[]->(c)"), directed=True, distinct=True)
    (steps,) = p.components  # the loop first; (c)->(d) waits until c is bound; filters before new names
    assert [(s.term.src, s.term.dst, s.on) for s in steps] == [
        ("a", "a", ()),
        ("a", "b", ("a",)),
        ("b", "c", ("b",)),
        ("a", "c", ("a", "c")),
        ("c", "d", ("c",)),
    ]
    assert p.needs == {"a": Need(out=2, into=0), "c": Need(out=1, into=2)}
    hub = plan(parse("(h)-[]->(x); (h)-[]->(y); (z)-[]->(h)"), directed=False, distinct=True)
    assert hub.needs == {"h": Need(out=3, into=0)} and len(hub.unequal) == 0  # every pair after the last join
    assert sum(len(s.unequal) for s in hub.components[0]) == 6
    assert plan(parse("(h)-[]->(x); (h)-[]->(y)"), directed=False).needs == {}  # names may share a vertex
